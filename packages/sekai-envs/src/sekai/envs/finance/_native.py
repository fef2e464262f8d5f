"""The base of the native market vector envs: built from the keywords of their single env (private).

Every native market env takes sekai 0.2's ``(num_envs, *, autoreset=True,
max_episode_steps=None, **kwargs)``: the keywords are its single env's, checked
once by the model's config. `ConfiguredVecEnv` does that construction; a
subclass names its config's builder and sets up its kernel in `_setup`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance._account_step import assigned_reward
from sekai.envs.finance._kernel import check_keywords
from sekai.finance.rewards import RewardFunction
from sekai.vector import InfoArrays, NativeVecEnv

__all__ = ["ConfiguredVecEnv", "WindowedVecEnv"]

_Obs = TypeVar("_Obs")
_Act = TypeVar("_Act")


class ConfiguredVecEnv(NativeVecEnv[_Obs, _Act], Generic[_Obs, _Act]):
    """A `NativeVecEnv` whose keywords build a frozen config, whose spaces it takes.

    Args:
        num_envs: Number of sub-envs.
        autoreset: Reset finished sub-envs within the step (else freeze them).
        max_episode_steps: Optional extra time limit per episode.
        **kwargs: The single env's keywords, with its defaults.

    Raises:
        TypeError: An unknown keyword (named, with the known ones), or a bad argument.
        ValueError: A bad argument (the message names it).
    """

    # The config's builder, called as ``builder(owner=..., **kwargs)``; its keywords are the env's.
    config_builder: ClassVar[Callable[..., Any]]

    def __init__(
        self,
        num_envs: int,
        *,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
        **kwargs: Any,
    ) -> None:
        owner = type(self).__name__
        builder = type(self).config_builder
        check_keywords(owner, kwargs, builder)
        config = builder(owner=owner, **kwargs)
        super().__init__(
            num_envs,
            config.observation_space(),
            config.action_space(),
            autoreset=autoreset,
            max_episode_steps=max_episode_steps,
        )
        self.config = config
        self._setup(kwargs)

    def _setup(self, kwargs: Mapping[str, Any]) -> None:
        """Build the kernel (and whatever else) once ``config`` and ``num_envs`` are set."""
        raise NotImplementedError


class WindowedVecEnv(ConfiguredVecEnv[_Obs, _Act], Generic[_Obs, _Act]):
    """A `ConfiguredVecEnv` over a windowed market kernel (Trading-v0, Portfolio-v0, Market-v0).

    The kernel (``kernel_type(config, num_envs, reward)``) holds every
    sub-env's state; each sub-env draws its episodes from its own generator
    and, on a history, its own copy of the start sampler (`samplers`). A
    subclass checks the actions and calls the kernel's step in `_step`.

    Attributes:
        samplers: Each sub-env's start sampler (histories), else None.
    """

    kernel_type: ClassVar[Callable[..., Any]]
    _kernel: Any

    def _setup(self, kwargs: Mapping[str, Any]) -> None:
        source = self.config.source
        sampler = getattr(source, "sampler", None)  # a history's, spawned once per sub-env
        self.samplers = None if sampler is None else [sampler.spawn() for _ in range(self.num_envs)]
        self._kernel = type(self).kernel_type(self.config, self.num_envs, self.config.reward)

    @property
    def reward_fn(self) -> RewardFunction:
        """The reward function (one state per sub-env; assignable)."""
        reward: RewardFunction = self._kernel.reward
        return reward

    @reward_fn.setter
    def reward_fn(self, value: RewardFunction) -> None:
        self._kernel.reward = assigned_reward(value, type(self).__name__)

    def _reset_envs(
        self, indices: NDArray[np.intp], options: Sequence[dict[str, Any] | None]
    ) -> None:
        rows = indices.tolist()
        rngs, samplers = self.rngs, self.samplers
        self._kernel.reset(
            indices,
            [rngs[row] for row in rows],
            options,
            type(self).__name__,
            None if samplers is None else [samplers[row] for row in rows],
        )

    def _reset_infos(self, indices: NDArray[np.intp]) -> InfoArrays:
        infos: InfoArrays = self._kernel.reset_infos(indices)
        return infos

    def _observe(self) -> Any:
        return self._kernel.observe()
