"""AutoReset: start the next episode in the same step that ends one."""

from __future__ import annotations

import warnings
from typing import ClassVar

from sekai.core import (
    FINAL_INFO,
    FINAL_OBSERVATION,
    RESET_INFO,
    ActType,
    Env,
    ObsType,
    ResetResult,
    StepResult,
    Wrapper,
)
from sekai.core.wrapper import contains_self_resetting_layer
from sekai.wrappers._copy import copier_for

__all__ = ["AutoReset"]


class AutoReset(Wrapper[ObsType, ActType, ObsType, ActType]):
    """Resets the wrapped env as soon as an episode ends, within the same ``step()``.

    When the inner step returns ``terminated`` or ``truncated``, the wrapper
    calls the inner ``reset()`` (without seed or options, so the random
    stream continues) and returns a [`StepResult`][sekai.core.StepResult] whose:

    - ``observation`` is the first observation of the new episode;
    - ``reward``, ``terminated`` and ``truncated`` are those of the final step;
    - ``info`` is a new dict holding the final step's info entries plus
      ``"final_observation"`` (the terminal observation), ``"final_info"``
      (the final step's info dict) and ``"reset_info"`` (the info returned by
      the reset).

    Other steps are returned unchanged. This is the same-step autoreset
    contract of every sekai vector env. The terminal observation and info are
    copied before the reset, so an env that writes every observation (or
    info) into the same buffer does not overwrite them with the new
    episode's.

    Ordering: make ``AutoReset`` the outermost wrapper, e.g.
    ``AutoReset(TimeLimit(env, 100))``. Its resets reach the layers inside it
    only; a wrapper outside it that keeps per-episode state (``TimeLimit``,
    ``TimeAwareObservation``, ``FrameStackObservation``, ``DelayObservation``,
    ``DelayAction``, ``StickyAction``) never sees them, and warns when it is
    built around an ``AutoReset``. ``RecordEpisodeStatistics`` works on
    either side. Wrapping an ``AutoReset`` in another ``AutoReset`` warns too:
    the outer one would reset the freshly reset env again, skipping episodes.

    Args:
        env: The environment to wrap.
    """

    _resets_itself: ClassVar[bool] = True

    def __init__(self, env: Env[ObsType, ActType]) -> None:
        super().__init__(env)
        if contains_self_resetting_layer(env):
            warnings.warn(
                f"AutoReset is wrapped around another AutoReset ({env}): the inner one has "
                "already started a new episode when the outer one resets again, so every "
                "other episode is skipped. Use a single AutoReset.",
                UserWarning,
                stacklevel=2,
            )
        self._copy_observation = copier_for(env.observation_space)

    def step(self, action: ActType) -> StepResult[ObsType]:
        """Step the wrapped env, resetting it in the same call when the episode ends."""
        result = self.env.step(action)
        if result.terminated or result.truncated:
            final = self._keep(result)
            return _combine(final, self.env.reset())
        return result

    async def async_step(self, action: ActType) -> StepResult[ObsType]:
        """Async form of `step` (awaits the inner ``async_reset``)."""
        result = await self.env.async_step(action)
        if result.terminated or result.truncated:
            final = self._keep(result)
            return _combine(final, await self.env.async_reset())
        return result

    def _keep(self, result: StepResult[ObsType]) -> StepResult[ObsType]:
        """A copy of the final step's observation and info, safe from the reset."""
        return StepResult(
            self._copy_observation(result.observation),
            result.reward,
            result.terminated,
            result.truncated,
            dict(result.info),
        )


def _combine(final: StepResult[ObsType], reset: ResetResult[ObsType]) -> StepResult[ObsType]:
    info = dict(final.info)
    info[FINAL_OBSERVATION] = final.observation
    info[FINAL_INFO] = final.info
    info[RESET_INFO] = reset.info
    return StepResult(reset.observation, final.reward, final.terminated, final.truncated, info)
