"""The ``gymnasium.Env`` that serves a sekai env (imported only when Gymnasium is)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from sekai.compat._rendering import close_if_owned, declared_render_modes, resolve_renderer
from sekai.compat.gymnasium_spaces import convert_to_gymnasium
from sekai.utils.masking import flatten_action_mask, get_action_mask, supports_action_mask

if TYPE_CHECKING:
    from sekai.compat._rendering import RendererLike
    from sekai.core import Env
    from sekai.registry import EnvSpec

    _GymEnv = object
else:
    from gymnasium import Env as _GymEnv

__all__ = ["SekaiToGymnasium", "gymnasium_spec"]


class SekaiToGymnasium(_GymEnv):
    """A ``gymnasium.Env`` over a sekai env (see [`to_gymnasium`][sekai.compat.to_gymnasium]).

    Building it directly, ``SekaiToGymnasium(env, renderer, render_mode)``, is
    the same as ``to_gymnasium(env, renderer, render_mode)``.

    Args:
        env: The sekai environment.
        renderer: An object with ``render(env)`` used by `render`.
        render_mode: The render mode to declare; ``"rgb_array"`` by default
            when a renderer is given. Without one, a render mode builds the
            env's default renderer (``metadata["renderer"]``).

    Attributes:
        sekai_env: The sekai environment being served.
        render_mode: The render mode (``None`` when nothing is rendered).
        renderer: The object whose ``render(env)`` gives the frames, or ``None``.
        action_masks: When the sekai env has an action mask
            (``action_mask()``, see `sekai.utils.masking`), a method
            returning it flattened to a bool array, the form sb3-contrib's
            ``MaskablePPO`` calls; absent otherwise, so that such libraries
            see no mask.
    """

    RENDER_MODES: tuple[str, ...] = ("rgb_array", "ansi")
    """The render modes of sekai's renderers: frames as RGB arrays or text.

    Any other mode a given renderer serves is accepted as well.
    """

    def __init__(
        self,
        env: Env[Any, Any],
        renderer: RendererLike | None = None,
        render_mode: str | None = None,
    ) -> None:
        rendering = resolve_renderer("to_gymnasium", env, renderer, render_mode)
        self.sekai_env = env
        self.renderer = rendering.renderer
        self.render_mode = rendering.render_mode
        self._rendering = rendering
        self.observation_space: Any = convert_to_gymnasium(
            env.observation_space, "observation_space"
        )
        self.action_space: Any = convert_to_gymnasium(env.action_space, "action_space")
        metadata = dict(env.metadata)
        metadata.pop("renderer", None)  # a sekai convention, not Gymnasium's
        metadata["render_modes"] = rendering.render_modes
        self.metadata = metadata
        self.spec: Any = gymnasium_spec(
            env.spec, renderer, declared_render_modes(env) if renderer is None else None
        )
        self._np_random_seed: int | None = None
        self._reset = env.reset
        self._step = env.step
        if supports_action_mask(env):
            self.action_masks = self._action_masks

    def _action_masks(self) -> NDArray[np.bool_]:
        """The env's current action mask, flattened to one bool per choice."""
        mask = get_action_mask(self.sekai_env)
        return flatten_action_mask(self.sekai_env.action_space, mask).astype(np.bool_)

    @property
    def _np_random(self) -> np.random.Generator:
        # Gymnasium's checker and ``np_random`` read the generator here; it is
        # the sekai env's own, so seeding either side seeds both.
        return self.sekai_env.unwrapped.rng

    @_np_random.setter
    def _np_random(self, value: np.random.Generator) -> None:
        self.sekai_env.unwrapped.rng = value

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the sekai env with ``seed`` and ``options``; return ``(observation, info)``."""
        result = self._reset(seed=seed, options=options)
        if seed is not None:
            self._np_random_seed = seed if isinstance(seed, int) else -1
        return result.observation, result.info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step the sekai env; return ``(observation, reward, terminated, truncated, info)``."""
        result = self._step(action)
        return result.observation, result.reward, result.terminated, result.truncated, result.info

    def render(self) -> Any:
        """The renderer's frame of the sekai env, or ``None`` without a render mode."""
        if self.renderer is None or self.render_mode is None:
            return None
        return self.renderer.render(self.sekai_env)

    def close(self) -> None:
        """Close the sekai env, and the renderer if the adapter built it.

        A renderer passed in belongs to the caller and stays open; the env's
        default renderer, built by the adapter, is closed with it.
        """
        self.sekai_env.close()
        close_if_owned(self._rendering)


def _remake(
    spec: EnvSpec, renderer: RendererLike | None, render_mode: str | None = None, **kwargs: Any
) -> SekaiToGymnasium:
    # The time limit is Gymnasium's here: gymnasium.make applies the spec's.
    from sekai.registry import make

    env = make(spec, max_episode_steps=-1, **kwargs)
    return SekaiToGymnasium(env, renderer, render_mode)


def gymnasium_spec(
    spec: EnvSpec | None, renderer: RendererLike | None, render_modes: list[str] | None = None
) -> Any:
    """The Gymnasium ``EnvSpec`` of a sekai env made from ``spec`` (``None`` for ``None``).

    Same id, reward threshold, determinism and time limit; its entry point
    makes the sekai env again and adapts it, so ``gymnasium.make(spec)``
    builds an equivalent env (with Gymnasium's ``TimeLimit`` in place of
    sekai's). ``gymnasium.make(spec, render_mode=...)`` passes the mode on,
    to ``renderer`` or else to the env's default renderer. With
    ``render_modes`` (those of the default renderer), the entry point has a
    ``metadata`` that lists them, as Gymnasium's env classes do, so that
    ``gymnasium.make`` adds its ``RenderCollection`` for ``"rgb_array_list"``.
    """
    if spec is None:
        return None
    from gymnasium.envs.registration import EnvSpec as GymEnvSpec

    entry_point: Any = functools.partial(_remake, spec, renderer)
    if render_modes:
        entry_point.metadata = {"render_modes": list(render_modes)}
    return GymEnvSpec(
        id=spec.id,
        entry_point=entry_point,
        reward_threshold=spec.reward_threshold,
        nondeterministic=spec.nondeterministic,
        max_episode_steps=spec.max_episode_steps,
    )
