"""The action-mask protocol.

An environment that knows which actions are currently valid exposes a method
``action_mask()`` returning a mask shaped like its action space, the same
format ``action_space.sample(mask=...)`` accepts:

- [`Discrete`][sekai.spaces.Discrete]: an int8 array of length ``n``, 1 where the
  action is allowed;
- [`MultiDiscrete`][sekai.spaces.MultiDiscrete]: one such array per entry (nested like
  ``nvec``; ``None`` for an unconstrained entry);
- [`MultiBinary`][sekai.spaces.MultiBinary] and [`Box`][sekai.spaces.Box]: a bool
  array of the space's shape, ``False`` for a component the agent does not
  control;
- [`Dict`][sekai.spaces.Dict] / [`Tuple`][sekai.spaces.Tuple]: a dict / tuple of
  the sub-spaces' masks (``None``, or a missing key, for an unconstrained
  sub-space).

Convention: a masked component of an action (``False`` in a MultiBinary or Box
mask) takes the action space's zero (``action_space.zero()``: 0 clipped into
the bounds for a Box, 0 for MultiBinary), which is also what
``sample(mask=...)`` puts there. Envs must accept that value and wrappers that
transform actions must send it.

Policies that apply the mask themselves (masked logits) want one flat vector:
`flatten_action_mask` turns a nested mask into an int8 array living in
`action_mask_space`, a [`MultiBinary`][sekai.spaces.MultiBinary].
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import singledispatch
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.spaces import Box, Dict, Discrete, MultiBinary, MultiDiscrete, Space, Tuple

__all__ = [
    "action_mask_space",
    "flatten_action_mask",
    "get_action_mask",
    "supports_action_mask",
]


def supports_action_mask(env: object) -> bool:
    """Whether ``env`` (or the env a wrapper stack forwards to) has ``action_mask()``."""
    return callable(getattr(env, "action_mask", None))


def get_action_mask(env: object) -> Any:
    """Return ``env.action_mask()``, the mask of the currently valid actions.

    Works through wrappers: attribute reads are forwarded to the wrapped env
    unless a wrapper defines ``action_mask`` itself.

    Raises:
        TypeError: ``env`` does not implement ``action_mask()``.
    """
    method = getattr(env, "action_mask", None)
    if not callable(method):
        raise TypeError(
            f"{env} does not implement action_mask(); see sekai.utils.masking for the protocol"
        )
    return method()


# The mask layout of each space type: one singledispatch function per question.
@singledispatch
def _mask_size(space: Space[Any]) -> int:
    raise TypeError(
        f"action masks are defined for Discrete, MultiDiscrete, MultiBinary, Box, Dict and "
        f"Tuple spaces, got {space!r}"
    )


@_mask_size.register(Discrete)
def _mask_size_discrete(space: Discrete) -> int:
    return int(space.n)


@_mask_size.register(MultiDiscrete)
def _mask_size_multi_discrete(space: MultiDiscrete) -> int:
    return int(np.sum(space.nvec))


@_mask_size.register(MultiBinary)
@_mask_size.register(Box)
def _mask_size_array(space: Space[Any]) -> int:
    return math.prod(space.shape or ())


@_mask_size.register(Dict)
def _mask_size_dict(space: Dict) -> int:
    return sum(_mask_size(sub) for sub in space.spaces.values())


@_mask_size.register(Tuple)
def _mask_size_tuple(space: Tuple) -> int:
    return sum(_mask_size(sub) for sub in space.spaces)


def action_mask_space(space: Space[Any]) -> MultiBinary:
    """The [`MultiBinary`][sekai.spaces.MultiBinary] where flat masks of the action ``space`` live.

    Its size is one entry per choice of every Discrete / MultiDiscrete entry
    plus one per component of every MultiBinary / Box, over the whole nested
    space, in the order `flatten_action_mask` writes them.

    Raises:
        TypeError: The space (or a sub-space) has no fixed-size mask, e.g. a
            [`Sequence`][sekai.spaces.Sequence].
    """
    return MultiBinary(_mask_size(space))


def flatten_action_mask(space: Space[Any], mask: Any) -> NDArray[np.int8]:
    """Flatten a (nested) action mask of ``space`` into one int8 vector.

    Sub-space masks are concatenated in the space's order (Dict keys in
    order, Tuple entries, MultiDiscrete entries in C order of ``nvec``); a
    ``None`` mask, at the top or for a sub-space, is all ones.

    Returns:
        An int8 array, an element of ``action_mask_space(space)``.

    Raises:
        TypeError: The mask's structure does not match the space.
        ValueError: A mask has the wrong shape or values other than 0/1.
    """
    parts: list[NDArray[np.int8]] = []
    _flatten_into(space, mask, parts, "mask")
    if not parts:
        return np.zeros(0, dtype=np.int8)
    return np.concatenate(parts).astype(np.int8, copy=False)


def _as_01(mask: Any, shape: tuple[int, ...], space: Space[Any], where: str) -> NDArray[np.int8]:
    array = np.asarray(mask)
    if array.shape != shape:
        raise ValueError(
            f"{where} for {space!r} must have shape {shape}, got {mask!r} of shape {array.shape}"
        )
    if array.dtype != np.bool_ and (
        array.dtype.kind not in "iu" or not bool(np.all((array == 0) | (array == 1)))
    ):
        raise ValueError(f"{where} for {space!r} must hold only 0/1 (or bools), got {mask!r}")
    return array.astype(np.int8).ravel()


def _flatten_into(space: Space[Any], mask: Any, parts: list[NDArray[np.int8]], where: str) -> None:
    if mask is None:
        parts.append(np.ones(_mask_size(space), dtype=np.int8))
    else:
        _flatten_mask(space, mask, parts, where)


@singledispatch
def _flatten_mask(space: Space[Any], mask: Any, parts: list[NDArray[np.int8]], where: str) -> None:
    _mask_size(space)  # raises the unsupported-space error
    raise AssertionError("unreachable")  # pragma: no cover


@_flatten_mask.register(Discrete)
def _flatten_discrete(
    space: Discrete, mask: Any, parts: list[NDArray[np.int8]], where: str
) -> None:
    parts.append(_as_01(mask, (int(space.n),), space, where))


@_flatten_mask.register(MultiBinary)
@_flatten_mask.register(Box)
def _flatten_array(space: Space[Any], mask: Any, parts: list[NDArray[np.int8]], where: str) -> None:
    parts.append(_as_01(mask, space.shape or (), space, where))


@_flatten_mask.register(MultiDiscrete)
def _flatten_multi(
    space: MultiDiscrete, mask: Any, parts: list[NDArray[np.int8]], where: str
) -> None:
    _flatten_multi_discrete(space, np.asarray(space.nvec), mask, parts, where)


@_flatten_mask.register(Dict)
def _flatten_dict(space: Dict, mask: Any, parts: list[NDArray[np.int8]], where: str) -> None:
    if not isinstance(mask, Mapping):
        raise TypeError(f"{where} for {space!r} must be a dict of sub-space masks, got {mask!r}")
    unknown = [key for key in mask if key not in space.spaces]
    if unknown:
        raise ValueError(f"{where} has keys {unknown!r} not in {list(space.spaces)!r}")
    for key, sub in space.spaces.items():
        _flatten_into(sub, mask.get(key), parts, f"{where}[{key!r}]")


@_flatten_mask.register(Tuple)
def _flatten_tuple(space: Tuple, mask: Any, parts: list[NDArray[np.int8]], where: str) -> None:
    if not isinstance(mask, (tuple, list)) or len(mask) != len(space.spaces):
        raise TypeError(
            f"{where} for {space!r} must be a tuple of {len(space.spaces)} sub-space masks, "
            f"got {mask!r}"
        )
    for i, (sub, sub_mask) in enumerate(zip(space.spaces, mask, strict=True)):
        _flatten_into(sub, sub_mask, parts, f"{where}[{i}]")


def _flatten_multi_discrete(
    space: Space[Any],
    nvec: NDArray[Any],
    mask: Any,
    parts: list[NDArray[np.int8]],
    where: str,
) -> None:
    if mask is None:
        parts.append(np.ones(int(np.sum(nvec)), dtype=np.int8))
        return
    if nvec.ndim == 0:
        parts.append(_as_01(mask, (int(nvec),), space, where))
        return
    if isinstance(mask, np.ndarray) and mask.dtype != object:
        mask = list(mask)
    if not isinstance(mask, Sequence) or isinstance(mask, (str, bytes)) or len(mask) != len(nvec):
        raise TypeError(
            f"{where} for {space!r} must be a sequence of {len(nvec)} per-entry masks, got {mask!r}"
        )
    for i, (sub_nvec, sub_mask) in enumerate(zip(nvec, mask, strict=True)):
        _flatten_multi_discrete(space, np.asarray(sub_nvec), sub_mask, parts, f"{where}[{i}]")
