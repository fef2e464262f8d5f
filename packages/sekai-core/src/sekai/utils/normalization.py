"""Observation normalisation for any observation space: `ObservationNormalizer`.

The object ``NormalizeObservation`` keeps as its ``normalizer`` (and the
vector wrapper can keep too): the statistics of every normalised part of an
observation space, the transform built for that space once, and the
normalised space.
"""

from __future__ import annotations

from typing import Any

from sekai._internal.validation import check_choice, check_int, check_real
from sekai.spaces import Space
from sekai.utils._normalization import StatsKind, build_normalizer, load_state, state_of

__all__ = ["ObservationNormalizer", "StatsKind"]

_CLIP = "a number > 0 or None"


class ObservationNormalizer:
    """Normalises observations of a space to roughly zero mean and unit variance.

    Every [`Box`][sekai.spaces.Box] part of the space (at the top level or
    inside a Dict or Tuple) gets its own statistics and becomes float64
    ``(x - mean) / sqrt(var + epsilon)``; a [`MaskedBox`][sekai.spaces.MaskedBox]
    part gets per-feature statistics over its occupied slots only; every
    other part passes through unchanged. What to do for each part is decided
    once, here.

    Args:
        space: The observation space (of one env).
        stats: ``"running"`` (every observation weighs the same) or ``"ewm"``
            (exponentially weighted, with ``halflife``).
        halflife: Halflife of ``"ewm"`` statistics, in calls (> 0).
        epsilon: Added to the variance before the square root (finite, >= 0).
        clip: If given (> 0), normalised values are clipped to ``[-clip, clip]``.
        num_envs: ``None`` to normalise one observation per call; else the
            number of rows of the batches it takes (a vector env's
            observations). The ``"ewm"`` halflife then counts calls, i.e.
            vector steps.

    Attributes:
        observation_space: The space of the normalised observations.
        epsilon: As given.
        update_running_mean: Whether calls update the statistics (set it to
            ``False`` to freeze them, e.g. for evaluation).

    Raises:
        ValueError: An argument is out of range, or ``stats`` is not
            ``"running"`` or ``"ewm"``.
    """

    def __init__(
        self,
        space: Space[Any],
        *,
        stats: StatsKind = "running",
        halflife: float = 1000.0,
        epsilon: float = 1e-8,
        clip: float | None = None,
        num_envs: int | None = None,
    ) -> None:
        owner = "ObservationNormalizer"
        if not isinstance(space, Space):
            raise TypeError(f"{owner}: space must be a sekai.spaces.Space, got {space!r}")
        kind = check_choice(stats, f"{owner}: stats", ("running", "ewm"))
        self.epsilon = check_real(epsilon, f"{owner}: epsilon", minimum=0)
        self.halflife = check_real(halflife, f"{owner}: halflife", minimum=0, min_open=True)
        self.clip: float | None = None
        if clip is not None:
            self.clip = check_real(
                clip, f"{owner}: clip", finite=False, minimum=0, min_open=True, expected=_CLIP
            )
        self.num_envs = (
            None if num_envs is None else check_int(num_envs, f"{owner}: num_envs", minimum=1)
        )
        self.stats: StatsKind = "running" if kind == "running" else "ewm"
        self.update_running_mean = True
        self._transform, self.observation_space, self._obs_rms = build_normalizer(
            space,
            kind=self.stats,
            halflife=self.halflife,
            epsilon=self.epsilon,
            clip=self.clip,
            num_envs=self.num_envs,
        )

    @property
    def obs_rms(self) -> Any:
        """The statistics, nested like the space.

        For a Box (or MaskedBox) space it is the statistics object itself
        ([`RunningMeanStd`][sekai.utils.running_stats.RunningMeanStd] or
        [`ExponentialMovingStats`][sekai.utils.running_stats.ExponentialMovingStats]);
        for a Dict a dict and
        for a Tuple a tuple of the parts' statistics, ``None`` for parts that
        pass through.
        """
        return self._obs_rms

    def __call__(self, obs: Any) -> Any:
        """Update the statistics with ``obs`` (unless frozen), then normalise it."""
        return self._transform(obs, self.update_running_mean)

    def normalize(self, obs: Any, *, update: bool | None = None) -> Any:
        """Normalise ``obs``; update the statistics first if ``update`` (default: unless frozen)."""
        return self._transform(obs, self.update_running_mean if update is None else update)

    def state_dict(self) -> Any:
        """The statistics as plain data (arrays and numbers), nested like `obs_rms`."""
        return state_of(self._obs_rms)

    def load_state_dict(self, state: Any) -> None:
        """Restore statistics saved by `state_dict`.

        Raises:
            ValueError: ``state`` does not match the space's nesting or shapes.
        """
        load_state(self._obs_rms, state)

    def __repr__(self) -> str:
        return (
            f"ObservationNormalizer(stats={self.stats!r}, epsilon={self.epsilon!r}, "
            f"clip={self.clip!r}, num_envs={self.num_envs!r})"
        )
