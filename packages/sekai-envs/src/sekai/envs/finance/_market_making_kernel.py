"""The Avellaneda & Stoikov (2008) market-making model, written once (private).

[`MarketMakingEnv`][sekai.envs.MarketMakingEnv] and its native vector env
[`MarketMakingVecEnv`][sekai.envs.MarketMakingVecEnv] both run these functions,
on a `ScalarState` (one session in Python numbers) and on an `ArrayState` (one
entry per sub-env) respectively, so that they do the same arithmetic in the
same floating-point order:

- `start_sessions`, `advance`, `observe`, `step_infos` and `reset_infos` are a
  session's reset, its step and what a step reports;
- `draw_session` draws a session's randomness from a generator, in the one
  order both envs use;
- `avellaneda_stoikov_offsets` and `avellaneda_stoikov_action` are the
  paper's closed-form (approximate) optimal quotes, `time_remaining` the
  session time left, `fill_probability` the chance that a quote fills within
  a step, `checked_offsets` an action's quotes (or an `InvalidAction`).

The parameters are a `MarketMakingConfig` (`_market_making_config`).
"""

from __future__ import annotations

import math
from typing import Any, Literal, overload

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance._market_making_config import MarketMakingConfig
from sekai.envs.finance._market_making_state import ArrayState, ScalarState, SessionState
from sekai.error import InvalidAction

__all__ = [  # noqa: RUF022 (grouped by topic)
    # a session
    "advance",
    "draw_session",
    "observe",
    "reset_infos",
    "start_sessions",
    "step_infos",
    # the model's formulas and actions
    "avellaneda_stoikov_action",
    "avellaneda_stoikov_offsets",
    "checked_offsets",
    "fill_probability",
    "time_remaining",
]

_F64 = NDArray[np.float64]
_AnyState = SessionState[Any, Any, Any]

_NAN = math.nan


# -- a session ------------------------------------------------------------------------------------


def draw_session(rng: np.random.Generator, n_steps: int) -> tuple[_F64, _F64]:
    """A session's randomness: fill uniforms ``(n_steps, 2)`` and mid moves ``(n_steps,)``.

    Column 0 of the uniforms decides the bid's fills, column 1 the ask's (a
    side fills when its uniform is below its `fill_probability`); a move is
    ``+1`` or ``-1`` with probability 1/2 each (the paper's binomial walk, in
    units of ``move_scale``). Both envs draw in this order, so that a sub-env
    of the native vector env replays the single env's session for the same
    seed.
    """
    uniforms = rng.random((n_steps, 2))
    moves = np.where(rng.random(n_steps) < 0.5, 1.0, -1.0)
    return uniforms, moves


def start_sessions(
    config: MarketMakingConfig,
    state: _AnyState,
    rows: NDArray[np.intp] | None = None,
) -> None:
    """Put sessions at their start: mid at ``s0``, nothing held, no quotes.

    Args:
        config: The model's parameters.
        state: The sessions.
        rows: Which sessions of an `ArrayState` (every one when None).
    """
    state.assign(
        {
            "t": 0,
            "mid": config.s0,
            "inventory": 0,
            "cash": 0.0,
            "wealth": 0.0,
            "bid": _NAN,
            "ask": _NAN,
            "bid_filled": False,
            "ask_filled": False,
        },
        rows,
    )


@overload
def advance(
    config: MarketMakingConfig,
    state: ScalarState,
    offsets: tuple[float, float],
    draws: tuple[float, float] | list[float],
    move: float,
) -> tuple[float, float]: ...


@overload
def advance(
    config: MarketMakingConfig,
    state: ArrayState,
    offsets: _F64,
    draws: _F64,
    move: _F64,
) -> tuple[_F64, _F64]: ...


