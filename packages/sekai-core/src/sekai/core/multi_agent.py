"""The multi-agent environment base class."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Generic

from sekai.core._async_routing import route_async_methods
from sekai.core.env import ActType
from sekai.core.results import AgentID, MAResetResult, MAStepResult, ObsType
from sekai.utils.seeding import SeededRNG, SeedType

if TYPE_CHECKING:
    from types import TracebackType

    from sekai.registry import EnvSpec
    from sekai.spaces import Space

__all__ = ["AgentID", "MultiAgentEnv"]


class MultiAgentEnv(SeededRNG, ABC, Generic[ObsType, ActType, AgentID]):
    """Base class of every multi-agent sekai environment (parallel API).

    All agents act at every step: `step` takes a dict of actions keyed by
    agent ID and returns a [`MAStepResult`][sekai.core.MAStepResult] whose fields are
    dicts keyed the same way. Each agent has its own observation and action
    space, so heterogeneous agents (a market maker next to a directional
    trader) fit one env.

    To write one, set in ``__init__``:

    - ``self.possible_agents``: every agent ID that can ever take part;
    - ``self.agents``: the agents currently active (it may shrink as agents
      finish; ``reset`` usually restores it);
    - ``self.observation_spaces`` and ``self.action_spaces``: dicts from agent
      ID to space, which the default `observation_space` and
      `action_space` read (or override those two methods instead).

    Seeding and async routing follow the same rules as
    [`Env`][sekai.core.Env]: call ``self._set_rng(seed)`` first thing in
    ``reset`` and draw randomness from `rng`; a subclass overriding
    ``step``/``reset`` without the async form gets an async method that calls
    it. ``metadata`` is copied per subclass as for ``Env``, and names the
    env's default renderer the same way (``"renderer"``, ``"render_modes"``),
    which ``sekai.compat.to_pettingzoo`` builds for a ``render_mode``.
    """

    metadata: dict[str, Any] = {}  # noqa: RUF012 - copied per subclass in __init_subclass__
    spec: EnvSpec | None = None

    agents: list[AgentID]
    possible_agents: list[AgentID]
    observation_spaces: dict[AgentID, Space[ObsType]]
    action_spaces: dict[AgentID, Space[ActType]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "metadata" not in cls.__dict__:
            inherited = getattr(cls, "metadata", None)
            if isinstance(inherited, dict):
                cls.metadata = dict(inherited)
        route_async_methods(cls)

    @property
    def num_agents(self) -> int:
        """Number of currently active agents, ``len(self.agents)``."""
        return len(self.agents)

    @property
    def max_num_agents(self) -> int:
        """Number of possible agents, ``len(self.possible_agents)``."""
        return len(self.possible_agents)

    def observation_space(self, agent: Any) -> Space[ObsType]:
        """The observation space of ``agent``.

        Raises:
            KeyError: ``agent`` has no entry in ``observation_spaces``.
        """
        spaces: dict[AgentID, Space[ObsType]] | None = getattr(self, "observation_spaces", None)
        if spaces is None:
            raise _no_spaces(self, "observation_spaces")
        try:
            return spaces[agent]
        except KeyError:
            raise _unknown_agent(self, agent, spaces) from None

    def action_space(self, agent: Any) -> Space[ActType]:
        """The action space of ``agent``.

        Raises:
            KeyError: ``agent`` has no entry in ``action_spaces``.
        """
        spaces: dict[AgentID, Space[ActType]] | None = getattr(self, "action_spaces", None)
        if spaces is None:
            raise _no_spaces(self, "action_spaces")
        try:
            return spaces[agent]
        except KeyError:
            raise _unknown_agent(self, agent, spaces) from None

    @abstractmethod
    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> MAResetResult[ObsType, AgentID]:
        """Start a new episode and return every agent's first observation.

        Call ``self._set_rng(seed)`` first (an ``int`` re-seeds, a
        ``Generator`` is adopted, ``None`` continues the stream).
        """

    @abstractmethod
    def step(self, actions: dict[Any, ActType]) -> MAStepResult[ObsType, AgentID]:
        """Apply one action per agent and advance the environment by one step."""

    async def async_reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> MAResetResult[ObsType, AgentID]:
        """Async form of `reset`; the default runs `reset`."""
        return self.reset(seed=seed, options=options)

    async def async_step(self, actions: dict[Any, ActType]) -> MAStepResult[ObsType, AgentID]:
        """Async form of `step`; the default runs `step`."""
        return self.step(actions)

    def close(self) -> None:
        """Release the environment's resources. The default does nothing."""

    def __enter__(self) -> MultiAgentEnv[ObsType, ActType, AgentID]:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __str__(self) -> str:
        spec = self.spec
        if spec is None:
            return f"<{type(self).__name__}>"
        return f"<{type(self).__name__}<{spec.id}>>"

    def __repr__(self) -> str:
        return str(self)


def _no_spaces(env: object, attribute: str) -> NotImplementedError:
    return NotImplementedError(
        f"{type(env).__name__} must set self.{attribute} or override {attribute[:-1]}()"
    )


def _unknown_agent(env: object, agent: object, spaces: dict[Any, Any]) -> KeyError:
    return KeyError(
        f"unknown agent {agent!r} for {type(env).__name__}; known agents: {list(spaces)!r}"
    )
