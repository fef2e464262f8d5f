"""LimitOrderBook-v0 and LimitOrderBookMarket: trading on a real limit order book.

Both envs run the price-time-priority [`OrderBook`][sekai.finance.OrderBook]
of the markets toolkit, driven by an order flow: its
[`ZeroIntelligenceFlow`][sekai.finance.ZeroIntelligenceFlow] by default, or any
[`OrderFlow`][sekai.finance.lob.OrderFlow] such as a
[`LobsterReplay`][sekai.finance.lob.LobsterReplay]: one agent in
`LimitOrderBookEnv`, several on one shared book in
`LimitOrderBookMarket`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_int, check_real, is_real
from sekai.core import Env, MAResetResult, MAStepResult, MultiAgentEnv, ResetResult, StepResult
from sekai.envs.finance._lob_core import LobConfig, MarketCore, Trader, read_action
from sekai.error import InvalidAction, ResetRequired
from sekai.finance.lob import OrderBook, OrderFlow
from sekai.spaces import Space
from sekai.utils.seeding import SeedType

__all__ = ["LimitOrderBookEnv", "LimitOrderBookMarket"]

_TIME_TOLERANCE = 1e-9  # decision times closer than this are simultaneous


def _observation(core: MarketCore, trader: Trader, time_left: float) -> dict[str, Any]:
    return {
        "book": core.observe_book(),
        "trades": core.observe_trades(),
        "agent": trader.observe(core, time_left),
    }


def _info(
    core: MarketCore, trader: Trader, timestamp: float, dt: float, pnl: float
) -> dict[str, Any]:
    mid = core.mid
    return {
        "timestamp": timestamp,
        "dt": dt,
        "mid_price": mid,
        "spread": core.spread(),
        "inventory": trader.inventory,
        "cash": trader.cash,
        "wealth": trader.wealth(mid),
        "pnl": pnl,
        "fills": list(trader.fills),
    }


class LimitOrderBookEnv(Env[dict[str, Any], NDArray[np.int64]]):
    """One agent quoting and trading in a limit order book against zero-intelligence flow.

    The book starts around ``mid_price`` (ticks), seeded and then run for
    ``warmup`` time units by the background ``flow`` (by default Poisson
    limit, market and cancel orders; see
    [`ZeroIntelligenceFlow`][sekai.finance.ZeroIntelligenceFlow]).
    The session then lasts ``session_length`` and the agent decides every
    ``decision_interval`` (``n_steps`` decisions; a last shorter interval when
    the length is not a multiple). At each decision the agent's orders go in
    first, then the flow runs until the next decision; background market
    orders fill the agent's resting quotes by price-time priority.

    Action:
        ``MultiDiscrete([K + 1, K + 1, 3])`` with ``K = max_quote_offset``:
        the bid level (0 no bid, 1 join the best bid of the other traders,
        ``k`` sit ``k - 1`` ticks behind it), the ask level likewise, and a
        market order of ``order_size`` lots (0 sell, 1 none, 2 buy). A quote
        whose price does not change keeps its queue position. A market order
        first cancels the agent's own opposite quote (no self-trade), and is
        sent before the quotes. Each quote is ``order_size`` lots.

    Action mask:
        `action_mask` (the `sekai.utils.masking` protocol: one
        int8 array per entry) disables the bid levels and the market buy when
        a buy of ``order_size`` would take the inventory above
        ``max_inventory``, and the ask levels and the market sell at the short
        limit. A masked choice sent anyway is carried out as "none", and so is
        a quote that the market order of the same action brings to the limit:
        the inventory never leaves ``[-max_inventory, max_inventory]``.

    Observation (a ``Dict``):
        * ``"book"``: ``Box((levels, 4), float32)``, the best ``levels`` price
          levels of each side: bid price - mid (ticks, negative), bid size,
          ask price - mid, ask size; rows past the last level are zeros;
        * ``"trades"``: ``MaskedBox`` of the last ``max_trades`` trades on the
          book (anyone's), oldest first: price - mid, size, aggressor side
          (+1 a buy lifted an ask, -1 a sell hit a bid);
        * ``"agent"``: ``Box((6,), float32)``: inventory / max_inventory,
          fraction of the session remaining, bid resting (0/1), ask resting
          (0/1), volume queued ahead of the bid, ahead of the ask.

    Reward:
        The change of mark-to-market wealth (``cash + inventory * mid``, in
        ticks) over the step minus ``inventory_penalty * inventory**2 * dt``.
        The mid is the last two-sided one.

    Termination:
        ``terminated`` at the end of the session; ``step`` after it raises
        ``ResetRequired``.

    Info: ``timestamp`` (session time after the step), ``dt``, ``mid_price``,
    ``spread`` (NaN when a side is empty), ``inventory``, ``cash``,
    ``wealth``, ``pnl`` (the step's change of wealth) and ``fills`` (the
    agent's [`Fill`][sekai.finance.Fill] objects of the step).

    Baseline: `baseline_action` quotes both sides at the touch and
    leans against its inventory.

    Args:
        flow: The background order flow: any
            [`OrderFlow`][sekai.finance.lob.OrderFlow], an object with
            ``initialise(book, rng, *, mid, levels, orders_per_level)`` and
            ``advance(book, rng, until)`` methods (default
            ``ZeroIntelligenceFlow()``). At every reset the env makes a new
            empty book, calls ``initialise`` (``mid`` = ``mid_price``, 10
            levels of 3 orders a side) and ``advance`` to the end of the
            warm-up, then ``advance`` after each decision; book times run
            from 0 at the reset. A
            [`LobsterReplay`][sekai.finance.lob.LobsterReplay] replays its
            messages from the first at every reset; give it message times on
            that clock (LOBSTER's seconds after midnight minus the first
            message's), or the session ends before the first message.
        mid_price: The starting mid-price, in ticks (> 10, and at most
            ``OrderBook.MAX_PRICE - 10``: the book is seeded 10 ticks either
            side of it).
        session_length: The session's length, in the flow's time units.
        decision_interval: Time between two decisions.
        levels: Book levels per side in the observation.
        max_quote_offset: ``K``, the deepest quote level.
        order_size: Lots per quote and per market order (at most
            ``OrderBook.MAX_QUANTITY``).
        max_inventory: The inventory limit, long and short (>= order_size).
        inventory_penalty: The weight of the running inventory penalty.
        max_trades: Trades in the observation's tape.
        warmup: Time the flow runs before the session starts, at every
            reset: from 0 to 100 times ``session_length`` (a longer warmup
            would make a reset cost more than 100 sessions).

    Raises:
        TypeError: ``flow`` is neither ``None`` nor an order flow (the
            message names the methods expected and what was given), or
            another argument has the wrong type.
        ValueError: An argument is out of range.

    Attributes:
        AGENT: The agent's owner id in the book (0).
        core: The shared market (book, flow, clock, trade tape).
        trader: The agent's account and quotes.
        n_steps: Decisions per session.
    """

    AGENT = 0
    metadata: dict[str, Any] = {  # noqa: RUF012 - copied per subclass
        "render_fps": 10,
        "render_modes": ["rgb_array"],
        "renderer": "sekai.envs.finance.rendering:LimitOrderBookRenderer",
    }

    def __init__(
        self,
        *,
        flow: OrderFlow | None = None,
        mid_price: int = 10000,
        session_length: float = 300.0,
        decision_interval: float = 1.0,
        levels: int = 5,
        max_quote_offset: int = 5,
        order_size: int = 1,
        max_inventory: int = 20,
        inventory_penalty: float = 0.01,
        max_trades: int = 16,
        warmup: float = 20.0,
    ) -> None:
        owner = "LimitOrderBookEnv"
        config = LobConfig(
            owner,
            flow=flow,
            mid_price=mid_price,
            session_length=session_length,
            levels=levels,
            max_quote_offset=max_quote_offset,
            order_size=order_size,
            max_inventory=max_inventory,
            inventory_penalty=inventory_penalty,
            max_trades=max_trades,
            warmup=warmup,
        )
        self.config = config
        self.decision_interval = check_real(
            decision_interval, f"{owner}: decision_interval", minimum=0.0, min_open=True
        )
        self.n_steps = max(1, math.ceil(config.session_length / self.decision_interval - 1e-9))
        self.core = MarketCore(config)
        self.trader = Trader(self.AGENT, config)
        self.core.traders[self.AGENT] = self.trader
        self.observation_space = config.observation_space()
        self.action_space = config.action_space()
        self._levels = config.max_quote_offset + 1
        self._t = 0
        self._now = 0.0
        self._wealth = 0.0
        self._started = False

    @property
    def book(self) -> OrderBook:
        """The order book (shared with the background flow)."""
        return self.core.book

    @property
    def elapsed_steps(self) -> int:
        """Decisions taken in the current session."""
        return self._t

    def action_mask(self) -> tuple[NDArray[np.int8], ...]:
        """The currently valid choices of each action entry (see the class docstring)."""
        return self.trader.action_mask()

    def baseline_action(self) -> NDArray[np.int64]:
        """A simple market-making policy to compare against.

        Both quotes at the touch; the side that would add to the inventory
        steps back one tick per ``max_inventory / K`` lots held; a side at
        the inventory limit is withdrawn; no market orders.
        """
        return self.trader.baseline_action()

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[dict[str, Any]]:
        """Seed a fresh book, run the warm-up and start the session.

        ``options`` are not used.
        """
        self._set_rng(seed)
        self.core.start(self.rng)
        self._t = 0
        self._now = 0.0
        self._wealth = self.trader.wealth(self.core.mid)
        self._started = True
        info = _info(self.core, self.trader, 0.0, 0.0, 0.0)
        return ResetResult(_observation(self.core, self.trader, 1.0), info)

    def step(self, action: NDArray[np.int64]) -> StepResult[dict[str, Any]]:
        """Send the agent's orders, then run the flow until the next decision.

        Raises:
            ResetRequired: Before the first reset or after the session ended.
            InvalidAction: ``action`` is not in `action_space`.
        """
        if not self._started or self._t >= self.n_steps:
            raise ResetRequired("LimitOrderBookEnv: call reset() to start a session")
        bid, ask, market = read_action(action, self._levels, "LimitOrderBookEnv")
        core, trader = self.core, self.trader
        trader.begin_step()
        trader.act(core, bid, ask, market)
        core.refresh_mid()
        self._t = t = self._t + 1
        before = self._now
        length = self.config.session_length
        self._now = now = length if t >= self.n_steps else min(t * self.decision_interval, length)
        core.advance(now)
        dt = now - before
        wealth = trader.wealth(core.mid)
        pnl = wealth - self._wealth
        self._wealth = wealth
        inventory = trader.inventory
        reward = pnl - self.config.inventory_penalty * inventory * inventory * dt
        observation = _observation(core, trader, 1.0 - now / length)
        info = _info(core, trader, now, dt, pnl)
        return StepResult(observation, reward, t >= self.n_steps, False, info)


class LimitOrderBookMarket(MultiAgentEnv[dict[str, Any], NDArray[np.int64], str]):
    """Several traders on one limit order book, each deciding on its own clock.

    ``n_agents`` traders ``"trader_0"``, ``"trader_1"``, ... share one book
    driven by an order flow (zero-intelligence flow by default), set up as in
    `LimitOrderBookEnv`
    (same action, action mask, observation and reward per trader; trader
    ``i`` is owner ``i`` in the book). Trader ``i`` decides every
    ``decision_intervals[i]`` time units plus a latency drawn uniformly from
    ``[0, jitter)`` (its first decision comes after such a latency too).

    A step carries out the decisions of the traders whose turn it is
    (`acting`, in a random order when several act at once), then the
    flow runs until the next decision time of any trader, which is where the
    next step starts. Actions for traders who are not acting are checked and
    ignored; every action is checked before any is carried out.

    Observations, rewards, flags and info are given for every trader at every
    step (PettingZoo's parallel API, whose ``parallel_api_test`` the env
    passes through [`sekai.compat.to_pettingzoo`][sekai.compat.to_pettingzoo]): a trader's reward is
    the change of its wealth over the step minus its inventory penalty, so
    the rewards between two of its decisions add up to what its last decision
    earned. sekai 0.2 returned observations only for the acting traders;
    ``info[agent]["acting"]`` (and `acting`) say who acts next. At the
    session's end every trader is terminated and `agents` is empty.

    Info per trader: the keys of `LimitOrderBookEnv`, plus ``acting``
    (whether it acts at the next step) and ``next_decision`` (its next
    decision time).

    Args:
        n_agents: Number of traders (>= 1).
        decision_intervals: One interval for all, or one per trader (> 0).
        jitter: The largest extra latency of a decision (>= 0).
        flow: See `LimitOrderBookEnv`.
        mid_price: Idem.
        session_length: Idem.
        levels: Idem.
        max_quote_offset: Idem.
        order_size: Idem.
        max_inventory: Idem.
        inventory_penalty: Idem.
        max_trades: Idem.
        warmup: Idem.

    Attributes:
        core: The shared market.
        traders: The traders by agent id.
        intervals: Each trader's decision interval.
        jitter: The latency bound.
        next_decision: Each trader's next decision time (session time).
        acting: The traders whose turn it is.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - copied per subclass
        "render_fps": 10,
        "render_modes": ["rgb_array"],
        "renderer": "sekai.envs.finance.rendering:LimitOrderBookMarketRenderer",
    }

    def __init__(
        self,
        n_agents: int = 2,
        *,
        decision_intervals: float | Sequence[float] = 1.0,
        jitter: float = 0.0,
        flow: OrderFlow | None = None,
        mid_price: int = 10000,
        session_length: float = 300.0,
        levels: int = 5,
        max_quote_offset: int = 5,
        order_size: int = 1,
        max_inventory: int = 20,
        inventory_penalty: float = 0.01,
        max_trades: int = 16,
        warmup: float = 20.0,
    ) -> None:
        owner = "LimitOrderBookMarket"
        count = check_int(n_agents, f"{owner}: n_agents", minimum=1)
        config = LobConfig(
            owner,
            flow=flow,
            mid_price=mid_price,
            session_length=session_length,
            levels=levels,
            max_quote_offset=max_quote_offset,
            order_size=order_size,
            max_inventory=max_inventory,
            inventory_penalty=inventory_penalty,
            max_trades=max_trades,
            warmup=warmup,
        )
        self.config = config
        self.possible_agents = [f"trader_{i}" for i in range(count)]
        self.agents = []
        self.intervals = _intervals(decision_intervals, self.possible_agents, owner)
        self.jitter = check_real(jitter, f"{owner}: jitter", minimum=0.0)
        self.core = MarketCore(config)
        self.traders: dict[str, Trader] = {}
        for i, agent in enumerate(self.possible_agents):
            trader = Trader(i, config)
            self.traders[agent] = trader
            self.core.traders[i] = trader
        self.observation_spaces: dict[str, Space[dict[str, Any]]] = {
            agent: config.observation_space() for agent in self.possible_agents
        }
        self.action_spaces: dict[str, Space[NDArray[np.int64]]] = {
            agent: config.action_space() for agent in self.possible_agents
        }
        self.next_decision: dict[str, float] = dict.fromkeys(self.possible_agents, 0.0)
        self.acting: list[str] = []
        self._levels = config.max_quote_offset + 1
        self._now = 0.0
        self._wealth: dict[str, float] = dict.fromkeys(self.possible_agents, 0.0)

    @property
    def book(self) -> OrderBook:
        """The shared order book."""
        return self.core.book

    def action_mask(self, agent: str) -> tuple[NDArray[np.int8], ...]:
        """The valid choices of ``agent``'s action entries (see `LimitOrderBookEnv`).

        Raises:
            KeyError: ``agent`` is not one of `possible_agents`.
        """
        return self._trader(agent).action_mask()

    def baseline_action(self, agent: str) -> NDArray[np.int64]:
        """The baseline of `LimitOrderBookEnv.baseline_action` for ``agent``.

        Raises:
            KeyError: ``agent`` is not one of `possible_agents`.
        """
        return self._trader(agent).baseline_action()

    def _trader(self, agent: str) -> Trader:
        trader = self.traders.get(agent)
        if trader is None:
            raise KeyError(f"unknown agent {agent!r}; the traders are {self.possible_agents!r}")
        return trader

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> MAResetResult[dict[str, Any], str]:
        """Seed a fresh book, run the warm-up, schedule every trader's first decision.

        ``options`` are not used.
        """
        self._set_rng(seed)
        rng = self.rng
        core = self.core
        core.start(rng)
        latencies = rng.random(len(self.possible_agents)).tolist()
        for agent, latency in zip(self.possible_agents, latencies, strict=True):
            self.next_decision[agent] = self.jitter * latency
        self._now = now = min(self.next_decision.values())
        core.advance(now)
        self.agents = list(self.possible_agents)
        self._schedule_acting()
        for agent, trader in self.traders.items():
            self._wealth[agent] = trader.wealth(core.mid)
        observations = self._observations()
        info = {agent: self._agent_info(agent, 0.0, 0.0) for agent in self.possible_agents}
        return MAResetResult(observations, info)

    def step(self, actions: dict[str, Any]) -> MAStepResult[dict[str, Any], str]:
        """Carry out the acting traders' decisions and run the market to the next one.

        Raises:
            ResetRequired: Before the first reset or after the session ended.
            InvalidAction: ``actions`` is not a dict, names an unknown trader,
                lacks an acting trader, or holds an action outside its space.
        """
        if not self.agents:
            raise ResetRequired("LimitOrderBookMarket: call reset() to start a session")
        decisions = self._read_actions(actions)
        core, rng = self.core, self.rng
        for trader in self.traders.values():
            trader.begin_step()
        acting = self.acting
        if len(acting) > 1:
            acting = [acting[i] for i in rng.permutation(len(acting)).tolist()]
        for agent in acting:
            self.traders[agent].act(core, *decisions[agent])
        core.refresh_mid()
        before = self._now
        for agent in acting:
            self.next_decision[agent] = (
                before + self.intervals[agent] + self.jitter * float(rng.random())
            )
        length = self.config.session_length
        now = min(min(self.next_decision.values()), length)
        done = now >= length - _TIME_TOLERANCE
        if done:
            now = length
        core.advance(now)
        self._now = now
        dt = now - before
        penalty = self.config.inventory_penalty
        rewards: dict[str, float] = {}
        pnls: dict[str, float] = {}
        for agent, trader in self.traders.items():
            wealth = trader.wealth(core.mid)
            pnls[agent] = pnl = wealth - self._wealth[agent]
            self._wealth[agent] = wealth
            rewards[agent] = pnl - penalty * trader.inventory * trader.inventory * dt
        if done:
            self.acting = []
        else:
            self._schedule_acting()
        observations = self._observations()
        info = {agent: self._agent_info(agent, dt, pnls[agent]) for agent in self.possible_agents}
        flags = dict.fromkeys(self.possible_agents, done)
        if done:
            self.agents = []
        return MAStepResult(
            observations, rewards, flags, dict.fromkeys(self.possible_agents, False), info
        )

    def _read_actions(self, actions: Any) -> dict[str, tuple[int, int, int]]:
        if not isinstance(actions, Mapping):
            raise InvalidAction(
                f"LimitOrderBookMarket expects a dict of actions by trader, got {actions!r}"
            )
        unknown = [agent for agent in actions if agent not in self.traders]
        if unknown:
            raise InvalidAction(
                f"LimitOrderBookMarket: unknown traders {unknown!r}; the traders are "
                f"{self.possible_agents!r}"
            )
        missing = [agent for agent in self.acting if agent not in actions]
        if missing:
            raise InvalidAction(
                f"LimitOrderBookMarket: no action for {missing!r}, whose turn it is "
                f"(acting: {self.acting!r})"
            )
        return {
            agent: read_action(action, self._levels, f"LimitOrderBookMarket ({agent!r})")
            for agent, action in actions.items()
        }

    def _schedule_acting(self) -> None:
        now = self._now
        self.acting = [
            agent
            for agent in self.possible_agents
            if self.next_decision[agent] <= now + _TIME_TOLERANCE
        ]

    def _observations(self) -> dict[str, dict[str, Any]]:
        time_left = max(0.0, 1.0 - self._now / self.config.session_length)
        return {
            agent: _observation(self.core, trader, time_left)
            for agent, trader in self.traders.items()
        }

    def _agent_info(self, agent: str, dt: float, pnl: float) -> dict[str, Any]:
        info = _info(self.core, self.traders[agent], self._now, dt, pnl)
        info["acting"] = agent in self.acting
        info["next_decision"] = self.next_decision[agent]
        return info


def _intervals(value: Any, agents: list[str], owner: str) -> dict[str, float]:
    """One decision interval per agent from a number or a sequence of numbers."""
    what = f"{owner}: decision_intervals"
    if is_real(value):
        interval = check_real(value, what, minimum=0.0, min_open=True)
        return dict.fromkeys(agents, interval)
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
        raise TypeError(f"{what} must be a number or one number per trader, got {value!r}")
    values = list(value)
    if len(values) != len(agents):
        raise ValueError(f"{what} must have one entry per trader ({len(agents)}), got {value!r}")
    return {
        agent: check_real(entry, f"{what}[{i}]", minimum=0.0, min_open=True)
        for i, (agent, entry) in enumerate(zip(agents, values, strict=True))
    }
