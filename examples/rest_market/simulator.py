"""The market simulation: one asset on a geometric random walk, one trader.

Pure Python and numpy, no I/O: the REST server (:mod:`rest_market.server`)
runs one :class:`MarketSimulator` per client session, and
:class:`~rest_market.env.LocalMarketEnv` runs the same class in process, so
the two envs are the same dynamics behind two transports.

Dynamics, per step ``t``:

1. The action picks a target position ``action - max_position`` (units of the
   asset, from ``-max_position`` to ``+max_position``). The trade to reach it is
   filled at the current price ``p_t`` and costs ``cost_rate * |traded| * p_t``,
   paid from cash.
2. The price moves: ``p_{t+1} = p_t * exp(drift - volatility**2 / 2 +
   volatility * z)`` with ``z`` standard normal, drawn from the session's
   generator (a seeded :class:`numpy.random.Generator`).
3. The reward is the change of equity (cash plus position times price): the
   position's PnL ``position * (p_{t+1} - p_t)`` minus the trading cost.
4. The episode terminates when equity falls to ``initial_cash - max_loss`` (a
   stop-out), and is truncated after ``max_steps`` steps.

The observation is the last ``lookback`` log-returns followed by the position
scaled to ``[-1, 1]``, as float64 (the envs cast it to float32). A reset draws
``lookback`` past returns, so the first observation is informative.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["EpisodeOver", "MarketConfig", "MarketSimulator", "Observation", "StepOutcome"]


@dataclass(frozen=True)
class MarketConfig:
    """Parameters of a market simulation; the same on the server and in process.

    Attributes:
        lookback: How many recent log-returns the observation holds (>= 1).
        max_position: Largest position either way, in units (>= 1); the action
            space has ``2 * max_position + 1`` target positions.
        initial_price: Price at the start of an episode (> 0).
        initial_cash: Cash at the start of an episode.
        drift: Expected log-return per step, before the volatility correction.
        volatility: Standard deviation of the log-return per step (>= 0).
        cost_rate: Cost of a trade as a fraction of its notional (>= 0).
        max_loss: The episode terminates once equity has lost this much (> 0).
        max_steps: The episode is truncated after this many steps (>= 1).
    """

    lookback: int = 8
    max_position: int = 1
    initial_price: float = 100.0
    initial_cash: float = 1000.0
    drift: float = 0.0
    volatility: float = 0.01
    cost_rate: float = 1e-3
    max_loss: float = 50.0
    max_steps: int = 200

    def __post_init__(self) -> None:
        for name in ("lookback", "max_position", "max_steps"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"MarketConfig: {name} must be an int, got {value!r}")
            if value < 1:
                raise ValueError(f"MarketConfig: {name} must be an int >= 1, got {value!r}")
        for name, low, strict in (
            ("initial_price", 0.0, True),
            ("initial_cash", -math.inf, False),
            ("drift", -math.inf, False),
            ("volatility", 0.0, False),
            ("cost_rate", 0.0, False),
            ("max_loss", 0.0, True),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"MarketConfig: {name} must be a real number, got {value!r}")
            if not math.isfinite(value) or value < low or (strict and value == low):
                bound = f"> {low}" if strict else f">= {low}"
                expected = "finite" if low == -math.inf else f"finite and {bound}"
                raise ValueError(f"MarketConfig: {name} must be {expected}, got {value!r}")

    @property
    def num_actions(self) -> int:
        """Size of the action space: one action per target position."""
        return 2 * self.max_position + 1

    def to_json(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict (what the REST API sends)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: object) -> MarketConfig:
        """Build a config from :meth:`to_json` output; missing keys take their defaults.

        Raises:
            TypeError: ``data`` is not a dict, or a value has the wrong type.
            ValueError: ``data`` has an unknown key, or a value is out of range.
        """
        if not isinstance(data, dict):
            raise TypeError(f"MarketConfig: expected a JSON object, got {data!r}")
        known = {field.name for field in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"MarketConfig: unknown keys {unknown!r}; expected some of {known}")
        return cls(**data)


@dataclass(frozen=True)
class Observation:
    """What :meth:`MarketSimulator.reset` returns: the first observation and its info."""

    observation: NDArray[np.float64]
    info: dict[str, Any]


@dataclass(frozen=True)
class StepOutcome:
    """What :meth:`MarketSimulator.step` returns."""

    observation: NDArray[np.float64]
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]


class EpisodeOver(RuntimeError):
    """:meth:`MarketSimulator.step` was called before a reset or after the episode ended."""


class MarketSimulator:
    """One trader's market, stepped one action at a time (see the module docstring).

    Seeding follows sekai's contract: ``reset(seed=int)`` re-seeds the
    generator, ``reset(seed=None)`` continues its stream (the first one draws
    OS entropy). Two simulators with the same config, seed and actions produce
    identical outcomes, bit for bit.

    Args:
        config: The market's parameters.
    """

    def __init__(self, config: MarketConfig | None = None) -> None:
        self.config = config if config is not None else MarketConfig()
        self._rng: np.random.Generator | None = None
        self._returns = np.zeros(self.config.lookback, dtype=np.float64)
        self._price = self.config.initial_price
        self._cash = self.config.initial_cash
        self._position = 0
        self._t = 0
        self._running = False

    def reset(self, seed: int | None = None) -> Observation:
        """Start an episode: flat position, initial cash and price, fresh past returns.

        Args:
            seed: A non-negative int re-seeds the generator; ``None`` continues it.

        Raises:
            TypeError: ``seed`` is neither an int nor ``None``.
            ValueError: ``seed`` is negative.
        """
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
                raise TypeError(f"seed must be a non-negative int or None, got {seed!r}")
            if seed < 0:
                raise ValueError(f"seed must be a non-negative int or None, got {seed!r}")
            self._rng = np.random.default_rng(int(seed))
        elif self._rng is None:
            self._rng = np.random.default_rng()
        config = self.config
        self._returns = self._log_returns(config.lookback)
        self._price = config.initial_price
        self._cash = config.initial_cash
        self._position = 0
        self._t = 0
        self._running = True
        return Observation(self._observation(), self._info(0.0))

    def step(self, action: int) -> StepOutcome:
        """Trade to the action's target position, then let the price move one step.

        Args:
            action: An int in ``[0, 2 * max_position]``; the target position is
                ``action - max_position``.

        Raises:
            ValueError: ``action`` is not such an int.
            EpisodeOver: No episode is running (never reset, or it ended).
        """
        config = self.config
        if (
            isinstance(action, bool)
            or not isinstance(action, (int, np.integer))
            or not 0 <= action < config.num_actions
        ):
            raise ValueError(
                f"action must be an int in [0, {config.num_actions - 1}], got {action!r}"
            )
        if not self._running:
            raise EpisodeOver("step() needs a running episode: call reset() first")
        target = int(action) - config.max_position
        price = self._price
        traded = target - self._position
        cost = config.cost_rate * abs(traded) * price
        self._cash -= traded * price + cost
        self._position = target
        log_return = float(self._log_returns(1)[0])
        new_price = price * math.exp(log_return)
        reward = target * (new_price - price) - cost
        self._price = new_price
        self._returns[:-1] = self._returns[1:]
        self._returns[-1] = log_return
        self._t += 1
        equity = self._cash + target * new_price
        terminated = equity <= config.initial_cash - config.max_loss
        truncated = not terminated and self._t >= config.max_steps
        self._running = not (terminated or truncated)
        return StepOutcome(self._observation(), reward, terminated, truncated, self._info(cost))

    def _log_returns(self, n: int) -> NDArray[np.float64]:
        config = self.config
        assert self._rng is not None
        z = self._rng.standard_normal(n)
        returns: NDArray[np.float64] = (
            config.drift - 0.5 * config.volatility**2 + config.volatility * z
        )
        return returns

    def _observation(self) -> NDArray[np.float64]:
        observation = np.empty(self.config.lookback + 1, dtype=np.float64)
        observation[:-1] = self._returns
        observation[-1] = self._position / self.config.max_position
        return observation

    def _info(self, cost: float) -> dict[str, Any]:
        return {
            "t": self._t,
            "price": self._price,
            "position": self._position,
            "cash": self._cash,
            "equity": self._cash + self._position * self._price,
            "cost": cost,
        }
