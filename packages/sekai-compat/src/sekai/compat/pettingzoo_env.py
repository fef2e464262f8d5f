"""Multi-agent environments across the sekai / PettingZoo boundary, in both directions.

Both sides use the parallel API (every live agent acts at every step), so the
adapters only change containers: PettingZoo's five per-agent dicts on one
side, [`MAStepResult`][sekai.core.MAStepResult] / [`MAResetResult`][sekai.core.MAResetResult] on
the other. Spaces are converted with `sekai.compat.gymnasium_spaces`.
PettingZoo is imported when an adapter is first called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sekai.compat._imports import require_pettingzoo
from sekai.core import MultiAgentEnv

if TYPE_CHECKING:
    from sekai.compat._rendering import RendererLike

__all__ = ["from_pettingzoo", "to_pettingzoo"]


def to_pettingzoo(
    env: MultiAgentEnv[Any, Any, Any],
    renderer: RendererLike | None = None,
    render_mode: str | None = None,
) -> Any:
    """Serve a sekai MultiAgentEnv as a PettingZoo ``ParallelEnv``.

    - ``possible_agents`` is the sekai env's; ``agents`` reads the sekai
      env's live list at every access, so it shrinks as agents finish.
    - ``observation_space(agent)`` / ``action_space(agent)`` return Gymnasium
      spaces converted once, at construction (the same object at every call,
      as PettingZoo requires); they are also in ``observation_spaces`` /
      ``action_spaces``.
    - ``reset(seed, options)`` passes both on and returns ``(observations,
      infos)``; ``step(actions)`` returns ``(observations, rewards,
      terminations, truncations, infos)``, the sekai result's dicts as they
      are.
    - ``render()`` returns ``renderer.render(env)``, and without a
      ``renderer`` a ``render_mode`` builds the env's default renderer
      (``metadata["renderer"]``), as in [`to_gymnasium`][sekai.compat.to_gymnasium];
      ``state()`` calls the sekai env's ``state()`` if it has one;
      ``close()`` closes the sekai env (and the default renderer).
    - ``metadata`` is the sekai env's plus ``"name"`` (the spec id, or the
      class name), ``"render_modes"`` and ``"is_parallelizable"``.

    Args:
        env: The sekai multi-agent environment.
        renderer: An object with ``render(env)`` used by ``render()``;
            ``None`` for the env's default renderer.
        render_mode: The render mode to declare; ``"rgb_array"`` by default
            when a renderer is given, ``None`` (no rendering) otherwise.

    Returns:
        A ``pettingzoo.ParallelEnv``; the sekai env is its ``sekai_env``
        attribute.

    Raises:
        ImportError: PettingZoo is not installed (it comes with the
            ``sekai-compat[pettingzoo]`` distribution).
        TypeError: ``env`` is not a sekai ``MultiAgentEnv``, or a space has
            no Gymnasium equivalent.
        ValueError: ``render_mode`` is given without a renderer, and the env
            declares no default renderer (or one without that mode).

    Examples:
        >>> import sekai
        >>> par_env = to_pettingzoo(sekai.make("MarketMicrostructure-v0"))
        >>> observations, infos = par_env.reset(seed=0)
        >>> sorted(observations) == sorted(par_env.possible_agents)
        True
        >>> par_env.close()
    """
    require_pettingzoo()
    if not isinstance(env, MultiAgentEnv):
        raise TypeError(f"to_pettingzoo: expected a sekai MultiAgentEnv, got {env!r}")
    from sekai.compat._to_pettingzoo import SekaiToPettingZoo

    return SekaiToPettingZoo(env, renderer, render_mode)


def from_pettingzoo(
    env: Any, *, max_sequence_length: int | None = None
) -> MultiAgentEnv[Any, Any, Any]:
    """Serve a PettingZoo ``ParallelEnv`` as a sekai MultiAgentEnv.

    - ``agents`` and ``possible_agents`` read the PettingZoo env's (an env
      that declares no ``possible_agents`` reports its live agents).
    - ``observation_space(agent)`` / ``action_space(agent)`` convert the
      PettingZoo env's spaces to sekai spaces on first use, and again only if
      the PettingZoo env hands out a different space object (envs whose agents
      appear during an episode work).
    - ``reset`` returns a [`MAResetResult`][sekai.core.MAResetResult] and ``step`` a
      [`MAStepResult`][sekai.core.MAStepResult] with ``float`` rewards and ``bool``
      flags. An int seed is passed on; a ``numpy.random.Generator`` gives an
      int seed drawn from it; ``None`` continues the env's stream.
    - ``state()`` and ``close()`` call the PettingZoo env's.

    Args:
        env: The PettingZoo environment.
        max_sequence_length: ``max_length`` of sekai ``Sequence`` spaces made
            from Gymnasium ``Sequence`` spaces, which have no length bound.

    Returns:
        A sekai ``MultiAgentEnv``; the PettingZoo env is its ``pz_env`` (also
        ``parallel_env``) attribute.

    Raises:
        ImportError: PettingZoo is not installed (it comes with the
            ``sekai-compat[pettingzoo]`` distribution).
        TypeError: ``env`` is not a parallel env, or a space has no sekai
            equivalent.

    Examples:
        >>> import sekai
        >>> env = from_pettingzoo(to_pettingzoo(sekai.make("MarketMicrostructure-v0")))
        >>> result = env.reset(seed=0)
        >>> sorted(result.observations) == sorted(env.possible_agents)
        True
        >>> env.close()
    """
    require_pettingzoo()
    from sekai.compat._from_pettingzoo import PettingZooToSekai

    return PettingZooToSekai(env, max_sequence_length=max_sequence_length)
