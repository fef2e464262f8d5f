"""AsyncVecEnv: sub-envs stepped concurrently with asyncio."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, TypeVar

import numpy as np

from sekai.core import ActType, Env, InfoDict, ObsType
from sekai.error import AsyncCallPending
from sekai.utils.seeding import SeedType
from sekai.vector._arguments import per_env_options, per_env_seeds
from sekai.vector._autoreset import FINAL_OBSERVATION, autoreset_info, copy_observation
from sekai.vector._env_list import EnvListVecEnv
from sekai.vector.results import VecResetResult, VecStepResult

__all__ = ["AsyncVecEnv"]

_T = TypeVar("_T")
_get_running_loop = asyncio._get_running_loop


async def _gather_all(coroutines: list[Coroutine[Any, Any, _T]]) -> list[_T]:
    """Await every coroutine concurrently; if some raise, re-raise the first once all are done.

    Unlike a plain :func:`asyncio.gather`, no sub-env call is left running in
    the background after a failure.
    """
    results = await asyncio.gather(*coroutines, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return results  # type: ignore[return-value]


class AsyncVecEnv(EnvListVecEnv[ObsType, ActType]):
    """Runs ``num_envs`` sub-environments concurrently on an asyncio event loop.

    Each step awaits every sub-env's :meth:`~sekai.core.Env.async_step`
    together with :func:`asyncio.gather`, so sub-envs that wait on I/O (live
    market feeds, simulators behind a REST or websocket API) wait in
    parallel; sub-envs reset by autoreset are reset concurrently as well.
    Sub-envs whose ``step`` blocks the CPU gain nothing: use ``ProcVecEnv``
    for those. If a sub-env raises, the others' calls still run to completion
    before the first error propagates, and that step's results are discarded.

    In async code, ``await vec.async_step(actions)`` and
    ``await vec.async_reset(...)`` run on the caller's loop. The sync
    :meth:`step` / :meth:`reset` run the same coroutines on a private event
    loop owned by this vector env (closed by :meth:`close`), so they cannot be
    called from inside a running event loop.

    Args:
        env_fns: One callable per sub-env, each returning a new
            :class:`~sekai.core.Env`. If one raises, the sub-envs already
            built are closed and the error propagates.
        autoreset: Reset sub-envs within the step that ends their episode
            (see :class:`~sekai.vector.VecEnv`); ``False`` freezes them
            instead.

    Raises:
        TypeError: ``env_fns`` is not a sequence of callables, or one returned
            something that is not an Env.
        ValueError: ``env_fns`` is empty.
        SpaceMismatch: The sub-envs do not all have the same spaces.
    """

    def __init__(
        self,
        env_fns: Sequence[Callable[[], Env[ObsType, ActType]]],
        *,
        autoreset: bool = True,
    ) -> None:
        super().__init__(env_fns, autoreset=autoreset)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending = False

    # -- sync API on the private loop ------------------------------------------------

    def _run(self, coroutine: Coroutine[Any, Any, _T], method: str) -> _T:
        if _get_running_loop() is not None:
            coroutine.close()
            raise RuntimeError(
                f"{type(self).__name__}.{method}() was called inside a running event loop; "
                f"use 'await vec.async_{method}(...)' there (the sync API runs its own loop); "
                f"a wrapper that overrides {method}() reaches it from its async_{method}() "
                f"unless it overrides async_{method}() too"
            )
        loop = self._loop
        if loop is None:
            if self._closed:
                coroutine.close()
                raise self._not_ready()
            loop = self._loop = asyncio.new_event_loop()
        return loop.run_until_complete(coroutine)

    def step(self, actions: Any) -> VecStepResult[Any]:
        """Run :meth:`async_step` to completion on the private event loop.

        Raises:
            RuntimeError: Called from inside a running event loop.
        """
        return self._run(self._async_step(actions), "step")

    def reset(
        self,
        *,
        seed: list[SeedType] | SeedType = None,
        options: list[dict[str, Any] | None] | dict[str, Any] | None = None,
    ) -> VecResetResult[Any]:
        """Run :meth:`async_reset` to completion on the private event loop.

        Raises:
            RuntimeError: Called from inside a running event loop.
        """
        return self._run(self._async_reset(seed, options), "reset")

    # -- async API ------------------------------------------------------------------------

    async def async_reset(
        self,
        *,
        seed: list[SeedType] | SeedType = None,
        options: list[dict[str, Any] | None] | dict[str, Any] | None = None,
    ) -> VecResetResult[Any]:
        """Reset every sub-env concurrently (see :meth:`VecEnv.reset <sekai.vector.VecEnv.reset>`).

        Raises:
            AsyncCallPending: Another ``async_step`` / ``async_reset`` of this
                vector env is still running.
        """
        return await self._async_reset(seed, options)

    async def async_step(self, actions: Any) -> VecStepResult[Any]:
        """Step every sub-env concurrently (see :meth:`VecEnv.step <sekai.vector.VecEnv.step>`).

        Raises:
            AsyncCallPending: Another ``async_step`` / ``async_reset`` of this
                vector env is still running.
        """
        return await self._async_step(actions)

    def _begin(self, method: str) -> None:
        if self._pending:
            raise AsyncCallPending(
                f"{self!r}: {method}() called while an earlier async_step()/async_reset() "
                "is still running; await it first"
            )

    async def _async_reset(self, seed: object, options: object) -> VecResetResult[Any]:
        self._check_open()
        self._begin("async_reset")
        n = self.num_envs
        seeds = per_env_seeds(seed, n)
        opts = per_env_options(options, n)
        self._pending = True
        try:
            results = await _gather_all(
                [env.async_reset(seed=seeds[i], options=opts[i]) for i, env in enumerate(self.envs)]
            )
        finally:
            self._pending = False
        self._frozen.clear()
        self._needs_reset = False
        return VecResetResult(
            self._stack([result.observation for result in results]),
            [result.info for result in results],
        )

    async def _async_step(self, actions: Any) -> VecStepResult[Any]:
        if self._needs_reset or self._closed:
            raise self._not_ready()
        self._begin("async_step")
        per_env = self._split_actions(actions)
        envs = self.envs
        frozen = self._frozen
        if frozen.any:
            active = [i for i in range(self.num_envs) if not frozen.mask[i]]
        else:
            active = list(range(self.num_envs))
        self._pending = True
        try:
            results = await _gather_all([envs[i].async_step(per_env[i]) for i in active])
            finished = [
                k
                for k, result in enumerate(results)
                if (result.terminated or result.truncated) and FINAL_OBSERVATION not in result.info
            ]
            resets = []
            finals: list[tuple[Any, InfoDict]] = []
            if finished and self.autoreset:
                # Copied before the resets, which may rewrite the envs' buffers.
                finals = [
                    (copy_observation(results[k].observation), dict(results[k].info))
                    for k in finished
                ]
                resets = await _gather_all([envs[active[k]].async_reset() for k in finished])
        finally:
            self._pending = False

        n = self.num_envs
        observations: list[Any]
        rewards: list[float]
        terminated: list[bool]
        truncated: list[bool]
        infos: list[dict[str, Any]]
        if not frozen.any:
            observations = [result.observation for result in results]
            rewards = [result.reward for result in results]
            terminated = [result.terminated for result in results]
            truncated = [result.truncated for result in results]
            infos = [result.info for result in results]
        else:
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
        if finished:
            if self.autoreset:
                for k, (final_observation, final_info), reset in zip(
                    finished, finals, resets, strict=True
                ):
                    i = active[k]
                    infos[i] = autoreset_info(final_info, final_observation, reset.info)
                    observations[i] = reset.observation
            else:
                for k in finished:
                    i = active[k]
                    frozen.freeze(i, observations[i], terminated[i], truncated[i])
        return VecStepResult(
            self._stack(observations),
            np.array(rewards, dtype=np.float64),
            np.array(terminated, dtype=np.bool_),
            np.array(truncated, dtype=np.bool_),
            infos,
        )

    def close(self) -> None:
        """Close every sub-env and the private event loop.

        The first error raised by a sub-env's ``close()`` is re-raised after
        everything is closed.
        """
        if self._closed:
            return
        try:
            super().close()
        finally:
            loop, self._loop = self._loop, None
            if loop is not None and not loop.is_closed():
                loop.close()
