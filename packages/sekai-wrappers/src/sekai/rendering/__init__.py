"""Rendering: the Renderer protocol and frame recording.

Environments do not render themselves: a :class:`Renderer` draws an env's
state, and :class:`RecordFrames` collects its frames step by step and can
write them to disk (GIF and PNG need ``pip install "sekai-wrappers[images]"``).
"""

from sekai.rendering.record_frames import RecordFrames
from sekai.rendering.renderer import Renderer

__all__ = ["RecordFrames", "Renderer"]
