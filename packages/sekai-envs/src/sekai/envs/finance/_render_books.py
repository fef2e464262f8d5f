"""The renderers of the order-book envs: LimitOrderBook-v0 and LimitOrderBookMarket (private).

Public under `sekai.envs.finance.rendering`, which documents them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance._render_common import (
    Dashboard,
    LineChart,
    OrderBookChart,
    PriceChart,
    Row,
    Series,
    Stat,
    Theme,
    check_levels,
    check_title,
    fill_quantities,
    nan_if_none,
    resting_price,
)

__all__ = ["LimitOrderBookMarketRenderer", "LimitOrderBookRenderer"]


def _best_bid(env: Any) -> float:
    return nan_if_none(env.book.best_bid())


def _best_ask(env: Any) -> float:
    return nan_if_none(env.book.best_ask())


def _spread(env: Any) -> float:
    return _best_ask(env) - _best_bid(env)


def _agent_fills(env: Any) -> tuple[float, float]:
    trader = env.trader
    return fill_quantities(trader.fills, (trader.owner,))


def _agent_wealth(env: Any) -> float:
    return float(env.trader.wealth(env.core.mid))


class LimitOrderBookRenderer(Dashboard):
    """A dashboard of ``LimitOrderBook-v0`` ([`LimitOrderBookEnv`][sekai.envs.LimitOrderBookEnv]).

    - **Mid, spread and quotes**: the mid-price (ticks), the book's best bid
      and ask as a band, the agent's resting bid and ask, a buy (sell)
      marker at each step in which the agent bought (sold), and its
      inventory as a tint.
    - **Order book**: the book's best ``levels`` prices per side now, with
      the lots resting for the agent highlighted.
    - **PnL**: the agent's mark-to-market wealth ``cash + inventory * mid``, in ticks.
    - **Inventory**: the lots held, shaded where it is at a limit
      (``max_inventory`` long or short, where buying or selling is masked).
    - Stats: PnL (with its change), inventory, the book's spread, the mid.

    The time axis runs over the session's ``n_steps`` decisions.

    Args:
        levels: Price levels per side in the book panel (1 to 50).
        title: The frame's title; ``None`` for none.
        theme: A [`Theme`][sekai.rendering.Theme] or a built-in theme's name.
        width: Frame width in pixels.
        height: Frame height in pixels.
        window: Show only the last ``window`` steps; ``None`` shows the whole session.

    Raises:
        TypeError, ValueError: A bad argument (see [`Dashboard`][sekai.rendering.Dashboard]).
    """

    def __init__(
        self,
        *,
        levels: int = 8,
        title: str | None = "LimitOrderBook-v0",
        theme: Theme | str = "light",
        width: int = 720,
        height: int = 450,
        window: int | None = None,
    ) -> None:
        owner = "LimitOrderBookRenderer"
        self.levels = check_levels(levels, owner)
        super().__init__(
            Row(
                PriceChart(
                    "core.mid",
                    position="trader.inventory",
                    quotes=(
                        lambda env: resting_price(env.book, env.trader.bid_id),
                        lambda env: resting_price(env.book, env.trader.ask_id),
                    ),
                    spread=(_best_bid, _best_ask),
                    buys=lambda env: _agent_fills(env)[0],
                    sells=lambda env: _agent_fills(env)[1],
                    title="Mid, spread and quotes",
                    width=1.7,
                ),
                OrderBookChart(
                    "book",
                    owners=lambda env: {env.trader.owner: ("Agent", "highlight")},
                    levels=self.levels,
                ),
                height=1.6,
            ),
            Row(
                LineChart(
                    Series(_agent_wealth, label="PnL", signed=True),
                    title="PnL (ticks)",
                    baseline=0.0,
                ),
                LineChart(
                    Series("trader.inventory", label="Inventory", step=True, color="accent"),
                    title="Inventory",
                    baseline=0.0,
                    shade=lambda env: not env.trader.can_buy() or not env.trader.can_sell(),
                    shade_label="At the limit",
                ),
            ),
            title=check_title(title, owner),
            subtitle=lambda env: (
                f"zero-intelligence order flow \u00b7 session time "
                f"{env.core.session_time:,.1f} of {env.config.session_length:g}"
            ),
            stats=[
                Stat("PnL", _agent_wealth, format="{:,.1f}", delta="absolute"),
                Stat("Inventory", "trader.inventory", format="{:+d}"),
                Stat("Spread", _spread, format="{:,.0f}", higher_is_better=False),
                Stat("Mid", "core.mid", format="{:,.1f}"),
            ],
            theme=theme,
            width=width,
            height=height,
            window=window,
            horizon="n_steps",
        )


# -- LimitOrderBookMarket -----------------------------------------------------------------------


def _traders(env: Any) -> list[Any]:
    return [env.traders[agent] for agent in env.possible_agents]


def _owners(env: Any) -> dict[int, tuple[str, int]]:
    """Each trader's owner id, with a short name (``T0`` for the first) and its series colour."""
    return {env.traders[agent].owner: (f"T{i}", i) for i, agent in enumerate(env.possible_agents)}


