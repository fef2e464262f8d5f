"""The state of MarketMaking-v0 sessions: one in Python numbers, or many in arrays (private).

The kernel (`sekai.envs.finance._market_making_kernel`) is written once over a
`SessionState`. Its arithmetic is valid for numbers and arrays alike; the few
operations that are not (a conditional, numpy's exponential and a cap, which
must keep Python floats floats, splitting the bid's and the ask's column,
building an observation) are methods, chosen once by the state's class:

- `ScalarState`: one session, every field a Python number (the single env,
  where numpy's per-call cost on scalars would dominate a step);
- `ArrayState`: one entry per sub-env in numpy arrays (the native vector env).

`state_field` exposes a field of an env's state as an attribute of the env.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar, overload

import numpy as np
from numpy.typing import NDArray

__all__ = ["ArrayState", "ScalarState", "SessionState", "state_field"]

_F64 = NDArray[np.float64]
_Float = TypeVar("_Float", float, NDArray[np.float64])
_Int = TypeVar("_Int", int, NDArray[np.int64])
_Bool = TypeVar("_Bool", bool, NDArray[np.bool_])
_V = TypeVar("_V")

_FIELDS = ("t", "mid", "inventory", "cash", "wealth", "bid", "ask", "bid_filled", "ask_filled")
_CARRIED = ("t", "mid", "inventory", "cash", "wealth")  # what a frozen sub-env keeps


class SessionState(ABC, Generic[_Float, _Int, _Bool]):
    """The state of market-making sessions, and the operations that depend on its kind.

    Attributes:
        t: Steps taken in the session.
        mid: The mid-price.
        inventory: The units held (negative when short).
        cash: The cash account (0 at the start).
        wealth: ``cash + inventory * mid`` after the last step.
        bid: The last bid price (NaN if not quoted).
        ask: The last ask price (NaN if not quoted).
        bid_filled: Whether the last bid was hit.
        ask_filled: Whether the last ask was lifted.
    """

    __slots__ = _FIELDS

    t: _Int
    mid: _Float
    inventory: _Int
    cash: _Float
    wealth: _Float
    bid: _Float
    ask: _Float
    bid_filled: _Bool
    ask_filled: _Bool

    @abstractmethod
    def select(self, condition: _Bool, if_true: _Float, if_false: float) -> _Float:
        """``if_true`` where ``condition`` holds, else ``if_false`` (per session)."""

    @abstractmethod
    def exp(self, values: _Float) -> _Float:
        """``numpy.exp`` of ``values`` (never ``math.exp``: the two differ in the last bit)."""

    @abstractmethod
    def minimum(self, values: _Float, cap: float) -> _Float:
        """The smaller of each value and ``cap`` (NaN stays NaN)."""

    @abstractmethod
    def sides(self, values: Any) -> tuple[_Float, _Float]:
        """The bid's and the ask's entry of pairs: a pair, or an array ``(sessions, 2)``."""

    @abstractmethod
    def of_sides(self, function: Callable[[Any], Any], pairs: Any) -> tuple[_Float, _Float]:
        """``function`` of the bid's and of the ask's entry of ``pairs``.

        On arrays the function runs once over the ``(sessions, 2)`` pairs (one
        pass, contiguous), then the result is split; on a pair, once per side.
        """

    @abstractmethod
    def stack(self, first: _Float, second: _Float, dtype: type[np.generic]) -> NDArray[Any]:
        """``first`` and ``second`` side by side, ``(2,)`` or ``(sessions, 2)`` of ``dtype``."""

    @abstractmethod
    def repeat(self, value: float) -> _Float:
        """``value`` for every session."""

    @abstractmethod
    def assign(self, values: Mapping[str, Any], rows: NDArray[np.intp] | None = None) -> None:
        """Set the fields in ``values`` for the sessions ``rows`` (every one when None)."""


class ScalarState(SessionState[float, int, bool]):
    """One session, every field a Python number (the single env's state)."""

    __slots__ = ()

    def select(self, condition: bool, if_true: float, if_false: float) -> float:
        """``if_true`` if ``condition``, else ``if_false``."""
        return if_true if condition else if_false

    def exp(self, values: float) -> float:
        """``numpy.exp(values)`` as a Python float."""
        # numpy's exp on a scalar runs the loop it runs on arrays (math.exp may differ).
        return float(np.exp(values))

    def minimum(self, values: float, cap: float) -> float:
        """``min(values, cap)``."""
        return cap if cap < values else values  # min()'s rule, without its call

    def sides(self, values: tuple[float, float]) -> tuple[float, float]:
        """The pair itself (the kernel's actions come split already)."""
        return values

    def of_sides(
        self, function: Callable[[Any], Any], pairs: tuple[float, float]
    ) -> tuple[float, float]:
        """``(function(bid), function(ask))``."""
        return function(pairs[0]), function(pairs[1])

    def stack(self, first: float, second: float, dtype: type[np.generic]) -> NDArray[Any]:
        """``[first, second]``, a ``(2,)`` array of ``dtype``."""
        return np.array([first, second], dtype=dtype)

    def repeat(self, value: float) -> float:
        """``value`` itself."""
        return value

    def assign(self, values: Mapping[str, Any], rows: NDArray[np.intp] | None = None) -> None:
        """Set the fields in ``values`` (``rows`` is ignored: there is one session)."""
        for name, value in values.items():
            setattr(self, name, value)


class ArrayState(SessionState[NDArray[np.float64], NDArray[np.int64], NDArray[np.bool_]]):
    """``size`` sessions, every field an array with one entry per session (the native env's).

    A step replaces the arrays rather than writing into them, so an array
    taken from the state before a step keeps its values.

    Args:
        size: The number of sessions (the fields start at zero; the kernel's
            ``start_sessions`` starts them).
    """

    __slots__ = ()

    def __init__(self, size: int) -> None:
        self.t = np.zeros(size, dtype=np.int64)
        self.inventory = np.zeros(size, dtype=np.int64)
        self.bid_filled = np.zeros(size, dtype=np.bool_)
        self.ask_filled = np.zeros(size, dtype=np.bool_)
        self.mid = np.zeros(size)
        self.cash = np.zeros(size)
        self.wealth = np.zeros(size)
        self.bid = np.zeros(size)
        self.ask = np.zeros(size)

    @property
    def size(self) -> int:
        """The number of sessions."""
        return len(self.t)

    def select(self, condition: NDArray[np.bool_], if_true: _F64, if_false: float) -> _F64:
        """``if_true`` where ``condition`` holds, else ``if_false``, entry by entry."""
        chosen: _F64 = np.where(condition, if_true, if_false)
        return chosen

    def exp(self, values: _F64) -> _F64:
        """``numpy.exp(values)``."""
        result: _F64 = np.exp(values)
        return result

    def minimum(self, values: _F64, cap: float) -> _F64:
        """``numpy.minimum(values, cap)``."""
        result: _F64 = np.minimum(values, cap)
        return result

    def sides(self, values: _F64) -> tuple[_F64, _F64]:
        """The two columns of a ``(size, 2)`` array (views)."""
        return values[:, 0], values[:, 1]

    def of_sides(self, function: Callable[[Any], Any], pairs: _F64) -> tuple[_F64, _F64]:
        """The two columns of ``function(pairs)``."""
        return self.sides(function(pairs))

    def stack(self, first: _F64, second: _F64, dtype: type[np.generic]) -> NDArray[Any]:
        """The columns ``first`` and ``second`` side by side, a new ``(size, 2)`` array."""
        out = np.empty((self.size, 2), dtype=dtype)
        out[:, 0] = first
        out[:, 1] = second
        return out

    def repeat(self, value: float) -> _F64:
        """``value`` for every session, in a new array."""
        return np.full(self.size, value)

    def assign(self, values: Mapping[str, Any], rows: NDArray[np.intp] | None = None) -> None:
        """Write the fields in ``values`` into the entries ``rows`` (every one when None)."""
        where = slice(None) if rows is None else rows
        for name, value in values.items():
            getattr(self, name)[where] = value

    def take(self, rows: NDArray[np.intp]) -> ArrayState:
        """A new state holding copies of the sessions ``rows``."""
        taken = ArrayState.__new__(ArrayState)
        for name in _FIELDS:
            setattr(taken, name, getattr(self, name)[rows])
        return taken

    def carried(self) -> tuple[NDArray[Any], ...]:
        """The fields a session that must not advance keeps, for `keep`."""
        return tuple(getattr(self, name) for name in _CARRIED)

    def keep(self, carried: tuple[NDArray[Any], ...], rows: NDArray[np.bool_]) -> None:
        """Give the sessions ``rows`` back the fields `carried` read before a step."""
        for name, before in zip(_CARRIED, carried, strict=True):
            setattr(self, name, np.where(rows, before, getattr(self, name)))


class state_field(Generic[_V]):
    """An env attribute that reads the field of the same name of the env's ``_state``.

    ``mid = state_field[float]("The current mid-price.")`` makes ``env.mid``
    read ``env._state.mid``, and ``env.mid = x`` write it. With ``copies`` it
    reads a copy of the field (an array the caller may change) and cannot be
    assigned, as a native vector env's per-sub-env state.
    """

    def __init__(self, doc: str, *, copies: bool = False) -> None:
        self.__doc__ = doc
        self._copies = copies
        self._name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, instance: None, owner: type) -> state_field[_V]: ...

    @overload
    def __get__(self, instance: object, owner: type) -> _V: ...

    def __get__(self, instance: object | None, owner: type) -> state_field[_V] | _V:
        if instance is None:
            return self
        value = getattr(instance._state, self._name)  # type: ignore[attr-defined]
        if self._copies:
            value = value.copy()
        return value  # type: ignore[no-any-return]

    def __set__(self, instance: object, value: _V) -> None:
        if self._copies:
            raise AttributeError(
                f"{type(instance).__name__}.{self._name} is read-only: it is a copy of the "
                "state of every sub-env"
            )
        setattr(instance._state, self._name, value)  # type: ignore[attr-defined]
