"""Single environments across the sekai / Gymnasium boundary, in both directions.

`to_gymnasium` serves a sekai env to code written for Gymnasium
(training libraries, ``gymnasium.utils.env_checker.check_env``, Gymnasium
wrappers); `from_gymnasium` brings a Gymnasium env into sekai, where it
runs in every vector backend and sekai wrapper. Observations, actions,
rewards and infos cross unchanged; only the containers differ (tuples on the
Gymnasium side, [`StepResult`][sekai.core.StepResult] / [`ResetResult`][sekai.core.ResetResult]
on the sekai side). Both directions share one random generator: seeding
either side seeds the other.

Gymnasium is imported when an adapter is first called, not when this module
is imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sekai.compat._imports import require_gymnasium
from sekai.core import Env

if TYPE_CHECKING:
    from sekai.compat._rendering import RendererLike

__all__ = ["GymnasiumRenderer", "from_gymnasium", "to_gymnasium"]


def to_gymnasium(
    env: Env[Any, Any],
    renderer: RendererLike | None = None,
    render_mode: str | None = None,
) -> Any:
    """Serve a sekai env as a ``gymnasium.Env``.

    - Spaces are converted with [`to_gymnasium_space`][sekai.compat.to_gymnasium_space]
      (a ``MaskedBox`` becomes a Gymnasium ``Dict`` of ``"values"`` and
      ``"mask"``).
    - ``reset(seed=..., options=...)`` passes both to the sekai env's
      ``reset`` and returns ``(observation, info)``; ``step(action)`` returns
      ``(observation, reward, terminated, truncated, info)``.
    - The Gymnasium ``np_random`` is the sekai env's ``rng``, so Gymnasium's
      seeding checks see the sekai env's generator.
    - ``render()`` returns ``renderer.render(env)``; ``metadata["render_modes"]``
      lists ``render_mode`` alone.
    - Without a ``renderer``, a ``render_mode`` (Gymnasium's usual
      ``"rgb_array"``) builds the env's default renderer, so ``RecordVideo``
      and ``RenderCollection`` work on every reference env. An env class
      names it in ``metadata["renderer"]`` (a ``"module:Class"`` string,
      imported only then, or a zero-argument callable), read from
      ``env.unwrapped`` through wrappers, and its modes in
      ``metadata["render_modes"]``; an env that declares none refuses a
      render mode. Without a render mode nothing is rendered and
      ``metadata["render_modes"]`` is empty.
    - ``close()`` closes the sekai env, and the default renderer if the
      adapter built one (a renderer passed in belongs to the caller).
    - When the sekai env was made from the registry, ``spec`` is a Gymnasium
      ``EnvSpec`` with the same id, reward threshold, determinism flag and
      time limit; ``gymnasium.make(adapter.spec)`` builds the same env again
      (with Gymnasium's ``TimeLimit`` in place of sekai's), and
      ``gymnasium.make(adapter.spec, render_mode="rgb_array")`` (or
      ``"rgb_array_list"``) renders it as above.

    Args:
        env: The sekai environment (wrapped or not).
        renderer: An object with ``render(env)``, typically a
            ``sekai.rendering.Renderer``, used by ``render()``; ``None`` for
            the env's default renderer.
        render_mode: The Gymnasium render mode to declare. Defaults to
            ``"rgb_array"`` when a renderer is given, to ``None`` (no
            rendering) otherwise.

    Returns:
        A ``gymnasium.Env``; the sekai env is its ``sekai_env`` attribute.

    Raises:
        ImportError: Gymnasium is not installed (it comes with the
            ``sekai-compat[gymnasium]`` distribution).
        TypeError: ``env`` is not a sekai ``Env``, a space has no Gymnasium
            equivalent, or ``renderer`` has no ``render`` method.
        ValueError: ``render_mode`` is given without a renderer, and the env
            declares no default renderer (or one without that mode).

    Examples:
        >>> import sekai
        >>> gym_env = to_gymnasium(sekai.make("CartPole-v1"))
        >>> observation, info = gym_env.reset(seed=0)
        >>> observation, reward, terminated, truncated, info = gym_env.step(1)
        >>> gym_env.spec.id, reward
        ('CartPole-v1', 1.0)
        >>> gym_env.close()

        Gymnasium's ``render_mode`` draws with the env's default renderer
        (here ``CartPoleRenderer``, which needs Pillow):

        >>> gym_env = to_gymnasium(sekai.make("CartPole-v1"), render_mode="rgb_array")
        >>> _ = gym_env.reset(seed=0)
        >>> gym_env.render().shape
        (400, 600, 3)
        >>> gym_env.close()
    """
    require_gymnasium()
    if not isinstance(env, Env):
        raise TypeError(f"to_gymnasium: expected a sekai Env, got {env!r}")
    from sekai.compat._to_gymnasium import SekaiToGymnasium

    return SekaiToGymnasium(env, renderer, render_mode)


def from_gymnasium(env: Any, *, max_sequence_length: int | None = None) -> Env[Any, Any]:
    """Serve a ``gymnasium.Env`` as a sekai [`Env`][sekai.core.Env].

    - Spaces are converted with [`from_gymnasium_space`][sekai.compat.from_gymnasium_space].
    - ``reset`` returns a [`ResetResult`][sekai.core.ResetResult] and ``step`` a
      [`StepResult`][sekai.core.StepResult] (reward as ``float``, flags as
      ``bool``); observations and infos are the Gymnasium env's own objects.
    - Seeding follows sekai's contract: an int goes to Gymnasium's
      ``reset(seed=...)``, which builds the very generator sekai would build
      from it (so a Gymnasium env and its sekai port give the same episodes
      from the same seed); a ``numpy.random.Generator`` is adopted as the
      env's ``np_random``; ``None`` continues the stream. The adapter's
      ``rng`` is the Gymnasium env's ``np_random``.
    - ``close()`` closes the Gymnasium env.
    - A Gymnasium ``spec`` becomes a sekai ``EnvSpec`` with the same id,
      reward threshold, determinism flag and time limit, whose entry point
      makes the Gymnasium env again (with sekai's ``TimeLimit``).

    The adapter pickles when the Gymnasium env does, so it runs in every sekai
    vector backend (``SyncVecEnv``, ``AsyncVecEnv``, ``ProcVecEnv``).

    Args:
        env: The Gymnasium environment.
        max_sequence_length: ``max_length`` of sekai ``Sequence`` spaces made
            from Gymnasium ``Sequence`` spaces, which have no length bound.

    Returns:
        A sekai ``Env``; the Gymnasium env is its ``gym_env`` attribute.

    Raises:
        ImportError: Gymnasium is not installed (it comes with the
            ``sekai-compat[gymnasium]`` distribution).
        TypeError: ``env`` is not an environment, or a space has no sekai
            equivalent.
        ValueError: A Gymnasium ``Sequence`` space needs ``max_sequence_length``.

    Examples:
        >>> import gymnasium
        >>> env = from_gymnasium(gymnasium.make("CartPole-v1"))
        >>> result = env.reset(seed=0)
        >>> result = env.step(1)
        >>> result.reward, env.spec.id
        (1.0, 'CartPole-v1')
        >>> env.close()
    """
    require_gymnasium()
    from sekai.compat._from_gymnasium import GymnasiumToSekai

    return GymnasiumToSekai(env, max_sequence_length=max_sequence_length)


class GymnasiumRenderer:
    """A sekai renderer that shows a Gymnasium env the way Gymnasium renders it.

    For envs brought in with `from_gymnasium` (or `GymnasiumToSekai`):
    `render` returns the Gymnasium env's own ``render()``, so the frames
    are whatever its ``render_mode`` gives (create it with
    ``render_mode="rgb_array"`` for frames that ``sekai.rendering.RecordFrames``
    can record). It works through sekai wrappers, and with a Gymnasium env
    passed directly. The renderer holds nothing: `close` does nothing.

    Examples:
        >>> import gymnasium
        >>> env = from_gymnasium(gymnasium.make("FrozenLake-v1", render_mode="ansi"))
        >>> _ = env.reset(seed=0)
        >>> print(GymnasiumRenderer().render(env).splitlines()[-1])
        HFFG
        >>> env.close()
    """

    def render(self, env: Any) -> Any:
        """Return the frame the underlying Gymnasium env renders.

        Raises:
            TypeError: ``env`` is neither a Gymnasium env nor a sekai env over one.
        """
        gym_env = getattr(getattr(env, "unwrapped", env), "gym_env", None)
        if gym_env is None:
            if not callable(getattr(env, "render", None)) or isinstance(env, Env):
                raise TypeError(
                    f"GymnasiumRenderer renders Gymnasium envs (or sekai envs made with "
                    f"from_gymnasium), got {env!r}"
                )
            gym_env = env
        return gym_env.render()

    def close(self) -> None:
        """Release nothing: the renderer holds no resources."""

    def __enter__(self) -> GymnasiumRenderer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return "GymnasiumRenderer()"
