"""Renderers of the market envs: dashboards of prices, quotes, fills, positions, PnL, books.

One renderer per env, each a [`sekai.rendering.Dashboard`][sekai.rendering.Dashboard] laid out for
what its env is about:

- `TradingRenderer` (``Trading-v0``): the price with the lookback
  before the episode, the position as a tint, trades where the target
  position changes; the return and the position over the episode.
- `PortfolioRenderer` (``Portfolio-v0``): the portfolio's return, its
  allocation over time and its current weights, cash last.
- `MarketRenderer` (``Market-v0``): the return, the universe of slots
  shaded by weight (unlisted slots hollow), the allocation and the number of
  listed assets.
- `MarketMakingRenderer` (``MarketMaking-v0``): the mid with the
  agent's bid and ask, its fills and inventory; PnL and inventory.
- `MarketMicrostructureRenderer` (``MarketMicrostructure-v0``, two
  agents): the mid with the market maker's bid and ask and its fills, the
  trader's signal; each agent's PnL, inventory and position.
- `OptimalExecutionRenderer` (``OptimalExecution-v0``): the mid
  against the arrival price with the sales; the inventory left against the
  Almgren-Chriss trajectory; the implementation shortfall.
- `LimitOrderBookRenderer` (``LimitOrderBook-v0``) and
  `LimitOrderBookMarketRenderer` (``LimitOrderBookMarket``): the mid,
  the book's best prices, the agents' quotes and fills, the book's depth
  with each agent's resting orders, PnL and inventory.

Like every dashboard, a renderer records the env's values at each
``render(env)`` (the episode's history) and draws them into an
``(height, width, 3)`` ``uint8`` RGB frame; pass it to
[`sekai.rendering.RecordFrames`][sekai.rendering.RecordFrames] to record GIF or MP4 episodes. Render
after the reset and after every step (``RecordFrames`` does): the trades of
Trading-v0 and the sales of OptimalExecution-v0 are told from the change
between two frames. Envs may be wrapped; attributes are read through the
wrappers.

Drawing needs ``sekai.rendering`` (the sekai-wrappers distribution) and
Pillow, which the ``sekai-envs[render]`` distribution brings. Importing this
module without them raises an ``ImportError`` saying so; ``sekai.envs.finance``
itself does not import it until a renderer is asked for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance._render_books import (
    LimitOrderBookMarketRenderer,
    LimitOrderBookRenderer,
)
from sekai.envs.finance._render_common import (
    BarChart,
    Dashboard,
    LineChart,
    PriceChart,
    Row,
    Series,
    StackedArea,
    Stat,
    StepMemory,
    Theme,
    UniverseChart,
    as_floats,
    check_title,
    growth,
)
from sekai.envs.finance._render_models import (
    MarketMakingRenderer,
    MarketMicrostructureRenderer,
    OptimalExecutionRenderer,
)

__all__ = [
    "LimitOrderBookMarketRenderer",
    "LimitOrderBookRenderer",
    "MarketMakingRenderer",
    "MarketMicrostructureRenderer",
    "MarketRenderer",
    "OptimalExecutionRenderer",
    "PortfolioRenderer",
    "TradingRenderer",
]

# The renderers of the private modules present themselves (reprs, docs) as defined here.
for _cls in (
    LimitOrderBookMarketRenderer,
    LimitOrderBookRenderer,
    MarketMakingRenderer,
    MarketMicrostructureRenderer,
    OptimalExecutionRenderer,
):
    _cls.__module__ = __name__


def _amount(value: Any) -> str:
    """A money amount: no decimals from 1,000 up, four significant digits below."""
    number = float(value)
    if math.isnan(number):
        return "\u2013"
    text = f"{number:,.0f}" if abs(number) >= 1000 else f"{number:,.4g}"
    return text.replace("-", "\u2212")


# -- Trading-v0 ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Trade:
    """What a Trading-v0 frame knows: the price, the drifted position and the target chosen."""

    price: float
    position: float
    target: float
    change: float  # the target's change since the previous frame (0 at the episode's start)


def _trade(previous: _Trade | None, env: Any) -> _Trade:
    price, position = float(env.price), float(env.position)
    if previous is None:
        return _Trade(price, position, position, 0.0)
    # The env trades to the target w, then w drifts with the period's return r
    # to w (1 + r) / (1 + w r); undo the drift, then snap to the nearest target
    # position (the only values a target can take).
    r = price / previous.price - 1.0 if previous.price else 0.0
    denominator = 1.0 + r - position * r
    implied = position / denominator if denominator else position
    positions = as_floats(env.positions)
    target = float(positions[np.argmin(np.abs(positions - implied))])
    return _Trade(price, position, target, target - previous.target)


def _trading_context(env: Any) -> NDArray[np.float64]:
    """The ``lookback`` prices before the episode's first row (fewer when the data starts later)."""
    past = env.price_history
    first = len(past) - 1 - int(env.elapsed_steps)
    if first <= 0:
        return np.zeros(0)
    return as_floats(past[max(0, first - int(env.lookback)) : first])


