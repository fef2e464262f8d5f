"""The reference environments of the VecEnv contract kit (``sekai.testing``).

`CountingEnv` is a small deterministic single env whose observation
reveals everything the contract is about: ``[start, t, total]`` is the
episode's start value (a draw from the env's seeded rng when
``random_start``, so it reveals the seed), the steps taken since the last
reset (reveals autoreset and freezing) and the sum of the actions received
(reveals which sub-env got which action). `CountingNativeVecEnv` is
the same dynamics as a [`NativeVecEnv`][sekai.vector.NativeVecEnv], drawing
sub-env ``i``'s randomness from ``rngs[i]`` as the single env does, so both
give identical trajectories for the same seeds and actions.

The factories given to a backend under test are `CountingEnvFn`
objects: plain picklable callables (they travel to worker processes and Ray
actors by reference to this module) that also carry their parameters, so a
native backend can build the equivalent native env from them
(`CountingNativeVecEnv.from_env_fns`). A factory may carry a
``close_log`` path: the env it builds appends one line to that file when it is
closed, a record that reaches the test from worker processes and actors alike.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.core import Env, ResetResult, StepResult
from sekai.error import InvalidAction
from sekai.spaces import Box, Discrete, Space
from sekai.vector.native import NativeVecEnv

__all__ = [
    "ACTION_SPACE",
    "OBSERVATION_SPACE",
    "CountingEnv",
    "CountingEnvFn",
    "CountingNativeVecEnv",
    "SubEnvFailure",
    "close_log_path",
    "counting_fns",
]

OBSERVATION_SPACE = Box(-1e6, 1e6, (3,), np.float32)
"""The observation space of the reference envs: ``[start, t, total]``."""

ACTION_SPACE: Space[Any] = Discrete(3)
"""The action space of the reference envs."""


class SubEnvFailure(RuntimeError):
    """Raised on purpose by a reference env built with ``fail_at``."""


def _failure(t: int) -> SubEnvFailure:
    return SubEnvFailure(f"the reference env fails on purpose at step {t} (fail_at={t})")


class CountingEnv(Env[NDArray[np.float32], int]):
    """Observation ``[start, t, total]``: episode start, steps taken, sum of the actions.

    Terminates after ``length`` steps; truncates after ``truncate_after``
    steps if given. The start is ``options["start"]`` (default 0), plus a
    draw from the env's rng when ``random_start``. Reward: ``action + t / 2``;
    step info ``{"t": t}``, reset info ``{"start": start}``. With
    ``fail_at=k``, the ``k``-th step of an episode raises `SubEnvFailure`
    before changing anything.

    It records what it was given (``actions``, ``seeds``, ``options``,
    ``reset_calls``, ``closed``), which tests read with ``get_attr``. With
    ``close_log``, `close` also appends a line (the process id and the
    env's id) to that file, which a test reads after the vector env is
    closed, wherever the env ran.
    """

    def __init__(
        self,
        length: int = 3,
        *,
        truncate_after: int | None = None,
        random_start: bool = False,
        fail_at: int | None = None,
        name: str = "counting",
        close_log: str | None = None,
    ) -> None:
        self.observation_space = OBSERVATION_SPACE
        self.action_space = ACTION_SPACE
        self.length = length
        self.truncate_after = truncate_after
        self.random_start = random_start
        self.fail_at = fail_at
        self.name = name
        self.close_log = close_log
        self.t = 0
        self.total = 0
        self.start = 0.0
        self.actions: list[Any] = []
        self.seeds: list[Any] = []
        self.options: list[Any] = []
        self.reset_calls = 0
        self.closed = False

    def _obs(self) -> NDArray[np.float32]:
        return np.array([self.start, self.t, self.total], dtype=np.float32)

    def reset(
        self, *, seed: Any = None, options: dict[str, Any] | None = None
    ) -> ResetResult[NDArray[np.float32]]:
        """Start an episode at ``options["start"]`` (plus a seeded draw if ``random_start``)."""
        self._set_rng(seed)
        self.seeds.append(seed)
        self.options.append(options)
        self.reset_calls += 1
        self.t = 0
        self.total = 0
        self.start = float((options or {}).get("start", 0.0))
        if self.random_start:
            self.start += float(self.rng.random())
        return ResetResult(self._obs(), {"start": self.start})

    def step(self, action: int) -> StepResult[NDArray[np.float32]]:
        """Count the step and add ``action`` to the total."""
        if self.fail_at is not None and self.t + 1 == self.fail_at:
            raise _failure(self.fail_at)
        self.actions.append(action)
        self.t += 1
        self.total += int(action)
        terminated = self.t >= self.length
        truncated = self.truncate_after is not None and self.t >= self.truncate_after
        return StepResult(
            self._obs(), float(action) + self.t / 2, terminated, truncated, {"t": self.t}
        )

    def scaled_total(self, scale: int = 1) -> int:
        """The sum of the actions times ``scale`` (a method for ``VecEnv.call``)."""
        return self.total * scale

    def close(self) -> None:
        """Record that the env was closed (in ``close_log`` too, when given)."""
        self.closed = True
        if self.close_log is not None:
            _log_close(self.close_log, id(self))


def _log_close(path: str, who: int) -> None:
    """Append one line saying that an env was closed to the file ``path``."""
    with Path(path).open("a", encoding="utf-8") as log:
        log.write(f"{os.getpid()} {who}\n")


@dataclass(frozen=True)
class CountingEnvFn:
    """A picklable factory of `CountingEnv` that keeps its parameters."""

    length: int = 3
    truncate_after: int | None = None
    random_start: bool = False
    fail_at: int | None = None
    close_log: str | None = None

    def __call__(self) -> CountingEnv:
        """A new `CountingEnv` with these parameters."""
        return CountingEnv(
            self.length,
            truncate_after=self.truncate_after,
            random_start=self.random_start,
            fail_at=self.fail_at,
            close_log=self.close_log,
        )


def counting_fns(
    lengths: Sequence[int],
    *,
    truncate_after: int | None = None,
    random_start: bool = False,
    fail_at: Sequence[int | None] | None = None,
    close_logs: str | os.PathLike[str] | None = None,
) -> list[CountingEnvFn]:
    """One `CountingEnvFn` per episode length.

    Args:
        lengths: The episode length of each sub-env.
        truncate_after: Truncate every sub-env's episodes after this many steps.
        random_start: Add a seeded draw to every start.
        fail_at: One entry per sub-env: the step at which it raises, or None.
        close_logs: A directory: sub-env ``i`` logs its closes to the file
            `close_log_path` gives for ``i`` in it.
    """
    fails = list(fail_at) if fail_at is not None else [None] * len(lengths)
    return [
        CountingEnvFn(
            int(n),
            truncate_after,
            random_start,
            fail,
            None if close_logs is None else str(close_log_path(close_logs, i)),
        )
        for i, (n, fail) in enumerate(zip(lengths, fails, strict=True))
    ]


def close_log_path(directory: str | os.PathLike[str], index: int) -> Path:
    """The file in ``directory`` where sub-env ``index`` logs its closes."""
    return Path(directory) / f"sub-env-{index}.closed"


class CountingNativeVecEnv(NativeVecEnv[NDArray[np.float32], Any]):
    """The dynamics of `CountingEnv` for every sub-env at once.

    Sub-env ``i`` draws its random start from ``rngs[i]``, so it follows the
    same trajectory as a `CountingEnv` reset with the same seed. Frozen
    sub-envs (``autoreset=False``) are left as they are, and ``actions``
    (one list per sub-env, read with ``get_attr``) records the actions each
    sub-env applied, as `CountingEnv` does. ``close_logs`` (a path or None
    per sub-env) get a line each on the first `close`, as `CountingEnv`
    logs to its ``close_log``.
    """

    def __init__(
        self,
        num_envs: int,
        lengths: Sequence[int] | None = None,
        *,
        truncate_after: int | None = None,
        random_start: bool = False,
        fail_at: Sequence[int | None] | None = None,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
        close_logs: Sequence[str | None] | None = None,
    ) -> None:
        super().__init__(
            num_envs,
            OBSERVATION_SPACE,
            ACTION_SPACE,
            autoreset=autoreset,
            max_episode_steps=max_episode_steps,
        )
        self.length: Any = np.asarray(lengths if lengths is not None else [3] * num_envs)
        self.truncate_after = truncate_after
        self.random_start = random_start
        fails = list(fail_at) if fail_at is not None else [None] * num_envs
        self.fail_at = np.array([0 if f is None else f for f in fails], dtype=np.int64)
        self.t = np.zeros(num_envs, dtype=np.int64)
        self.total = np.zeros(num_envs, dtype=np.int64)
        self.start = np.zeros(num_envs, dtype=np.float64)
        self._applied: list[list[Any]] = [[] for _ in range(num_envs)]
        self.name = "counting"
        self._close_logs = list(close_logs) if close_logs is not None else [None] * num_envs
        self._logged_close = False

    @classmethod
    def from_env_fns(
        cls, env_fns: Sequence[Callable[[], Any]], **kwargs: Any
    ) -> CountingNativeVecEnv:
        """The native equivalent of a vector env of ``env_fns`` (`CountingEnvFn` objects).

        Raises:
            TypeError: A factory is not a `CountingEnvFn`, or the factories
                disagree on ``truncate_after`` / ``random_start``.
        """
        fns = [fn for fn in env_fns if isinstance(fn, CountingEnvFn)]
        if len(fns) != len(env_fns):
            raise TypeError(
                "CountingNativeVecEnv.from_env_fns: expected the kit's CountingEnvFn "
                f"factories, got {list(env_fns)!r}"
            )
        shared = {(fn.truncate_after, fn.random_start) for fn in fns}
        if len(shared) != 1:
            raise TypeError(
                "CountingNativeVecEnv.from_env_fns: the factories must share truncate_after "
                f"and random_start, got {sorted(shared, key=repr)!r}"
            )
        truncate_after, random_start = shared.pop()
        return cls(
            len(fns),
            [fn.length for fn in fns],
            truncate_after=truncate_after,
            random_start=random_start,
            fail_at=[fn.fail_at for fn in fns],
            close_logs=[fn.close_log for fn in fns],
            **kwargs,
        )

    @property
    def actions(self) -> NDArray[np.object_]:
        """The actions each sub-env applied since it was built (one list per sub-env)."""
        out = np.empty(self.num_envs, dtype=object)
        for i, applied in enumerate(self._applied):
            out[i] = list(applied)
        return out

    def _reset_envs(
        self, indices: NDArray[np.intp], options: Sequence[dict[str, Any] | None]
    ) -> None:
        self.t[indices] = 0
        self.total[indices] = 0
        self.start[indices] = [float((o or {}).get("start", 0.0)) for o in options]
        if self.random_start:
            rngs = self.rngs
            self.start[indices] += [rngs[i].random() for i in indices.tolist()]

    def _observe(self) -> NDArray[np.float32]:
        return np.stack([self.start, self.t, self.total], axis=1).astype(np.float32)

    def _step(self, actions: Any) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], Any]:
        batch = np.asarray(actions)
        if batch.dtype.kind not in "iu":
            raise InvalidAction(batch, ACTION_SPACE)
        moving = ~self.frozen
        failing = moving & (self.fail_at == self.t + 1)
        if failing.any():
            raise _failure(int(self.fail_at[failing][0]))
        for i in np.flatnonzero(moving).tolist():
            self._applied[i].append(int(batch[i]))
        self.t[moving] += 1
        self.total[moving] += batch[moving]
        rewards = batch + self.t / 2
        terminated = self.t >= self.length
        if self.truncate_after is None:
            truncated = np.zeros(self.num_envs, dtype=bool)
        else:
            truncated = self.t >= self.truncate_after
        return rewards, terminated, truncated, {"t": self.t.copy()}

    def _reset_infos(self, indices: NDArray[np.intp]) -> dict[str, Any]:
        return {"start": self.start[indices].copy()}

    def scaled_total(self, scale: int = 1) -> NDArray[np.int64]:
        """Each sub-env's sum of actions times ``scale``."""
        scaled: NDArray[np.int64] = self.total * scale
        return scaled

    def close(self) -> None:
        """Close, logging each sub-env's close in its ``close_logs`` file (once)."""
        super().close()
        if not self._logged_close:
            self._logged_close = True
            for path in self._close_logs:
                if path is not None:
                    _log_close(path, id(self))
