"""The Almgren & Chriss (2000) execution model, written once for one sub-env or many (private).

[`OptimalExecutionEnv`][sekai.envs.OptimalExecutionEnv] runs this kernel on
Python numbers (one sub-env: numpy's per-call cost on scalars would dominate
its step), [`OptimalExecutionVecEnv`][sekai.envs.OptimalExecutionVecEnv] on
numpy arrays with one entry per sub-env. Both call the same functions, so the
arithmetic, and its floating-point order, cannot differ between them:

- `ExecutionConfig`: the parameters (declared, defaulted and checked only
  here), the constants derived from them and the spaces;
- `ExecutionState`: what changes during an episode;
- `initial_state`, `draw_shocks`, `execute`, `observe`, `step_infos` and
  `reset_infos`: the model's reset, step, observation and infos;
- `select` and `broadcast`: the two operations whose spelling differs between
  a number and an array, dispatched on the type of their argument;
- `checked_fractions`: the action check of both envs.

The paper's closed forms (optimal trajectory, shortfall moments, TWAP) are in
``_optimal_execution_baselines``.

Notation (the paper's): ``X`` shares to sell in ``N`` periods of length
``tau = T / N``; ``n_k`` shares sold in period ``k``, ``x_k`` held after it;
temporary impact ``h(n / tau) = epsilon sgn(n) + eta n / tau``; permanent
impact ``gamma n``; ``eta_tilde = eta - gamma tau / 2``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import InitVar, dataclass, fields
from functools import cached_property
from typing import Any, Generic, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_int, check_real
from sekai.envs.finance._kernel import config_field
from sekai.error import InvalidAction
from sekai.spaces import Box

__all__ = [
    "ExecutionConfig",
    "ExecutionParameters",
    "ExecutionState",
    "Rows",
    "broadcast",
    "checked_fractions",
    "draw_shocks",
    "execute",
    "initial_state",
    "observe",
    "reset_infos",
    "select",
    "step_infos",
]

Rows = Any
"""A Python number (the value of one sub-env) or a numpy array (one entry per sub-env)."""

_R = TypeVar("_R")  # shares and prices: float, or a float64 array
_C = TypeVar("_C")  # periods elapsed: int, or an int64 array


@dataclass(frozen=True, kw_only=True)
class ExecutionConfig:
    """The parameters of an OptimalExecution-v0 simulation, checked, and what follows from them.

    The fields are the env's constructor parameters, with their defaults (the
    paper's example); `OptimalExecutionEnv`'s signature is tested to be this
    one. Building a config checks every field; ``owner`` (keyword only, not
    stored) names the env in the error messages. The derived constants are
    computed on first use and then read as plain attributes.

    Attributes:
        initial_inventory: ``X``, the shares to sell (> 0).
        s0: The arrival mid-price (> 0).
        sigma: Volatility of the mid, dollars per share per square root of
            the time unit (>= 0).
        total_time: The horizon ``T`` (> 0).
        n_steps: The number of periods ``N`` (>= 1).
        permanent_impact: ``gamma``, dollars per share per share sold (>= 0).
        temporary_impact: ``eta``, dollars per share per (share per time
            unit) (>= 0).
        fixed_cost: ``epsilon``, dollars per share sold, half the spread (>= 0).
        risk_aversion: ``lambda``, the weight of the variance in the
            objective (>= 0).

    Raises:
        TypeError: A parameter has the wrong type.
        ValueError: A parameter is out of range.
    """

    initial_inventory: float = 1e6
    s0: float = 50.0
    sigma: float = 0.95
    total_time: float = 5.0
    n_steps: int = 25
    permanent_impact: float = 2.5e-7
    temporary_impact: float = 2.5e-6
    fixed_cost: float = 0.0625
    risk_aversion: float = 1e-6
    owner: InitVar[str] = "ExecutionConfig"

    def __post_init__(self, owner: str) -> None:
        checked: dict[str, float | int] = {
            "initial_inventory": check_real(
                self.initial_inventory, f"{owner}: initial_inventory", minimum=0.0, min_open=True
            ),
            "s0": check_real(self.s0, f"{owner}: s0", minimum=0.0, min_open=True),
            "sigma": check_real(self.sigma, f"{owner}: sigma", minimum=0.0),
            "total_time": check_real(
                self.total_time, f"{owner}: total_time", minimum=0.0, min_open=True
            ),
            "n_steps": check_int(self.n_steps, f"{owner}: n_steps", minimum=1),
            "permanent_impact": check_real(
                self.permanent_impact, f"{owner}: permanent_impact", minimum=0.0
            ),
            "temporary_impact": check_real(
                self.temporary_impact, f"{owner}: temporary_impact", minimum=0.0
            ),
            "fixed_cost": check_real(self.fixed_cost, f"{owner}: fixed_cost", minimum=0.0),
            "risk_aversion": check_real(self.risk_aversion, f"{owner}: risk_aversion", minimum=0.0),
        }
        for name, value in checked.items():  # plain Python numbers from here on
            object.__setattr__(self, name, value)

    # -- the paper's symbols ---------------------------------------------------------------

    @cached_property
    def X0(self) -> float:
        """``X``, the initial inventory (``initial_inventory``)."""
        return self.initial_inventory

    @cached_property
    def gamma(self) -> float:
        """The permanent impact (``permanent_impact``)."""
        return self.permanent_impact

    @cached_property
    def eta(self) -> float:
        """The temporary impact (``temporary_impact``)."""
        return self.temporary_impact

    @cached_property
    def epsilon(self) -> float:
        """The fixed cost per share sold (``fixed_cost``)."""
        return self.fixed_cost

    # -- derived constants ------------------------------------------------------------------

    @cached_property
    def tau(self) -> float:
        """The length of a period, ``total_time / n_steps``."""
        return self.total_time / self.n_steps

    @cached_property
    def eta_tilde(self) -> float:
        """``eta - gamma tau / 2``: the temporary impact net of the discretised permanent one."""
        return self.eta - 0.5 * self.gamma * self.tau

    @cached_property
    def move_scale(self) -> float:
        """``sigma sqrt(tau)``: the standard deviation of the mid's move over a period."""
        return self.sigma * math.sqrt(self.tau)

    @cached_property
    def penalty_scale(self) -> float:
        """``risk_aversion sigma**2 tau``: the reward's penalty per squared share held."""
        return self.risk_aversion * self.sigma * self.sigma * self.tau

    @cached_property
    def price_unit(self) -> float:
        """``sigma sqrt(T)``, the unit of the observed mid move (1 when ``sigma`` is 0)."""
        unit = self.sigma * math.sqrt(self.total_time)
        return unit if unit > 0.0 else 1.0

    @cached_property
    def reward_scale(self) -> float:
        """``1e4 / (X0 s0)``: dollars to basis points of the initial position's value."""
        return 1e4 / (self.X0 * self.s0)

    # -- spaces -----------------------------------------------------------------------------

    def observation_space(self) -> Box:
        """``Box([0, 0, -inf], [1, 1, inf])``: inventory left, time left, mid move."""
        return Box(
            np.array([0.0, 0.0, -np.inf], dtype=np.float32),
            np.array([1.0, 1.0, np.inf], dtype=np.float32),
            dtype=np.float32,
        )

    def action_space(self) -> Box:
        """``Box(0, 1, (1,))``: the fraction of the remaining inventory to sell now."""
        return Box(0.0, 1.0, (1,), np.float32)


