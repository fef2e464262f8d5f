"""DelayAction: actions reach the env a fixed number of steps after they are chosen."""

from __future__ import annotations

from collections import deque
from typing import Any

from sekai._internal.validation import check_int
from sekai.core import ActionWrapper, ActType, Env, ObsType, ResetResult, SeedType as SeedType
from sekai.spaces import Box
from sekai.wrappers._checks import warn_if_around_autoreset
from sekai.wrappers._copy import copier_for

__all__ = ["DelayAction"]


class DelayAction(ActionWrapper[ObsType, ActType, ActType]):
    """Executes each action ``delay`` steps after the agent chooses it.

    Models order latency: a decision made on bar ``t`` reaches the market on
    bar ``t + delay``, so a policy cannot trade on the very price it just
    observed. During the first ``delay`` steps of an episode the env receives
    ``noop``. ``delay=0`` changes nothing. A queued action is a copy of the
    one given, so a policy may write every action into the same array.

    ``noop`` defaults to the zero action of a Box action space
    (``action_space.zero()``: all-cash or no-trade, depending on the env). For
    other spaces it must be given, because index 0 of a Discrete space (say)
    is rarely "do nothing".

    The queue of pending actions is per-episode state: put ``AutoReset``
    outside this wrapper (it warns when built around one).

    Args:
        env: The environment to wrap.
        delay: Steps between choosing and executing an action (>= 0).
        noop: The action executed while the pipeline fills.

    Raises:
        TypeError: ``delay`` is not an int, or ``noop`` is missing for a
            non-Box action space.
        ValueError: ``delay`` < 0, or ``noop`` is not in the action space.
    """

    def __init__(self, env: Env[ObsType, ActType], delay: int, *, noop: Any = None) -> None:
        owner = "DelayAction"
        steps = check_int(delay, f"{owner}: delay", minimum=0)
        space = env.action_space
        if noop is None:
            if isinstance(space, Box):
                noop = space.zero()
            elif steps > 0:
                raise TypeError(
                    f"{owner}: noop is required for the action space {space!r} (only a Box "
                    "has a default, its zero action); pass the action that does nothing, "
                    "e.g. DelayAction(env, delay, noop=...)"
                )
        elif not space.contains(noop):
            raise ValueError(f"{owner}: noop {noop!r} is not in the action space {space!r}")
        super().__init__(env)
        warn_if_around_autoreset(owner, env)
        self.delay = steps
        self.noop: Any = noop
        self._queue: deque[Any] = deque([noop] * steps)
        self._copy = copier_for(space) if steps > 0 else None

    def _after_reset(self, result: ResetResult[ObsType]) -> ResetResult[ObsType]:
        # Refill the pipeline with noop for the new episode.
        self._queue.clear()
        self._queue.extend([self.noop] * self.delay)
        return result

    @property
    def pending_actions(self) -> list[Any]:
        """The queued actions the env has not received yet, next one first (a copy of the queue).

        Right after a reset these are ``delay`` copies of ``noop``.
        """
        return list(self._queue)

    def action(self, action: ActType) -> ActType:
        """Queue ``action`` and return the one chosen ``delay`` steps ago (or ``noop``)."""
        if self._copy is None:
            return action
        queue = self._queue
        queue.append(self._copy(action))
        return queue.popleft()  # type: ignore[no-any-return]
