"""`assert_native_matches`: a native vector env against its single env (``sekai.testing``)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from sekai._internal.compare import first_difference
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
    the single envs' batched action space, seeded with ``actions_seed``).
    Both are closed at the end.

    First the spaces: the native env's ``observation_space`` and
    ``action_space`` (its single-env spaces) must equal the single env's, so
    a native env that declares fewer or other actions fails even when the
    actions it is given happen to work. Then, for every sub-env, after the
    reset and after every step, with NaN equal to NaN and nothing else
    rounded, in this order: the reward, ``terminated`` and ``truncated``
    (first: a wrong flag also changes the next observation, through
    autoreset), the observation (values, shapes and dtypes of every leaf),
    and the info dict: the same keys (except ``ignore_info_keys``, left out
    at every level, for values such as timings that may differ), each value
    equal by value (a Python number and a numpy scalar of equal value are
    equal, since a native env's infos come from arrays), nested dicts
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
        AssertionError: Spaces that differ, or the first difference, naming
            the step (0 is the reset), the sub-env and the field
            (``observation``, ``reward``, ``terminated``, ``truncated``,
            ``info["key"]``, ...) down to the array element.
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
        for kind in ("observation", "action"):
            got, expected = getattr(native, f"{kind}_space"), getattr(reference, f"{kind}_space")
            if got != expected:
                raise AssertionError(
                    f"assert_native_matches: {kind} spaces differ: native {kind}_space "
                    f"{got!r}, single env's {expected!r}"
                )
        space = native.observation_space
        _compare(native.reset(seed=seed_list), reference.reset(seed=seed_list), 0, space, ignored)
        action_space = copy.deepcopy(reference.batch_action_space)
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
            found = first_difference(got, expected, name, exact_types=name == "observation")
            if found is not None:
                what = found.path if found.aspect == "value" else f"{found.path} {found.aspect}"
                raise AssertionError(
                    f"assert_native_matches: {when}, sub-env {i}, {what}: "
                    f"native {_show(found.got)} != single {_show(found.expected)}"
                )


def _without(info: Mapping[str, Any], ignored: frozenset[str]) -> dict[str, Any]:
    """``info`` without the ``ignored`` keys, at every level (``final_info``, ...)."""
    return {
        key: _without(value, ignored) if isinstance(value, Mapping) else value
        for key, value in info.items()
        if key not in ignored
    }


def _show(value: Any) -> str:
    """A value as the message shows it: numpy scalars as plain numbers."""
    if isinstance(value, np.generic) and not isinstance(value, (np.datetime64, np.timedelta64)):
        return repr(value.item())
    return repr(value)