class ExecutionParameters:
    """The parameters of OptimalExecution-v0 as attributes of an env, read from its ``config``.

    Both [`OptimalExecutionEnv`][sekai.envs.OptimalExecutionEnv] and
    [`OptimalExecutionVecEnv`][sekai.envs.OptimalExecutionVecEnv] take them from
    here (the paper's symbols for the keywords), declared once.
    """

    config: ExecutionConfig

    X0 = config_field[float]("initial_inventory")
    s0 = config_field[float]()
    sigma = config_field[float]()
    total_time = config_field[float]()
    n_steps = config_field[int]()
    gamma = config_field[float]("permanent_impact")
    eta = config_field[float]("temporary_impact")
    epsilon = config_field[float]("fixed_cost")
    risk_aversion = config_field[float]()
    tau = config_field[float]()


@dataclass
class ExecutionState(Generic[_R, _C]):
    """What changes during an episode: Python numbers for one sub-env, arrays for many.

    The array operations (`tiled`, `rows`, `put`, `restore`) serve the vector env.

    Attributes:
        t: Periods elapsed.
        inventory: Shares still held.
        mid: The mid-price.
        shortfall: The implementation shortfall so far, in dollars.
    """

    t: _C
    inventory: _R
    mid: _R
    shortfall: _R

    @classmethod
    def tiled(
        cls, one: ExecutionState[float, int], count: int
    ) -> ExecutionState[NDArray[np.float64], NDArray[np.int64]]:
        """``count`` rows that all hold ``one`` (int64 periods, float64 values)."""
        return ExecutionState(
            np.full(count, one.t, dtype=np.int64),
            np.full(count, one.inventory, dtype=np.float64),
            np.full(count, one.mid, dtype=np.float64),
            np.full(count, one.shortfall, dtype=np.float64),
        )

    def rows(self, indices: NDArray[np.intp]) -> ExecutionState[_R, _C]:
        """A copy of the rows ``indices``."""
        return ExecutionState(
            self.t[indices],  # type: ignore[index]
            self.inventory[indices],  # type: ignore[index]
            self.mid[indices],  # type: ignore[index]
            self.shortfall[indices],  # type: ignore[index]
        )

    def put(self, indices: NDArray[np.intp], values: ExecutionState[float, int]) -> None:
        """Write ``values`` (one sub-env's state) into the rows ``indices``, in place."""
        for field in fields(self):
            getattr(self, field.name)[indices] = getattr(values, field.name)

    def restore(self, rows: NDArray[np.bool_], before: ExecutionState[_R, _C]) -> None:
        """Give the rows where ``rows`` holds their values in ``before`` back."""
        for field in fields(self):
            name = field.name
            setattr(self, name, np.where(rows, getattr(before, name), getattr(self, name)))