class TradingRenderer(Dashboard):
    """A dashboard of ``Trading-v0`` ([`TradingEnv`][sekai.envs.TradingEnv]).

    - **Price**: the asset's price, opening with the ``lookback`` prices the
      agent saw before the episode; steps held long are tinted in the theme's
      ``up`` colour, short in ``down``; a buy (sell) marker where the agent's
      target position rose (fell).
    - **Return**: the equity's return since the start of the episode, net of costs.
    - **Position**: the position held, a fraction of equity (after drift).
    - Stats: equity (with its change), position, price.

    The target position of a step is told from the drifted position and the
    price's move since the previous frame, so render after every step.

    Args:
        title: The frame's title; ``None`` for none.
        theme: A [`Theme`][sekai.rendering.Theme] or a built-in theme's name.
        width: Frame width in pixels.
        height: Frame height in pixels.
        window: Show only the last ``window`` steps (a scrolling chart);
            ``None`` shows the whole episode.

    Raises:
        TypeError, ValueError: A bad argument (see [`Dashboard`][sekai.rendering.Dashboard]).
    """

    def __init__(
        self,
        *,
        title: str | None = "Trading-v0",
        theme: Theme | str = "light",
        width: int = 720,
        height: int = 450,
        window: int | None = None,
    ) -> None:
        self._trades: StepMemory[_Trade] = StepMemory(_trade)
        trades = self._trades
        super().__init__(
            PriceChart(
                "price",
                position="position",
                buys=lambda env: max(trades(env).change, 0.0),
                sells=lambda env: max(-trades(env).change, 0.0),
                context=_trading_context,
                height=1.6,
            ),
            Row(
                LineChart(
                    Series(growth, label="Return", signed=True),
                    title="Return",
                    percent=True,
                    baseline=0.0,
                ),
                LineChart(
                    Series("position", label="Position", step=True, color="accent"),
                    title="Position",
                    baseline=0.0,
                ),
            ),
            title=check_title(title, "TradingRenderer"),
            subtitle=lambda env: f"{_data_name(env)} \u00b7 time {env.timestamp}",
            stats=[
                Stat("Equity", "equity", format=_amount, delta="relative"),
                Stat("Position", "position", format="{:+.2f}"),
                Stat("Price", "price", format=_amount),
            ],
            theme=theme,
            width=width,
            height=height,
            window=window,
        )

    def reset(self, env: Any = None) -> None:
        """Forget the episode (the history and the trades); the next frame starts a new one."""
        super().reset(env)
        self._trades.clear()


def _data_name(env: Any) -> str:
    model = env.model
    return "price history" if model is None else f"simulated ({type(model).__name__})"


# -- Portfolio-v0 -------------------------------------------------------------------------------


def _asset_label(asset: Any) -> str:
    """An asset's name on a chart: ``Asset 3`` for an asset numbered 3, else its name."""
    return f"Asset {asset}" if isinstance(asset, (int, np.integer)) else str(asset)


def _portfolio_labels(env: Any) -> list[str]:
    """The assets' names (the data's, or ``Asset i``), then ``Cash``."""
    data = env.data
    assets = [_asset_label(asset) for asset in data.assets] if data is not None else []
    if len(assets) != int(env.n_assets):
        assets = [_asset_label(i) for i in range(int(env.n_assets))]
    return [*assets, "Cash"]


