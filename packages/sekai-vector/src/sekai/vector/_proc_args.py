"""Argument checks and batch splitting for :class:`~sekai.vector.ProcVecEnv`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sekai._validation import check_callable, check_int, check_real
from sekai.spaces import Dict, Space, Tuple

__all__ = [
    "check_close_timeout",
    "check_env_fns",
    "check_num_workers",
    "make_slicer",
    "split_evenly",
]


def split_evenly(num_envs: int, num_workers: int) -> list[tuple[int, int]]:
    """Split ``num_envs`` sub-envs into ``num_workers`` contiguous, even groups."""
    size, extra = divmod(num_envs, num_workers)
    bounds, start = [], 0
    for i in range(num_workers):
        stop = start + size + (1 if i < extra else 0)
        bounds.append((start, stop))
        start = stop
    return bounds


def _slice_leaf(space: Space[Any]) -> Callable[[Any, int, int], Any]:
    if isinstance(space, Dict):
        children = tuple((key, _slice_leaf(child)) for key, child in space.spaces.items())
        return lambda batch, lo, hi: {key: cut(batch[key], lo, hi) for key, cut in children}
    if isinstance(space, Tuple):
        parts = tuple(_slice_leaf(child) for child in space.spaces)
        return lambda batch, lo, hi: tuple(
            cut(part, lo, hi) for cut, part in zip(parts, batch, strict=True)
        )
    return lambda batch, lo, hi: batch[lo:hi]


def make_slicer(space: Space[Any], bounds: list[tuple[int, int]]) -> Callable[[Any], list[Any]]:
    """Split a checked batch of actions into one batch per worker (chosen once)."""
    if len(bounds) == 1:
        return lambda batch: [batch]
    cut = _slice_leaf(space)
    return lambda batch: [cut(batch, lo, hi) for lo, hi in bounds]


def check_env_fns(env_fns: object) -> Sequence[Callable[[], Any]]:
    if isinstance(env_fns, (str, bytes)) or not isinstance(env_fns, Sequence):
        raise TypeError(
            f"ProcVecEnv: env_fns must be a sequence of callables that build an env, "
            f"got {env_fns!r}"
        )
    if len(env_fns) == 0:
        raise ValueError(f"ProcVecEnv: env_fns must hold at least one env factory, got {env_fns!r}")
    for fn in env_fns:
        check_callable(fn, "ProcVecEnv: every entry of env_fns")
    return env_fns


def check_num_workers(num_workers: object, num_envs: int) -> int:
    if num_workers is None:
        return num_envs
    return check_int(
        num_workers,
        "ProcVecEnv: num_workers",
        minimum=1,
        maximum=num_envs,
        expected=f"None or an int in [1, {num_envs}] (there are {num_envs} sub-envs)",
    )


def check_close_timeout(close_timeout: object) -> float:
    return check_real(
        close_timeout,
        "ProcVecEnv: close_timeout",
        finite=False,
        minimum=0,
        expected="a number of seconds >= 0",
    )
