"""JSON descriptions of spaces: `space_from_jsonable`.

Every space describes itself with ``space.to_jsonable()`` (also available as
``space.to_json_dict()``), a dict of JSON types whose ``"type"`` key names the
space type; `space_from_jsonable` rebuilds an equal space from it (e.g.
from an ``EnvSpec`` or a log), as does the classmethod
``Space.from_jsonable(data)``. New space types join through
[`register_space_type`][sekai.spaces.register_space_type].
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sekai.spaces.box import Box
from sekai.spaces.dict import Dict
from sekai.spaces.discrete import Discrete
from sekai.spaces.masked_box import MaskedBox
from sekai.spaces.multi_binary import MultiBinary
from sekai.spaces.multi_discrete import MultiDiscrete
from sekai.spaces.sequence import Sequence
from sekai.spaces.space import Space
from sekai.spaces.tuple import Tuple

__all__ = ["space_from_jsonable"]

SpaceDecoder = Callable[[dict[str, Any]], Space[Any]]

_DECODERS: dict[str, SpaceDecoder] = {}


def space_from_jsonable(data: Mapping[str, Any]) -> Space[Any]:
    """Rebuild a space from its JSON description (the output of ``space.to_jsonable()``).

    ``space_from_jsonable(space.to_jsonable()) == space`` for every space.

    Raises:
        TypeError: ``data`` is not a mapping with a string ``"type"`` key.
        ValueError: No space type is registered under that name.
    """
    if not isinstance(data, Mapping) or not isinstance(data.get("type"), str):
        raise TypeError(f"expected a space description (a dict with a 'type' key), got {data!r}")
    name = data["type"]
    decoder = _DECODERS.get(name)
    if decoder is None:
        raise ValueError(
            f"unknown space type {name!r} (known: {sorted(_DECODERS)!r}); register it with "
            "sekai.spaces.register_space_type"
        )
    return decoder(dict(data))


def _register_decoder(name: str, decoder: SpaceDecoder, *, replace: bool = False) -> None:
    if not replace and name in _DECODERS:
        raise ValueError(f"a space type is already registered under the name {name!r}")
    _DECODERS[name] = decoder


for _cls in (Box, Discrete, MultiDiscrete, MultiBinary, Dict, Tuple, Sequence, MaskedBox):
    _register_decoder(_cls.__name__, _cls.from_json_dict)
del _cls