class PortfolioRenderer(Dashboard):
    """A dashboard of ``Portfolio-v0`` ([`PortfolioEnv`][sekai.envs.PortfolioEnv]).

    - **Return**: the portfolio value's return since the episode started.
    - **Allocation**: the (drifted) weights over the episode, stacked, cash last.
    - **Weights**: the current weights, one bar per asset and cash (named
      after the data's assets when it has names).
    - Stats: the portfolio value (with its change), the cash weight, the step.

    Args:
        title: The frame's title; ``None`` for none.
        theme: A [`Theme`][sekai.rendering.Theme] or a built-in theme's name.
        width: Frame width in pixels.
        height: Frame height in pixels.
        window: Show only the last ``window`` steps; ``None`` shows the whole episode.

    Raises:
        TypeError, ValueError: A bad argument (see [`Dashboard`][sekai.rendering.Dashboard]).
    """

    def __init__(
        self,
        *,
        title: str | None = "Portfolio-v0",
        theme: Theme | str = "light",
        width: int = 720,
        height: int = 450,
        window: int | None = None,
    ) -> None:
        super().__init__(
            LineChart(
                Series(growth, label="Return", signed=True),
                title="Portfolio return",
                percent=True,
                baseline=0.0,
            ),
            Row(
                StackedArea("weights", title="Allocation (cash on top)"),
                BarChart("weights", labels=_portfolio_labels, colors=(None,), title="Weights"),
            ),
            title=check_title(title, "PortfolioRenderer"),
            subtitle=lambda env: f"{env.n_assets} assets and cash \u00b7 time {env.timestamp}",
            stats=[
                Stat("Value", "portfolio_value", format=_amount, delta="relative"),
                Stat("Cash", lambda env: env.weights[-1], format="{:.1%}"),
                Stat("Step", "elapsed_steps", format="{:d}"),
            ],
            theme=theme,
            width=width,
            height=height,
            window=window,
        )


# -- Market-v0 ----------------------------------------------------------------------------------


def _listed(env: Any) -> NDArray[np.bool_]:
    """Which slots hold an asset."""
    return np.array([asset is not None for asset in env.slot_assets], dtype=bool)


def _slot_labels(env: Any) -> list[str]:
    """Each slot's asset (see `_asset_label`), ``empty`` for an empty slot."""
    return ["empty" if asset is None else _asset_label(asset) for asset in env.slot_assets]


class MarketRenderer(Dashboard):
    """A dashboard of ``Market-v0`` ([`MarketEnv`][sekai.envs.MarketEnv]).

    - **Return**: the equity's return since the episode started, net of
      costs and financing.
    - **Universe**: one cell per slot, named after its asset and shaded by
      its weight (``accent`` long, ``down`` short); empty slots hollow.
    - **Allocation**: the slots' weights over the episode, stacked, cash last.
    - **Listed**: how many slots hold an asset.
    - Stats: equity (with its change), listed assets, cash weight.

    Args:
        title: The frame's title; ``None`` for none.
        theme: A [`Theme`][sekai.rendering.Theme] or a built-in theme's name.
        width: Frame width in pixels.
        height: Frame height in pixels.
        window: Show only the last ``window`` steps; ``None`` shows the whole episode.

    Raises:
        TypeError, ValueError: A bad argument (see [`Dashboard`][sekai.rendering.Dashboard]).
    """

    def __init__(
        self,
        *,
        title: str | None = "Market-v0",
        theme: Theme | str = "light",
        width: int = 720,
        height: int = 450,
        window: int | None = None,
    ) -> None:
        super().__init__(
            Row(
                LineChart(
                    Series(growth, label="Return", signed=True),
                    title="Return",
                    percent=True,
                    baseline=0.0,
                    width=1.4,
                ),
                UniverseChart(lambda env: env.weights[:-1], available=_listed, labels=_slot_labels),
                height=1.3,
            ),
            Row(
                StackedArea("weights", title="Allocation (cash on top)", width=1.4),
                LineChart(
                    Series(
                        lambda env: int(_listed(env).sum()),
                        label="Listed",
                        step=True,
                        color="accent",
                    ),
                    title="Listed assets",
                    baseline=0.0,
                ),
            ),
            title=check_title(title, "MarketRenderer"),
            subtitle=lambda env: (
                f"{int(_listed(env).sum())} of {env.max_assets} slots listed \u00b7 "
                f"time {env.timestamp}"
            ),
            stats=[
                Stat("Equity", "equity", format=_amount, delta="relative"),
                Stat("Listed", lambda env: int(_listed(env).sum()), format="{:d}"),
                Stat("Cash", lambda env: env.weights[-1], format="{:.1%}"),
            ],
            theme=theme,
            width=width,
            height=height,
            window=window,
        )
