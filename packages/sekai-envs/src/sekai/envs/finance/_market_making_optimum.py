"""The exact optimum of MarketMaking-v0, and the exact moments of any quoting rule (private).

MarketMaking-v0's session is a Markov decision process over ``(step,
inventory)``: the mid-price enters a step's reward only through the move
``inventory * (S' - S)``, whose mean is 0, so neither the price nor the cash
affects what is still to be earned. Its expected reward is therefore a
function ``V_t(q)`` on a small grid, found exactly by backward induction:

- `market_making_optimum` solves the Bellman equation, optimising the two
  continuous quotes in every state, and returns a `MarketMakingOptimum`, a
  policy (observation to action) that knows its own expected reward;
- `quote_moments` evaluates any rule that quotes by ``(step, inventory)``
  exactly, as a `QuoteMoments`: its expected reward, the mean and variance of
  its final profit and the law of its final inventory (the Avellaneda &
  Stoikov quotes, `avellaneda_stoikov_table`, are such a rule).

The notation: ``s`` is ``order_size``; the inventories a session can reach
are ``j s`` for ``j = -L..L``, ``L = max_inventory // s`` (the grid's
"levels"); ``p(delta) = min(1, A exp(-k delta) dt)`` is the chance that a
quote at ``delta`` fills within a step; ``c = penalty_scale = gamma sigma**2
dt / 2``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai.envs.finance._market_making_config import MarketMakingConfig
from sekai.envs.finance._market_making_kernel import avellaneda_stoikov_offsets

__all__ = [
    "MarketMakingOptimum",
    "QuoteMoments",
    "avellaneda_stoikov_table",
    "market_making_optimum",
    "quote_moments",
]

_F64 = NDArray[np.float64]

# A per-state scan of the ask's distance seeds the coordinate ascent of the two
# quotes (see _best_quotes); the ascent stops once no quote moves by more than
# _TOLERANCE, or after _MAX_SWEEPS sweeps.
_SCAN_POINTS = 33
_TOLERANCE = 1e-13
_MAX_SWEEPS = 500


# -- the grid and a step's outcomes ---------------------------------------------------------------


def _config_of(env: Any) -> MarketMakingConfig:
    """The `MarketMakingConfig` of an env, a vector env, a wrapper, or a config itself."""
    if isinstance(env, MarketMakingConfig):
        return env
    config = getattr(env, "config", None)
    if isinstance(config, MarketMakingConfig):
        return config
    raise TypeError(
        "expected a MarketMaking-v0 env (MarketMakingEnv, MarketMakingVecEnv or a wrapper "
        f"of one) or its config, got {type(env).__name__} {env!r}"
    )


def _levels(config: MarketMakingConfig) -> NDArray[np.int64]:
    """The inventories a session can hold: ``j * order_size`` for ``j = -L..L``."""
    top = config.max_inventory // config.order_size
    levels: NDArray[np.int64] = np.arange(-top, top + 1, dtype=np.int64) * config.order_size
    return levels


def _chance(offsets: _F64, config: MarketMakingConfig) -> _F64:
    """``min(1, A exp(-k offset) dt)``, in the env's order of operations."""
    chance: _F64 = np.minimum(
        config.fill_intensity * np.exp(-config.fill_decay * offsets) * config.dt, 1.0
    )
    return chance


def _shift_up(values: _F64) -> _F64:
    """``values[j + 1]`` at ``j`` (0 past the top level)."""
    shifted: _F64 = np.append(values[1:], 0.0)
    return shifted


def _shift_down(values: _F64) -> _F64:
    """``values[j - 1]`` at ``j`` (0 below the bottom level)."""
    shifted: _F64 = np.insert(values[:-1], 0, 0.0)
    return shifted