def _market_fills(env: Any) -> tuple[float, float]:
    fills: dict[int, Any] = {}  # a trade between two traders is one fill, seen by both
    for trader in _traders(env):
        for fill in trader.fills:
            fills[id(fill)] = fill
    owners = [trader.owner for trader in _traders(env)]
    return fill_quantities(list(fills.values()), owners)


def _wealths(env: Any) -> NDArray[np.float64]:
    mid = env.core.mid
    return np.array([trader.wealth(mid) for trader in _traders(env)], dtype=np.float64)


def _inventories(env: Any) -> NDArray[np.float64]:
    return np.array([trader.inventory for trader in _traders(env)], dtype=np.float64)


class LimitOrderBookMarketRenderer(Dashboard):
    """A dashboard of [`LimitOrderBookMarket`][sekai.envs.LimitOrderBookMarket]: one book's traders.

    - **Mid and spread**: the mid-price (ticks) and the book's best bid and
      ask as a band; a buy (sell) marker where the traders, together, bought
      (sold) since the last step.
    - **Order book**: the book's best ``levels`` prices per side, with each
      trader's resting lots in its own colour; the legend names the traders
      ``T0``, ``T1``, ... in the order of ``possible_agents``.
    - **PnL** and **Inventory**: one line per trader, in the same colours.
    - Stats: the mid, the spread, how many traders act next, the session time.

    The traders decide on their own clocks, so the time axis is the
    session time (``core.session_time``), up to ``session_length``; a
    session time below the last one starts a new episode.

    Args:
        levels: Price levels per side in the book panel (1 to 50).
        title: The frame's title; ``None`` for none.
        theme: A [`Theme`][sekai.rendering.Theme] or a built-in theme's name.
        width: Frame width in pixels.
        height: Frame height in pixels.
        window: Show only the last ``window`` time units; ``None`` shows the whole session.

    Raises:
        TypeError, ValueError: A bad argument (see [`Dashboard`][sekai.rendering.Dashboard]).
    """

    def __init__(
        self,
        *,
        levels: int = 8,
        title: str | None = "LimitOrderBookMarket",
        theme: Theme | str = "light",
        width: int = 720,
        height: int = 450,
        window: int | None = None,
    ) -> None:
        owner = "LimitOrderBookMarketRenderer"
        self.levels = check_levels(levels, owner)
        super().__init__(
            Row(
                PriceChart(
                    "core.mid",
                    spread=(_best_bid, _best_ask),
                    buys=lambda env: _market_fills(env)[0],
                    sells=lambda env: _market_fills(env)[1],
                    title="Mid and spread",
                    width=1.7,
                ),
                OrderBookChart("book", owners=_owners, levels=self.levels),
                height=1.6,
            ),
            Row(
                LineChart(Series(_wealths), title="PnL by trader (ticks)", baseline=0.0),
                LineChart(
                    Series(_inventories, step=True), title="Inventory by trader", baseline=0.0
                ),
            ),
            title=check_title(title, owner),
            subtitle=lambda env: (
                f"{len(env.possible_agents)} traders on one book \u00b7 zero-intelligence flow"
            ),
            stats=[
                Stat("Mid", "core.mid", format="{:,.1f}"),
                Stat("Spread", _spread, format="{:,.0f}", higher_is_better=False),
                Stat("Acting", lambda env: len(env.acting), format="{:d}"),
                Stat("Time", "core.session_time", format="{:,.1f}"),
            ],
            theme=theme,
            width=width,
            height=height,
            window=window,
            step="core.session_time",
            horizon="config.session_length",
        )
