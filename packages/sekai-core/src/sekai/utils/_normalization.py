"""Per-space observation normalisers, shared by the single-env and vector wrappers.

`build_normalizer` walks an observation space once (dispatching on the
type of each part) and returns a transform that normalises observations of it,
the space of the normalised observations and the statistics, nested like the
space:

- a Box part gets statistics of its shape; its values become float64
  ``(x - mean) / sqrt(var + epsilon)``, clipped to ``[-clip, clip]`` if asked;
- a MaskedBox part gets per-feature statistics (of the element shape) fed
  with its occupied slots only; empty slots hold 0 and the mask passes through;
- Dict and Tuple parts are normalised part by part;
- every other part passes through unchanged (its statistics are ``None``).

The transform works on batches with a leading axis (one row per sub-env), or,
built with ``num_envs=None``, on one observation at a time (which updates the
statistics as a batch of one). `state_of` and `load_state` save and
restore the statistics as plain data.

The parts are small classes rather than closures, so that a wrapper holding a
transform can be deep-copied or pickled with its own, independent statistics.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import singledispatch
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from sekai.spaces import Box, Dict, MaskedBox, Space, Tuple
from sekai.utils.running_stats import ExponentialMovingStats, RunningMeanStd

__all__ = ["Stats", "StatsKind", "Transform", "build_normalizer", "load_state", "state_of"]

StatsKind = Literal["running", "ewm"]
"""How statistics weigh past samples: ``"running"`` equally, ``"ewm"`` by recency."""

Stats = RunningMeanStd | ExponentialMovingStats
Transform = Callable[[Any, bool], Any]
"""``transform(observations, update)``: normalise, updating the statistics first if asked."""


def build_normalizer(
    space: Space[Any],
    *,
    kind: StatsKind,
    halflife: float,
    epsilon: float,
    clip: float | None,
    num_envs: int | None = None,
) -> tuple[Transform, Space[Any], Any]:
    """Return ``(transform, normalised space, statistics tree)`` for ``space``.

    Args:
        space: The observation space of one env.
        kind: ``"running"`` or ``"ewm"`` statistics.
        halflife: Halflife of ``"ewm"`` statistics. With ``num_envs=None`` it
            counts samples; otherwise it counts vector steps, and since each
            step feeds ``num_envs`` samples to a Box's statistics (up to
            ``num_envs * max_size`` to a MaskedBox's), it is scaled by that.
        epsilon: Added to the variance before the square root.
        clip: Bound of the normalised values, or ``None`` for unbounded.
        num_envs: ``None`` for a transform of single observations; else the
            number of rows of the batches the transform takes.

    Returns:
        The transform, the normalised space of one observation, and the
        statistics nested like the space (``None`` for pass-through parts).
    """
    settings = _Settings(
        kind=kind,
        halflife=halflife,
        epsilon=epsilon,
        clip=clip,
        bound=math.inf if clip is None else clip,
        rows=1 if num_envs is None else num_envs,
        single=num_envs is None,
    )
    return _build(space, settings)


@dataclass(frozen=True)
class _Settings:
    """What `build_normalizer` was asked for, passed down the space."""

    kind: StatsKind
    halflife: float
    epsilon: float
    clip: float | None
    bound: float
    rows: int
    single: bool

    def new_stats(self, shape: tuple[int, ...], per_step: int) -> Stats:
        if self.kind == "ewm":
            return ExponentialMovingStats(shape, halflife=self.halflife * per_step)
        return RunningMeanStd(shape)


# One function per kind of part, chosen by the space's type (every other type passes through).
@singledispatch
def _build(part: Space[Any], settings: _Settings) -> tuple[Transform, Space[Any], Any]:
    return _passthrough, part, None


@_build.register(MaskedBox)
def _build_masked_box(part: MaskedBox, settings: _Settings) -> tuple[Transform, Space[Any], Any]:
    per_step = 1 if settings.single else settings.rows * part.max_size
    stats = settings.new_stats(part.element_shape, per_step)
    bound = settings.bound
    out = MaskedBox(-bound, bound, part.element_shape, max_size=part.max_size, dtype=np.float64)
    return _MaskedNorm(stats, settings.epsilon, settings.clip), out, stats


@_build.register(Box)
def _build_box(part: Box, settings: _Settings) -> tuple[Transform, Space[Any], Any]:
    stats = settings.new_stats(part.shape, settings.rows)
    norm = _OneBoxNorm if settings.single else _BoxNorm
    out = Box(-settings.bound, settings.bound, part.shape, np.float64)
    return norm(stats, settings.epsilon, settings.clip), out, stats


@_build.register(Dict)
def _build_dict(part: Dict, settings: _Settings) -> tuple[Transform, Space[Any], Any]:
    parts = {key: _build(child, settings) for key, child in part.spaces.items()}
    fns = {key: fn for key, (fn, _, _) in parts.items()}
    space_out = Dict({key: sub for key, (_, sub, _) in parts.items()})
    return _DictNorm(fns), space_out, {key: rms for key, (_, _, rms) in parts.items()}


@_build.register(Tuple)
def _build_tuple(part: Tuple, settings: _Settings) -> tuple[Transform, Space[Any], Any]:
    built = [_build(child, settings) for child in part.spaces]
    tuple_out = Tuple(sub for _, sub, _ in built)
    return _TupleNorm([fn for fn, _, _ in built]), tuple_out, tuple(r for _, _, r in built)


def _passthrough(x: Any, update: bool) -> Any:
    return x


class _DictNorm:
    """Normalises the parts of a Dict observation (or batch)."""

    def __init__(self, parts: dict[str, Transform]) -> None:
        self.parts = list(parts.items())

    def __call__(self, x: Any, update: bool) -> dict[str, Any]:
        return {key: fn(x[key], update) for key, fn in self.parts}


class _TupleNorm:
    """Normalises the parts of a Tuple observation (or batch)."""

    def __init__(self, parts: list[Transform]) -> None:
        self.parts = parts

    def __call__(self, x: Any, update: bool) -> tuple[Any, ...]:
        return tuple(fn(item, update) for fn, item in zip(self.parts, x, strict=True))


class _BoxNorm:
    """Normalises a batch of one Box part, shape ``(num_envs, *shape)``."""

    def __init__(self, stats: Stats, epsilon: float, clip: float | None) -> None:
        self.stats = stats
        self.epsilon = epsilon
        self.clip = clip

    def __call__(self, x: Any, update: bool) -> Any:
        batch = np.asarray(x, dtype=np.float64)
        if update:
            self.stats.update(batch)
        return self._scale(batch)

    def _scale(self, value: NDArray[np.float64]) -> Any:
        stats = self.stats
        # asarray: one sample of a scalar Box gives a numpy scalar, and
        # observations of a Box are arrays (0-d here).
        out: NDArray[np.float64] = np.asarray(
            (value - stats.mean) / np.sqrt(stats.var + self.epsilon)
        )
        clip = self.clip
        if clip is not None:
            # Faster than np.clip for the small arrays of a step.
            np.maximum(out, -clip, out=out)
            np.minimum(out, clip, out=out)
        return out


class _OneBoxNorm(_BoxNorm):
    """Normalises one observation of a Box part.

    The statistics are updated with it as a batch of one; the observation is
    normalised as it is, without a batch axis to broadcast over.
    """

    def __call__(self, x: Any, update: bool) -> Any:
        sample = np.asarray(x, dtype=np.float64)
        if update:
            stats = self.stats
            if isinstance(stats, RunningMeanStd):
                # RunningMeanStd.update_from_moments for one sample, written with
                # fewer array operations (this runs every step).
                count = stats.count
                total = count + 1.0
                delta = sample - stats.mean
                stats.mean = stats.mean + delta / total
                stats.var = (stats.var + delta * delta / total) * (count / total)
                stats.count = total
            else:
                stats.update(sample[np.newaxis])
        return self._scale(sample)


class _MaskedNorm:
    """Normalises the occupied slots of a MaskedBox part.

    Boolean indexing by the mask gives the occupied slots as one batch of
    elements, whether the part is one observation or a batch of them.
    """

    def __init__(self, stats: Stats, epsilon: float, clip: float | None) -> None:
        self.stats = stats
        self.epsilon = epsilon
        self.clip = clip

    def __call__(self, x: Any, update: bool) -> dict[str, Any]:
        values = np.asarray(x["values"], dtype=np.float64)
        mask = x["mask"]
        held_at = np.asarray(mask).astype(np.bool_)
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
        return {"values": out, "mask": mask}


def state_of(tree: Any) -> Any:
    """The statistics tree as plain data (``None`` for parts that pass through)."""
    if tree is None:
        return None
    if isinstance(tree, dict):
        return {key: state_of(value) for key, value in tree.items()}
    if isinstance(tree, tuple):
        return tuple(state_of(value) for value in tree)
    return tree.state_dict()


def load_state(tree: Any, state: Any, where: str = "state") -> None:
    """Restore a statistics tree from `state_of` data.

    Raises:
        ValueError: ``state`` does not have the tree's nesting, keys or shapes.
    """
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
            load_state(sub, state[key], f"{where}[{key!r}]")
        return
    if isinstance(tree, tuple):
        if not isinstance(state, (tuple, list)) or len(state) != len(tree):
            raise ValueError(
                f"{where} must be a sequence of {len(tree)} entries, got {_describe(state)}"
            )
        for i, (sub, sub_state) in enumerate(zip(tree, state, strict=True)):
            load_state(sub, sub_state, f"{where}[{i}]")
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
