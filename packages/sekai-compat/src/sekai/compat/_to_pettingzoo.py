"""The PettingZoo ``ParallelEnv`` that serves a sekai MultiAgentEnv (imported with PettingZoo)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sekai.compat._rendering import close_if_owned, resolve_renderer
from sekai.compat.gymnasium_spaces import convert_to_gymnasium

if TYPE_CHECKING:
    from sekai.compat._rendering import RendererLike
    from sekai.core import MultiAgentEnv

    _ParallelEnv = object
else:
    from pettingzoo import ParallelEnv as _ParallelEnv

__all__ = ["SekaiToPettingZoo"]


class SekaiToPettingZoo(_ParallelEnv):
    """A PettingZoo ``ParallelEnv`` over a sekai MultiAgentEnv (see ``to_pettingzoo``).

    Building it directly, ``SekaiToPettingZoo(env)``, is the same as
    ``to_pettingzoo(env)``.

    Args:
        env: The sekai multi-agent environment.
        renderer: An object with ``render(env)`` used by `render`.
        render_mode: The render mode to declare; ``"rgb_array"`` by default
            when a renderer is given. Without one, a render mode builds the
            env's default renderer (``metadata["renderer"]``).

    Attributes:
        sekai_env: The sekai multi-agent environment being served.
        possible_agents: Every agent that can take part.
        observation_spaces: Each possible agent's Gymnasium observation space.
        action_spaces: Each possible agent's Gymnasium action space.
        render_mode: The render mode (``None`` when nothing is rendered).
        renderer: The object whose ``render(env)`` gives the frames, or ``None``.
    """

    def __init__(
        self,
        env: MultiAgentEnv[Any, Any, Any],
        renderer: RendererLike | None = None,
        render_mode: str | None = None,
    ) -> None:
        rendering = resolve_renderer("to_pettingzoo", env, renderer, render_mode)
        self.sekai_env = env
        self.renderer = rendering.renderer
        self.render_mode = rendering.render_mode
        self._rendering = rendering
        self.possible_agents: list[Any] = list(env.possible_agents)
        self.observation_spaces: dict[Any, Any] = {
            agent: convert_to_gymnasium(
                env.observation_space(agent), f"observation_space({agent!r})"
            )
            for agent in self.possible_agents
        }
        self.action_spaces: dict[Any, Any] = {
            agent: convert_to_gymnasium(env.action_space(agent), f"action_space({agent!r})")
            for agent in self.possible_agents
        }
        metadata = dict(env.metadata)
        metadata.pop("renderer", None)  # a sekai convention, not PettingZoo's
        metadata.setdefault("name", env.spec.id if env.spec is not None else type(env).__name__)
        metadata["render_modes"] = rendering.render_modes
        metadata.setdefault("is_parallelizable", True)
        self.metadata = metadata
        self._reset = env.reset
        self._step = env.step

    @property
    def agents(self) -> list[Any]:
        """The agents still active in the sekai env (a new list)."""
        return list(self.sekai_env.agents)

    @agents.setter
    def agents(self, value: list[Any]) -> None:
        self.sekai_env.agents = list(value)

    def observation_space(self, agent: Any) -> Any:
        """The Gymnasium observation space of ``agent`` (the same object at every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: Any) -> Any:
        """The Gymnasium action space of ``agent`` (the same object at every call)."""
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[Any, Any], dict[Any, dict[str, Any]]]:
        """Reset the sekai env with ``seed`` and ``options``; return observations and infos."""
        result = self._reset(seed=seed, options=options)
        return result.observations, result.info

    def step(
        self, actions: dict[Any, Any]
    ) -> tuple[
        dict[Any, Any],
        dict[Any, float],
        dict[Any, bool],
        dict[Any, bool],
        dict[Any, dict[str, Any]],
    ]:
        """Step the sekai env; return the five per-agent dicts of PettingZoo's parallel API."""
        result = self._step(actions)
        return result.observations, result.rewards, result.terminated, result.truncated, result.info

    def render(self) -> Any:
        """The renderer's frame of the sekai env, or ``None`` without a render mode."""
        if self.renderer is None or self.render_mode is None:
            return None
        return self.renderer.render(self.sekai_env)

    def state(self) -> Any:
        """The sekai env's ``state()``, when it has one."""
        state = getattr(self.sekai_env, "state", None)
        if not callable(state):
            raise NotImplementedError(f"{self.sekai_env!r} has no state() method")
        return state()

    def close(self) -> None:
        """Close the sekai env, and the renderer if the adapter built it.

        A renderer passed in belongs to the caller and stays open; the env's
        default renderer, built by the adapter, is closed with it.
        """
        self.sekai_env.close()
        close_if_owned(self._rendering)
