"""PadSequenceObservation: variable-length Sequence observations as fixed-size MaskedBoxes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from sekai._internal.validation import check_choice, check_int
from sekai.core import ActType, Env, ObservationWrapper
from sekai.error import InvalidObservation
from sekai.spaces import Box, Dict, MaskedBox, Sequence, Space, Tuple

__all__ = ["PadSequenceObservation", "Truncate"]

Truncate = Literal["tail", "head", "error"]
"""What to do with a sequence longer than its slots: keep the last or first elements, or raise."""

_Fn = Callable[[Any], Any]


class PadSequenceObservation(ObservationWrapper[Any, ActType, Any]):
    """Turns variable-length Sequence observations into fixed-size MaskedBox ones.

    Every [`Sequence`][sekai.spaces.Sequence] of [`Box`][sekai.spaces.Box]
    elements in the observation space, at the top level or nested in Dicts
    and Tuples, becomes a [`MaskedBox`][sekai.spaces.MaskedBox] with the element's
    bounds, shape and dtype and ``max_length`` slots. A sequence of ``k``
    elements fills the first ``k`` slots in order (``mask`` 1 there) and the
    other slots hold the element zero (0 clipped into the bounds) with mask
    0. The result has fixed shapes, so it can be vectorised, flattened,
    normalised and fed to a standard network. Other parts pass through.

    A sequence longer than its slots is handled by ``truncate``: ``"tail"``
    (the default) keeps the most recent (last) elements, ``"head"`` the
    first ones, and ``"error"`` raises [`InvalidObservation`][sekai.error.InvalidObservation].

    Args:
        env: The environment to wrap.
        max_length: Slots per sequence (>= 1). Defaults to each Sequence's own
            ``max_length``.
        truncate: ``"tail"``, ``"head"`` or ``"error"``.

    Raises:
        TypeError: The space holds no Sequence, or a Sequence whose elements
            are not Boxes.
        ValueError: A bad ``max_length`` or ``truncate``.
    """

    def __init__(
        self,
        env: Env[Any, ActType],
        max_length: int | None = None,
        *,
        truncate: Truncate = "tail",
    ) -> None:
        owner = "PadSequenceObservation"
        slots = (
            None if max_length is None else check_int(max_length, f"{owner}: max_length", minimum=1)
        )
        mode = check_choice(truncate, f"{owner}: truncate", ("tail", "head", "error"))
        self.max_length = slots
        self.truncate: Truncate = (
            "tail" if mode == "tail" else "head" if mode == "head" else "error"
        )
        self._found = 0
        fn, space = self._build(env.observation_space, "observation")
        if self._found == 0:
            raise TypeError(
                f"{owner}: the observation space {env.observation_space!r} holds no Sequence to pad"
            )
        super().__init__(env)
        self._transform = fn
        self.observation_space = space

    def observation(self, obs: Any) -> Any:
        """Pad every sequence of one observation."""
        return self._transform(obs)

    def _build(self, space: Space[Any], where: str) -> tuple[_Fn, Space[Any]]:
        if isinstance(space, Sequence):
            feature = space.feature_space
            if not isinstance(feature, Box):
                raise TypeError(
                    f"PadSequenceObservation pads Sequences of Box elements; {where} is {space!r}"
                )
            self._found += 1
            size = space.max_length if self.max_length is None else self.max_length
            out = MaskedBox(
                feature.low, feature.high, feature.shape, max_size=size, dtype=feature.dtype
            )
            return _Padder(out, self.truncate, where), out
        if isinstance(space, MaskedBox):
            return _identity, space
        if isinstance(space, Dict):
            parts = {
                key: self._build(sub, f"{where}[{key!r}]") for key, sub in space.spaces.items()
            }
            if all(fn is _identity for fn, _ in parts.values()):
                return _identity, space
            new_space = Dict({key: sub for key, (_, sub) in parts.items()})
            return _DictPad({key: fn for key, (fn, _) in parts.items()}), new_space
        if isinstance(space, Tuple):
            built = [self._build(sub, f"{where}[{i}]") for i, sub in enumerate(space.spaces)]
            if all(fn is _identity for fn, _ in built):
                return _identity, space
            return _TuplePad([fn for fn, _ in built]), Tuple(sub for _, sub in built)
        return _identity, space


def _identity(x: Any) -> Any:
    return x


class _DictPad:
    """Pads the parts of a Dict observation."""

    def __init__(self, parts: dict[str, _Fn]) -> None:
        self.parts = list(parts.items())

    def __call__(self, x: Any) -> dict[str, Any]:
        return {key: fn(x[key]) for key, fn in self.parts}


class _TuplePad:
    """Pads the parts of a Tuple observation."""

    def __init__(self, parts: list[_Fn]) -> None:
        self.parts = parts

    def __call__(self, x: Any) -> tuple[Any, ...]:
        return tuple(fn(item) for fn, item in zip(self.parts, x, strict=True))


class _Padder:
    """Pads one sequence into the slots of a MaskedBox."""

    def __init__(self, space: MaskedBox, truncate: Truncate, where: str) -> None:
        self.size = space.max_size
        self.shape = space.element_shape
        self.dtype = space.element_space.dtype
        self.template = space.zero()["values"]
        self.truncate = truncate
        self.where = where

    def __call__(self, sequence: Any) -> dict[str, Any]:
        count = len(sequence)
        size = self.size
        if count > size:
            if self.truncate == "error":
                raise InvalidObservation(
                    f"PadSequenceObservation: {self.where} has {count} elements, more than the "
                    f"{size} slots (truncate='error'); raise max_length or truncate"
                )
            sequence = sequence[count - size :] if self.truncate == "tail" else sequence[:size]
            count = size
        values = self.template.copy()
        mask = np.zeros(size, dtype=np.int8)
        if count:
            try:
                elements = np.asarray(sequence, dtype=self.dtype)
            except ValueError as error:  # ragged elements, or values that are not numbers
                raise InvalidObservation(
                    f"PadSequenceObservation: {self.where} must hold elements of shape "
                    f"{self.shape} and dtype {self.dtype}, got {sequence!r} ({error})"
                ) from error
            if elements.shape != (count, *self.shape):
                raise InvalidObservation(
                    f"PadSequenceObservation: {self.where} must hold elements of shape "
                    f"{self.shape}, got an array of shape {elements.shape}"
                )
            values[:count] = elements
            mask[:count] = 1
        return {"values": values, "mask": mask}
