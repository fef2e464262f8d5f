"""The sekai MultiAgentEnv that serves a PettingZoo ``ParallelEnv``."""

from __future__ import annotations

from typing import Any

import numpy as np

from sekai._internal.validation import check_int
from sekai.compat.gymnasium_spaces import convert_from_gymnasium
from sekai.core import MAResetResult, MAStepResult, MultiAgentEnv
from sekai.spaces import Space
from sekai.utils.seeding import SeedType

__all__ = ["PettingZooToSekai"]


class PettingZooToSekai(MultiAgentEnv[Any, Any, Any]):
    """A sekai [`MultiAgentEnv`][sekai.core.MultiAgentEnv] over a PettingZoo ``ParallelEnv``.

    Building it directly, ``PettingZooToSekai(par_env)``, is the same as
    ``from_pettingzoo(par_env)`` (see [`from_pettingzoo`][sekai.compat.from_pettingzoo]).

    Args:
        env: The PettingZoo environment.
        max_sequence_length: ``max_length`` of sekai ``Sequence`` spaces made
            from Gymnasium ``Sequence`` spaces, which have no length bound.

    Attributes:
        pz_env: The PettingZoo environment being served (also ``parallel_env``).
    """

    def __init__(self, env: Any, *, max_sequence_length: int | None = None) -> None:
        parallel_env = env
        for name in ("reset", "step", "observation_space", "action_space"):
            if not hasattr(parallel_env, name):
                raise TypeError(
                    "from_pettingzoo: expected a pettingzoo.ParallelEnv (with reset, step, "
                    f"observation_space and action_space), got {parallel_env!r} without {name!r}"
                )
        self.parallel_env = parallel_env
        self.metadata = dict(getattr(parallel_env, "metadata", None) or {})
        self._max_sequence_length = max_sequence_length
        # agent -> (PettingZoo space, sekai space): converted on first use, again
        # only if the PettingZoo env hands out a different space object.
        self._observation_cache: dict[Any, tuple[Any, Space[Any]]] = {}
        self._action_cache: dict[Any, tuple[Any, Space[Any]]] = {}
        self._pz_reset = parallel_env.reset
        self._pz_step = parallel_env.step
        for agent in self.possible_agents:
            self.observation_space(agent)
            self.action_space(agent)

    @property
    def pz_env(self) -> Any:
        """The PettingZoo environment being served."""
        return self.parallel_env

    @property
    def observation_spaces(self) -> dict[Any, Space[Any]]:  # type: ignore[override]
        """Each possible agent's sekai observation space (a new dict)."""
        return {agent: self.observation_space(agent) for agent in self.possible_agents}

    @property
    def action_spaces(self) -> dict[Any, Space[Any]]:  # type: ignore[override]
        """Each possible agent's sekai action space (a new dict)."""
        return {agent: self.action_space(agent) for agent in self.possible_agents}

    @property
    def agents(self) -> list[Any]:
        """The PettingZoo env's active agents (a new list; empty before its first reset)."""
        return list(getattr(self.parallel_env, "agents", None) or ())

    @agents.setter
    def agents(self, value: list[Any]) -> None:
        self.parallel_env.agents = list(value)

    @property
    def possible_agents(self) -> list[Any]:
        """The PettingZoo env's possible agents (its active ones if it declares none)."""
        agents = getattr(self.parallel_env, "possible_agents", None)
        return self.agents if agents is None else list(agents)

    @possible_agents.setter
    def possible_agents(self, value: list[Any]) -> None:
        self.parallel_env.possible_agents = list(value)

    def observation_space(self, agent: Any) -> Space[Any]:
        """The sekai observation space of ``agent``."""
        return self._space(self._observation_cache, "observation_space", agent)

    def action_space(self, agent: Any) -> Space[Any]:
        """The sekai action space of ``agent``."""
        return self._space(self._action_cache, "action_space", agent)

    def _space(self, cache: dict[Any, tuple[Any, Space[Any]]], kind: str, agent: Any) -> Space[Any]:
        source = getattr(self.parallel_env, kind)(agent)
        cached = cache.get(agent)
        if cached is not None and cached[0] is source:
            return cached[1]
        converted = convert_from_gymnasium(source, f"{kind}({agent!r})", self._max_sequence_length)
        cache[agent] = (source, converted)
        return converted

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> MAResetResult[Any, Any]:
        """Reset the PettingZoo env.

        An int seed goes to PettingZoo's ``reset(seed=...)``; a
        ``numpy.random.Generator`` gives it an int seed drawn from the
        generator (PettingZoo envs have no common way to adopt one); ``None``
        continues the env's stream.
        """
        if isinstance(seed, np.random.Generator):
            seed = int(seed.integers(2**32))
        elif seed is not None:
            seed = check_int(seed, "seed", expected="an int, a numpy.random.Generator or None")
        observations, infos = self._pz_reset(seed=seed, options=options)
        return MAResetResult(observations, infos)

    def step(self, actions: dict[Any, Any]) -> MAStepResult[Any, Any]:
        """Step the PettingZoo env; rewards become ``float`` and flags ``bool``."""
        observations, rewards, terminated, truncated, infos = self._pz_step(actions)
        return MAStepResult(
            observations,
            {agent: float(reward) for agent, reward in rewards.items()},
            {agent: bool(flag) for agent, flag in terminated.items()},
            {agent: bool(flag) for agent, flag in truncated.items()},
            infos,
        )

    def state(self) -> Any:
        """The PettingZoo env's global ``state()``."""
        return self.parallel_env.state()

    def close(self) -> None:
        """Close the PettingZoo env."""
        self.parallel_env.close()
