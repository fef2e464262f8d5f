"""What the market renderers share: the drawing imports, argument checks, step memories (private).

The renderers of `sekai.envs.finance.rendering` are dashboards of
``sekai.rendering`` (from the sekai-wrappers distribution) with the market
panels of ``sekai.finance.rendering``. Both are optional for sekai-envs, so
this module is imported only when a renderer is asked for, and it says which
extra to install when they are missing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable
from typing import Any, Generic, TypeVar

import numpy as np
from numpy.typing import NDArray

try:
    from sekai.finance.rendering import OrderBookChart, PriceChart, UniverseChart
    from sekai.rendering import (
        BarChart,
        Dashboard,
        LineChart,
        Row,
        Series,
        StackedArea,
        Stat,
        Theme,
    )
    from sekai.rendering.dashboard import Source, read
except ImportError as error:  # pragma: no cover (exercised in a subprocess by the tests)
    # A ModuleNotFoundError (an ImportError): what is missing is a module.
    raise ModuleNotFoundError(
        "sekai.envs.finance.rendering draws dashboards with sekai.rendering (the sekai-wrappers "
        "distribution) and Pillow; install the sekai-envs[render] distribution, which "
        "brings them (or sekai-wrappers[render])"
    ) from error

from sekai._internal.validation import check_int

__all__ = [
    "BarChart",
    "Dashboard",
    "LineChart",
    "OrderBookChart",
    "PriceChart",
    "Row",
    "Series",
    "Source",
    "StackedArea",
    "Stat",
    "StepMemory",
    "Theme",
    "UniverseChart",
    "as_floats",
    "check_levels",
    "check_title",
    "fill_quantities",
    "growth",
    "nan_if_none",
    "resting_price",
]

_Record = TypeVar("_Record")


def check_title(value: object, owner: str) -> str | None:
    """``value`` if it is a str or None (a renderer's ``title``), else raise ``TypeError``."""
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"{owner}: title must be a str or None, got {value!r}")


def check_levels(value: object, owner: str) -> int:
    """The number of book levels per side a renderer shows: an int from 1 to 50."""
    return check_int(value, f"{owner}: levels", minimum=1, maximum=50)


def nan_if_none(value: Any) -> float:
    """``value`` as a float; NaN for None (a side without a price)."""
    return math.nan if value is None else float(value)


def growth(env: Any) -> float:
    """The account's return since the episode started: ``equity / capital - 1``."""
    return float(env.equity) / float(env.capital) - 1.0


class StepMemory(Generic[_Record]):
    """Values that need the previous step: a record per frame, derived from the last one.

    Some things a dashboard shows are not attributes of the env but changes
    between two steps (the shares sold in the last period, the position a
    trader chose). A memory keeps the record of the last frame's step and
    derives the current one from it with ``derive(previous, env)``
    (``previous`` is ``None`` at the first frame of an episode). Reading it
    again at the same step (several sources of one frame, ``check``, a second
    render) derives from the same previous record, so every read of a step
    agrees; a step below the last one starts a new episode, as in
    [`Dashboard`][sekai.rendering.Dashboard]. When frames skip steps the change
    covers every step since the last frame.

    Args:
        derive: Makes the current record from the previous one (or None) and the env.
        step: The source of the env's step number.
    """

    def __init__(
        self,
        derive: Callable[[_Record | None, Any], _Record],
        step: Source = "elapsed_steps",
    ) -> None:
        self._derive = derive
        self._step = step
        self._last: tuple[float, _Record] | None = None
        self._before: _Record | None = None  # the record before the last one's step

    def clear(self) -> None:
        """Forget the episode: the next read starts afresh."""
        self._last = None
        self._before = None

    def __call__(self, env: Any) -> _Record:
        """The record of the env's current step."""
        step = float(read(env, self._step))
        last = self._last
        if last is None or step < last[0] or step == 0:
            previous = None
        elif step == last[0]:
            previous = self._before
        else:
            previous = last[1]
        record = self._derive(previous, env)
        self._before = previous
        self._last = (step, record)
        return record


def resting_price(book: Any, order_id: int | None) -> float:
    """The price of a resting order of ``book``; NaN when there is none."""
    if order_id is None:
        return math.nan
    order = book.get(order_id)
    return math.nan if order is None else float(order.price)


def fill_quantities(fills: Iterable[Any], owners: Collection[int]) -> tuple[float, float]:
    """``(bought, sold)``: the lots the given owners bought and sold in ``fills``.

    An owner's side in a fill is the aggressor's side when it took liquidity,
    the opposite one when its resting order was hit.
    """
    bought = sold = 0.0
    for fill in fills:
        for owner, side in (
            (fill.taker_owner, fill.taker_side),
            (fill.maker_owner, fill.taker_side.opposite),
        ):
            if owner in owners:
                if int(side) > 0:
                    bought += float(fill.quantity)
                else:
                    sold += float(fill.quantity)
    return bought, sold


def as_floats(values: Any) -> NDArray[np.float64]:
    """A float vector of ``values``."""
    return np.asarray(values, dtype=np.float64).ravel()
