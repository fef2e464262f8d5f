"""The in-process base of SyncVecEnv and AsyncVecEnv.

The sub-env helpers of every backend (build, close, reach attributes) live in
`sekai.vector._sub_envs` and are re-exported here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_int
from sekai.core import ActType, Env, InfoDict, ObsType, ResetResult, StepResult
from sekai.error import InvalidObservation
from sekai.spaces._layout import copier_for
from sekai.vector._actions import make_action_splitter
from sekai.vector._arguments import per_env_values
from sekai.vector._autoreset import (
    Ending,
    FrozenEnvs,
    check_flags,
    check_infos,
    end_episode,
    flags_all_false,
    infos_all_dicts,
    rewards_array,
)
from sekai.vector._interrupts import exposed, protected
from sekai.vector._lifecycle import HookedVecEnv
from sekai.vector._obs_batch import ObsStacker, make_obs_stacker
from sekai.vector._sub_envs import (
    build_env,
    build_envs,
    call_attr,
    check_env_fns,
    check_same_spaces,
    close_all,
    count_sub_envs,
    read_attr,
    write_attr,
)
from sekai.vector.results import VecResetResult, VecStepResult

__all__ = [
    "EnvListVecEnv",
    "Row",
    "build_env",
    "build_envs",
    "call_attr",
    "check_batch_size",
    "check_env_fns",
    "check_same_spaces",
    "close_all",
    "read_attr",
    "write_attr",
]


Row = tuple[Any, float, bool, bool, InfoDict]
"""One sub-env's row of a partial batch: observation, reward, terminated, truncated, info."""


def check_batch_size(batch_size: object, num_envs: int, owner: str) -> int | None:
    """The ``batch_size`` argument of a backend (``None``: every sub-env), checked."""
    if batch_size is None:
        return None
    return check_int(
        batch_size,
        f"{owner}: batch_size",
        minimum=1,
        maximum=num_envs,
        expected=f"None or an int in [1, {num_envs}] (there "
        f"{'is' if num_envs == 1 else 'are'} {count_sub_envs(num_envs)})",
    )


