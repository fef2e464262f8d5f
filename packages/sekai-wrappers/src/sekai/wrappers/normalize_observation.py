"""NormalizeObservation: running-statistics normalisation of any observation space."""

from __future__ import annotations

from typing import Any

from sekai._internal.validation import check_choice, check_real
from sekai.core import ActType, Env, ObservationWrapper
from sekai.utils.normalization import ObservationNormalizer, StatsKind

__all__ = ["NormalizeObservation", "StatsKind"]

_CLIP = "a number > 0 or None"


class NormalizeObservation(ObservationWrapper[Any, ActType, Any]):
    """Normalises observations to roughly zero mean and unit variance, per component.

    Works on any observation space:

    - every [`Box`][sekai.spaces.Box] (at the top level or inside a Dict or
      Tuple) gets its own statistics of its shape, and its observations
      become ``float64`` arrays ``(x - mean) / sqrt(var + epsilon)``;
    - a [`MaskedBox`][sekai.spaces.MaskedBox] gets per-feature statistics (of the
      element shape) updated with its occupied slots only, so padding does
      not bias them; occupied slots are normalised, empty slots hold 0, and
      the mask is passed through;
    - every other part (Discrete, MultiDiscrete, MultiBinary, Sequence, ...)
      passes through unchanged.

    Statistics are updated with each observation before it is normalised.
    ``stats="running"`` (the default) weighs every observation ever seen
    equally; ``stats="ewm"`` uses exponentially weighted statistics with the
    given ``halflife`` in steps, which follow a non-stationary distribution
    (e.g. returns whose volatility changes by regime). With ``clip`` the
    normalised values are clipped to ``[-clip, clip]`` and the new Box bounds
    say so; otherwise they are unbounded.

    Set `update_running_mean` to ``False`` to freeze the statistics
    (e.g. for evaluation); `state_dict` and `load_state_dict`
    save and restore them. The statistics and the transform live in
    `normalizer`, a [`ObservationNormalizer`][sekai.utils.normalization.ObservationNormalizer]
    built once, at construction.

    Args:
        env: The environment to wrap.
        epsilon: Added to the variance before taking the square root (finite, >= 0).
        stats: ``"running"`` or ``"ewm"``.
        halflife: Halflife in steps for ``stats="ewm"`` (> 0).
        clip: If given (> 0), normalised values are clipped to ``[-clip, clip]``.

    Attributes:
        normalizer: The [`ObservationNormalizer`][sekai.utils.normalization.ObservationNormalizer]
            doing the work.

    Raises:
        ValueError: ``stats`` is not ``"running"`` or ``"ewm"``, or ``epsilon``,
            ``halflife`` or ``clip`` is out of range.
    """

    def __init__(
        self,
        env: Env[Any, ActType],
        epsilon: float = 1e-8,
        *,
        stats: StatsKind = "running",
        halflife: float = 1000.0,
        clip: float | None = None,
    ) -> None:
        owner = "NormalizeObservation"
        # Checked here too, so that errors name the wrapper.
        kind = check_choice(stats, f"{owner}: stats", ("running", "ewm"))
        eps = check_real(epsilon, f"{owner}: epsilon", minimum=0)
        life = check_real(halflife, f"{owner}: halflife", minimum=0, min_open=True)
        bound = None
        if clip is not None:
            bound = check_real(
                clip, f"{owner}: clip", finite=False, minimum=0, min_open=True, expected=_CLIP
            )
        super().__init__(env)
        self.normalizer = ObservationNormalizer(
            env.observation_space,
            stats="running" if kind == "running" else "ewm",
            halflife=life,
            epsilon=eps,
            clip=bound,
        )
        self.epsilon = eps
        self.stats: StatsKind = self.normalizer.stats
        self.halflife = life
        self.clip = bound
        self.observation_space = self.normalizer.observation_space

    @property
    def update_running_mean(self) -> bool:
        """Whether observations update the statistics (assign ``False`` to freeze them)."""
        return self.normalizer.update_running_mean

    @update_running_mean.setter
    def update_running_mean(self, value: bool) -> None:
        self.normalizer.update_running_mean = bool(value)

    @property
    def obs_rms(self) -> Any:
        """The statistics, nested like the observation space.

        For a Box (or MaskedBox) observation it is the statistics object itself
        ([`RunningMeanStd`][sekai.utils.running_stats.RunningMeanStd] or
        [`ExponentialMovingStats`][sekai.utils.running_stats.ExponentialMovingStats]);
        for a Dict a dict and for
        a Tuple a tuple of the parts' statistics, ``None`` for parts that pass
        through.
        """
        return self.normalizer.obs_rms

    def observation(self, obs: Any) -> Any:
        """Update the statistics (unless frozen) and normalise one observation."""
        return self.normalizer(obs)

    def state_dict(self) -> Any:
        """The statistics as plain data (arrays and numbers), nested like `obs_rms`."""
        return self.normalizer.state_dict()

    def load_state_dict(self, state: Any) -> None:
        """Restore statistics saved by `state_dict`.

        Raises:
            ValueError: ``state`` does not match the observation space's nesting
                or shapes.
        """
        self.normalizer.load_state_dict(state)
