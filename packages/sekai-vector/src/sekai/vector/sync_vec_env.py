"""SyncVecEnv: sub-envs stepped one after another in this process."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sekai.core import ActType, Env, ObsType
from sekai.utils.seeding import SeedType
from sekai.vector._in_process import EnvListVecEnv
from sekai.vector.results import VecResetResult, VecStepResult

__all__ = ["SyncVecEnv"]


class SyncVecEnv(EnvListVecEnv[ObsType, ActType]):
    """Runs ``num_envs`` sub-environments sequentially, in this process.

    The right backend for fast environments, where the cost of sending work to
    other processes would exceed the work itself. For CPU-heavy simulators use
    ``ProcVecEnv``; for environments that wait on I/O use
    :class:`~sekai.vector.AsyncVecEnv`.

    Observations of array spaces are written straight into the rows of one
    newly allocated batch per step (Dict / Tuple observations leaf by leaf),
    and the shape of the action batch is checked before any sub-env moves.

    Args:
        env_fns: One callable per sub-env, each returning a new
            :class:`~sekai.core.Env`. If one raises, the sub-envs already
            built are closed and the error propagates.
        autoreset: Reset sub-envs within the step that ends their episode
            (see :class:`~sekai.vector.VecEnv`); ``False`` freezes them
            instead.
        copy: Accepted for compatibility and ignored: every batch of
            observations is a new array already.

    Raises:
        TypeError: ``env_fns`` is not a sequence of callables, one returned
            something that is not an Env, or ``autoreset`` / ``copy`` is not a
            bool.
        ValueError: ``env_fns`` is empty.
        SpaceMismatch: The sub-envs do not all have the same spaces.

    Example:
        >>> vec = SyncVecEnv([make_env] * 4)  # doctest: +SKIP
        >>> result = vec.reset(seed=42)  # doctest: +SKIP
        >>> result = vec.step(vec.batch_action_space.sample())  # doctest: +SKIP
    """

    def __init__(
        self,
        env_fns: Sequence[Callable[[], Env[ObsType, ActType]]],
        *,
        autoreset: bool = True,
        copy: bool = True,
    ) -> None:
        if not isinstance(copy, bool):
            raise TypeError(f"SyncVecEnv: copy must be a bool, got {copy!r}")
        super().__init__(env_fns, autoreset=autoreset)
        self.copy = copy

    def _reset_batch(
        self, seeds: list[SeedType], options: list[dict[str, Any] | None]
    ) -> VecResetResult[Any]:
        return self._reset_result(
            [env.reset(seed=seeds[i], options=options[i]) for i, env in enumerate(self.envs)]
        )

    def _step_batch(self, batch: list[Any]) -> VecStepResult[Any]:
        envs = self.envs
        active = self._active()
        if active is None:
            results = [env.step(action) for env, action in zip(envs, batch, strict=True)]
        else:
            results = [envs[i].step(batch[i]) for i in active]
        return self._batch(active, results)
