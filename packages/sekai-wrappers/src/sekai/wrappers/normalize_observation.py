"""NormalizeObservation: running-statistics normalisation of any observation space."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from sekai.core import ActType, Env, ObservationWrapper
from sekai.spaces import Box, Dict, MaskedBox, Space, Tuple
from sekai.utils.running_stats import ExponentialMovingStats, RunningMeanStd
from sekai.wrappers._checks import check_choice, check_real

__all__ = ["NormalizeObservation", "StatsKind"]

StatsKind = Literal["running", "ewm"]
"""How statistics weigh past samples: ``"running"`` equally, ``"ewm"`` by recency."""

_Stats = RunningMeanStd | ExponentialMovingStats
_Leaf = Callable[[Any, bool], Any]


class NormalizeObservation(ObservationWrapper[Any, ActType, Any]):
    """Normalises observations to roughly zero mean and unit variance, per component.

    Works on any observation space:

    - every :class:`~sekai.spaces.Box` (at the top level or inside a Dict or
      Tuple) gets its own statistics of its shape, and its observations
      become ``float64`` arrays ``(x - mean) / sqrt(var + epsilon)``;
    - a :class:`~sekai.spaces.MaskedBox` gets per-feature statistics (of the
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

    Set :attr:`update_running_mean` to ``False`` to freeze the statistics
    (e.g. for evaluation); :meth:`state_dict` and :meth:`load_state_dict`
    save and restore them. The work for each part of the space is decided
    once, at construction.

    Args:
        env: The environment to wrap.
        epsilon: Added to the variance before taking the square root.
        stats: ``"running"`` or ``"ewm"``.
        halflife: Halflife in steps for ``stats="ewm"`` (> 0).
        clip: If given (> 0), normalised values are clipped to ``[-clip, clip]``.

    Attributes:
        update_running_mean: Whether observations update the statistics.

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
        kind = check_choice(stats, owner, "stats", ("running", "ewm"))
        eps = check_real(epsilon, owner, "epsilon")
        if eps < 0:
            raise ValueError(f"{owner}: epsilon must be >= 0, got {epsilon!r}")
        life = check_real(halflife, owner, "halflife")
        if not (0 < life < float("inf")):
            raise ValueError(f"{owner}: halflife must be a finite number > 0, got {halflife!r}")
        bound = None
        if clip is not None:
            bound = check_real(clip, owner, "clip")
            if bound <= 0:
                raise ValueError(f"{owner}: clip must be > 0 or None, got {clip!r}")
        super().__init__(env)
        self.epsilon = eps
        self.stats: StatsKind = "running" if kind == "running" else "ewm"
        self.halflife = life
        self.clip = bound
        self.update_running_mean = True
        self._transform, space, self._obs_rms = self._build(env.observation_space)
        self.observation_space = space

    @property
    def obs_rms(self) -> Any:
        """The statistics, nested like the observation space.

        For a Box (or MaskedBox) observation it is the statistics object itself
        (:class:`~sekai.utils.RunningMeanStd` or
        :class:`~sekai.utils.ExponentialMovingStats`); for a Dict a dict and for
        a Tuple a tuple of the parts' statistics, ``None`` for parts that pass
        through.
        """
        return self._obs_rms

    def observation(self, observation: Any) -> Any:
        """Update the statistics (unless frozen) and normalise one observation."""
        return self._transform(observation, self.update_running_mean)

    def state_dict(self) -> Any:
        """The statistics as plain data (arrays and numbers), nested like :attr:`obs_rms`."""
        return _state(self._obs_rms)

    def load_state_dict(self, state: Any) -> None:
        """Restore statistics saved by :meth:`state_dict`.

        Raises:
            ValueError: ``state`` does not match the observation space's nesting
                or shapes.
        """
        _load(self._obs_rms, state, "state")

    # -- construction ---------------------------------------------------------

    def _new_stats(self, shape: tuple[int, ...]) -> _Stats:
        if self.stats == "ewm":
            return ExponentialMovingStats(shape, halflife=self.halflife)
        return RunningMeanStd(shape)

    def _out_box(self, shape: tuple[int, ...]) -> Box:
        bound = float("inf") if self.clip is None else self.clip
        return Box(-bound, bound, shape, np.float64)

    def _build(self, space: Space[Any]) -> tuple[_Leaf, Space[Any], Any]:
        if isinstance(space, MaskedBox):
            stats = self._new_stats(space.element_shape)
            bound = float("inf") if self.clip is None else self.clip
            out = MaskedBox(
                -bound, bound, space.element_shape, max_size=space.max_size, dtype=np.float64
            )
            return _MaskedNorm(stats, self.epsilon, self.clip), out, stats
        if isinstance(space, Box):
            stats = self._new_stats(space.shape)
            return _BoxNorm(stats, self.epsilon, self.clip), self._out_box(space.shape), stats
        if isinstance(space, Dict):
            parts = {key: self._build(child) for key, child in space.spaces.items()}
            new_space = Dict({key: sub for key, (_, sub, _) in parts.items()})
            rms = {key: stats for key, (_, _, stats) in parts.items()}
            return _DictNorm({key: fn for key, (fn, _, _) in parts.items()}), new_space, rms
        if isinstance(space, Tuple):
            built = [self._build(child) for child in space.spaces]
            new_tuple = Tuple(sub for _, sub, _ in built)
            return _TupleNorm([fn for fn, _, _ in built]), new_tuple, tuple(r for _, _, r in built)
        return _passthrough, space, None


def _passthrough(x: Any, update: bool) -> Any:
    return x


# The parts are small classes rather than closures so that a wrapper can be
# deep-copied or pickled with its own, independent statistics.


class _DictNorm:
    """Normalises the parts of a Dict observation."""

    def __init__(self, parts: dict[str, _Leaf]) -> None:
        self.parts = list(parts.items())

    def __call__(self, x: Any, update: bool) -> dict[str, Any]:
        return {key: fn(x[key], update) for key, fn in self.parts}


class _TupleNorm:
    """Normalises the parts of a Tuple observation."""

    def __init__(self, parts: list[_Leaf]) -> None:
        self.parts = parts

    def __call__(self, x: Any, update: bool) -> tuple[Any, ...]:
        return tuple(fn(item, update) for fn, item in zip(self.parts, x, strict=True))


class _BoxNorm:
    """Normalises one Box part."""

    def __init__(self, stats: _Stats, epsilon: float, clip: float | None) -> None:
        self.stats = stats
        self.epsilon = epsilon
        self.clip = clip

    def __call__(self, x: Any, update: bool) -> NDArray[np.float64]:
        value = np.asarray(x, dtype=np.float64)
        stats = self.stats
        if update:
            if isinstance(stats, RunningMeanStd):
                # RunningMeanStd.update_from_moments for a batch of one sample,
                # written with fewer array operations (this runs every step).
                count = stats.count
                total = count + 1.0
                delta = value - stats.mean
                stats.mean = stats.mean + delta / total
                stats.var = (stats.var + delta * delta / total) * (count / total)
                stats.count = total
            else:
                stats.update(value[np.newaxis])
        out: NDArray[np.float64] = (value - stats.mean) / np.sqrt(stats.var + self.epsilon)
        if self.clip is not None:
            np.maximum(out, -self.clip, out=out)
            np.minimum(out, self.clip, out=out)
        return out


class _MaskedNorm:
    """Normalises the occupied slots of one MaskedBox part."""

    def __init__(self, stats: _Stats, epsilon: float, clip: float | None) -> None:
        self.stats = stats
        self.epsilon = epsilon
        self.clip = clip

    def __call__(self, x: Any, update: bool) -> dict[str, Any]:
        values = np.asarray(x["values"], dtype=np.float64)
        slots = x["mask"]
        held_at = np.asarray(slots).astype(np.bool_)
        held = values[held_at]
        stats = self.stats
        if update and held.shape[0]:
            stats.update(held)
        out = np.zeros_like(values)
        normalised = (held - stats.mean) / np.sqrt(stats.var + self.epsilon)
        if self.clip is not None:
            np.maximum(normalised, -self.clip, out=normalised)
            np.minimum(normalised, self.clip, out=normalised)
        out[held_at] = normalised
        return {"values": out, "mask": slots}


def _state(tree: Any) -> Any:
    if tree is None:
        return None
    if isinstance(tree, dict):
        return {key: _state(value) for key, value in tree.items()}
    if isinstance(tree, tuple):
        return tuple(_state(value) for value in tree)
    return tree.state_dict()


def _load(tree: Any, state: Any, where: str) -> None:
    if tree is None:
        if state is not None:
            raise ValueError(f"{where} must be None (this part is not normalised), got {state!r}")
        return
    if isinstance(tree, dict):
        if not isinstance(state, Mapping) or set(state) != set(tree):
            raise ValueError(
                f"{where} must be a dict with keys {sorted(tree)!r}, got {_describe(state)}"
            )
        for key, sub in tree.items():
            _load(sub, state[key], f"{where}[{key!r}]")
        return
    if isinstance(tree, tuple):
        if not isinstance(state, (tuple, list)) or len(state) != len(tree):
            raise ValueError(
                f"{where} must be a sequence of {len(tree)} entries, got {_describe(state)}"
            )
        for i, (sub, sub_state) in enumerate(zip(tree, state, strict=True)):
            _load(sub, sub_state, f"{where}[{i}]")
        return
    if not isinstance(state, Mapping):
        raise ValueError(f"{where} must be a statistics dict, got {_describe(state)}")
    try:
        tree.load_state_dict(dict(state))
    except (KeyError, ValueError) as error:
        raise ValueError(f"{where}: {error}") from error


def _describe(value: Any) -> str:
    if isinstance(value, Mapping):
        return f"a dict with keys {sorted(map(str, value))!r}"
    return repr(value)
