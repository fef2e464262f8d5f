"""Normalisation of the per-sub-env arguments every vector backend accepts.

``reset(seed=..., options=...)`` and ``set_attr(name, values)`` take either one
value for every sub-env or a list with one entry per sub-env. These helpers
turn both forms into a list of ``num_envs`` entries (or raise), so every
backend (Sync, Async, Proc, Ray, native) applies the same rules. A bad
argument of such a call raises [`InvalidArgument`][sekai.error.InvalidArgument]
(a ``ValueError``), or [`InvalidArgumentType`][sekai.error.InvalidArgumentType]
(also a ``TypeError``) for one of the wrong type: ``except SekaiError``
catches them, as every deliberate error of a vector call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from sekai._internal.validation import check_int, check_real, is_int
from sekai.error import InvalidArgument, InvalidArgumentType
from sekai.utils.seeding import SeedType, make_seed_sequence
from sekai.vector._sub_envs import count_sub_envs

__all__ = [
    "GENERATOR_SEED_ERROR",
    "NOT_GIVEN",
    "actions_argument",
    "check_num_envs",
    "per_env_options",
    "per_env_seeds",
    "per_env_values",
]

GENERATOR_SEED_ERROR = (
    "reset: a vector env takes an int seed (one independent seed is derived per "
    "sub-env), a list of per-env seeds or None; a single numpy.random.Generator "
    "cannot be shared by {num_envs} sub-envs, got {seed!r}"
)
"""The message of the InvalidArgumentType (a TypeError) for ``reset(seed=<a Generator>)``.

Filled with ``.format(num_envs=, seed=)``."""


NOT_GIVEN: Any = ...
"""The default of a parameter that has another name too (tells "not given" from ``None``;
signatures show it as ``...``)."""


def actions_argument(actions: Any, action: Any, owner: str) -> Any:
    """The batch of actions given to ``owner`` as ``actions`` or as ``action``.

    ``action`` is the name sekai 0.2 gave the batch in the ``async_step`` of
    ``SyncVecEnv``, ``ProcVecEnv`` and ``NativeVecEnv``, kept for
    compatibility.

    Raises:
        InvalidArgumentType: Both names are given, or neither (a ``TypeError``).
    """
    if action is NOT_GIVEN:
        if actions is NOT_GIVEN:
            raise InvalidArgumentType(
                f"{owner}() needs the batch of actions, got neither actions nor action"
            )
        return actions
    if actions is not NOT_GIVEN:
        raise InvalidArgumentType(
            f"{owner}() got the batch twice: give actions, or action (its sekai 0.2 name), not both"
        )
    return action


def check_num_envs(num_envs: object, owner: str) -> int:
    """Return ``num_envs`` as an int >= 1, or raise naming ``owner``."""
    return check_int(num_envs, f"{owner}: num_envs", minimum=1)


def per_env_seeds(seed: object, num_envs: int) -> list[SeedType]:
    """One seed per sub-env, following the vector seeding rule.

    An int derives ``num_envs`` independent seeds with
    [`make_seed_sequence`][sekai.utils.seeding.make_seed_sequence]; a list (or tuple) of
    ``num_envs`` entries is used as is; ``None`` gives ``None`` to every
    sub-env, which continues its stream.

    Raises:
        InvalidArgumentType: ``seed`` is a single Generator (one stream
            cannot be handed to several sub-envs) or of another unsupported
            type (a ``TypeError``).
        InvalidArgument: The int (or an int in the list) is negative, or the
            list has the wrong length (a ``ValueError``).
    """
    if seed is None:
        return [None] * num_envs
    if is_int(seed):
        if seed < 0:
            raise InvalidArgument(f"reset: an int seed must be non-negative, got {seed!r}")
        seeds: list[SeedType] = [*make_seed_sequence(seed, num_envs)]  # type: ignore[arg-type]
        return seeds
    if isinstance(seed, (list, tuple)):
        if len(seed) != num_envs:
            raise InvalidArgument(
                f"reset: a list of seeds must have one entry per sub-env ({num_envs}), "
                f"got {len(seed)}: {seed!r}"
            )
        for entry in seed:
            if (
                entry is not None
                and not is_int(entry)
                and not isinstance(entry, np.random.Generator)
            ):
                raise InvalidArgumentType(
                    "reset: each seed in the list must be an int, a numpy.random.Generator "
                    f"or None, got {entry!r}"
                )
            if is_int(entry) and entry < 0:
                raise InvalidArgument(
                    f"reset: each int seed in the list must be non-negative, got {entry!r} "
                    f"in {seed!r}"
                )
        return list(seed)
    if isinstance(seed, np.random.Generator):
        raise InvalidArgumentType(GENERATOR_SEED_ERROR.format(num_envs=num_envs, seed=seed))
    raise InvalidArgumentType(
        f"reset: seed must be an int, a list of {num_envs} seeds or None, got {seed!r}"
    )


def per_env_options(options: object, num_envs: int) -> list[dict[str, Any] | None]:
    """One options dict (or ``None``) per sub-env.

    A single mapping is given to every sub-env; a list must have one entry
    (a mapping or ``None``) per sub-env.

    Raises:
        InvalidArgumentType: ``options`` or an entry is neither a mapping
            nor ``None`` (a ``TypeError``).
        InvalidArgument: The list has the wrong length (a ``ValueError``).
    """
    if options is None:
        return [None] * num_envs
    if isinstance(options, Mapping):
        return [options] * num_envs  # type: ignore[list-item]
    if isinstance(options, (list, tuple)):
        if len(options) != num_envs:
            raise InvalidArgument(
                f"reset: a list of options must have one entry per sub-env ({num_envs}), "
                f"got {len(options)}: {options!r}"
            )
        for entry in options:
            if entry is not None and not isinstance(entry, Mapping):
                raise InvalidArgumentType(
                    f"reset: each entry of the options list must be a dict or None, got {entry!r}"
                )
        return list(options)
    raise InvalidArgumentType(
        f"reset: options must be a dict, a list of {num_envs} dicts (or None) or None, "
        f"got {options!r}"
    )


def per_env_values(values: object, num_envs: int, name: str) -> list[Any]:
    """The values ``set_attr`` gives each sub-env: a list is per env, anything else is shared.

    Raises:
        InvalidArgument: ``values`` is a list whose length is not
            ``num_envs`` (a ``ValueError``).
    """
    if isinstance(values, list):
        if len(values) != num_envs:
            raise InvalidArgument(
                f"set_attr({name!r}): a list of values must have one entry per sub-env "
                f"({num_envs}), got {len(values)}: {values!r}"
            )
        return values
    return [values] * num_envs


def check_num_workers(num_workers: object, num_envs: int, owner: str) -> int:
    """A remote backend's ``num_workers``: ``None`` (one per sub-env) or 1 to ``num_envs``."""
    if num_workers is None:
        return num_envs
    return check_int(
        num_workers,
        f"{owner}: num_workers",
        minimum=1,
        maximum=num_envs,
        expected=f"None or an int in [1, {num_envs}] (there {'is' if num_envs == 1 else 'are'} "
        f"{count_sub_envs(num_envs)})",
    )


def check_step_timeout(step_timeout: object, owner: str) -> float | None:
    """The ``step_timeout`` argument of a backend: ``None`` or seconds > 0 (``inf`` allowed)."""
    if step_timeout is None:
        return None
    return check_real(
        step_timeout,
        f"{owner}: step_timeout",
        finite=False,
        minimum=0,
        min_open=True,
        expected="None or a number of seconds > 0",
    )