def advance(
    config: MarketMakingConfig,
    state: _AnyState,
    offsets: Any,
    draws: Any,
    move: Any,
) -> tuple[Any, Any]:
    """One step of every session in ``state``: quote, fill, move the mid, mark to market.

    A side is quoted unless its fill would take the inventory beyond
    ``±max_inventory``; a quoted side fills when its draw is below its
    `fill_probability`, trading ``order_size`` units at its price; then the
    mid moves by ``move * move_scale``. The state is updated in place (an
    `ArrayState` gets new arrays).

    Args:
        config: The model's parameters.
        state: The sessions, each at a step it may take.
        offsets: The bid's and the ask's distance from the mid: two floats
            for a `ScalarState`, a float64 array ``(size, 2)`` for an
            `ArrayState` (as `checked_offsets` gives them).
        draws: The step's fill uniforms of the bid and of the ask: a pair, or
            an array ``(size, 2)`` for an `ArrayState`.
        move: The step's mid move, ``+1`` or ``-1`` (per session).

    Returns:
        ``(pnl, reward)``: the change of wealth, and that change minus the
        inventory penalty ``penalty_scale * inventory**2``.
    """
    size = config.order_size
    limit = config.max_inventory
    select = state.select
    bid_offset, ask_offset = state.sides(offsets)
    bid_chance, ask_chance = state.of_sides(
        lambda offset: fill_probability(offset, config, state), offsets
    )
    bid_draw, ask_draw = state.sides(draws)
    mid = state.mid
    inventory = state.inventory
    bid_quoted = inventory + size <= limit
    ask_quoted = inventory - size >= -limit
    bid = select(bid_quoted, mid - bid_offset, _NAN)
    ask = select(ask_quoted, mid + ask_offset, _NAN)
    bid_filled = bid_quoted & (bid_draw < bid_chance)
    ask_filled = ask_quoted & (ask_draw < ask_chance)
    # size * flag is an int for a bool and an int64 array for a bool array.
    inventory = inventory + size * bid_filled - size * ask_filled
    cash = state.cash - select(bid_filled, size * bid, 0.0) + select(ask_filled, size * ask, 0.0)
    mid = mid + config.move_scale * move
    wealth = cash + inventory * mid
    pnl = wealth - state.wealth
    reward = pnl - config.penalty_scale * inventory * inventory
    state.t = state.t + 1
    state.mid, state.inventory, state.cash, state.wealth = mid, inventory, cash, wealth
    state.bid, state.ask, state.bid_filled, state.ask_filled = bid, ask, bid_filled, ask_filled
    return pnl, reward


def observe(config: MarketMakingConfig, state: _AnyState) -> NDArray[np.float32]:
    """The observation: inventory / max_inventory, fraction of the session left (float32)."""
    return state.stack(
        state.inventory / config.max_inventory,
        (config.n_steps - state.t) / config.n_steps,
        np.float32,
    )


def step_infos(config: MarketMakingConfig, state: _AnyState, pnl: Any) -> dict[str, Any]:
    """A step's info: Python numbers for a `ScalarState`, one array entry per session else.

    Keys: ``mid_price``, ``inventory``, ``cash``, ``wealth``, ``pnl``, ``bid``,
    ``ask``, ``bid_filled``, ``ask_filled``, ``timestamp`` (``t * dt``) and
    ``dt``.
    """
    return {
        "mid_price": state.mid,
        "inventory": state.inventory,
        "cash": state.cash,
        "wealth": state.wealth,
        "pnl": pnl,
        "bid": state.bid,
        "ask": state.ask,
        "bid_filled": state.bid_filled,
        "ask_filled": state.ask_filled,
        "timestamp": state.t * config.dt,
        "dt": state.repeat(config.dt),
    }


def reset_infos(config: MarketMakingConfig, state: _AnyState) -> dict[str, Any]:
    """The info of sessions just started: `step_infos` with a ``pnl`` of 0."""
    return step_infos(config, state, state.repeat(0.0))


# -- the model's formulas and actions -------------------------------------------------------------


def fill_probability(offset: Any, config: MarketMakingConfig, state: _AnyState) -> Any:
    """``min(1, A exp(-k offset) dt)``: the chance a quote at ``offset`` fills within a step.

    Args:
        offset: A quote's distance from the mid: a float for a `ScalarState`,
            one per session for an `ArrayState`.
        config: The model's parameters.
        state: The sessions, whose kind computes the exponential and the cap.
    """
    chance = config.fill_intensity * state.exp(-config.fill_decay * offset) * config.dt
    return state.minimum(chance, 1.0)


