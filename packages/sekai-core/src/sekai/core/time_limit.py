"""TimeLimit: truncate episodes after a fixed number of steps."""

from __future__ import annotations

import warnings
from typing import Any

from sekai._internal.validation import check_int
from sekai.core.env import ActType, Env
from sekai.core.results import ObsType, ResetResult, StepResult
from sekai.core.wrapper import Wrapper, contains_self_resetting_layer
from sekai.utils.seeding import SeedType

__all__ = ["TimeLimit"]


class TimeLimit(Wrapper[ObsType, ActType, ObsType, ActType]):
    """Truncates an episode once it has run ``max_episode_steps`` steps.

    The step that reaches the limit returns ``truncated=True`` unless the env
    terminated on that very step, in which case both flags are passed through
    unchanged (the episode ended for a task reason, not because time ran out).
    ``terminated`` is never modified. Every step's info carries
    ``info["elapsed_steps"]``, the number of steps since the last reset; the
    info is a new dict, so the env's own dict is never mutated (an env may
    reuse one dict for every step). `reset` restarts the count.

    [`sekai.registry.make`][sekai.registry.make] applies this wrapper when the spec has a
    ``max_episode_steps``.

    Put ``AutoReset`` outside this wrapper, not inside: wrapped around an
    ``AutoReset``, this wrapper never sees the episode boundaries, so it warns.

    Args:
        env: The environment to wrap.
        max_episode_steps: Steps per episode, at least 1.

    Raises:
        TypeError: ``max_episode_steps`` is not an int.
        ValueError: ``max_episode_steps`` is below 1.
    """

    def __init__(self, env: Env[ObsType, ActType], max_episode_steps: int) -> None:
        limit = check_int(max_episode_steps, "max_episode_steps", minimum=1)
        super().__init__(env)
        if contains_self_resetting_layer(env):
            warnings.warn(
                f"TimeLimit is wrapped around an AutoReset ({env}): the resets AutoReset "
                "makes are invisible to it, so every step after the first limit is "
                "truncated. Wrap it the other way round: AutoReset(TimeLimit(env, n)).",
                UserWarning,
                stacklevel=2,
            )
        self._max_episode_steps: int = limit
        self._elapsed_steps: int = 0

    @property
    def max_episode_steps(self) -> int:
        """The step limit per episode.

        Assignable (directly or with ``set_attr``, e.g. to lengthen episodes
        during training); it applies from the current step on: an episode
        that has already run the new limit is truncated on its next step.

        Raises:
            TypeError: The new value is not an int.
            ValueError: The new value is below 1.
        """
        return self._max_episode_steps

    @max_episode_steps.setter
    def max_episode_steps(self, value: int) -> None:
        self._max_episode_steps = check_int(value, "max_episode_steps", minimum=1)

    @property
    def elapsed_steps(self) -> int:
        """Steps taken since the last reset."""
        return self._elapsed_steps

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Reset the wrapped env and the step count."""
        self._elapsed_steps = 0
        return self.env.reset(seed=seed, options=options)

    def step(self, action: ActType) -> StepResult[ObsType]:
        """Step the wrapped env, count the step and truncate at the limit."""
        return self._limit(self.env.step(action))

    async def async_reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Async form of `reset`."""
        self._elapsed_steps = 0
        return await self.env.async_reset(seed=seed, options=options)

    async def async_step(self, action: ActType) -> StepResult[ObsType]:
        """Async form of `step`."""
        return self._limit(await self.env.async_step(action))

    def _limit(self, result: StepResult[ObsType]) -> StepResult[ObsType]:
        elapsed = self._elapsed_steps + 1
        self._elapsed_steps = elapsed
        info = dict(result.info)
        info["elapsed_steps"] = elapsed
        truncated = result.truncated
        if elapsed >= self._max_episode_steps and not result.terminated:
            truncated = True
        return StepResult(result.observation, result.reward, result.terminated, truncated, info)
