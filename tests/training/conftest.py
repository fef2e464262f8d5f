"""Shared set-up of the training tests (``nox -s training``: PyTorch, SB3, sb3-contrib).

The networks here are tiny: one thread per process trains them as fast as
two, leaves the second core to the environments, and gives the same
numbers on every run of the same machine.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch

import sekai
import sekai.registry
from sekai.core import MultiAgentEnv

torch.set_num_threads(1)


def _single_agent_ids() -> list[str]:
    """Every registered single-agent env id, read from the registry."""
    ids = []
    for spec in sekai.registry.all_specs():
        env: Any = sekai.make(spec.id)  # an Env or a MultiAgentEnv
        try:
            if not isinstance(env, MultiAgentEnv):
                ids.append(spec.id)
        finally:
            env.close()
    return sorted(ids)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrise ``single_agent_id`` over every registered single-agent env."""
    if "single_agent_id" in metafunc.fixturenames:
        metafunc.parametrize("single_agent_id", _single_agent_ids())


@pytest.fixture(scope="session")
def single_agent_ids() -> list[str]:
    """The ids ``single_agent_id`` runs over."""
    return _single_agent_ids()
