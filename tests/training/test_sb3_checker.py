"""SB3's env checker on every registered single-agent env, through to_gymnasium.

Gymnasium's own checker runs on the same envs in the sekai-compat tests
(``packages/sekai-compat/tests/gymnasium/test_to_gymnasium.py``), which need
no PyTorch; SB3's needs it, so it runs here.

SB3's checker raises on what breaks its algorithms and warns about the rest.
Two of its warnings are advice, accepted here:

* a Box action space other than ``[-1, 1]``: the ranges are the envs' own
  (Gymnasium's for Pendulum-v1's torque, the models' units for the market
  envs), and SB3 rescales Box actions into them;
* a Box observation entry of more than one dimension (the book and return
  windows of the market envs): SB3's ``MultiInputPolicy`` flattens such
  entries itself.

One more points at a real limit: a ``Dict`` inside the observation ``Dict``
(sekai's ``MaskedBox`` becomes a ``{"values", "mask"}`` dict in Gymnasium),
which SB3's policies refuse (``NotImplementedError``). It is expected exactly
when the observation space nests a ``Dict``, and such an env must then pass
the checker cleanly behind ``FlattenObservation``, the way the training guide
uses it.
"""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import torch
from stable_baselines3.common.env_checker import check_env

import sekai
from sekai.compat import to_gymnasium
from sekai.wrappers import FlattenObservation

ADVICE = (
    "We recommend you to use a symmetric and normalized Box action space",
    "has an unconventional shape (neither an image, nor a 1D vector)",
)
NESTED = "Nested observation spaces are not supported by Stable Baselines3"


def _warnings_of_check(env: Any) -> list[str]:
    """Run SB3's checker on ``env``; return its warnings that are not mere advice."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, warn=True)
    env.close()
    messages = [str(warning.message) for warning in caught]
    return [message for message in messages if not any(text in message for text in ADVICE)]


def _nests_a_dict(space: Any) -> bool:
    return isinstance(space, gymnasium.spaces.Dict) and any(
        isinstance(part, gymnasium.spaces.Dict) for part in space.spaces.values()
    )


def test_sb3_check_env_passes(single_agent_id: str) -> None:
    env = to_gymnasium(sekai.make(single_agent_id))
    nested = _nests_a_dict(env.observation_space)
    remaining = _warnings_of_check(env)
    if nested:
        assert [NESTED in message for message in remaining] == [True]
        remaining = _warnings_of_check(
            to_gymnasium(FlattenObservation(sekai.make(single_agent_id)))
        )
    assert remaining == []


def test_every_kind_of_env_is_checked(single_agent_ids: list[str]) -> None:
    assert {"CartPole-v1", "Acrobot-v1", "Pendulum-v1", "LimitOrderBook-v0"} <= set(
        single_agent_ids
    )
    assert "MarketMicrostructure-v0" not in single_agent_ids  # multi-agent


def test_torch_is_the_cpu_build() -> None:
    assert torch.version.cuda is None, torch.__version__