# -- number-or-array operations ------------------------------------------------------------------


def select(condition: Rows, if_true: Rows, if_false: Rows) -> Rows:
    """``if_true`` where ``condition`` holds, else ``if_false``, per sub-env.

    A bool picks one of the two (``x if c else y``); an array of bools picks
    per entry (``np.where``), the result then being an array even if both
    values are numbers.
    """
    if condition is True:  # the single env's comparisons give Python bools: checked first
        return if_true
    if condition is False:
        return if_false
    if isinstance(condition, np.ndarray):
        return np.where(condition, if_true, if_false)
    return if_true if condition else if_false


def broadcast(like: Rows, value: float) -> Rows:
    """``value`` for every sub-env of ``like``: itself for a number, a float64 array else."""
    if isinstance(like, np.ndarray):
        return np.full(like.shape, value, dtype=np.float64)
    return value


# -- the model --------------------------------------------------------------------------------


def initial_state(config: ExecutionConfig) -> ExecutionState[float, int]:
    """One sub-env at the start of an episode: ``X0`` shares at mid ``s0``, no shortfall."""
    return ExecutionState(t=0, inventory=config.X0, mid=config.s0, shortfall=0.0)


def draw_shocks(
    config: ExecutionConfig, rngs: Iterable[np.random.Generator]
) -> list[NDArray[np.float64]]:
    """The price shocks ``Z_1..Z_N`` (standard normal) of an episode per generator.

    Drawn at an episode's reset, from the generator of its sub-env; one call
    for every sub-env reset together, as a Python call per sub-env would show
    when thousands reset at once.
    """
    n_steps = config.n_steps
    return [rng.standard_normal(n_steps) for rng in rngs]


