"""ActionRepeat: each action is executed several times in a row."""

from __future__ import annotations

from sekai._internal.validation import check_int
from sekai.core import ActType, Env, ObsType, StepResult, Wrapper

__all__ = ["ActionRepeat"]


class ActionRepeat(Wrapper[ObsType, ActType, ObsType, ActType]):
    """Executes each action ``repeat`` times in a row, summing the rewards.

    Decouples the agent's decision interval from the simulator's tick (e.g.
    decide every 5 minutes on a 1-minute bar simulator). The repetition stops
    early when the episode ends (``terminated`` or ``truncated``). The
    returned observation, flags and info are those of the last inner step;
    the info is a new dict with ``info["action_repeats"]``, the number of
    inner steps that ran.

    Args:
        env: The environment to wrap.
        repeat: Inner steps per action (>= 1).

    Raises:
        TypeError: ``repeat`` is not an int.
        ValueError: ``repeat`` < 1.
    """

    def __init__(self, env: Env[ObsType, ActType], repeat: int) -> None:
        count = check_int(repeat, "ActionRepeat: repeat", minimum=1)
        super().__init__(env)
        self.repeat = count

    def step(self, action: ActType) -> StepResult[ObsType]:
        """Step the wrapped env up to ``repeat`` times with ``action``."""
        total = 0.0
        runs = 0
        while True:
            result = self.env.step(action)
            total += float(result.reward)
            runs += 1
            if runs >= self.repeat or result.terminated or result.truncated:
                return _finish(result, total, runs)

    async def async_step(self, action: ActType) -> StepResult[ObsType]:
        """Async form of `step`."""
        total = 0.0
        runs = 0
        while True:
            result = await self.env.async_step(action)
            total += float(result.reward)
            runs += 1
            if runs >= self.repeat or result.terminated or result.truncated:
                return _finish(result, total, runs)


def _finish(result: StepResult[ObsType], total: float, runs: int) -> StepResult[ObsType]:
    info = dict(result.info)
    info["action_repeats"] = runs
    return StepResult(result.observation, total, result.terminated, result.truncated, info)
