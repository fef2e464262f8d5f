"""sb3-contrib's MaskablePPO on LimitOrderBook-v0, through to_gymnasium, with its action masks.

The env carries out a masked order as "none" rather than raising, so
honouring the masks is checked from the outside: `MaskAudit` compares every
action that reaches the env with the mask in force when it was chosen.
A small ``max_inventory`` makes the masks bind often.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from sb3_contrib import MaskablePPO

import sekai
from sekai.compat import to_gymnasium
from sekai.wrappers import FlattenObservation

BUDGET = 2048


class MaskAudit(gymnasium.Wrapper[Any, Any, Any, Any]):
    """Counts steps, steps with a binding mask, and actions that break the mask."""

    def __init__(self, env: gymnasium.Env[Any, Any]) -> None:
        super().__init__(env)
        space = env.action_space
        assert isinstance(space, gymnasium.spaces.MultiDiscrete)
        self.splits = np.cumsum(space.nvec)[:-1]  # the mask is one part per action entry
        self.steps = self.binding = self.violations = 0

    def step(self, action: Any) -> Any:
        mask = self.env.get_wrapper_attr("action_masks")()
        parts = np.split(mask, self.splits)
        self.steps += 1
        self.binding += not mask.all()
        self.violations += not all(part[choice] for part, choice in zip(parts, action, strict=True))
        return self.env.step(action)


def make_audited() -> MaskAudit:
    env = sekai.make("LimitOrderBook-v0", session_length=128.0, max_inventory=2)
    return MaskAudit(to_gymnasium(FlattenObservation(env)))


def test_the_adapter_forwards_the_flattened_mask() -> None:
    env = to_gymnasium(sekai.make("LimitOrderBook-v0"))
    env.reset(seed=0)
    mask = env.action_masks()
    assert mask.dtype == np.bool_ and mask.shape == (int(env.action_space.nvec.sum()),)
    expected = np.concatenate(env.sekai_env.action_mask()).astype(bool)
    np.testing.assert_array_equal(mask, expected)


def test_the_audit_sees_masked_actions_of_an_unmasked_policy() -> None:
    env = make_audited()
    env.reset(seed=0)
    env.action_space.seed(0)
    for _ in range(128):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            break
    assert env.binding > 0 and env.violations > 0


def test_maskable_ppo_trains_and_honours_the_masks() -> None:
    env = make_audited()
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, n_epochs=4, seed=0)
    model.learn(total_timesteps=BUDGET)
    assert model.num_timesteps >= BUDGET
    assert env.steps >= BUDGET
    assert env.binding > 0.05 * env.steps  # the masks were in play ...
    assert env.violations == 0  # ... and no masked order was ever sent while training

    env.steps = env.binding = 0
    for seed in (10, 11):
        observation, _ = env.reset(seed=seed)
        done = False
        while not done:
            masks = env.get_wrapper_attr("action_masks")()
            action, _ = model.predict(observation, action_masks=masks, deterministic=True)
            observation, _, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
    assert env.steps == 256 and env.binding > 0
    assert env.violations == 0  # nor by the trained policy
