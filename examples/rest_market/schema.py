"""The JSON bodies the market server sends, as msgspec Structs the client decodes into.

:class:`~rest_market.env.RestMarketEnv` decodes each answer of the server
straight from its bytes into one of these types with a
:class:`msgspec.json.Decoder` (no dict in between), in msgspec's strict
mode: a JSON string is never taken for a number or a flag (``"false"`` is
not ``False``, ``"1.5"`` is not ``1.5``), a bool is not a number, every
number is finite (``1e999`` is refused; JSON has no NaN), every field is
required and no unknown field is accepted. What does not fit raises
:class:`msgspec.ValidationError` (or :class:`msgspec.DecodeError` for text
that is not JSON); the env turns either into
:class:`~rest_market.env.InvalidAnswer`, naming the field.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import msgspec

__all__ = ["Created", "ErrorAnswer", "FiniteFloat", "Info", "ResetAnswer", "StepAnswer"]

FiniteFloat = Annotated[
    float, msgspec.Meta(ge=-sys.float_info.max, le=sys.float_info.max, description="finite")
]
"""A JSON number that is a finite float (an int is taken as a float, as JSON does)."""


class Info(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """The ``info`` of a reset or a step (see :meth:`MarketSimulator._info`)."""

    t: int
    price: FiniteFloat
    position: int
    cash: FiniteFloat
    equity: FiniteFloat
    cost: FiniteFloat


class Created(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """The answer to ``POST /sessions``: the new session's id and its config."""

    id: Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{1,128}$")]  # goes in URL paths
    config: dict[str, Any]


class ResetAnswer(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """The answer to ``POST /sessions/{id}/reset``."""

    observation: list[FiniteFloat]
    info: Info


class StepAnswer(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """The answer to ``POST /sessions/{id}/step``."""

    observation: list[FiniteFloat]
    reward: FiniteFloat
    terminated: bool
    truncated: bool
    info: Info


class ErrorAnswer(msgspec.Struct, frozen=True):
    """The body of an error status: ``{"error": message}`` (other fields are ignored)."""

    error: str
