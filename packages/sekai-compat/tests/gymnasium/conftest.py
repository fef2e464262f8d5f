"""Every test in this directory needs Gymnasium (the ``gymnasium`` extra)."""

from __future__ import annotations

import pytest

pytest.importorskip("gymnasium", reason="needs the gymnasium extra")
