"""The native vector implementation of Market-v0 (every sub-env a row of one kernel)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance._kernel import config_field
from sekai.envs.finance._market_config import MarketConfig, MarketParameters
from sekai.envs.finance._market_kernel import MarketKernel
from sekai.envs.finance._native import WindowedVecEnv
from sekai.envs.finance._portfolio_weights import check_actions
from sekai.finance.data import PointInTimeBatch
from sekai.vector import InfoArrays

__all__ = ["MarketVecEnv"]

F64 = NDArray[np.float64]


class MarketVecEnv(MarketParameters, WindowedVecEnv[dict[str, Any], NDArray[np.float32]]):
    """``num_envs`` Market-v0 portfolios advanced together with numpy.

    ``sekai.make_vec("Market-v0", num_envs=N)`` builds this env by default.
    Observations, actions, rewards, flags and infos are those of
    [`MarketEnv`][sekai.envs.MarketEnv], batched along a leading ``num_envs``
    axis: the observation is a dict of arrays (``"assets"`` holding
    ``"values"`` ``(num_envs, max_assets, lookback, F)`` and ``"mask"``
    ``(num_envs, max_assets)``, ``"portfolio"``, ``"account"``, and
    ``"market"`` / ``"state"`` when asked for), actions ``(num_envs,
    max_assets + 1)`` scores or ``(num_envs, max_assets)`` signed weights.
    Both envs run the same kernel, the single env with one row and this one
    with a row per sub-env: each sub-env's slots follow its own universe
    (kept as data column indices, updated for every sub-env at once), and
    every read goes through the point-in-time guard at each sub-env's
    decision row (never a later row but the next one's prices for the fill).

    Each sub-env draws its episodes from its own generator, ``rngs[i]``, as
    the single env does, whole at the reset: a start row from its own copy
    of the sampler, or a simulated universe (prices, listings, the features
    computed on it and the model's latent state); a step draws nothing. So
    for the same seed and actions the trajectories, autoresets included,
    are those of ``SyncVecEnv``, ``AsyncVecEnv`` or ``ProcVecEnv`` over
    [`MarketEnv`][sekai.envs.MarketEnv]. A finished sub-env is reset within
    the step, or frozen with ``autoreset=False``.

    The reward function handles the whole batch (stateful rewards keep one
    state per sub-env and forget the rows that reset). Reset options, one
    dict for all or one per sub-env: ``{"start": t}`` with a history, as for
    the single env.

    Args:
        num_envs: Number of sub-envs.
        autoreset: Reset finished sub-envs within the step (else freeze them).
        max_episode_steps: Optional extra time limit per episode.
        **kwargs: The keywords of [`MarketEnv`][sekai.envs.MarketEnv]
            (``data``, ``model``, ``max_assets``, ``features``, ``exogenous``,
            ``lookback``, ``episode_length``, ``sampler``,
            ``transaction_cost``, ``reward``, ``allow_short``,
            ``max_leverage``, ``cash_rate``, ``margin_rate``, ``borrow_rate``,
            ``capital``, ``dt``, ``delisting_return``, ``privileged_state``),
            with the same defaults; the sampler is spawned once per sub-env
            and the reward function copied.

    Raises:
        TypeError: An unknown keyword, or a bad argument.
        ValueError: A bad argument (the message names it).
        LookAheadError: A feature reads rows after the one it describes.

    Attributes:
        config: The validated parameters.
        samplers: Each sub-env's start sampler (histories), else None.
    """

    metadata: dict[str, Any] = {"render_fps": 30}  # noqa: RUF012 - copied per subclass

    config_builder = MarketConfig.from_arguments
    kernel_type = MarketKernel
    config: MarketConfig
    _kernel: MarketKernel

    lookback = config_field[int]()
    episode_length = config_field[int]()

    def _setup(self, kwargs: Mapping[str, Any]) -> None:
        super()._setup(kwargs)
        config = self.config
        width = config.max_assets if config.account.allow_short else config.max_assets + 1
        self._action_shape = (self.num_envs, width)

    @property
    def equity(self) -> F64:
        """Each sub-env's equity (a copy)."""
        equity: F64 = self._kernel.equity.copy()
        return equity

    @property
    def weights(self) -> F64:
        """``(num_envs, max_assets + 1)`` drifted weights, cash last (a copy)."""
        weights: F64 = self._kernel.weights.copy()
        return weights

    @property
    def slot_assets(self) -> NDArray[np.object_]:
        """Each sub-env's slot assets: a ``(num_envs,)`` object array of tuples (None: empty)."""
        assets = np.empty(self.num_envs, dtype=object)
        for i in range(self.num_envs):
            assets[i] = self._kernel.slot_assets(i)
        return assets

    @property
    def now(self) -> PointInTimeBatch:
        """The data as known at each sub-env's current decision row, as agents may read it.

        An agent's view
        ([`PointInTimeBatch.agent_view`][sekai.finance.data.PointInTimeBatch.agent_view]):
        each sub-env's rows up to its decision row, and no execution side.
        ``execution_price()``, ``execution_time``, ``advance(1)``,
        ``with_rows`` and ``with_paths`` raise
        [`LookAheadError`][sekai.error.LookAheadError], and it does not pickle.

        A snapshot of the rows now: read it before the next step. On a
        simulated universe, a snapshot taken before a sub-env's reset drew a
        new path raises `RuntimeError` when read afterwards (its paths were
        replaced), rather than show a path that is gone.
        """
        return self._kernel.now().agent_view()

    @property
    def timestamp(self) -> NDArray[Any]:
        """Each sub-env's current timestamp."""
        return self._kernel.now().time

    @property
    def latent_state(self) -> dict[str, F64] | None:
        """The model's state at each sub-env's row: ``(num_envs, ...)`` by name (None: history)."""
        return self._kernel.latent()

    def action_mask(self) -> NDArray[np.int8]:
        """``(num_envs, ...)``: 1 for the slots that can be traded now (and cash, long-only)."""
        held = self._kernel.tradable()[:, :-1].astype(np.int8)
        if self.config.account.allow_short:
            return held
        mask = np.ones(self._action_shape, dtype=np.int8)
        mask[:, :-1] = held
        return mask

    def target_weights(self, actions: Any) -> F64:
        """``(num_envs, max_assets)`` target weights the actions ask for now.

        Raises:
            InvalidAction: Malformed actions.
        """
        weights: F64 = self._kernel.targets(self._scores(actions))[:, :-1].copy()
        return weights

    def _scores(self, actions: Any) -> F64:
        signed = self.config.account.allow_short
        return check_actions(actions, self._action_shape, "MarketVecEnv actions", signed=signed)

    # -- hooks ------------------------------------------------------------------------------------

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        return self._kernel.step(self._scores(actions), None if self.autoreset else self.frozen)

    def __repr__(self) -> str:
        return f"MarketVecEnv(num_envs={self.num_envs}, {self.config.describe()})"
