"""The renderers of the model envs: MarketMaking, OptimalExecution, MarketMicrostructure (private).

Public under `sekai.envs.finance.rendering`, which documents them.
"""

from __future__ import annotations

import math
from typing import Any

from sekai.envs.finance._render_common import (
    Dashboard,
    LineChart,
    PriceChart,
    Row,
    Series,
    Stat,
    StepMemory,
    Theme,
    check_title,
)
from sekai.envs.microstructure import MARKET_MAKER, TRADER

__all__ = ["MarketMakingRenderer", "MarketMicrostructureRenderer", "OptimalExecutionRenderer"]


# -- MarketMaking-v0 ----------------------------------------------------------------------------


class MarketMakingRenderer(Dashboard):
    """A dashboard of ``MarketMaking-v0`` ([`MarketMakingEnv`][sekai.envs.MarketMakingEnv]).

    - **Mid and quotes**: the mid-price and the agent's bid and ask of the
      last step (gaps where a side was not quoted); a buy marker where the
      bid was hit, a sell marker where the ask was lifted; the inventory as
      a tint (long ``up``, short ``down``).
    - **PnL**: the mark-to-market wealth ``cash + inventory * mid``.
    - **Inventory**: the units held.
    - Stats: PnL (with its change), inventory, the quoted spread, the mid.

    The time axis runs over the session's ``n_steps``.

    Args:
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
        title: str | None = "MarketMaking-v0",
        theme: Theme | str = "light",
        width: int = 720,
        height: int = 450,
        window: int | None = None,
    ) -> None:
        super().__init__(
            PriceChart(
                "mid",
                position="inventory",
                quotes=("bid", "ask"),
                buys=lambda env: env.order_size if env.bid_filled else 0,
                sells=lambda env: env.order_size if env.ask_filled else 0,
                title="Mid and quotes",
                height=1.6,
            ),
            Row(
                LineChart(Series("wealth", label="PnL", signed=True), title="PnL", baseline=0.0),
                LineChart(
                    Series("inventory", label="Inventory", step=True, color="accent"),
                    title="Inventory",
                    baseline=0.0,
                ),
            ),
            title=check_title(title, "MarketMakingRenderer"),
            subtitle=lambda env: (
                f"Avellaneda-Stoikov \u00b7 sigma {env.sigma:g}, A {env.A:g}, k {env.k:g}, "
                f"gamma {env.risk_aversion:g} \u00b7 time left {env.time_remaining:.3f}"
            ),
            stats=[
                Stat("PnL", "wealth", format="{:,.2f}", delta="absolute"),
                Stat("Inventory", "inventory", format="{:+d}"),
                Stat("Spread", lambda env: env.ask - env.bid, format="{:.3f}"),
                Stat("Mid", "mid", format="{:,.2f}"),
            ],
            theme=theme,
            width=width,
            height=height,
            window=window,
            horizon="n_steps",
        )


# -- OptimalExecution-v0 ------------------------------------------------------------------------


def _sale(previous: tuple[float, float] | None, env: Any) -> tuple[float, float]:
    """``(held, sold)``: the shares held now and sold since the previous frame."""
    held = float(env.inventory)
    return held, 0.0 if previous is None else max(previous[0] - held, 0.0)


def _trajectory_share(env: Any) -> float:
    """The Almgren-Chriss holdings at the current step, a fraction of ``X0`` (NaN if undefined)."""
    try:
        holdings = env.almgren_chriss_trajectory()
    except ValueError:  # the model has no optimal trajectory for these parameters
        return math.nan
    step = min(int(env.elapsed_steps), len(holdings) - 1)
    return float(holdings[step]) / float(env.X0)


def _shortfall_bps(env: Any) -> float:
    return 1e4 * float(env.shortfall) / (float(env.X0) * float(env.s0))


class OptimalExecutionRenderer(Dashboard):
    """Draws ``OptimalExecution-v0`` ([`OptimalExecutionEnv`][sekai.envs.OptimalExecutionEnv]).

    - **Mid price**: the mid against the arrival price ``s0`` (dashed), a
      sell marker at every period in which shares were sold.
    - **Inventory**: the share of ``X0`` still held, against the
      Almgren-Chriss optimal trajectory for the env's risk aversion (dashed).
    - **Implementation shortfall**: ``X0 s0`` minus the proceeds so far, in
      basis points of ``X0 s0``.
    - Stats: the share held, the shortfall, the mid.

    The shares sold in a period are told from the inventory's change since
    the previous frame, so render after every step.

    Args:
        title: The frame's title; ``None`` for none.
        theme: A [`Theme`][sekai.rendering.Theme] or a built-in theme's name.
        width: Frame width in pixels.
        height: Frame height in pixels.
        window: Show only the last ``window`` steps; ``None`` shows the whole horizon.

    Raises:
        TypeError, ValueError: A bad argument (see [`Dashboard`][sekai.rendering.Dashboard]).
    """

    def __init__(
        self,
        *,
        title: str | None = "OptimalExecution-v0",
        theme: Theme | str = "light",
        width: int = 720,
        height: int = 450,
        window: int | None = None,
    ) -> None:
        self._sales: StepMemory[tuple[float, float]] = StepMemory(_sale)
        sales = self._sales
        super().__init__(
            PriceChart(
                "mid",
                sells=lambda env: sales(env)[1],
                reference="s0",
                reference_label="Arrival",
                title="Mid price",
                height=1.3,
            ),
            Row(
                LineChart(
                    Series(
                        lambda env: env.inventory / env.X0,
                        label="Held",
                        step=True,
                        fill=True,
                        color="accent",
                    ),
                    Series(_trajectory_share, label="Almgren-Chriss", step=True, dashed=True),
                    title="Inventory",
                    percent=True,
                    baseline=0.0,
                ),
                LineChart(
                    Series(_shortfall_bps, label="Shortfall", fill=True, color="down"),
                    title="Implementation shortfall (bps)",
                    baseline=0.0,
                ),
            ),
            title=check_title(title, "OptimalExecutionRenderer"),
            subtitle=lambda env: (
                f"Almgren-Chriss \u00b7 {env.X0:,.0f} shares at {env.s0:g}, "
                f"sigma {env.sigma:g}, lambda {env.risk_aversion:g}"
            ),
            stats=[
                Stat("Held", lambda env: env.inventory / env.X0, format="{:.1%}"),
                Stat("Shortfall", _shortfall_bps, format="{:,.1f} bps"),
                Stat("Mid", "mid", format="{:,.3f}"),
            ],
            theme=theme,
            width=width,
            height=height,
            window=window,
            horizon="n_steps",
        )

    def reset(self, env: Any = None) -> None:
        """Forget the episode (the history and the inventory); the next frame starts a new one."""
        super().reset(env)
        self._sales.clear()


# -- MarketMicrostructure-v0 --------------------------------------------------------------------

_MAKER_PNL, _TRADER_PNL = f"pnl.{MARKET_MAKER}", f"pnl.{TRADER}"


class MarketMicrostructureRenderer(Dashboard):
    """A dashboard of the two-agent ``MarketMicrostructure-v0``: a market maker and a trader.

    The game of [`MarketMicrostructureEnv`][sekai.envs.MarketMicrostructureEnv]:
    a market maker quoting around the mid, an informed trader who buys at its
    ask or sells at its bid, and noise traders.

    - **Mid, quotes and fills**: the mid-price and the market maker's bid and
      ask of the last step; a buy marker where its bid was hit (the market
      maker bought, from the trader or a noise seller), a sell marker where
      its ask was lifted; its inventory as a tint (long ``up``, short ``down``).
    - **Trader's signal**: the signal only the trader sees, which predicts the
      mid's next move.
    - **PnL**: each agent's mark-to-market profit since the reset.
    - **Inventory and position**: the market maker's inventory and the
      trader's position.
    - Stats: both agents' PnL (with their change), the inventory, the quoted
      spread, the mid.

    The time axis runs over the ``episode_length`` steps. The env is a
    ``MultiAgentEnv``, which [`RecordFrames`][sekai.rendering.RecordFrames]
    (a single-agent wrapper) does not wrap: keep the frames of ``render(env)``
    and save them with [`save_gif`][sekai.rendering.save_gif], or render
    through ``to_pettingzoo(env, render_mode="rgb_array")``, which builds this
    renderer (the env's default).

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
        title: str | None = "MarketMicrostructure-v0",
        theme: Theme | str = "light",
        width: int = 720,
        height: int = 450,
        window: int | None = None,
    ) -> None:
        super().__init__(
            Row(
                PriceChart(
                    "mid_price",
                    position="inventory",
                    quotes=("bid", "ask"),
                    buys="bid_fills",
                    sells="ask_fills",
                    title="Mid, quotes and the maker's fills",
                    width=1.7,
                ),
                LineChart(
                    Series("signal", label="Signal", color="accent", width=1.4),
                    title="Trader's signal",
                    baseline=0.0,
                ),
                height=1.6,
            ),
            Row(
                LineChart(
                    Series(_MAKER_PNL, label="Market maker"),
                    Series(_TRADER_PNL, label="Trader"),
                    title="PnL",
                    baseline=0.0,
                ),
                LineChart(
                    Series("inventory", label="Maker inventory", step=True),
                    Series("position", label="Trader position", step=True),
                    title="Inventory and position",
                    baseline=0.0,
                ),
            ),
            title=check_title(title, "MarketMicrostructureRenderer"),
            subtitle=lambda env: (
                f"maker vs informed trader \u00b7 volatility {env.volatility:g}, signal "
                f"{env.signal_strength:g} \u00b7 step {env.elapsed_steps} of {env.episode_length}"
            ),
            stats=[
                Stat("Maker PnL", _MAKER_PNL, format="{:,.2f}", delta="absolute"),
                Stat("Trader PnL", _TRADER_PNL, format="{:,.2f}", delta="absolute"),
                Stat("Inventory", "inventory", format="{:+d}"),
                Stat("Spread", lambda env: env.ask - env.bid, format="{:.3f}"),
                Stat("Mid", "mid_price", format="{:,.2f}"),
            ],
            theme=theme,
            width=width,
            height=height,
            window=window,
        )
