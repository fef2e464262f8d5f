"""RecordFrames under its earlier module path (it lives in `sekai.rendering.recorder`)."""

from __future__ import annotations

from sekai.rendering.recorder import RecordFrames

__all__ = ["RecordFrames"]