def time_remaining(config: MarketMakingConfig, state: _AnyState) -> Any:
    """``T - t``: the session time left, in the units of ``total_time`` (per session)."""
    return (config.n_steps - state.t) * config.dt


def avellaneda_stoikov_offsets(
    inventory: Any,
    time_left: Any,
    config: MarketMakingConfig,
    *,
    spread_time_term: bool = False,
) -> tuple[Any, Any]:
    """The paper's approximate optimal distances of the bid and the ask from the mid.

    With ``q`` the inventory, ``tau = T - t`` the time left and ``gamma`` the
    risk aversion, the reservation price is ``r = s - q gamma sigma**2 tau``
    (equation (29) of the paper) and the quotes sit half a spread either side
    of it, so their distances from the mid ``s`` are ``half + q gamma sigma**2
    tau`` (bid) and ``half - q gamma sigma**2 tau`` (ask). The spread is
    ``(2 / gamma) log(1 + gamma / k)``, as in the paper's simulations (its
    table gives this strategy's spread as 1.29 for the default parameters),
    or with ``spread_time_term`` equation (30)'s ``gamma sigma**2 tau + (2 /
    gamma) log(1 + gamma / k)``. Not clipped: a large inventory gives a
    negative distance. Numbers or arrays alike.
    """
    risk = config.risk_aversion * config.sigma * config.sigma * time_left
    skew = inventory * risk
    if spread_time_term:
        half = 0.5 * risk + config.half_spread_floor
        return half + skew, half - skew
    floor = config.half_spread_floor
    return floor + skew, floor - skew


def avellaneda_stoikov_action(
    config: MarketMakingConfig,
    state: _AnyState,
    *,
    spread_time_term: bool = False,
) -> NDArray[np.float32]:
    """`avellaneda_stoikov_offsets` in each session's state, clipped into the action space.

    ``(2,)`` float32 for a `ScalarState`, ``(size, 2)`` for an `ArrayState`.
    """
    bid, ask = avellaneda_stoikov_offsets(
        state.inventory,
        time_remaining(config, state),
        config,
        spread_time_term=spread_time_term,
    )
    offsets = np.clip(state.stack(bid, ask, np.float64), 0.0, config.max_offset)
    action: NDArray[np.float32] = offsets.astype(np.float32)
    return action


@overload
def checked_offsets(
    actions: Any, high: float, owner: str, *, batch: Literal[False]
) -> tuple[float, float]: ...


@overload
def checked_offsets(actions: Any, high: float, owner: str, *, batch: Literal[True]) -> _F64: ...


def checked_offsets(actions: Any, high: float, owner: str, *, batch: bool) -> Any:
    """The quotes of an action (or a batch) as float64 distances, or ``InvalidAction``.

    Args:
        actions: One action of shape ``(2,)``, or a batch ``(n, 2)`` when ``batch``.
        high: The largest distance allowed (the action space's bound).
        owner: The env's name, for the error.
        batch: Whether ``actions`` is a batch.

    Returns:
        The bid's and the ask's distance as two Python floats (one action),
        or a float64 array ``(n, 2)`` (a batch).
    """
    try:
        offsets = np.asarray(actions, dtype=np.float64)
    except (TypeError, ValueError):
        offsets = None
    if offsets is not None and offsets.shape[-1:] == (2,) and offsets.ndim == (2 if batch else 1):
        if batch:
            if bool(np.all((offsets >= 0.0) & (offsets <= high))):
                return offsets
        else:
            # Two numbers: Python's comparisons cost less than numpy's, and refuse NaN alike.
            bid, ask = offsets.tolist()
            if 0.0 <= bid <= high and 0.0 <= ask <= high:
                return bid, ask
    raise InvalidAction(
        f"{owner} expects the bid's and the ask's distance from the mid, 2 numbers in "
        f"[0, {high:g}] per env, got {actions!r}"
    )
