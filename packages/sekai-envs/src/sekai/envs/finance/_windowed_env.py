"""What the single envs that play market windows share around their kernel (private).

Trading-v0, Portfolio-v0 and Market-v0 each play episodes of ``episode_length``
decisions observed through ``lookback`` rows, on a history or a model, scored
by a reward function: `WindowedMarketEnv` gives them those settings once, read
from (and written through) the env's frozen config, and the number of steps
taken, read from the env's kernel.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np

from sekai.core import Env
from sekai.envs.finance._account_step import assigned_reward
from sekai.envs.finance._kernel import row_infos
from sekai.error import ResetRequired
from sekai.finance.data import MarketData
from sekai.finance.rewards import RewardFunction
from sekai.finance.simulators import MarketModel
from sekai.spaces import Space
from sekai.utils.seeding import SeedType

__all__ = ["WindowedMarketEnv"]

_FIRST = np.zeros(1, dtype=np.intp)  # the one row of a single env's kernel

_Obs = TypeVar("_Obs")
_Act = TypeVar("_Act")


class WindowedMarketEnv(Env[_Obs, _Act], Generic[_Obs, _Act]):
    """Base of the single market envs that play windows: the settings every one of them has.

    A subclass sets ``config`` (an `EpisodeConfig`, whose
    ``observation_space()`` follows ``lookback``), ``_reward`` (its reward
    function), ``_kernel`` (None until the first reset) and ``_over`` (whether
    a reset is due), and names its kernel's class in ``kernel_type``. Its
    `reset` calls `_start`, its `step` starts with `_stepping`.
    """

    kernel_type: ClassVar[Callable[..., Any]]
    config: Any
    observation_space: Space[_Obs]
    _reward: RewardFunction
    _kernel: Any
    _over: bool

    @property
    def data(self) -> MarketData | None:
        """The history the env plays, or None when it simulates a model."""
        history: MarketData | None = self.config.history
        return history

    @property
    def model(self) -> MarketModel | None:
        """The model the env simulates, or None when it plays a history."""
        model: MarketModel | None = self.config.model
        return model

    @property
    def lookback(self) -> int:
        """Rows of history per observation; a new value ends the episode and applies at reset.

        Changing it changes `observation_space`.

        Raises:
            ValueError: The value is not an int >= 1, or the history is too short.
        """
        lookback: int = self.config.lookback
        return lookback

    @lookback.setter
    def lookback(self, value: int) -> None:
        self.config = dataclasses.replace(self.config, lookback=value)
        self.observation_space = self.config.observation_space()
        self._over = True

    @property
    def episode_length(self) -> int:
        """Decisions per episode; a new value ends the episode and applies at reset.

        Raises:
            ValueError: The value is not an int >= 1, or the history is too short.
        """
        length: int = self.config.episode_length
        return length

    @episode_length.setter
    def episode_length(self, value: int) -> None:
        self.config = dataclasses.replace(self.config, episode_length=value)
        self._over = True  # the episode being played had the old length

    @property
    def reward_fn(self) -> RewardFunction:
        """The reward function (assignable; the new one is used as given)."""
        return self._reward

    @reward_fn.setter
    def reward_fn(self, value: RewardFunction) -> None:
        self._reward = assigned_reward(value, type(self).__name__)
        if self._kernel is not None:
            self._kernel.reward = value

    @property
    def elapsed_steps(self) -> int:
        """Steps taken in the current episode."""
        return 0 if self._kernel is None else int(self._kernel.steps[0])

    def _start(self, seed: SeedType, options: dict[str, Any] | None) -> Any:
        """Seed the env, build its kernel anew if the config changed, and start its one row.

        Returns:
            The kernel, its row at the start of an episode.
        """
        self._set_rng(seed)
        kernel = self._kernel
        if kernel is None or kernel.config is not self.config:
            kernel = self._kernel = type(self).kernel_type(self.config, 1, self._reward)
        kernel.reward = self._reward
        kernel.reset(_FIRST, (self.rng,), (options,), type(self).__name__)
        self._over = False
        return kernel

    def _stepping(self) -> Any:
        """The kernel, once an episode is running.

        Raises:
            ResetRequired: Before the first reset, or after the episode ended.
        """
        if self._over or self._kernel is None:
            raise ResetRequired(
                f"{type(self).__name__}: the episode is over (or not started); call reset()"
            )
        return self._kernel

    def _reset_infos(self, kernel: Any, raw: tuple[str, ...] = ()) -> dict[str, Any]:
        """The reset info of the kernel's one row, values as Python scalars but ``raw``'s."""
        return row_infos(kernel.reset_infos(_FIRST), raw=raw)
