"""`assert_native_matches`: a native vector env against its single env (``sekai.testing``)."""

from __future__ import annotations

import copy
import math
import numbers
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from sekai.core import Env
from sekai.utils.seeding import SeedType
from sekai.vector._rows import get_row
from sekai.vector.results import VecResetResult, VecStepResult
from sekai.vector.sync_vec_env import SyncVecEnv
from sekai.vector.vec_env import VecEnv

__all__ = ["assert_native_matches"]


def assert_native_matches(
    make_single: Callable[[], Env[Any, Any]],
    make_native: Callable[[int], VecEnv[Any, Any]],
    *,
    seeds: Sequence[int],
    n_steps: int,
    actions_seed: int = 0,
    ignore_info_keys: Sequence[str] = (),
) -> None:
    """Check that a native vector env steps exactly as its single env does.

    Builds ``make_native(len(seeds))`` and, as the reference, a
    [`SyncVecEnv`][sekai.vector.SyncVecEnv] of ``len(seeds)`` single envs from
    ``make_single`` (so autoreset and its infos are the contract's), resets
    both with ``seed=list(seeds)`` (sub-env ``i`` gets ``seeds[i]``), then
    steps both ``n_steps`` times with the same random actions (sampled from
    the native env's ``batch_action_space``, seeded with ``actions_seed``).
    Both are closed at the end.

    Compared, for every sub-env, after the reset and after every step, with
    NaN equal to NaN and nothing else rounded, in this order: the reward,
    ``terminated`` and ``truncated`` (first: a wrong flag also changes the
    next observation, through autoreset), the observation (values, shapes
    and dtypes of every leaf), and the info dict: the same keys (except
    ``ignore_info_keys``, left out at every level, for values such as
    timings that may differ), each
    value equal by value (a Python number and a numpy scalar of equal value
    are equal, since a native env's infos come from arrays), nested dicts
    (``final_info``, ``reset_info``) and the ``final_observation`` arrays
    included.

    Args:
        make_single: Builds one single env.
        make_native: Builds the native vector env for a number of sub-envs.
        seeds: One seed per sub-env (their number is the number of sub-envs).
        n_steps: Steps to compare after the reset.
        actions_seed: Seed of the random actions.
        ignore_info_keys: Info keys left out of the comparison.

    Raises:
        AssertionError: The first difference, naming the step (0 is the
            reset), the sub-env and the field (``observation``, ``reward``,
            ``terminated``, ``truncated``, ``info["key"]``, ...).
        ValueError: ``seeds`` is empty or ``n_steps`` is negative.
    """
    seed_list: list[SeedType] = list(seeds)
    if not seed_list:
        raise ValueError("assert_native_matches: seeds must hold at least one seed, got []")
    if n_steps < 0:
        raise ValueError(f"assert_native_matches: n_steps must be >= 0, got {n_steps}")
    n = len(seed_list)
    native = make_native(n)
    reference: SyncVecEnv[Any, Any] = SyncVecEnv([make_single] * n)
    ignored = frozenset(ignore_info_keys)
    try:
        if native.num_envs != n:
            raise AssertionError(
                f"assert_native_matches: make_native({n}) built {native.num_envs} sub-envs"
            )
        if native.observation_space != reference.observation_space:
            raise AssertionError(
                "assert_native_matches: observation spaces differ: native "
                f"{native.observation_space!r}, single {reference.observation_space!r}"
            )
        space = native.observation_space
        _compare(native.reset(seed=seed_list), reference.reset(seed=seed_list), 0, space, ignored)
        action_space = copy.deepcopy(native.batch_action_space)
        action_space.seed(actions_seed)
        for step in range(1, n_steps + 1):
            actions = action_space.sample()
            _compare(native.step(actions), reference.step(actions), step, space, ignored)
    finally:
        try:
            native.close()
        finally:
            reference.close()


def _compare(
    native: VecResetResult[Any] | VecStepResult[Any],
    single: VecResetResult[Any] | VecStepResult[Any],
    step: int,
    space: Any,
    ignored: frozenset[str],
) -> None:
    when = "reset (step 0)" if step == 0 else f"step {step}"
    for i in range(len(single.infos)):
        # Flags before observations: a wrong flag changes the next observation
        # (autoreset), so it is the difference to report.
        fields: list[tuple[str, Any, Any]] = []
        if isinstance(native, VecStepResult) and isinstance(single, VecStepResult):
            fields += [
                ("reward", native.rewards[i], single.rewards[i]),
                ("terminated", native.terminated[i], single.terminated[i]),
                ("truncated", native.truncated[i], single.truncated[i]),
            ]
        fields += [
            (
                "observation",
                get_row(native.observations, i, space),
                get_row(single.observations, i, space),
            ),
            ("info", _without(native.infos[i], ignored), _without(single.infos[i], ignored)),
        ]
        for name, got, expected in fields:
            difference = _first_difference(got, expected, name, exact_types=name == "observation")
            if difference is not None:
                where, a, b = difference
                raise AssertionError(
                    f"assert_native_matches: {when}, sub-env {i}, {where}: "
                    f"native {a!r} != single {b!r}"
                )


def _without(info: Mapping[str, Any], ignored: frozenset[str]) -> dict[str, Any]:
    """``info`` without the ``ignored`` keys, at every level (``final_info``, ...)."""
    return {
        key: _without(value, ignored) if isinstance(value, Mapping) else value
        for key, value in info.items()
        if key not in ignored
    }


def _first_difference(
    got: Any, expected: Any, where: str, *, exact_types: bool
) -> tuple[str, Any, Any] | None:
    """``(path, got, expected)`` of the first difference, or ``None`` when equal."""
    for path, a, b in _pairs(got, expected, where):
        if not _same(a, b, exact_types):
            return path, a, b
    return None


def _pairs(a: Any, b: Any, where: str) -> Iterator[tuple[str, Any, Any]]:
    """Leaf pairs of two nested values; a structural mismatch is yielded as one pair."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if set(a) != set(b):
            yield f"{where} keys", sorted(map(str, a)), sorted(map(str, b))
            return
        for key in b:
            yield from _pairs(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        if len(a) != len(b):
            yield f"{where} length", len(a), len(b)
            return
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            yield from _pairs(x, y, f"{where}[{k}]")
    else:
        yield where, a, b


def _same(a: Any, b: Any, exact_types: bool) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        x, y = np.asarray(a), np.asarray(b)
        if x.shape != y.shape or (exact_types and x.dtype != y.dtype):
            return False
        if x.dtype.kind in "fc" or y.dtype.kind in "fc":
            return bool(np.array_equal(x, y, equal_nan=True))
        return bool(np.array_equal(x, y))
    if exact_types and type(a) is not type(b):
        return False
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real):
        return bool(a == b) or (math.isnan(float(a)) and math.isnan(float(b)))
    if isinstance(a, (bool, np.bool_)) or isinstance(b, (bool, np.bool_)):
        return bool(a == b)
    result = a == b
    return result if isinstance(result, bool) else bool(np.all(result))