class EnvListVecEnv(HookedVecEnv[ObsType, ActType]):
    """A vector env over a list of sub-env objects living in this process.

    Holds the sub-envs, the per-space helpers (action splitter, observation
    stacker), the frozen-env state and the attribute access that
    [`SyncVecEnv`][sekai.vector.SyncVecEnv] and [`AsyncVecEnv`][sekai.vector.AsyncVecEnv]
    share, and turns the sub-envs' results into a batch. The two backends
    differ only in how they run the sub-envs' calls: one after another, or
    concurrently on an event loop.

    Attributes:
        envs: The sub-environments (read-only use: replacing them breaks the
            vector env's bookkeeping).
        autoreset: Whether finished sub-envs are reset within the step.
    """

    def __init__(
        self,
        env_fns: Sequence[Callable[[], Env[ObsType, ActType]]],
        *,
        autoreset: bool,
        batch_size: int | None = None,
    ) -> None:
        owner = type(self).__name__
        if not isinstance(autoreset, bool):
            raise TypeError(f"{owner}: autoreset must be a bool, got {autoreset!r}")
        self._closed = True  # until construction succeeds
        fns = check_env_fns(env_fns, owner)
        self._batch_size = check_batch_size(batch_size, len(fns), owner)
        # Filled as the factories return, so whatever stops the construction
        # (an error, a Ctrl-C) finds every env built and closes it. A subclass
        # sets its own state before calling this, which must come last.
        self.envs: list[Env[ObsType, ActType]] = []
        self._open_envs: list[Env[ObsType, ActType]] = []  # not closed yet, see close()
        try:
            build_envs(fns, owner, into=self.envs)
            self.num_envs = len(self.envs)
            first = self.envs[0]
            self.observation_space = first.observation_space
            self.action_space = first.action_space
            self.metadata = first.metadata
            self.autoreset = autoreset
            # The lifecycle's action check also splits the batch: one pass per step.
            self._check_actions = make_action_splitter(self.action_space, self.num_envs)
            self._stack = make_obs_stacker(self.observation_space, self.num_envs)
            self._copy = copier_for(self.observation_space)
            self._frozen = FrozenEnvs(self.num_envs, self._copy)
            self._stackers: dict[int, ObsStacker] = {self.num_envs: self._stack}
            self._open_envs = list(self.envs)
            self._closed = False
        except BaseException:
            with contextlib.suppress(Exception):  # the construction error is the one to report
                close_all(self.envs)
            raise

    @property
    def frozen(self) -> NDArray[np.bool_]:
        """Read-only bool array: which sub-envs are frozen (only with ``autoreset=False``)."""
        view: NDArray[np.bool_] = self._frozen.mask.view()
        view.flags.writeable = False
        return view

    def _active(self) -> list[int] | None:
        """The sub-envs a step runs: ``None`` for all of them (nothing is frozen)."""
        frozen = self._frozen
        if not frozen.any:
            return None
        mask = frozen.mask.tolist()
        return [i for i in range(self.num_envs) if not mask[i]]

    def _batch(
        self,
        active: list[int] | None,
        results: list[StepResult[Any]],
        endings: list[Ending | None] | None = None,
    ) -> VecStepResult[Any]:
        """The step's batch from the results of the ``active`` sub-envs (``None``: all).

        ``endings`` holds, per result, what `end_episode` made of it; a
        backend that runs its sub-envs one after another leaves it out, and
        the rule is applied here, only in the (rare) steps where an episode
        ends or a flag is not a bool. Frozen sub-envs report their final
        observation, reward 0, their final flags and an empty info; sub-envs
        whose ending says so are frozen now.

        Raises:
            InvalidObservation: An observation, reward, flag or info does not
                fit (after every valid ending was applied).
        """
        n = self.num_envs
        rows: Sequence[int]
        if active is None:
            observations = [result.observation for result in results]
            rewards = [result.reward for result in results]
            terminated = [result.terminated for result in results]
            truncated = [result.truncated for result in results]
            infos = [result.info for result in results]
            rows = range(n)
        else:
            frozen = self._frozen
            observations = list(frozen.observations)
            rewards = [0.0] * n
            terminated = list(frozen.terminated)
            truncated = list(frozen.truncated)
            infos = [{} for _ in range(n)]
            for i, result in zip(active, results, strict=True):
                observations[i] = result.observation
                rewards[i] = result.reward
                terminated[i] = result.terminated
                truncated[i] = result.truncated
                infos[i] = result.info
            rows = active
        if flags_all_false(terminated, truncated):  # the common step: no episode ended
            if not infos_all_dicts(infos):
                check_infos(infos, range(n))
            return VecStepResult(
                self._stack(observations),
                rewards_array(rewards),
                np.zeros(n, dtype=np.bool_),
                np.zeros(n, dtype=np.bool_),
                infos,
            )
        error = self._end_episodes(rows, results, endings, observations, infos)
        if error is None:
            try:
                check_flags(terminated, truncated, range(n))
                if not infos_all_dicts(infos):
                    check_infos(infos, range(n))
            except InvalidObservation as invalid:
                error = invalid
        if error is not None:
            raise error
        return VecStepResult(
            self._stack(observations),
            rewards_array(rewards),
            np.array(terminated, dtype=np.bool_),
            np.array(truncated, dtype=np.bool_),
            infos,
        )

    def _end_episodes(
        self,
        rows: Sequence[int],
        results: list[StepResult[Any]],
        endings: list[Ending | None] | None,
        observations: list[Any],
        infos: list[InfoDict],
    ) -> Exception | None:
        """Apply the endings of the rows whose episode ended; the first error, if one raised.

        The rule runs for the rows whose episode ended only (a call per
        sub-env would cost more than the step itself on light envs). A row
        whose ending raises (a flag that is not a bool, a failing autoreset)
        is skipped; the others are still reset or frozen.
        """
        envs, autoreset, copy, frozen = self.envs, self.autoreset, self._copy, self._frozen
        first: Exception | None = None
        ended: list[tuple[int, StepResult[Any], Ending | None]]
        if endings is None:
            ended = []
            for k, result in [
                (k, result)
                for k, result in enumerate(results)
                if result.terminated or result.truncated
            ]:
                i = rows[k]
                try:
                    ended.append((i, result, end_episode(envs[i], result, autoreset, copy, i)))
                except Exception as error:
                    first = first or error
        else:
            ended = [
                (rows[k], results[k], ending)
                for k, ending in enumerate(endings)
                if ending is not None
            ]
        for i, result, ending in ended:
            if ending is None:
                continue
            if ending.frozen:
                frozen.freeze(i, ending.observation, result.terminated, result.truncated)
            observations[i] = ending.observation
            infos[i] = ending.info
        return first

    def _freeze_ended(self, ended: Iterable[tuple[int, StepResult[Any], Ending | None]]) -> None:
        """After a step that raised: freeze the sub-envs whose episode ended in it.

        Their rows are dropped with the step's results, but their state must
        stay what the rule makes of it.
        """
        for i, result, ending in ended:
            if ending is not None and ending.frozen:
                self._frozen.freeze(i, ending.observation, result.terminated, result.truncated)

    # -- partial batches ------------------------------------------------------------------

    def _row(self, i: int, result: StepResult[Any] | None, ending: Ending | None) -> Row:
        """Sub-env ``i``'s row of a partial batch: its step ``result`` (``None``: frozen)."""
        frozen = self._frozen
        if result is None:
            return (frozen.observations[i], 0.0, frozen.terminated[i], frozen.truncated[i], {})
        observation, info = result.observation, result.info
        if ending is not None:
            if ending.frozen:
                frozen.freeze(i, observation, result.terminated, result.truncated)
            observation, info = ending.observation, ending.info
        return (observation, result.reward, result.terminated, result.truncated, info)

    def _rows_result(self, env_ids: list[int], rows: list[Row]) -> VecStepResult[Any]:
        """The partial batch of ``rows`` (sub-envs ``env_ids``, in that order)."""
        count = len(rows)
        stack = self._stackers.get(count)
        if stack is None:
            stack = self._stackers[count] = make_obs_stacker(self.observation_space, count)
        observations, rewards, terminated, truncated, infos = zip(*rows, strict=True)
        if not flags_all_false(terminated, truncated):
            check_flags(terminated, truncated, env_ids)
        if not infos_all_dicts(infos):
            check_infos(infos, env_ids)
        return VecStepResult(
            stack(list(observations), env_ids),
            rewards_array(rewards, env_ids),
            np.array(terminated, dtype=np.bool_),
            np.array(truncated, dtype=np.bool_),
            list(infos),
            np.array(env_ids, dtype=np.int64),
        )

    def _reset_result(self, results: list[ResetResult[Any]]) -> VecResetResult[Any]:
        """The batch of a reset of every sub-env; unfreezes them."""
        self._frozen.clear()
        infos = [result.info for result in results]
        if not infos_all_dicts(infos):
            check_infos(infos, range(self.num_envs))
        return VecResetResult(self._stack([result.observation for result in results]), infos)

    def call(self, method: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call ``method`` on every sub-env (or read it, if it is not callable)."""
        with self._attribute_call("call"):
            return [call_attr(env, method, *args, **kwargs) for env in self.envs]

    def get_attr(self, name: str) -> list[Any]:
        """Read ``name`` from every sub-env, through its wrapper stack."""
        with self._attribute_call("get_attr"):
            return [read_attr(env, name) for env in self.envs]

    def set_attr(self, name: str, values: list[Any] | Any) -> None:
        """Set ``name`` on every sub-env, on the outermost layer that has it."""
        per_env = per_env_values(values, self.num_envs, name)
        with self._attribute_call("set_attr"):
            for env, value in zip(self.envs, per_env, strict=True):
                write_attr(env, name, value)

    @protected
    def close(self) -> None:
        """Close every sub-env; the first error is re-raised after all are closed.

        A Ctrl-C stops it at the sub-env being closed; calling ``close()``
        again goes on from that sub-env (the ones already closed are not
        closed twice).

        Raises:
            AsyncCallPending: Another thread is running a call of this
                vector env (nothing is closed).
        """
        if self._closed and not self._open_envs:
            return  # closed (or never built: a failed construction closes its own)
        with self._closing():
            if not self._closed:
                self._closed = True  # no call runs from here on, even if this is interrupted
                self._release()
                self._clear_in_flight()
            first = self._close_open_envs()
        if first is not None:
            raise first

    @protected
    def _close_open_envs(self) -> BaseException | None:
        """Close the sub-envs not closed yet, in order; the first error, returned."""
        first: BaseException | None = None
        pending = self._open_envs
        while pending:
            try:
                exposed(pending[0].close)
            except Exception as error:
                first = first or error
            del pending[0]  # after its close returned or raised: never closed twice
        return first

    def _release(self) -> None:
        """Drop what is in flight before the sub-envs close (AsyncVecEnv adds its loop's work)."""
        if self._flying:
            self._drop_in_flight()
