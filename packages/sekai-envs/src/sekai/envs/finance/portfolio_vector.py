"""The native vector implementation of Portfolio-v0 (every sub-env a row of one kernel)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance._kernel import config_field
from sekai.envs.finance._native import WindowedVecEnv
from sekai.envs.finance._portfolio_config import PortfolioConfig, PortfolioObs, PortfolioParameters
from sekai.envs.finance._portfolio_kernel import PortfolioKernel
from sekai.envs.finance._portfolio_weights import check_actions
from sekai.vector import InfoArrays

__all__ = ["PortfolioVecEnv"]

F64 = NDArray[np.float64]


class PortfolioVecEnv(PortfolioParameters, WindowedVecEnv[PortfolioObs, NDArray[np.float32]]):
    """``num_envs`` Portfolio-v0 portfolios advanced together with numpy.

    ``sekai.make_vec("Portfolio-v0", num_envs=N)`` builds this env by
    default. Observations, actions, rewards, infos, termination and the
    action mask are those of [`PortfolioEnv`][sekai.envs.PortfolioEnv],
    batched along a leading ``num_envs`` axis. Both envs run the same
    kernel, the single env with one row and this one with a row per
    sub-env, on the same three kinds of data with the same defaults: a
    price history or a model (by default the simulated market of ``mu`` /
    ``sigma`` / ``corr``), read through the point-in-time guard at each
    sub-env's decision row, or a window sampler's log returns.

    The env spawns one sampler per sub-env from ``sampler`` (a history's
    start sampler or a window sampler), as ``make_vec`` does for the
    sub-envs of the other backends, and sub-env ``i`` draws its episodes
    from its own generator, ``rngs[i]``. As in the single env, an episode
    is drawn whole at its reset (a first row, a simulated path or a window
    of returns) and a step draws nothing, so for the same seed and actions
    the trajectories, autoresets included, are identical to those of
    ``SyncVecEnv``, ``AsyncVecEnv`` or ``ProcVecEnv`` over
    [`PortfolioEnv`][sekai.envs.PortfolioEnv]. A sub-env that finished is
    reset within the step, or frozen with ``autoreset=False`` (its data is
    then never read past its end).

    The reward function handles the whole batch (stateful rewards keep one
    state per sub-env and forget the rows that reset). Reset options, one
    dict for all or one per sub-env: ``{"episode": Episode}`` (window
    samplers) or ``{"start": t}`` (histories), as for the single env.

    Args:
        num_envs: Number of sub-envs.
        autoreset: Reset finished sub-envs within the step (else freeze them).
        max_episode_steps: Optional extra time limit per episode.
        **kwargs: The keywords of [`PortfolioEnv`][sekai.envs.PortfolioEnv]
            (``prices``, ``data``, ``n_assets``, ``episode_length``,
            ``lookback``, ``transaction_cost``, ``allow_short``, ``mu``,
            ``sigma``, ``corr``, ``dt``, ``model``, ``reward``, ``sampler``,
            ``capital``, ``max_leverage``, ``cost``, ``risk_free_rate``), with
            the same defaults; the sampler is spawned once per sub-env and the
            reward function copied.

    Raises:
        TypeError: An unknown keyword, or a bad argument.
        ValueError: A bad argument (the message names it).

    Attributes:
        samplers: The sub-envs' samplers, one per sub-env (None for a model).
        reward_fn: The reward function.
    """

    config_builder = PortfolioConfig.from_arguments
    kernel_type = PortfolioKernel
    config: PortfolioConfig
    _kernel: PortfolioKernel

    lookback = config_field[int]()
    episode_length = config_field[int]()

    def _setup(self, kwargs: Mapping[str, Any]) -> None:
        super()._setup(kwargs)
        self._action_shape = (self.num_envs, *self.config.action_shape)

    @property
    def time(self) -> NDArray[np.intp]:
        """Each sub-env's current row of its episode data (a copy)."""
        time: NDArray[np.intp] = self._kernel.time.copy()
        return time

    @property
    def weights(self) -> F64:
        """``(num_envs, n_assets + 1)`` float64 weights (a copy)."""
        weights: F64 = self._kernel.weights.copy()
        return weights

    @property
    def portfolio_value(self) -> F64:
        """Each sub-env's portfolio value (a copy)."""
        value: F64 = self._kernel.value.copy()
        return value

    def action_mask(self) -> NDArray[np.bool_]:
        """``(num_envs, *action_shape)`` bool: which entries can be traded now."""
        return self._kernel.action_mask()

    def action_to_weights(self, actions: Any) -> F64:
        """The ``(num_envs, n_assets + 1)`` target weights (cash last) ``actions`` ask for now.

        Row ``i`` is what sub-env ``i``'s
        [`action_to_weights`][sekai.envs.PortfolioEnv.action_to_weights] gives
        for ``actions[i]``.

        Raises:
            InvalidAction: Actions of the wrong shape, or a malformed value.
        """
        return self._kernel.targets(self._checked(actions))

    def _checked(self, actions: Any) -> F64:
        return check_actions(
            actions,
            self._action_shape,
            "PortfolioVecEnv actions",
            signed=self.config.allow_short,
        )

    # -- hooks ------------------------------------------------------------------------------

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        return self._kernel.step(self._checked(actions), None if self.autoreset else self.frozen)

    def __repr__(self) -> str:
        return f"PortfolioVecEnv(num_envs={self.num_envs}, n_assets={self.n_assets})"
