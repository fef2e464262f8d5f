"""MarketMicrostructure-v0: a market maker and an informed directional trader (multi-agent).

This two-agent game was registered as ``MarketMaking-v0`` before that id went to
sekai 0.2's single-agent Avellaneda-Stoikov env
([`sekai.envs.finance.market_making.MarketMakingEnv`][sekai.envs.MarketMakingEnv]). The class is now
`MarketMicrostructureEnv`; ``MarketMakingEnv`` still reads here as an alias
of it for code that imported it from this module, with a DeprecationWarning,
since the same name in `sekai.envs` is the Avellaneda-Stoikov env.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_int, check_real
from sekai.core import MAResetResult, MAStepResult, MultiAgentEnv
from sekai.error import InvalidAction, ResetRequired
from sekai.spaces import Box, Discrete, Space
from sekai.utils.seeding import SeedType

__all__ = ["MARKET_MAKER", "TRADER", "MarketMicrostructureEnv"]

MARKET_MAKER = "market_maker"
"""Agent id of the market maker."""

TRADER = "trader"
"""Agent id of the directional trader."""

BUY, HOLD, SELL = 0, 1, 2

_Obs = NDArray[np.float32]


def _real(value: Any, name: str, *, allow_zero: bool = False) -> float:
    return check_real(value, name, minimum=0, min_open=not allow_zero)


def _count(value: Any, name: str) -> int:
    return check_int(value, name, minimum=1, type_error=ValueError)


class MarketMicrostructureEnv(MultiAgentEnv[_Obs, Any, str]):
    """A dealer quoting around a moving mid-price, and a trader who knows where it goes.

    Two agents act at every step. The **market maker** quotes a bid and an ask
    around the mid-price ``m``; the **directional trader** observes a private
    signal ``s`` that predicts the next price move and may buy at the ask or
    sell at the bid. Uninformed noise traders also hit the quotes, the more
    often the tighter they are (a buy at the ask with probability
    ``noise_intensity * exp(-noise_decay * ask_offset)``, likewise for sells),
    one unit each. Then the mid-price moves by
    ``signal_strength * s + volatility * N(0, 1)`` and the signal is renewed
    as an AR(1) process with coefficient ``signal_persistence`` (stationary
    N(0, 1)). The market maker earns the spread from noise traders and loses
    to the informed trader (adverse selection); its inventory is capped at
    ``±max_inventory`` and the trader's position at ``±max_position``: a fill
    that would pass a cap does not happen.

    Agents: ``"market_maker"`` and ``"trader"``, in that order.

    Observations (float32 Boxes, different per agent):
        * market maker, shape ``(4,)``: inventory / max_inventory (in
          [-1, 1]), net flow of the last step (units bought from it minus units
          sold to it, / 2, in [-1, 1]), last mid-price change / volatility
          (unbounded), fraction of the episode elapsed (in [0, 1]);
        * trader, shape ``(3,)``: the signal ``s`` (unbounded), position /
          max_position (in [-1, 1]), the last quoted spread / (2 *
          max_offset) (in [0, 1]).

    Actions:
        * market maker: ``Box(0, max_offset, (2,))`` float32, the distances of
          the bid and of the ask from the mid-price;
        * trader: ``Discrete(3)``: 0 buys one unit at the ask, 1 holds, 2 sells
          one unit at the bid.

    Rewards:
        Mark-to-market profit and loss over the step (change of cash plus
        holdings valued at the mid-price). The market maker also pays
        ``inventory_penalty * inventory**2`` every step. Trades happen at the
        quotes set for the step, before the price moves.

    Termination:
        No agent terminates; both are truncated after ``episode_length`` steps,
        when ``agents`` becomes empty (call ``reset`` to play again).

    Info:
        market maker: ``inventory``, ``cash``, ``pnl`` (mark-to-market since
        the reset), ``fills`` (units traded this step); trader: ``position``,
        ``pnl``, ``filled`` (whether its order was executed).

    The state is read through properties (for renderers and analysis): the
    mid-price and the signal, the last step's quotes and fills, the books and
    each agent's PnL. The default renderer (``metadata["renderer"]``) is
    ``sekai.envs.finance.rendering.MarketMicrostructureRenderer``.

    Args:
        episode_length: Steps per episode.
        initial_price: Mid-price at the reset.
        volatility: Standard deviation of the unpredictable price move per step.
        signal_strength: Price move per unit of signal.
        signal_persistence: AR(1) coefficient of the signal, in [0, 1).
        max_offset: Largest distance of a quote from the mid-price.
        noise_intensity: Fill probability of a quote at the mid-price, in [0, 1].
        noise_decay: Decay rate of the fill probability with the distance.
        max_inventory: Inventory cap of the market maker (units).
        max_position: Position cap of the trader (units).
        inventory_penalty: Running penalty on the squared inventory.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - copied per subclass
        "render_fps": 20,
        "render_modes": ["rgb_array"],
        "renderer": "sekai.envs.finance.rendering:MarketMicrostructureRenderer",
    }

    def __init__(
        self,
        *,
        episode_length: int = 200,
        initial_price: float = 100.0,
        volatility: float = 0.05,
        signal_strength: float = 0.05,
        signal_persistence: float = 0.5,
        max_offset: float = 0.5,
        noise_intensity: float = 0.8,
        noise_decay: float = 5.0,
        max_inventory: int = 20,
        max_position: int = 10,
        inventory_penalty: float = 0.0005,
    ) -> None:
        self.episode_length = _count(episode_length, "episode_length")
        self.initial_price = _real(initial_price, "initial_price")
        self.volatility = _real(volatility, "volatility")
        self.signal_strength = _real(signal_strength, "signal_strength", allow_zero=True)
        self.signal_persistence = _real(signal_persistence, "signal_persistence", allow_zero=True)
        if self.signal_persistence >= 1.0:
            raise ValueError(f"signal_persistence must be < 1, got {signal_persistence!r}")
        self.max_offset = _real(max_offset, "max_offset")
        self.noise_intensity = _real(noise_intensity, "noise_intensity", allow_zero=True)
        if self.noise_intensity > 1.0:
            raise ValueError(f"noise_intensity must be <= 1, got {noise_intensity!r}")
        self.noise_decay = _real(noise_decay, "noise_decay", allow_zero=True)
        self.max_inventory = _count(max_inventory, "max_inventory")
        self.max_position = _count(max_position, "max_position")
        self.inventory_penalty = _real(inventory_penalty, "inventory_penalty", allow_zero=True)
        self._innovation = math.sqrt(1.0 - self.signal_persistence**2)

        self.possible_agents = [MARKET_MAKER, TRADER]
        self.agents = []
        inf = np.inf
        self.observation_spaces: dict[str, Space[Any]] = {
            MARKET_MAKER: Box(
                np.array([-1, -1, -inf, 0], np.float32), np.array([1, 1, inf, 1], np.float32)
            ),
            TRADER: Box(np.array([-inf, -1, 0], np.float32), np.array([inf, 1, 1], np.float32)),
        }
        quotes = Box(0.0, self.max_offset, (2,), np.float32)
        self._quote_space = quotes
        self.action_spaces: dict[str, Space[Any]] = {MARKET_MAKER: quotes, TRADER: Discrete(3)}
        self._shocks: list[list[float]] = []  # one row of random draws per step
        self._signal = 0.0
        self._start_books()

    def _start_books(self) -> None:
        """Flat books, no cash, the initial mid-price, step 0."""
        self._t = 0
        self._mid = self.initial_price
        self._inventory = 0
        self._cash = 0.0
        self._position = 0
        self._trader_cash = 0.0
        self._last_flow = 0
        self._last_move = 0.0
        self._last_spread = 0.0
        self._bid = math.nan
        self._ask = math.nan
        self._bid_fills = 0
        self._ask_fills = 0
        self._trader_fill = 0

    @property
    def mid_price(self) -> float:
        """The current mid-price."""
        return self._mid

    @property
    def signal(self) -> float:
        """The current signal (the trader's private information)."""
        return self._signal

    @property
    def elapsed_steps(self) -> int:
        """Steps taken since the reset."""
        return self._t

    @property
    def bid(self) -> float:
        """The market maker's bid price in the last step (NaN before an episode's first step)."""
        return self._bid

    @property
    def ask(self) -> float:
        """The market maker's ask price in the last step (NaN before an episode's first step)."""
        return self._ask

    @property
    def bid_fills(self) -> int:
        """Units sold to the market maker at its bid in the last step (trader and noise: 0 to 2)."""
        return self._bid_fills

    @property
    def ask_fills(self) -> int:
        """Units bought from the market maker at its ask in the last step (0 to 2)."""
        return self._ask_fills

    @property
    def trader_fill(self) -> int:
        """The trader's fill in the last step: ``1`` bought, ``-1`` sold, ``0`` none."""
        return self._trader_fill

    @property
    def inventory(self) -> int:
        """The market maker's inventory (units; negative when short)."""
        return self._inventory

    @property
    def cash(self) -> float:
        """The market maker's cash (0 at the reset)."""
        return self._cash

    @property
    def position(self) -> int:
        """The trader's position (units; negative when short)."""
        return self._position

    @property
    def pnl(self) -> dict[str, float]:
        """Each agent's mark-to-market profit since the reset (its info's ``pnl``), by agent id."""
        mid = self._mid
        return {
            MARKET_MAKER: self._cash + self._inventory * mid,
            TRADER: self._trader_cash + self._position * mid,
        }

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> MAResetResult[_Obs, str]:
        """Start an episode: flat books, mid-price ``initial_price``, a fresh signal.

        All the randomness of the episode is drawn here from `rng`.
        ``options`` are not used.
        """
        self._set_rng(seed)
        rng = self.rng
        self._signal = float(rng.standard_normal())
        # per step: noise buy, noise sell (uniforms), price shock, signal innovation
        self._shocks = np.concatenate(
            [rng.random((self.episode_length, 2)), rng.standard_normal((self.episode_length, 2))],
            axis=1,
        ).tolist()
        self._start_books()
        self.agents = list(self.possible_agents)
        info = {
            MARKET_MAKER: {"inventory": 0, "cash": 0.0, "pnl": 0.0},
            TRADER: {"position": 0, "pnl": 0.0},
        }
        return MAResetResult(self._observe(), info)

    def _observe(self) -> dict[str, _Obs]:
        return {
            MARKET_MAKER: np.array(
                [
                    self._inventory / self.max_inventory,
                    self._last_flow / 2.0,
                    self._last_move / self.volatility,
                    self._t / self.episode_length,
                ],
                dtype=np.float32,
            ),
            TRADER: np.array(
                [
                    self._signal,
                    self._position / self.max_position,
                    self._last_spread / (2.0 * self.max_offset),
                ],
                dtype=np.float32,
            ),
        }

    def _read_actions(self, actions: dict[str, Any]) -> tuple[float, float, int]:
        if not isinstance(actions, dict) or MARKET_MAKER not in actions or TRADER not in actions:
            raise InvalidAction(
                f"MarketMicrostructure expects a dict with an action for {MARKET_MAKER!r} and for "
                f"{TRADER!r}, got {actions!r}"
            )
        quotes = actions[MARKET_MAKER]
        if not self._quote_space.contains(quotes) or not bool(np.all(np.isfinite(quotes))):
            raise InvalidAction(
                f"the market maker's action must be 2 offsets in [0, {self.max_offset}] "
                f"(bid, ask), got {quotes!r}"
            )
        order = actions[TRADER]
        if not self.action_spaces[TRADER].contains(order):
            raise InvalidAction(
                f"the trader's action must be 0 (buy), 1 (hold) or 2 (sell), got {order!r}"
            )
        bid_offset, ask_offset = np.asarray(quotes, dtype=np.float64).tolist()
        return bid_offset, ask_offset, int(order)

    def step(self, actions: dict[str, Any]) -> MAStepResult[_Obs, str]:
        """Fill orders at the quotes, then move the price (see the class docstring).

        Raises:
            ResetRequired: Before the first reset or after the episode ended.
            InvalidAction: An agent's action is missing or not in its space.
        """
        if not self.agents:
            raise ResetRequired("MarketMicrostructure: call reset() to start an episode")
        bid_offset, ask_offset, order = self._read_actions(actions)
        u_buy, u_sell, price_shock, signal_shock = self._shocks[self._t]
        mid = self._mid
        bid, ask = mid - bid_offset, mid + ask_offset
        mm_value = self._cash + self._inventory * mid
        trader_value = self._trader_cash + self._position * mid

        filled = False
        if order == BUY and self._position < self.max_position:
            filled = self._fill(buy=True, price=ask)
            if filled:
                self._position += 1
                self._trader_cash -= ask
        elif order == SELL and self._position > -self.max_position:
            filled = self._fill(buy=False, price=bid)
            if filled:
                self._position -= 1
                self._trader_cash += bid
        trader_fill = (1 if order == BUY else -1) if filled else 0
        ask_fills, bid_fills = int(trader_fill > 0), int(trader_fill < 0)
        intensity = self.noise_intensity
        if u_buy < intensity * math.exp(-self.noise_decay * ask_offset) and self._fill(
            buy=True, price=ask
        ):
            ask_fills += 1
        if u_sell < intensity * math.exp(-self.noise_decay * bid_offset) and self._fill(
            buy=False, price=bid
        ):
            bid_fills += 1

        move = self.signal_strength * self._signal + self.volatility * price_shock
        self._mid = mid = mid + move
        self._signal = self.signal_persistence * self._signal + self._innovation * signal_shock
        self._t += 1
        self._last_flow = ask_fills - bid_fills  # units bought from it minus units sold to it
        self._last_move = move
        self._last_spread = bid_offset + ask_offset
        self._bid, self._ask = bid, ask
        self._bid_fills, self._ask_fills, self._trader_fill = bid_fills, ask_fills, trader_fill

        inventory = self._inventory
        mm_reward = (
            self._cash + inventory * mid - mm_value - self.inventory_penalty * inventory * inventory
        )
        trader_reward = self._trader_cash + self._position * mid - trader_value
        truncated = self._t >= self.episode_length
        if truncated:
            self.agents = []
        info = {
            MARKET_MAKER: {
                "inventory": inventory,
                "cash": self._cash,
                "pnl": self._cash + inventory * mid,
                "fills": bid_fills + ask_fills,
            },
            TRADER: {
                "position": self._position,
                "pnl": self._trader_cash + self._position * mid,
                "filled": filled,
            },
        }
        return MAStepResult(
            self._observe(),
            {MARKET_MAKER: mm_reward, TRADER: trader_reward},
            {MARKET_MAKER: False, TRADER: False},
            {MARKET_MAKER: truncated, TRADER: truncated},
            info,
        )

    def _fill(self, *, buy: bool, price: float) -> bool:
        """Execute one unit against the market maker if its inventory cap allows."""
        if buy:  # a taker buys: the market maker sells
            if self._inventory <= -self.max_inventory:
                return False
            self._inventory -= 1
            self._cash += price
        else:
            if self._inventory >= self.max_inventory:
                return False
            self._inventory += 1
            self._cash -= price
        return True


def __getattr__(name: str) -> Any:
    # The former name of the two-agent game, read lazily so that using it warns:
    # `sekai.envs.MarketMakingEnv` is another env (Avellaneda-Stoikov).
    if name == "MarketMakingEnv":
        warnings.warn(
            "sekai.envs.microstructure.MarketMakingEnv is the two-agent game, now named "
            "MarketMicrostructureEnv (MarketMicrostructure-v0); import that name instead. "
            "sekai.envs.MarketMakingEnv is the single-agent Avellaneda-Stoikov env "
            "(MarketMaking-v0).",
            DeprecationWarning,
            stacklevel=2,
        )
        return MarketMicrostructureEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
