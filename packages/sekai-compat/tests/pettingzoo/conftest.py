"""Every test in this directory needs PettingZoo (the ``pettingzoo`` extra)."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo", reason="needs the pettingzoo extra")
