"""DelayObservation: observations arrive a fixed number of steps late."""

from __future__ import annotations

from collections import deque
from typing import Any, Literal

from sekai._internal.validation import check_choice, check_int
from sekai.core import ActType, Env, ObservationWrapper, ResetResult
from sekai.wrappers._checks import warn_if_around_autoreset
from sekai.wrappers._copy import copier_for

__all__ = ["DelayObservation"]


class DelayObservation(ObservationWrapper[Any, ActType, Any]):
    """Returns the observation from ``delay`` steps ago, modelling feed or decision latency.

    Step ``t`` of an episode (the reset being step 0) returns the observation
    of step ``t - delay``. Until ``delay`` observations have accumulated the
    wrapper returns padding: ``"zeros"`` (the default; the space's zero,
    i.e. 0 clipped into the bounds) or ``"reset"`` (the episode's first
    observation, often more natural for price series). ``delay=0`` changes
    nothing. The observation space is unchanged. The wrapper queues copies
    of the observations, so an env that writes every observation into the
    same buffer is still seen ``delay`` steps late.

    The queue of pending observations is per-episode state: put
    ``AutoReset`` outside this wrapper (it warns when built around one).

    Args:
        env: The environment to wrap.
        delay: Steps of delay (>= 0).
        padding: ``"zeros"`` or ``"reset"``.

    Raises:
        TypeError: ``delay`` is not an int.
        ValueError: ``delay`` < 0 or an unknown ``padding``.
    """

    def __init__(
        self,
        env: Env[Any, ActType],
        delay: int,
        *,
        padding: Literal["zeros", "reset"] = "zeros",
    ) -> None:
        owner = "DelayObservation"
        steps = check_int(delay, f"{owner}: delay", minimum=0)
        mode = check_choice(padding, f"{owner}: padding", ("zeros", "reset"))
        super().__init__(env)
        warn_if_around_autoreset(owner, env)
        self.delay = steps
        self.padding: Literal["zeros", "reset"] = "zeros" if mode == "zeros" else "reset"
        self._queue: deque[Any] = deque()
        self._first: Any = None
        self._copy = copier_for(env.observation_space)

    def _after_reset(self, result: ResetResult[Any]) -> ResetResult[Any]:
        self._queue.clear()  # before observation() queues the first observation
        return super()._after_reset(result)

    def observation(self, obs: Any) -> Any:
        """Queue one observation and return the one from ``delay`` steps ago (or padding)."""
        if self.delay == 0:
            return obs
        queue = self._queue
        kept = self._copy(obs)
        if not queue:
            self._first = kept
        queue.append(kept)
        if len(queue) > self.delay:
            return queue.popleft()
        if self.padding == "zeros":
            return self.observation_space.zero()
        return self._copy(self._first)  # the caller may modify what it gets
