"""VecNormalizeObservation: observation normalisation shared by every sub-env."""

from __future__ import annotations

from typing import Any

import numpy as np

from sekai.core import ActType
from sekai.utils.normalization import ObservationNormalizer, StatsKind
from sekai.vector._obs_batch import make_obs_stacker
from sekai.vector._rows import batch_of_one, get_row, select_rows
from sekai.vector.results import VecResetResult, VecStepResult, step_result_like
from sekai.vector.vec_env import VecEnv
from sekai.vector.wrappers.base import VecObservationWrapper

__all__ = ["StatsKind", "VecNormalizeObservation"]


class VecNormalizeObservation(VecObservationWrapper[Any, ActType, Any]):
    """Normalises observations with statistics shared by all sub-envs.

    The vector form of ``NormalizeObservation``, with the same options. Each
    batch updates the statistics, then is normalised to
    ``(x - mean) / sqrt(var + epsilon)``:

    - every Box part (at the top level or inside a Dict / Tuple) has its own
      statistics of its shape, and becomes float64;
    - a MaskedBox part has per-feature statistics over its occupied slots
      only (padding does not bias them); empty slots hold 0 and the mask is
      passed through;
    - other parts (Discrete, MultiBinary, ...) pass through unchanged.

    ``stats="running"`` weighs every observation equally; ``stats="ewm"``
    follows the recent distribution with a ``halflife`` counted in vector
    steps. With ``clip`` normalised values are clipped to ``[-clip, clip]``.
    The terminal observations in ``infos[i]["final_observation"]`` are
    normalised with the current statistics without updating them. Without
    autoreset, a finished sub-env is frozen and repeats its final observation:
    those repeats are normalised but do not update the statistics until
    `reset`.

    Set `update_running_mean` to ``False`` to freeze the statistics;
    `state_dict` / `load_state_dict` save and restore them. The
    statistics and the transform live in `normalizer`, the
    ``ObservationNormalizer`` that ``NormalizeObservation`` also uses.

    Args:
        venv: The vector env to wrap.
        epsilon: Added to the variance before the square root (>= 0).
        stats: ``"running"`` or ``"ewm"``.
        halflife: Halflife in vector steps for ``stats="ewm"`` (> 0).
        clip: If given (> 0), the bound of the normalised values.

    Attributes:
        normalizer: The [`ObservationNormalizer`][sekai.utils.normalization.ObservationNormalizer]
            of the observation space, for batches of ``num_envs`` rows.

    Raises:
        TypeError: A number argument is not a real number.
        ValueError: ``stats`` is unknown, or a number is out of range.
    """

    def __init__(
        self,
        venv: VecEnv[Any, ActType],
        epsilon: float = 1e-8,
        *,
        stats: StatsKind = "running",
        halflife: float = 1000.0,
        clip: float | None = None,
    ) -> None:
        super().__init__(venv)
        self.normalizer = normalizer = ObservationNormalizer(
            venv.observation_space,
            stats=stats,
            halflife=halflife,
            epsilon=epsilon,
            clip=clip,
            num_envs=self.num_envs,
        )
        self.epsilon = normalizer.epsilon
        self.stats: StatsKind = normalizer.stats
        self.halflife = normalizer.halflife
        self.clip = normalizer.clip
        self.observation_space = normalizer.observation_space
        # The normaliser's transform, called directly on the step path: (batch, update).
        self._normalize = normalizer._transform
        self._ignored = np.zeros(self.num_envs, dtype=bool)
        self._any_ignored = False

    def _restart(self) -> None:
        self._ignored[:] = False
        self._any_ignored = False

    def _after_reset(self, result: VecResetResult[Any]) -> VecResetResult[Any]:
        self._restart()
        return super()._after_reset(result)

    def _after_step(self, result: VecStepResult[Any]) -> VecStepResult[Any]:
        if self._any_ignored and self.update_running_mean:
            ids = result.env_ids
            active = ~(self._ignored if ids is None else self._ignored[ids])
            if active.any():  # update with the sub-envs that are not frozen only
                self._normalize(select_rows(result.observations, active), True)
            observations = self._normalize(result.observations, False)
        else:
            observations = self.observation(result.observations)
        if result.terminated.any() or result.truncated.any():
            frozen = self.venv.frozen
            if frozen.any():  # frozen until reset(): they repeat their final observation
                self._ignored[:] = frozen
                self._any_ignored = True
        return step_result_like(result, observations, result.rewards, self._final_infos(result))

    @property
    def update_running_mean(self) -> bool:
        """Whether observations update the statistics (``False`` freezes them)."""
        return self.normalizer.update_running_mean

    @update_running_mean.setter
    def update_running_mean(self, value: bool) -> None:
        self.normalizer.update_running_mean = bool(value)

    @property
    def obs_rms(self) -> Any:
        """The statistics, nested like the observation space.

        A [`RunningMeanStd`][sekai.utils.running_stats.RunningMeanStd] or
        [`ExponentialMovingStats`][sekai.utils.running_stats.ExponentialMovingStats]
        for a Box (or MaskedBox) observation; a dict / tuple of them for Dict
        / Tuple observations, with ``None`` for parts that pass through.
        """
        return self.normalizer.obs_rms

    def observation(self, obs: Any) -> Any:
        """Update the statistics (unless frozen) and normalise a batch."""
        return self._normalize(obs, self.normalizer.update_running_mean)

    def final_observation(self, obs: Any) -> Any:
        """Normalise one terminal observation without updating the statistics."""
        return get_row(self._normalize(batch_of_one(obs), False), 0)

    def _final_observations(self, finals: list[Any]) -> list[Any]:
        # Normalising is elementwise, so one batch of every terminal observation
        # gives the same rows as one call each (far cheaper with thousands of
        # sub-envs), unless a subclass changed final_observation.
        if (
            len(finals) < 2
            or type(self).final_observation is not VecNormalizeObservation.final_observation
        ):
            return super()._final_observations(finals)
        stack = make_obs_stacker(self.venv.observation_space, len(finals))
        if stack is tuple:  # no fixed shape: no batch to build
            return super()._final_observations(finals)
        batch = self._normalize(stack(finals), False)
        return [get_row(batch, k) for k in range(len(finals))]

    def state_dict(self) -> Any:
        """The statistics as plain data, nested like `obs_rms`."""
        return self.normalizer.state_dict()

    def load_state_dict(self, state: Any) -> None:
        """Restore statistics saved by `state_dict`.

        Raises:
            ValueError: ``state`` does not match the observation space.
        """
        self.normalizer.load_state_dict(state)