def execute(
    config: ExecutionConfig, state: ExecutionState[Any, Any], fraction: Rows, shock: Rows
) -> tuple[Rows, Rows, Rows, Rows]:
    """Sell ``fraction`` of the inventory in the current period, then move the mid.

    Selling ``n`` shares executes at ``S - epsilon - eta n / tau`` (no fixed
    cost when nothing is sold); the last period sells whatever is left. The
    mid then moves by ``sigma sqrt(tau) Z - gamma n``. ``state`` is updated
    (each field is replaced, never written into, so arrays taken from it
    before the call keep their values).

    Args:
        config: The model.
        state: The state of the sub-envs; updated.
        fraction: The fraction of the inventory to sell, in ``[0, 1]``.
        shock: The period's standard normal draw ``Z``.

    Returns:
        ``(reward, terminated, sold, price)``: the reward in basis points of
        ``X0 s0``, whether the inventory is gone, the shares sold and their
        execution price.
    """
    t = state.t
    held = state.inventory
    mid = state.mid
    last = t + 1 >= config.n_steps
    sold = select(last, held, fraction * held)
    # epsilon * (sold > 0) and held - sold are exact (x * 1 = x, x - x = 0): the
    # fixed cost only when something is sold, nothing left after the last period.
    price = mid - config.epsilon * (sold > 0.0) - config.eta * sold / config.tau
    held = held - sold
    reward = (sold * (price - config.s0) - config.penalty_scale * held * held) * config.reward_scale
    state.t = t + 1
    state.inventory = held
    state.mid = mid + config.move_scale * shock - config.gamma * sold
    state.shortfall = state.shortfall + sold * (config.s0 - price)
    return reward, last | (held <= 0.0), sold, price


def observe(config: ExecutionConfig, state: ExecutionState[Any, Any]) -> NDArray[np.float32]:
    """The observation, ``(3,)`` for numbers, ``(n, 3)`` for arrays (float32).

    Its columns: inventory left / ``X0``, fraction of the horizon left, and
    the mid's move since arrival / `ExecutionConfig.price_unit`.
    """
    n_steps = config.n_steps
    columns = (
        state.inventory / config.X0,
        (n_steps - state.t) / n_steps,
        (state.mid - config.s0) / config.price_unit,
    )
    if isinstance(columns[0], np.ndarray):
        observations = np.empty((len(columns[0]), 3), dtype=np.float32)
        for j, column in enumerate(columns):
            observations[:, j] = column
        return observations
    return np.array(columns, dtype=np.float32)


def step_infos(
    config: ExecutionConfig, state: ExecutionState[Any, Any], sold: Rows, price: Rows
) -> dict[str, Rows]:
    """The info of a step (numbers) or of a batch of steps (arrays), after `execute`."""
    shortfall = state.shortfall
    return {
        "shares_sold": sold,
        "execution_price": price,
        "inventory": state.inventory,
        "mid_price": state.mid,
        "implementation_shortfall": shortfall,
        "shortfall_bps": shortfall * config.reward_scale,
        "timestamp": state.t * config.tau,
        "dt": broadcast(state.t, config.tau),
    }


def reset_infos(config: ExecutionConfig, state: ExecutionState[Any, Any]) -> dict[str, Rows]:
    """The info of a reset: nothing sold, no execution price (NaN)."""
    return step_infos(config, state, broadcast(state.t, 0.0), broadcast(state.t, math.nan))


def checked_fractions(actions: Any, owner: str, *, batch: bool) -> NDArray[np.float64]:
    """The fractions of an action (or a batch) as float64, or ``InvalidAction``.

    Args:
        actions: One action of shape ``(1,)``, or a batch ``(n, 1)`` when ``batch``.
        owner: The env's name, for the error.
        batch: Whether ``actions`` is a batch.
    """
    try:
        fractions = np.asarray(actions, dtype=np.float64)
    except (TypeError, ValueError):
        fractions = None
    if (
        fractions is None
        or fractions.shape[-1:] != (1,)
        or fractions.ndim != (2 if batch else 1)
        # the method, not np.all: its wrapper costs a sixth of the single env's step
        or not bool(((fractions >= 0.0) & (fractions <= 1.0)).all())
    ):
        raise InvalidAction(
            f"{owner} expects the fraction of the remaining inventory to sell, one number in "
            f"[0, 1] per env (shape (1,)), got {actions!r}"
        )
    return fractions
