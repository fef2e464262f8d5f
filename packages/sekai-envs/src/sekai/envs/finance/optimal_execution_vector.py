"""The native vector implementation of OptimalExecution-v0 (all sub-envs in numpy arrays)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from copy import copy as shallow_copy
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance._native import ConfiguredVecEnv
from sekai.envs.finance._optimal_execution_baselines import (
    optimal_holdings,
    schedule_fractions,
    shortfall_moments,
    twap_fractions,
)
from sekai.envs.finance._optimal_execution_kernel import (
    ExecutionConfig,
    ExecutionParameters,
    ExecutionState,
    checked_fractions,
    draw_shocks,
    execute,
    initial_state,
    observe,
    reset_infos,
    step_infos,
)
from sekai.vector import InfoArrays, shared

__all__ = ["OptimalExecutionVecEnv"]

_F64 = NDArray[np.float64]


class OptimalExecutionVecEnv(
    ExecutionParameters, ConfiguredVecEnv[NDArray[np.float32], NDArray[np.float32]]
):
    """``num_envs`` OptimalExecution-v0 episodes advanced together with numpy.

    ``sekai.make_vec("OptimalExecution-v0", num_envs=N)`` builds this env by
    default. Each sub-env is an
    [`OptimalExecutionEnv`][sekai.envs.OptimalExecutionEnv] with
    the same parameters: observations ``(num_envs, 3)`` float32, actions
    ``(num_envs, 1)`` (fractions of the remaining inventory to sell), and the
    same rewards, termination and info keys, computed by the same code on
    arrays instead of numbers. An episode's price shocks are drawn at its
    reset, sub-env ``i`` from its own generator ``rngs[i]``, so for the same
    seed and actions the trajectories, autoresets included, are identical to
    those of ``SyncVecEnv`` over ``OptimalExecutionEnv``. A sub-env that sells
    everything early is reset within the step (or frozen with
    ``autoreset=False``), independently of the others.

    The closed forms are shared by every sub-env:
    ``almgren_chriss_actions()[elapsed_steps]`` is the batch of actions that
    follows the optimal trajectory.

    Args:
        num_envs: Number of sub-envs.
        autoreset: Reset finished sub-envs within the step (else freeze them).
        max_episode_steps: Optional extra time limit per episode.
        **kwargs: The model's parameters, those of
            [`OptimalExecutionEnv`][sekai.envs.OptimalExecutionEnv]
            (``initial_inventory``, ``s0``, ``sigma``, ``total_time``,
            ``n_steps``, ``permanent_impact``, ``temporary_impact``,
            ``fixed_cost``, ``risk_aversion``), with the same defaults.

    Raises:
        TypeError: An unknown keyword argument, or an argument of the wrong type.
        ValueError: An argument out of range.
    """

    metadata: dict[str, Any] = {"render_fps": 10}  # noqa: RUF012 - copied per subclass

    config_builder = ExecutionConfig

    def _setup(self, kwargs: Mapping[str, Any]) -> None:
        config = self.config
        n = self.num_envs
        self._rows = np.arange(n)
        self._shocks: _F64 = np.zeros((n, config.n_steps))
        self._state = ExecutionState.tiled(initial_state(config), n)

    # -- state (copies, one entry per sub-env) --------------------------------------------------

    @property
    def inventory(self) -> _F64:
        """The shares still held by every sub-env."""
        copy: _F64 = self._state.inventory.copy()
        return copy

    @property
    def mid(self) -> _F64:
        """The mid-price of every sub-env."""
        copy: _F64 = self._state.mid.copy()
        return copy

    @property
    def shortfall(self) -> _F64:
        """The implementation shortfall so far of every sub-env (dollars)."""
        copy: _F64 = self._state.shortfall.copy()
        return copy

    # -- the paper's closed forms (the same for every sub-env) ---------------------------------

    @shared
    def almgren_chriss_trajectory(self) -> _F64:
        """The optimal holdings ``x_0..x_N`` (see ``OptimalExecutionEnv``)."""
        return optimal_holdings(self.config)

    @shared
    def almgren_chriss_actions(self) -> NDArray[np.float32]:
        """The optimal static schedule as actions, shape ``(n_steps, 1)``."""
        return schedule_fractions(optimal_holdings(self.config))

    def twap_action(self) -> NDArray[np.float32]:
        """The TWAP action of every sub-env, ``(num_envs, 1)``: ``1 / (periods left)``."""
        return twap_fractions(self.config, self._state.t)

    @shared
    def expected_shortfall(self, trades: NDArray[Any]) -> tuple[float, float]:
        """``(E, V)`` of a static schedule of trades (see ``OptimalExecutionEnv``)."""
        return shortfall_moments(self.config, trades)

    # -- hooks ----------------------------------------------------------------------------------

    def _reset_envs(
        self, indices: NDArray[np.intp], options: Sequence[dict[str, Any] | None]
    ) -> None:
        config = self.config
        rngs = self.rngs
        self._shocks[indices] = draw_shocks(config, [rngs[i] for i in indices.tolist()])
        self._state.put(indices, initial_state(config))

    def _reset_infos(self, indices: NDArray[np.intp]) -> InfoArrays:
        return reset_infos(self.config, self._state.rows(indices))

    def _observe(self) -> NDArray[np.float32]:
        return observe(self.config, self._state)

    def _step(self, actions: Any) -> tuple[_F64, NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        fractions = checked_fractions(actions, "OptimalExecutionVecEnv", batch=True)[:, 0]
        config = self.config
        state = self._state
        frozen = None if self.autoreset or not self.frozen.any() else self.frozen.copy()
        if frozen is not None:
            before = shallow_copy(state)  # execute replaces the arrays: these stay as they are
            # A frozen sub-env may have run every period: its step reads a shock that exists.
            state.t = np.minimum(state.t, config.n_steps - 1)
        shocks = self._shocks[self._rows, state.t]
        rewards, terminated, sold, price = execute(config, state, fractions, shocks)
        if frozen is not None:  # a finished sub-env keeps its final state
            state.restore(frozen, before)
        infos = step_infos(config, state, sold, price)
        return rewards, terminated, np.zeros(self.num_envs, dtype=np.bool_), infos

    def __repr__(self) -> str:
        return f"OptimalExecutionVecEnv(num_envs={self.num_envs})"
