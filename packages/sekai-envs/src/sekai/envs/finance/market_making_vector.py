"""The native vector implementation of MarketMaking-v0 (all sub-envs in numpy arrays)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance._market_making_config import MarketMakingConfig, MarketMakingParameters
from sekai.envs.finance._market_making_kernel import (
    advance,
    avellaneda_stoikov_action,
    checked_offsets,
    draw_session,
    fill_probability,
    observe,
    reset_infos,
    start_sessions,
    step_infos,
    time_remaining,
)
from sekai.envs.finance._market_making_state import ArrayState, state_field
from sekai.envs.finance._native import ConfiguredVecEnv
from sekai.vector import InfoArrays

__all__ = ["MarketMakingVecEnv"]

_F64 = NDArray[np.float64]


class MarketMakingVecEnv(
    MarketMakingParameters, ConfiguredVecEnv[NDArray[np.float32], NDArray[np.float32]]
):
    """``num_envs`` MarketMaking-v0 sessions advanced together with numpy.

    ``sekai.make_vec("MarketMaking-v0", num_envs=N)`` builds this env by
    default. Each sub-env is a
    [`MarketMakingEnv`][sekai.envs.MarketMakingEnv] with the same
    parameters: observations ``(num_envs, 2)`` float32, actions ``(num_envs,
    2)`` (bid and ask distances), and the same rewards, termination and info
    keys, computed by the same functions in the same floating-point order. As
    in the single env, a session's randomness (fill uniforms and mid moves)
    is drawn whole at its reset, sub-env ``i`` from its own generator
    ``rngs[i]``, so for the same seed and actions the trajectories, autoresets
    included, are identical to those of ``SyncVecEnv`` (or ``AsyncVecEnv``,
    ``ProcVecEnv``) over ``MarketMakingEnv``. Finished sub-envs are reset
    within the step, or frozen with ``autoreset=False``.

    `avellaneda_stoikov_action` gives the closed-form quotes of every
    sub-env at once, so the paper's 1000-episode simulation is one vector env
    of 1000 sub-envs run for one session.

    Args:
        num_envs: Number of sub-envs.
        autoreset: Reset finished sub-envs within the step (else freeze them).
        max_episode_steps: Optional extra time limit per episode.
        **kwargs: The parameters of every sub-env, those of
            [`MarketMakingEnv`][sekai.envs.MarketMakingEnv] (``s0``,
            ``sigma``, ``total_time``, ``n_steps``, ``fill_intensity``,
            ``fill_decay``, ``risk_aversion``, ``max_inventory``,
            ``order_size``, ``max_offset``), with its defaults.

    Attributes:
        config: The checked parameters, shared by every sub-env; ``s0``,
            ``sigma``, ``A``, ``k``, ``dt``, ... read it, as in the single env.

    Raises:
        TypeError: A keyword is not one of those parameters, or a parameter
            has the wrong type.
        ValueError: A parameter is out of range.
    """

    metadata: dict[str, Any] = {"render_fps": 20}  # noqa: RUF012 - copied per subclass

    # The state of every sub-env, as copies.
    mid = state_field[_F64]("The mid-price of every sub-env.", copies=True)
    inventory = state_field[NDArray[np.int64]]("The inventory of every sub-env.", copies=True)
    cash = state_field[_F64]("The cash of every sub-env.", copies=True)
    wealth = state_field[_F64](
        "Mark-to-market wealth, ``cash + inventory * mid``, of every sub-env.", copies=True
    )
    bid = state_field[_F64](
        "The last bid price of every sub-env (NaN where not quoted).", copies=True
    )
    ask = state_field[_F64](
        "The last ask price of every sub-env (NaN where not quoted).", copies=True
    )
    bid_filled = state_field[NDArray[np.bool_]](
        "Whether each sub-env's last bid was hit.", copies=True
    )
    ask_filled = state_field[NDArray[np.bool_]](
        "Whether each sub-env's last ask was lifted.", copies=True
    )

    config_builder = MarketMakingConfig

    def _setup(self, kwargs: Mapping[str, Any]) -> None:
        config = self.config
        n = self.num_envs
        self._rows = np.arange(n)
        # Time-major, so that the step of sub-envs in lockstep reads one contiguous row.
        self._uniforms: _F64 = np.zeros((config.n_steps, n, 2))
        self._moves: _F64 = np.zeros((config.n_steps, n))
        self._state = ArrayState(n)
        start_sessions(config, self._state)

    # -- state --------------------------------------------------------------------------------

    @property
    def time_remaining(self) -> _F64:
        """``T - t`` for every sub-env."""
        remaining: _F64 = time_remaining(self.config, self._state)
        return remaining

    def fill_probability(self, offset: float) -> float:
        """The chance that a quote ``offset`` from the mid fills within a step (every sub-env)."""
        return float(fill_probability(float(offset), self.config, self._state))

    def avellaneda_stoikov_action(self, *, spread_time_term: bool = False) -> NDArray[np.float32]:
        """The closed-form quotes of every sub-env, ``(num_envs, 2)`` float32.

        Row ``i`` is what
        [`avellaneda_stoikov_action`][sekai.envs.MarketMakingEnv.avellaneda_stoikov_action]
        gives in sub-env ``i``'s state, with the same ``spread_time_term``.
        """
        return avellaneda_stoikov_action(
            self.config, self._state, spread_time_term=spread_time_term
        )

    # -- hooks --------------------------------------------------------------------------------

    def _reset_envs(
        self, indices: NDArray[np.intp], options: Sequence[dict[str, Any] | None]
    ) -> None:
        rngs = self.rngs
        n_steps = self.config.n_steps
        for i in indices.tolist():  # drawn as the single env draws
            self._uniforms[:, i], self._moves[:, i] = draw_session(rngs[i], n_steps)
        start_sessions(self.config, self._state, indices)

    def _reset_infos(self, indices: NDArray[np.intp]) -> InfoArrays:
        return reset_infos(self.config, self._state.take(indices))

    def _observe(self) -> NDArray[np.float32]:
        return observe(self.config, self._state)

    def _step(self, actions: Any) -> tuple[_F64, NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        config = self.config
        offsets = checked_offsets(actions, config.action_bound, "MarketMakingVecEnv", batch=True)
        state = self._state
        # With autoreset=False a finished sub-env is frozen: it steps on its session's last
        # draws, then gets its state back (what it reports is discarded by NativeVecEnv).
        frozen = None if self.autoreset or not self.frozen.any() else self.frozen
        kept = None if frozen is None else state.carried()
        t = state.t if frozen is None else np.minimum(state.t, config.n_steps - 1)
        first = int(t[0])
        if bool((t == first).all()):  # sub-envs in lockstep (the usual case): one row
            draws = self._uniforms[first]
            moves = self._moves[first]
        else:
            rows = self._rows
            draws = self._uniforms[t, rows]
            moves = self._moves[t, rows]
        pnl, rewards = advance(config, state, offsets, draws, moves)
        if frozen is not None and kept is not None:
            state.keep(kept, frozen)
        terminated = state.t >= config.n_steps
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        return rewards, terminated, truncated, step_infos(config, state, pnl)

    def __repr__(self) -> str:
        return f"MarketMakingVecEnv(num_envs={self.num_envs})"
