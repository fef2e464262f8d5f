"""FrameStackObservation: the last N observations, stacked on a new leading axis."""

from __future__ import annotations

from collections import deque
from functools import partial
from typing import Any, Literal

from sekai._internal.validation import check_choice, check_int
from sekai.core import ActType, Env, ResetResult, SeedType as SeedType, StepResult, Wrapper
from sekai.spaces import batch_space, concatenate
from sekai.wrappers._checks import warn_if_around_autoreset
from sekai.wrappers._copy import copier_for

__all__ = ["FrameStackObservation"]


class FrameStackObservation(Wrapper[Any, ActType, Any, ActType]):
    """Stacks the last ``num_stack`` observations along a new leading axis.

    Gives a memoryless policy temporal context: recent prices, or motion in
    pixel observations. Any observation space that can be batched works
    ([`sekai.spaces.batch_space`][sekai.spaces.batch_space]), and nested spaces stack leaf by leaf:
    a Dict observation ``{"returns": (L, n), "weights": (n + 1,)}`` becomes
    ``{"returns": (N, L, n), "weights": (N, n + 1)}``, a MaskedBox keeps its
    ``values``/``mask`` layout with the stack axis in front of both, and a
    Discrete becomes an array of ``N`` actions' worth of indices. Input shape
    ``(d,)`` or ``(h, w, c)`` gives ``(N, d)`` or ``(N, h, w, c)``; the
    oldest observation comes first. Every returned stack is a new array, and
    the wrapper keeps copies of the observations it stacks, so an env that
    writes every observation into the same buffer still gets its past
    observations stacked, not N views of the latest one.

    ``padding`` fills the stack right after `reset`: ``"reset"`` (the
    default) repeats the first observation, ``"zeros"`` uses the space's zero
    ([`sekai.spaces.zero_sample`][sekai.spaces.zero_sample]), which makes the start of an episode
    visible to the agent.

    The stack is per-episode state: put ``AutoReset`` outside this wrapper
    (it warns when built around one).

    Args:
        env: The environment to wrap.
        num_stack: Observations per stack (>= 1).
        padding: ``"reset"`` or ``"zeros"``.

    Raises:
        TypeError: ``num_stack`` is not an int, or the observation space
            cannot be batched (e.g. a ``Sequence``).
        ValueError: ``num_stack`` < 1 or an unknown ``padding``.
    """

    def __init__(
        self,
        env: Env[Any, ActType],
        num_stack: int,
        *,
        padding: Literal["reset", "zeros"] = "reset",
    ) -> None:
        owner = "FrameStackObservation"
        size = check_int(num_stack, f"{owner}: num_stack", minimum=1)
        mode = check_choice(padding, f"{owner}: padding", ("reset", "zeros"))
        space = env.observation_space
        try:
            stacked = batch_space(space, size)
        except TypeError as error:
            raise TypeError(
                f"{owner} needs an observation space that can be batched, got {space!r} ({error})"
            ) from error
        super().__init__(env)
        warn_if_around_autoreset(owner, env)
        self.num_stack = size
        self.padding: Literal["reset", "zeros"] = "reset" if mode == "reset" else "zeros"
        self.observation_space = stacked
        self._single_space = space
        self._stack = partial(concatenate.dispatch(type(space)), space)
        self._frames: deque[Any] = deque(maxlen=size)
        self._copy = copier_for(space)

    def _after_reset(self, result: ResetResult[Any]) -> ResetResult[Any]:
        # Fill the stack with the padding and the first observation.
        return ResetResult(self._start(result.observation), result.info)

    def _after_step(self, result: StepResult[Any]) -> StepResult[Any]:
        # Push the observation onto the stack.
        return StepResult(
            self._push(result.observation),
            result.reward,
            result.terminated,
            result.truncated,
            result.info,
        )

    def _start(self, observation: Any) -> Any:
        frames = self._frames
        frames.clear()
        kept = self._copy(observation)
        pad = self._single_space.zero() if self.padding == "zeros" else kept
        frames.extend(pad for _ in range(self.num_stack - 1))
        frames.append(kept)
        return self._stack(list(frames))

    def _push(self, observation: Any) -> Any:
        self._frames.append(self._copy(observation))
        return self._stack(list(self._frames))