@dataclass(frozen=True)
class _Step:
    """What a step from each level leads to, given the value ``W`` of each level after it.

    ``W(q') = -c q'**2 + V_{t+1}(q')`` is the penalty the step charges on the
    inventory it ends with plus what is still to be earned from there. Only
    the bid fills: ``q + s``; only the ask: ``q - s``; both or neither: ``q``.
    The expected ``W`` after a step whose bid fills with chance ``b`` and ask
    with chance ``a`` (independently) is ``W(q) + b up + a down + b a
    cross``.
    """

    here: _F64  # W(q)
    up: _F64  # W(q + s) - W(q) where the bid is quoted, else 0
    down: _F64  # W(q - s) - W(q) where the ask is quoted, else 0
    cross: _F64  # 2 W(q) - W(q + s) - W(q - s) where both are quoted, else 0
    bid_quoted: NDArray[np.bool_]
    ask_quoted: NDArray[np.bool_]

    @classmethod
    def of(cls, after: _F64, bid_quoted: NDArray[np.bool_], ask_quoted: NDArray[np.bool_]) -> _Step:
        up = np.where(bid_quoted, _shift_up(after) - after, 0.0)
        down = np.where(ask_quoted, _shift_down(after) - after, 0.0)
        cross = np.where(bid_quoted & ask_quoted, -up - down, 0.0)
        return cls(after, up, down, cross, bid_quoted, ask_quoted)

    def fields(self) -> tuple[Any, ...]:
        """The fields, in order (to build a `_Step` of other shapes)."""
        return (self.here, self.up, self.down, self.cross, self.bid_quoted, self.ask_quoted)

    def chances(self, bid: _F64, ask: _F64, config: MarketMakingConfig) -> tuple[_F64, _F64]:
        """The fill chances of quotes at ``bid`` and ``ask`` (0 for a side not quoted)."""
        return (
            np.where(self.bid_quoted, _chance(bid, config), 0.0),
            np.where(self.ask_quoted, _chance(ask, config), 0.0),
        )

    def value(self, bid: _F64, ask: _F64, config: MarketMakingConfig) -> _F64:
        """The expected spread earned plus the expected ``W`` after the step, per level."""
        b, a = self.chances(bid, ask, config)
        s = config.order_size
        earned = s * bid * b + s * ask * a
        value: _F64 = earned + self.here + b * self.up + a * self.down + b * a * self.cross
        return value


# -- the optimum ----------------------------------------------------------------------------------


def _best_response(edge: _F64, low: float, high: float, config: MarketMakingConfig) -> _F64:
    """The distance ``delta`` in ``[low, high]`` that maximises ``p(delta) (s delta + edge)``.

    Below ``low`` (where ``p`` is capped at 1) the product grows with
    ``delta``; above it, its derivative has the sign of ``s - k (s delta +
    edge)``, which falls with ``delta``: the maximum is the root ``1 / k -
    edge / s`` clipped into ``[low, high]``.
    """
    best: _F64 = np.clip(1.0 / config.fill_decay - edge / config.order_size, low, high)
    return best


