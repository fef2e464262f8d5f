"""The sekai env over a ``gymnasium.Env`` (see [`from_gymnasium`][sekai.compat.from_gymnasium])."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from sekai._internal.validation import check_int
from sekai.compat.gymnasium_spaces import convert_from_gymnasium
from sekai.core import Env, ResetResult, StepResult
from sekai.registry import EnvSpec
from sekai.utils.seeding import SeedType

__all__ = ["GymnasiumToSekai"]


class GymnasiumToSekai(Env[Any, Any]):
    """A sekai [`Env`][sekai.core.Env] over a ``gymnasium.Env`` (see ``from_gymnasium``).

    Building it directly, ``GymnasiumToSekai(gym_env)``, is the same as
    ``from_gymnasium(gym_env)``.

    Args:
        env: The Gymnasium environment.
        max_sequence_length: ``max_length`` of sekai ``Sequence`` spaces made
            from Gymnasium ``Sequence`` spaces, which have no length bound.

    Attributes:
        gym_env: The Gymnasium environment being served.
        observation_space: The converted observation space.
        action_space: The converted action space.
        metadata: A copy of the Gymnasium env's metadata.
    """

    def __init__(self, env: Any, *, max_sequence_length: int | None = None) -> None:
        gym_env = env
        for name in ("reset", "step", "observation_space", "action_space"):
            if not hasattr(gym_env, name):
                raise TypeError(
                    f"from_gymnasium: expected a gymnasium.Env (with reset, step, "
                    f"observation_space and action_space), got {gym_env!r} without {name!r}"
                )
        self.gym_env = gym_env
        self.observation_space = convert_from_gymnasium(
            gym_env.observation_space, "observation_space", max_sequence_length
        )
        self.action_space = convert_from_gymnasium(
            gym_env.action_space, "action_space", max_sequence_length
        )
        self.metadata = dict(getattr(gym_env, "metadata", None) or {})
        self.spec = _sekai_spec(getattr(gym_env, "spec", None), max_sequence_length)
        self._gym_reset = gym_env.reset
        self._gym_step = gym_env.step

    @property
    def rng(self) -> np.random.Generator:
        """The Gymnasium env's ``np_random`` (one generator shared by both sides)."""
        generator: np.random.Generator = self.gym_env.unwrapped.np_random
        return generator

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        if not isinstance(value, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {value!r}")
        self.gym_env.unwrapped.np_random = value

    def _set_rng(self, seed: SeedType) -> None:
        if isinstance(seed, np.random.Generator):
            self.rng = seed
        elif seed is not None:
            self.gym_env.unwrapped.np_random = np.random.default_rng(seed)

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[Any]:
        """Reset the Gymnasium env.

        An int seed goes to Gymnasium's ``reset(seed=...)`` (which builds the
        same generator as sekai's seeding from the same int); a
        ``numpy.random.Generator`` becomes the env's ``np_random`` before a
        reset without seed; ``None`` continues the current stream.
        """
        if isinstance(seed, np.random.Generator):
            self.gym_env.unwrapped.np_random = seed
            seed = None
        elif seed is not None:
            seed = check_int(seed, "seed", expected="an int, a numpy.random.Generator or None")
        observation, info = self._gym_reset(seed=seed, options=options)
        return ResetResult(observation, info)

    def step(self, action: Any) -> StepResult[Any]:
        """Step the Gymnasium env; wrap its 5-tuple in a [`StepResult`][sekai.core.StepResult]."""
        observation, reward, terminated, truncated, info = self._gym_step(action)
        return StepResult(observation, float(reward), bool(terminated), bool(truncated), info)

    def close(self) -> None:
        """Close the Gymnasium env."""
        self.gym_env.close()


def _remake(gym_spec: Any, max_sequence_length: int | None, **kwargs: Any) -> GymnasiumToSekai:
    # The time limit is sekai's here: sekai.registry.make applies the spec's.
    import gymnasium

    gym_env = gymnasium.make(gym_spec, max_episode_steps=-1, **kwargs)
    return GymnasiumToSekai(gym_env, max_sequence_length=max_sequence_length)


def _sekai_spec(gym_spec: Any, max_sequence_length: int | None) -> EnvSpec | None:
    """The sekai EnvSpec carrying a Gymnasium spec's id, or None if there is none."""
    if gym_spec is None:
        return None
    try:
        return EnvSpec(
            id=gym_spec.id,
            entry_point=functools.partial(_remake, gym_spec, max_sequence_length),
            reward_threshold=gym_spec.reward_threshold,
            nondeterministic=bool(gym_spec.nondeterministic),
            max_episode_steps=gym_spec.max_episode_steps,
        )
    except (TypeError, ValueError):
        # An id sekai's grammar does not accept: the env keeps working without a spec.
        return None
