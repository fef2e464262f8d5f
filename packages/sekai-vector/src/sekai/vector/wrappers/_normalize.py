"""Batched normalisation of nested observations, built once per observation space."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from sekai.spaces import Box, Dict, MaskedBox, Space, Tuple
from sekai.utils.running_stats import ExponentialMovingStats, RunningMeanStd

__all__ = ["Stats", "StatsKind", "build_normalizer", "check_real", "load_state", "state_of"]

StatsKind = Literal["running", "ewm"]
"""How statistics weigh past samples: ``"running"`` equally, ``"ewm"`` by recency."""

Stats = RunningMeanStd | ExponentialMovingStats
Transform = Callable[[Any, bool], Any]


def check_real(value: object, owner: str, name: str) -> float:
    """``value`` as a finite float, or raise naming the argument."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{owner}: {name} must be a real number, got {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{owner}: {name} must be finite, got {value!r}")
    return number


class _BoxNorm:
    """Normalises a batch of one Box part, shape ``(num_envs, *shape)``."""

    def __init__(self, stats: Stats, epsilon: float, clip: float | None) -> None:
        self.stats = stats
        self.epsilon = epsilon
        self.clip = clip

    def __call__(self, batch: Any, update: bool) -> NDArray[np.float64]:
        value = np.asarray(batch, dtype=np.float64)
        stats = self.stats
        if update:
            stats.update(value)
        out: NDArray[np.float64] = (value - stats.mean) / np.sqrt(stats.var + self.epsilon)
        if self.clip is not None:
            np.clip(out, -self.clip, self.clip, out=out)
        return out


class _MaskedNorm:
    """Normalises the occupied slots of a batch of one MaskedBox part."""

    def __init__(self, stats: Stats, epsilon: float, clip: float | None) -> None:
        self.stats = stats
        self.epsilon = epsilon
        self.clip = clip

    def __call__(self, batch: Any, update: bool) -> dict[str, Any]:
        values = np.asarray(batch["values"], dtype=np.float64)
        mask = batch["mask"]
        held_at = np.asarray(mask).astype(np.bool_)
        held = values[held_at]
        stats = self.stats
        if update and held.shape[0]:
            stats.update(held)
        out = np.zeros_like(values)
        normalised = (held - stats.mean) / np.sqrt(stats.var + self.epsilon)
        if self.clip is not None:
            np.clip(normalised, -self.clip, self.clip, out=normalised)
        out[held_at] = normalised
        return {"values": out, "mask": mask}


def _passthrough(batch: Any, update: bool) -> Any:
    return batch


def build_normalizer(
    space: Space[Any],
    *,
    num_envs: int,
    kind: StatsKind,
    halflife: float,
    epsilon: float,
    clip: float | None,
) -> tuple[Transform, Space[Any], Any]:
    """Return ``(transform, normalised single-env space, statistics tree)`` for ``space``.

    ``transform(batch, update)`` normalises a batch (updating the statistics
    first when ``update``). With ``kind="ewm"`` the halflife counts vector
    steps: each statistics object sees ``num_envs`` samples per step (for a
    MaskedBox, up to ``num_envs * max_size``), so its halflife in samples is
    scaled accordingly.
    """
    bound = math.inf if clip is None else clip

    def new_stats(shape: tuple[int, ...], per_step: int) -> Stats:
        if kind == "ewm":
            return ExponentialMovingStats(shape, halflife=halflife * per_step)
        return RunningMeanStd(shape)

    def build(part: Space[Any]) -> tuple[Transform, Space[Any], Any]:
        if isinstance(part, MaskedBox):
            stats = new_stats(part.element_shape, num_envs * part.max_size)
            out = MaskedBox(
                -bound, bound, part.element_shape, max_size=part.max_size, dtype=np.float64
            )
            return _MaskedNorm(stats, epsilon, clip), out, stats
        if isinstance(part, Box):
            stats = new_stats(part.shape, num_envs)
            return _BoxNorm(stats, epsilon, clip), Box(-bound, bound, part.shape, np.float64), stats
        if isinstance(part, Dict):
            parts = {key: build(child) for key, child in part.spaces.items()}
            fns = [(key, fn) for key, (fn, _, _) in parts.items()]

            def dict_fn(batch: Any, update: bool) -> Any:
                return {key: fn(batch[key], update) for key, fn in fns}

            space_out = Dict({key: sub for key, (_, sub, _) in parts.items()})
            return dict_fn, space_out, {key: rms for key, (_, _, rms) in parts.items()}
        if isinstance(part, Tuple):
            built = [build(child) for child in part.spaces]
            tuple_fns = [fn for fn, _, _ in built]

            def tuple_fn(batch: Any, update: bool) -> Any:
                return tuple(fn(item, update) for fn, item in zip(tuple_fns, batch, strict=True))

            return tuple_fn, Tuple(sub for _, sub, _ in built), tuple(rms for _, _, rms in built)
        return _passthrough, part, None

    return build(space)


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
    """Restore a statistics tree from :func:`state_of` data.

    Raises:
        ValueError: ``state`` does not have the tree's nesting or shapes.
    """
    if tree is None:
        if state is not None:
            raise ValueError(f"{where} must be None (this part is not normalised), got {state!r}")
        return
    if isinstance(tree, dict):
        if not isinstance(state, Mapping) or set(state) != set(tree):
            raise ValueError(f"{where} must be a dict with keys {sorted(tree)!r}, got {state!r}")
        for key, sub in tree.items():
            load_state(sub, state[key], f"{where}[{key!r}]")
        return
    if isinstance(tree, tuple):
        if not isinstance(state, (tuple, list)) or len(state) != len(tree):
            raise ValueError(f"{where} must be a sequence of {len(tree)} entries, got {state!r}")
        for i, (sub, sub_state) in enumerate(zip(tree, state, strict=True)):
            load_state(sub, sub_state, f"{where}[{i}]")
        return
    if not isinstance(state, Mapping):
        raise ValueError(f"{where} must be a statistics dict, got {state!r}")
    tree.load_state_dict(dict(state))