def _best_quotes(step: _Step, config: MarketMakingConfig) -> tuple[_F64, _F64]:
    """The bid's and the ask's distance that maximise `_Step.value` at every level.

    The objective is ``F = b (s delta_b + up) + a (s delta_a + down) + b a
    cross`` with ``b = p(delta_b)`` and ``a = p(delta_a)``. For a fixed ask
    the best bid is `_best_response` to ``up + a cross``, and vice versa;
    alternating the two (coordinate ascent) never lowers ``F`` and stops at
    a point where neither quote can improve alone. In the fill chances ``F``
    is the sum of two strictly concave terms (curvature ``-s / (k b)`` and
    ``-s / (k a)``) and of ``b a cross``, so it is concave whenever ``|cross|
    <= s / (k min(1, A dt))``, and that point is then its maximum. This
    holds by a wide margin for the paper's parameters (where ``|cross|``
    stays below 0.19 and the bound is 0.95); for others, the ascent starts
    from the best of a scan of ``_SCAN_POINTS`` asks, so that it climbs the
    highest of the hills the scan sees.
    """
    high = config.action_bound
    # p is capped at 1 below log(A dt) / k: no quote there beats the one at the cap.
    capped = config.fill_intensity * config.dt
    low = min(max(math.log(capped) / config.fill_decay, 0.0), high) if capped > 1.0 else 0.0

    # The seed: for each of _SCAN_POINTS asks, the best bid; keep the best pair per level.
    scan_ask = np.broadcast_to(np.linspace(low, high, _SCAN_POINTS), (len(step.here), _SCAN_POINTS))
    scan = _Step(*(np.asarray(field)[:, None] for field in step.fields()))
    _, ask_chance = scan.chances(scan_ask, scan_ask, config)
    scan_bid = _best_response(scan.up + ask_chance * scan.cross, low, high, config)
    best = np.argmax(scan.value(scan_bid, scan_ask, config), axis=1)[:, None]
    bid = np.take_along_axis(scan_bid, best, axis=1)[:, 0]
    ask = np.take_along_axis(scan_ask, best, axis=1)[:, 0]

    for _ in range(_MAX_SWEEPS):
        _, ask_chance = step.chances(bid, ask, config)
        new_bid = _best_response(step.up + ask_chance * step.cross, low, high, config)
        bid_chance, _ = step.chances(new_bid, ask, config)
        new_ask = _best_response(step.down + bid_chance * step.cross, low, high, config)
        moved = max(float(np.max(np.abs(new_bid - bid))), float(np.max(np.abs(new_ask - ask))))
        bid, ask = new_bid, new_ask
        if moved <= _TOLERANCE:
            break
    # A side that is not quoted gets the farthest quote (the env ignores it).
    bid = np.where(step.bid_quoted, bid, high)
    ask = np.where(step.ask_quoted, ask, high)
    return bid, ask


def _as_played(offsets: _F64) -> _F64:
    """The distances as the env receives them: rounded to float32, as actions are."""
    played: _F64 = offsets.astype(np.float32).astype(np.float64)
    return played


