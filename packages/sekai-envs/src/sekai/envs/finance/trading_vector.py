"""The native vector implementation of Trading-v0 (every sub-env a row of one kernel)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.classic_control._vector_base import check_discrete_actions
from sekai.envs.finance._kernel import config_field
from sekai.envs.finance._native import WindowedVecEnv
from sekai.envs.finance._trading_config import TradingConfig, TradingParameters
from sekai.envs.finance._trading_kernel import TradingKernel
from sekai.vector import InfoArrays

__all__ = ["TradingVecEnv"]

F64 = NDArray[np.float64]


class TradingVecEnv(TradingParameters, WindowedVecEnv[NDArray[np.float32], np.int64]):
    """``num_envs`` Trading-v0 accounts advanced together with numpy.

    ``sekai.make_vec("Trading-v0", num_envs=N)`` builds this env by default.
    Observations, actions, rewards, flags and infos are those of
    [`TradingEnv`][sekai.envs.TradingEnv], batched along a leading
    ``num_envs`` axis: observations ``(num_envs, lookback + 1)`` float32,
    actions an int array ``(num_envs,)``. Both envs run the same kernel, the
    single env with one row and this one with a row per sub-env, and read
    the prices the same way: through the point-in-time guard, at each
    sub-env's decision row (never a later row but the next one's price for
    the fill).

    Each sub-env draws its episodes from its own generator, ``rngs[i]``, as
    the single env does (a start row from its own copy of the sampler, or a
    simulated path), whole at the reset; a step draws nothing. So for the
    same seed and actions the trajectories, autoresets included, are those
    of ``SyncVecEnv``, ``AsyncVecEnv`` or ``ProcVecEnv`` over
    [`TradingEnv`][sekai.envs.TradingEnv]. A finished sub-env is reset within
    the step, or frozen with ``autoreset=False``.

    The reward function handles the whole batch (stateful rewards keep one
    state per sub-env and forget the rows that reset). Reset options, one
    dict for all or one per sub-env: ``{"start": t}`` as for the single env.

    Args:
        num_envs: Number of sub-envs.
        autoreset: Reset finished sub-envs within the step (else freeze them).
        max_episode_steps: Optional extra time limit per episode.
        **kwargs: The keywords of [`TradingEnv`][sekai.envs.TradingEnv]
            (``prices``, ``data``, ``episode_length``, ``lookback``,
            ``positions``, ``transaction_cost``, ``mu``, ``sigma``, ``dt``,
            ``s0``, ``model``, ``reward``, ``sampler``, ``capital``), with the
            same defaults; the sampler is spawned once per sub-env and the
            reward function copied.

    Raises:
        TypeError: An unknown keyword, or a bad argument.
        ValueError: A bad argument (the message names it).

    Attributes:
        samplers: Each sub-env's start sampler (histories), else None.
        reward_fn: The reward function.
    """

    metadata: dict[str, Any] = {"render_fps": 30}  # noqa: RUF012 - copied per subclass

    config_builder = TradingConfig.from_arguments
    kernel_type = TradingKernel
    config: TradingConfig
    _kernel: TradingKernel

    lookback = config_field[int]()
    episode_length = config_field[int]()

    @property
    def equity(self) -> F64:
        """Each sub-env's equity (a copy)."""
        equity: F64 = self._kernel.equity.copy()
        return equity

    @property
    def position(self) -> F64:
        """Each sub-env's position after drift (a copy)."""
        position: F64 = self._kernel.position.copy()
        return position

    @property
    def price(self) -> F64:
        """Each sub-env's current price."""
        price: F64 = self._kernel.cursor.now().prices.latest()[:, 0]
        return price

    # -- hooks ------------------------------------------------------------------------------------

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        choices = check_discrete_actions(
            actions, self.config.n_actions, "TradingVecEnv", self.num_envs
        )
        return self._kernel.step(choices, None if self.autoreset else self.frozen)

    def __repr__(self) -> str:
        return f"TradingVecEnv(num_envs={self.num_envs}, {self.config.describe()})"
