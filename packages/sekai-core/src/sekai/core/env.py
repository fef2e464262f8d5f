"""The single-agent environment base class."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from sekai.core._async_routing import route_async_methods
from sekai.core.results import ObsType, ResetResult, StepResult
from sekai.utils.seeding import SeededRNG, SeedType

if TYPE_CHECKING:
    from types import TracebackType

    from sekai.registry import EnvSpec
    from sekai.spaces import Space

__all__ = ["ActType", "Env", "ObsType", "SeedType"]

ActType = TypeVar("ActType")
"""Type of an environment's actions."""


class Env(SeededRNG, ABC, Generic[ObsType, ActType]):
    """Base class of every single-agent sekai environment.

    To write an environment, subclass ``Env``, assign
    ``self.observation_space`` and ``self.action_space`` in ``__init__`` and
    implement `reset` and `step`. ``reset`` should start with
    ``self._set_rng(seed)`` and every random draw should come from
    `rng`, so that ``reset(seed=...)`` makes an episode reproducible.

    Compared with Gymnasium: ``step`` returns a `StepResult` and
    ``reset`` a `ResetResult` instead of tuples; every env has
    `async_step` and `async_reset`; and rendering is not a method of
    the env (renderers are separate objects, see ``sekai.rendering``).

    Async routing: a subclass that overrides ``step`` (or ``reset``) without
    overriding ``async_step`` (or ``async_reset``) gets an async method that
    calls its sync one, even when a class between it and ``Env`` implements the
    async method natively. The same holds when ``step`` comes from a mixin
    listed before that class (``class Logged(StepLogger, LiveFeedEnv)``).
    ``await env.async_step(a)`` therefore never skips logic that only lives in
    ``step``. The choice is made once per class, when it is created.

    Attributes:
        metadata: Free-form class-level description (render modes, frame rate,
            ...). Each subclass that does not define its own gets a fresh copy
            of its parent's dict, so mutating ``MyEnv.metadata`` never changes
            another class's. An env names its default renderer here, keeping
            rendering out of the env's interface: ``"renderer"`` is a
            ``"module:Class"`` string (imported only when a frame is wanted,
            so importing the env never imports a drawing library) or a
            zero-argument callable returning a renderer, and
            ``"render_modes"`` lists its modes (``["rgb_array"]``).
            ``sekai.compat.to_gymnasium(env, render_mode="rgb_array")`` builds
            it when no renderer is passed.
        spec: The [`EnvSpec`][sekai.registry.EnvSpec] the env was made from;
            ``None`` unless [`sekai.registry.make`][sekai.registry.make] created it.
        observation_space: The space observations belong to.
        action_space: The space actions belong to.
    """

    metadata: dict[str, Any] = {}  # noqa: RUF012 - copied per subclass in __init_subclass__
    spec: EnvSpec | None = None

    observation_space: Space[ObsType]
    action_space: Space[ActType]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "metadata" not in cls.__dict__:
            inherited = getattr(cls, "metadata", None)
            if isinstance(inherited, dict):
                cls.metadata = dict(inherited)
        route_async_methods(cls)

    @abstractmethod
    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Start a new episode and return its first observation.

        Implementations call ``self._set_rng(seed)`` first: an ``int`` re-seeds
        `rng`, a `numpy.random.Generator` is adopted, ``None``
        keeps the current stream.

        Args:
            seed: Seed for this and the following episodes.
            options: Environment-specific reset options.

        Returns:
            The first observation and its info dict.
        """

    @abstractmethod
    def step(self, action: ActType) -> StepResult[ObsType]:
        """Apply one action and advance the environment by one step.

        Args:
            action: An element of `action_space`.

        Returns:
            The next observation, the reward, the termination and truncation
            flags and the info dict.
        """

    async def async_reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Async form of `reset`.

        The default runs `reset`; environments backed by I/O (live
        feeds, remote simulators) override it with a native implementation.
        """
        return self.reset(seed=seed, options=options)

    async def async_step(self, action: ActType) -> StepResult[ObsType]:
        """Async form of `step`.

        The default runs `step`; environments backed by I/O override it
        with a native implementation.
        """
        return self.step(action)

    def close(self) -> None:
        """Release the environment's resources (files, processes, sockets).

        The default does nothing. Calling it more than once must be safe.
        """

    @property
    def unwrapped(self) -> Env[ObsType, ActType]:
        """The innermost environment; for an unwrapped env, the env itself."""
        return self

    # -- attributes by name (the same calls work on a wrapper stack) -------------

    def has_attr(self, name: str) -> bool:
        """Whether the env has an attribute ``name``.

        On a wrapper, whether any layer of the stack defines it (see
        [`Wrapper.get_attr`][sekai.core.Wrapper.get_attr]), so code can
        ask the same question of a bare env and a wrapped one.
        """
        return defines_attribute(self, name)

    def get_attr(self, name: str) -> Any:
        """Return the attribute ``name`` of the env.

        On a wrapper, it is read from the outermost layer that defines it.

        Raises:
            AttributeError: The env has no attribute ``name``.
        """
        if not defines_attribute(self, name):
            raise AttributeError(f"{self} has no attribute {name!r}")
        return getattr(self, name)

    def set_attr(self, name: str, value: Any) -> None:
        """Assign ``value`` to the existing attribute ``name`` of the env.

        On a wrapper, the layer that defines ``name`` is changed, so the
        change reaches the env that reads it. Nothing is created: an
        attribute the env does not have would have no effect on it.

        Raises:
            AttributeError: The env has no attribute ``name``.
        """
        if not defines_attribute(self, name):
            raise AttributeError(f"{self} has no attribute {name!r} to set")
        setattr(self, name, value)

    def __enter__(self) -> Env[ObsType, ActType]:
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


def defines_attribute(obj: object, name: str) -> bool:
    """Whether ``obj`` itself has the attribute ``name`` (in its ``__dict__`` or its class).

    Unlike `hasattr`, no property is run and nothing is forwarded: a
    wrapper's own answer, without asking the env it wraps.
    """
    if name in getattr(obj, "__dict__", ()):
        return True
    return any(name in klass.__dict__ for klass in type(obj).__mro__)