@dataclass(frozen=True, eq=False)
class MarketMakingOptimum:
    """The optimal quotes of MarketMaking-v0 in every state, and what they earn.

    Built by [`market_making_optimum`][sekai.envs.market_making_optimum].
    Calling it on an observation gives the optimal action, like
    ``env.avellaneda_stoikov_action()`` but from the observation alone, for
    one env or for a batch of sub-envs.

    Attributes:
        config: The parameters of the env it was solved for.
        inventories: The inventories a session can hold, ``(levels,)`` int64:
            the multiples of ``order_size`` from ``-max_inventory`` to
            ``max_inventory``.
        bid_offsets: ``bid_offsets[t, j]``, the optimal distance of the bid
            from the mid at step ``t`` with inventory ``inventories[j]``,
            ``(n_steps, levels)`` (already rounded to float32, as the env
            receives it). A side the env does not quote (its fill would pass
            ``±max_inventory``) holds ``max_offset``.
        ask_offsets: The same for the ask.
        values: ``values[t, j]``, the expected sum of the rewards still to
            come at step ``t`` with inventory ``inventories[j]`` when
            following these quotes, ``(n_steps + 1, levels)``; the last row
            is 0.
        value: ``values[0]`` at inventory 0: the expected reward of a whole
            episode, the most any policy can expect.
    """

    config: MarketMakingConfig
    inventories: NDArray[np.int64]
    bid_offsets: _F64
    ask_offsets: _F64
    values: _F64

    @property
    def value(self) -> float:
        """The expected episode reward from the start state (inventory 0, step 0)."""
        return float(self.values[0, len(self.inventories) // 2])

    def __call__(self, observation: ArrayLike) -> NDArray[np.float32]:
        """The optimal action for an observation, or for a batch of them.

        The observation ``(inventory / max_inventory, fraction of the session
        left)`` determines the state. A terminal observation (nothing left)
        gets the last step's quotes.

        Args:
            observation: One observation ``(2,)``, or a batch ``(n, 2)`` from
                a [`MarketMakingVecEnv`][sekai.envs.MarketMakingVecEnv].

        Returns:
            The float32 action ``(delta_b, delta_a)``, shape ``(2,)``, or
            ``(n, 2)`` for a batch.

        Raises:
            ValueError: ``observation`` is not of shape ``(2,)`` or ``(n,
                2)``, or is not an observation of the env this was solved
                for (an inventory that is not a multiple of ``order_size``
                within ``±max_inventory``, or a time outside the session).
        """
        obs = np.asarray(observation, dtype=np.float64)
        if obs.ndim not in (1, 2) or obs.shape[-1] != 2:
            raise ValueError(
                "expected a MarketMaking-v0 observation of shape (2,) or a batch (n, 2), "
                f"got shape {obs.shape}"
            )
        config = self.config
        inventory = np.rint(obs[..., 0] * config.max_inventory)
        left = np.rint(obs[..., 1] * config.n_steps)
        level = inventory / config.order_size + len(self.inventories) // 2
        valid = (
            (np.abs(inventory) <= config.max_inventory)
            & (level == np.rint(level))
            & (left >= 0)
            & (left <= config.n_steps)
        )
        if not bool(np.all(valid)):
            raise ValueError(
                "expected observations of this MarketMaking-v0 env (inventory a multiple of "
                f"{config.order_size} within ±{config.max_inventory}, 0 to {config.n_steps} "
                f"steps left), got {observation!r}"
            )
        t = np.minimum(config.n_steps - left.astype(np.int64), config.n_steps - 1)
        j = level.astype(np.int64)
        action = np.stack([self.bid_offsets[t, j], self.ask_offsets[t, j]], axis=-1)
        quotes: NDArray[np.float32] = action.astype(np.float32)
        return quotes


def market_making_optimum(env: Any) -> MarketMakingOptimum:
    """Solve MarketMaking-v0 exactly: the quotes that maximise the expected episode reward.

    The reward of a step is the change of wealth minus ``c * q'**2``, ``q'``
    the inventory after the step's fills. The wealth changes by ``s
    delta_b`` for a filled bid, ``s delta_a`` for a filled ask, and ``q' (S'
    - S)`` for the move of the mid, which is independent of everything else
    and has mean 0. So the expected reward still to come depends on the step
    ``t`` and the inventory ``q`` alone, and obeys

    ``V_t(q) = max E[s delta_b 1{bid fills} + s delta_a 1{ask fills} - c q'**2
    + V_{t+1}(q')]``, ``V_N = 0``,

    the maximum over the two distances in ``[0, max_offset]``, the sides
    filling independently with chances ``p(delta) = min(1, A exp(-k delta)
    dt)``, and a side whose fill would pass ``±max_inventory`` not quoted.
    Backward induction over the ``n_steps`` steps and the inventories
    solves it. In each state the best bid for a given ask has a closed form
    (the first-order condition of ``p(delta) (s delta + e)`` gives ``delta =
    1 / k - e / s``, clipped into the action space), and so has the best ask
    for a given bid; alternating the two climbs to the joint maximum. It is
    the exact maximum whenever the state's objective is concave in the two
    fill chances, which holds when ``|2 W(q) - W(q + s) - W(q - s)| <= s / (k
    min(1, A dt))``, ``W`` being the penalty plus value after the step: by a
    factor of 5 for the paper's parameters. Otherwise the climb starts from
    the best of a scan of asks. The quotes are then rounded to float32, as
    the env receives them, and the values are those of the rounded quotes,
    so that `MarketMakingOptimum.value` is what following the policy earns
    on average in the env.

    With the default parameters (the paper's) the optimum expects 66.87 per
    episode, against 63.94 for the Avellaneda & Stoikov quotes of
    ``env.avellaneda_stoikov_action()``, which approximate the optimum of the
    paper's utility in continuous time, not of this env's reward: an agent
    can beat them by 4.6% on average, and by no more.

    Args:
        env: A [`MarketMakingEnv`][sekai.envs.MarketMakingEnv], a
            [`MarketMakingVecEnv`][sekai.envs.MarketMakingVecEnv], a
            wrapper of either (its ``config`` is read), or their ``config``.

    Returns:
        The optimal policy, its quotes and its value function.

    Raises:
        TypeError: ``env`` is none of these.

    Examples:
        >>> from sekai.envs import MarketMakingEnv, market_making_optimum
        >>> env = MarketMakingEnv()
        >>> optimum = market_making_optimum(env)
        >>> round(optimum.value, 2)  # the expected sum of an episode's rewards
        66.87
        >>> observation = env.reset(seed=0).observation  # inventory 0, the whole session left
        >>> optimum(observation)
        array([0.6794509, 0.6794509], dtype=float32)
    """
    config = _config_of(env)
    inventories = _levels(config)
    size, limit, n = config.order_size, config.max_inventory, config.n_steps
    bid_quoted = inventories + size <= limit
    ask_quoted = inventories - size >= -limit
    penalty = config.penalty_scale * inventories.astype(np.float64) ** 2
    values = np.zeros((n + 1, len(inventories)))
    bids = np.empty((n, len(inventories)))
    asks = np.empty((n, len(inventories)))
    for t in range(n - 1, -1, -1):
        step = _Step.of(values[t + 1] - penalty, bid_quoted, ask_quoted)
        bid, ask = _best_quotes(step, config)
        bids[t], asks[t] = _as_played(bid), _as_played(ask)
        values[t] = step.value(bids[t], asks[t], config)
    for array in (inventories, bids, asks, values):
        array.setflags(write=False)
    return MarketMakingOptimum(config, inventories, bids, asks, values)


# -- the exact moments of a quoting rule ----------------------------------------------------------


@dataclass(frozen=True)
class QuoteMoments:
    """The exact law of a session under a rule that quotes by ``(step, inventory)``.

    Attributes:
        reward: The expected sum of the rewards (profit minus the running
            inventory penalty).
        profit_mean: The expected final profit ``cash + inventory * S_T``.
        profit_variance: Its variance.
        inventories: The inventories a session can end with, ``(levels,)``.
        final_inventory: Their probabilities, ``(levels,)``.
    """

    reward: float
    profit_mean: float
    profit_variance: float
    inventories: NDArray[np.int64]
    final_inventory: _F64

    @property
    def inventory_mean(self) -> float:
        """The expected final inventory."""
        return float(np.dot(self.final_inventory, self.inventories))

    @property
    def inventory_variance(self) -> float:
        """The variance of the final inventory."""
        centred = self.inventories - self.inventory_mean
        return float(np.dot(self.final_inventory, centred * centred))


def quote_moments(env: Any, bid_offsets: ArrayLike, ask_offsets: ArrayLike) -> QuoteMoments:
    """The exact moments of a session whose quotes depend on the step and the inventory only.

    Backward induction gives the expected reward and the first two moments
    of the profit still to come from every ``(t, q)``: a step adds ``g + q'
    m`` to the profit, ``g`` the spread of the sides that filled and ``m =
    ±sigma sqrt(dt)`` the mid's move, independent of ``g``, ``q'`` and of
    the later steps, so ``E[(g + q' m + G)**2] = E[g**2 + q'**2 sigma**2 dt
    + 2 g E[G | q'] + E[G**2 | q']]``. The law of the inventory is carried
    forward from 0.

    Args:
        env: A MarketMaking-v0 env, vector env, wrapper or config.
        bid_offsets: ``(n_steps, levels)``: the bid's distance at step ``t``
            with inventory ``j * order_size - max_inventory // order_size *
            order_size``; rounded to float32 here, as the env would.
        ask_offsets: The same for the ask.

    Raises:
        TypeError: ``env`` is not a MarketMaking-v0 env or config.
        ValueError: The offsets are not ``(n_steps, levels)`` numbers in
            ``[0, max_offset]``.
    """
    config = _config_of(env)
    inventories = _levels(config)
    n, levels = config.n_steps, len(inventories)
    tables = []
    for name, offsets in (("bid_offsets", bid_offsets), ("ask_offsets", ask_offsets)):
        table = _as_played(np.asarray(offsets, dtype=np.float64))
        if table.shape != (n, levels) or not bool(
            np.all((table >= 0.0) & (table <= config.action_bound))
        ):
            raise ValueError(
                f"{name} must be ({n}, {levels}) distances in [0, {config.max_offset:g}] (one "
                f"per step and inventory), got {offsets!r}"
            )
        tables.append(table)
    bids, asks = tables
    size = config.order_size
    bid_quoted = inventories + size <= config.max_inventory
    ask_quoted = inventories - size >= -config.max_inventory
    held = inventories.astype(np.float64)
    penalty = config.penalty_scale * held**2
    move_variance = config.move_scale * config.move_scale

    def after(values: _F64, fills: str) -> _F64:
        return {"": values, "b": _shift_up(values), "a": _shift_down(values)}[fills]

    reward, mean, square = np.zeros(levels), np.zeros(levels), np.zeros(levels)
    chances = []
    for t in range(n - 1, -1, -1):
        b = np.where(bid_quoted, _chance(bids[t], config), 0.0)
        a = np.where(ask_quoted, _chance(asks[t], config), 0.0)
        chances.append((b, a))
        # The four outcomes: (chance, spread earned, which way the inventory went).
        outcomes = (
            ((1 - b) * (1 - a), 0.0, ""),
            (b * (1 - a), size * bids[t], "b"),
            ((1 - b) * a, size * asks[t], "a"),
            (b * a, size * (bids[t] + asks[t]), ""),
        )
        new_reward, new_mean, new_square = np.zeros(levels), np.zeros(levels), np.zeros(levels)
        for chance, earned, fills in outcomes:
            later_mean = after(mean, fills)
            ends = after(held, fills)
            new_reward += chance * (earned - after(penalty, fills) + after(reward, fills))
            new_mean += chance * (earned + later_mean)
            new_square += chance * (
                earned * earned
                + ends * ends * move_variance
                + 2 * earned * later_mean
                + after(square, fills)
            )
        reward, mean, square = new_reward, new_mean, new_square
    start = levels // 2
    law = np.zeros(levels)
    law[start] = 1.0
    for b, a in reversed(chances):
        stay = (1 - b) * (1 - a) + b * a
        law = law * stay + _shift_down(law * b * (1 - a)) + _shift_up(law * (1 - b) * a)
    return QuoteMoments(
        reward=float(reward[start]),
        profit_mean=float(mean[start]),
        profit_variance=float(square[start] - mean[start] ** 2),
        inventories=inventories,
        final_inventory=law,
    )


def avellaneda_stoikov_table(env: Any, *, spread_time_term: bool = False) -> tuple[_F64, _F64]:
    """The Avellaneda & Stoikov quotes of every ``(step, inventory)``, for `quote_moments`.

    The distances ``env.avellaneda_stoikov_action()`` gives in each state,
    clipped into the action space: ``(bid_offsets, ask_offsets)``, each
    ``(n_steps, levels)``.
    """
    config = _config_of(env)
    inventories = _levels(config).astype(np.float64)
    time_left = (config.n_steps - np.arange(config.n_steps))[:, None] * config.dt
    bid, ask = avellaneda_stoikov_offsets(
        inventories[None, :], time_left, config, spread_time_term=spread_time_term
    )
    bids: _F64 = np.clip(bid, 0.0, config.max_offset)
    asks: _F64 = np.clip(ask, 0.0, config.max_offset)
    return bids, asks
