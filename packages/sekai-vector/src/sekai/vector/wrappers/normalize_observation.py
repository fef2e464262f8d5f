"""VecNormalizeObservation: observation normalisation shared by every sub-env."""

from __future__ import annotations

from typing import Any

from sekai.core import ActType
from sekai.utils._normalization import StatsKind, build_normalizer, load_state, state_of
from sekai.vector._rows import batch_of_one, get_row
from sekai.vector.vec_env import VecEnv
from sekai.vector.wrappers._checks import check_real
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
    normalised with the current statistics without updating them.

    Set :attr:`update_running_mean` to ``False`` to freeze the statistics;
    :meth:`state_dict` / :meth:`load_state_dict` save and restore them.

    Args:
        venv: The vector env to wrap.
        epsilon: Added to the variance before the square root (>= 0).
        stats: ``"running"`` or ``"ewm"``.
        halflife: Halflife in vector steps for ``stats="ewm"`` (> 0).
        clip: If given (> 0), the bound of the normalised values.

    Attributes:
        update_running_mean: Whether observations update the statistics.

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
        owner = "VecNormalizeObservation"
        if stats not in ("running", "ewm"):
            raise ValueError(f"{owner}: stats must be 'running' or 'ewm', got {stats!r}")
        eps = check_real(epsilon, owner, "epsilon")
        if eps < 0:
            raise ValueError(f"{owner}: epsilon must be >= 0, got {epsilon!r}")
        life = check_real(halflife, owner, "halflife")
        if life <= 0:
            raise ValueError(f"{owner}: halflife must be > 0, got {halflife!r}")
        bound = None
        if clip is not None:
            bound = check_real(clip, owner, "clip")
            if bound <= 0:
                raise ValueError(f"{owner}: clip must be > 0 or None, got {clip!r}")
        super().__init__(venv)
        self.epsilon = eps
        self.stats: StatsKind = stats
        self.halflife = life
        self.clip = bound
        self.update_running_mean = True
        self._normalize, space, self._obs_rms = build_normalizer(
            venv.observation_space,
            kind=stats,
            halflife=life,
            epsilon=eps,
            clip=bound,
            num_envs=self.num_envs,
        )
        self.observation_space = space

    @property
    def obs_rms(self) -> Any:
        """The statistics, nested like the observation space.

        A :class:`~sekai.utils.RunningMeanStd` or
        :class:`~sekai.utils.ExponentialMovingStats` for a Box (or MaskedBox)
        observation; a dict / tuple of them for Dict / Tuple observations,
        with ``None`` for parts that pass through.
        """
        return self._obs_rms

    def observation(self, observations: Any) -> Any:
        """Update the statistics (unless frozen) and normalise a batch."""
        return self._normalize(observations, self.update_running_mean)

    def final_observation(self, obs: Any) -> Any:
        """Normalise one terminal observation without updating the statistics."""
        return get_row(self._normalize(batch_of_one(obs), False), 0)

    def state_dict(self) -> Any:
        """The statistics as plain data, nested like :attr:`obs_rms`."""
        return state_of(self._obs_rms)

    def load_state_dict(self, state: Any) -> None:
        """Restore statistics saved by :meth:`state_dict`.

        Raises:
            ValueError: ``state`` does not match the observation space.
        """
        load_state(self._obs_rms, state)
