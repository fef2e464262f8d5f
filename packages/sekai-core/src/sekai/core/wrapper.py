"""Wrapper base classes: transparent layers around an [`Env`][sekai.core.Env]."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, cast

from sekai.core.env import ActType, Env, defines_attribute
from sekai.core.multi_agent import MultiAgentEnv
from sekai.core.results import ObsType, ResetResult, StepResult
from sekai.utils.seeding import SeededRNG, SeedType

if TYPE_CHECKING:
    import numpy as np

    from sekai.registry import EnvSpec
    from sekai.spaces import Space

__all__ = [
    "ActType",
    "ActionWrapper",
    "ObsType",
    "ObservationWrapper",
    "RewardWrapper",
    "SeedType",
    "WActType",
    "WObsType",
    "Wrapper",
    "contains_self_resetting_layer",
]

WObsType = TypeVar("WObsType")
"""Type of the observations a wrapper returns."""

WActType = TypeVar("WActType")
"""Type of the actions a wrapper accepts."""

# A wrapper class's (_before_step, _after_step) hooks, None where it keeps the default.
_StepHooks = tuple[Callable[..., Any] | None, Callable[..., Any] | None]


class Wrapper(Env[WObsType, WActType], Generic[WObsType, WActType, ObsType, ActType]):
    """A transparent layer around an environment.

    Everything is forwarded to the wrapped env (`env`) unless the
    wrapper overrides it: ``reset``, ``step``, their async forms, ``close``,
    and attribute reads that the wrapper itself does not define (reads of
    names starting with ``_`` are not forwarded, so private state stays
    private). Override only what you change.

    ``observation_space`` and ``action_space`` read through to the wrapped env
    until the wrapper assigns its own; ``metadata`` and ``spec`` behave the
    same way. A subclass may assign them before or after calling
    ``super().__init__(env)``. ``rng`` and seeding act on the wrapped env's generator, so a
    wrapper and its env share one random stream (Gymnasium's wrappers do the
    same with ``np_random``); a wrapper that needs its own randomness keeps a
    separate generator.

    The stack can be inspected: ``iter(wrapper)`` yields every layer from this
    wrapper down to the base env and ``len(wrapper)`` counts them, base env
    included (``len(TimeLimit(env, 10)) == 2``). `get_attr` and
    `set_attr` reach attributes of inner layers explicitly.

    Hooks: ``step``, ``reset``, ``async_step`` and ``async_reset`` all pass
    through three protected methods, so a wrapper that only overrides them is
    written once and behaves the same under ``await``, which still reaches
    the wrapped env's own async methods. ``_before_step(action)`` returns the
    action to hand to the wrapped env, ``_after_step(result)`` the
    [`StepResult`][sekai.core.StepResult] to return, ``_after_reset(result)`` the
    [`ResetResult`][sekai.core.ResetResult] to return; all three pass their argument
    through unchanged by default. `ObservationWrapper`,
    `RewardWrapper` and `ActionWrapper` are built on them.
    Define hooks in the class body: they are looked up on the class, and
    which step hooks a class changes is recorded once, when it is created,
    so assigning a hook to an instance, or to the class later, is not
    supported.

    Async: ``async_step``/``async_reset`` await the wrapped env's async
    methods. A wrapper that needs more than the hooks (several inner calls
    per step, the reset arguments) overrides ``step`` or ``reset`` itself. If
    it overrides a sync method but not its async form, it gets an async
    method that calls its sync override, so its logic is never bypassed; such
    a wrapper makes the async path synchronous from that layer down. Override
    both to stay async end to end.

    Subclasses that reset the wrapped env by themselves inside ``step`` (such
    as ``AutoReset``) set the class attribute ``_resets_itself = True``;
    wrappers with per-episode state (``TimeLimit``, ...) look for it in the
    layers they wrap and warn, because they would never see those resets.

    Args:
        env: The environment to wrap.

    Raises:
        TypeError: ``env`` is not a [`Env`][sekai.core.Env].
    """

    _resets_itself: ClassVar[bool] = False

    # The step hooks the class overrides, (before, after) with None for a hook
    # left at its identity default, or None for both: chosen once per class,
    # so a default hook costs nothing per step.
    _step_hooks: ClassVar[_StepHooks | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        before = None if cls._before_step is Wrapper._before_step else cls._before_step
        after = None if cls._after_step is Wrapper._after_step else cls._after_step
        cls._step_hooks = None if before is None and after is None else (before, after)

    def __init__(self, env: Env[ObsType, ActType]) -> None:
        if not isinstance(env, Env):
            raise TypeError(
                f"{type(self).__name__} expects a sekai.core.Env to wrap, got {env!r}"
                f"{not_an_env_hint(env)}"
            )
        self.env: Env[ObsType, ActType] = env
        # A subclass may assign its spaces (or metadata, spec)
        # before calling super().__init__(env); those assignments are kept.
        own = self.__dict__
        self._observation_space: Space[WObsType] | None = own.get("_observation_space")
        self._action_space: Space[WActType] | None = own.get("_action_space")
        self._metadata: dict[str, Any] | None = own.get("_metadata")
        self._spec: EnvSpec | None = own.get("_spec")

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails on the wrapper itself.
        if name.startswith("_"):
            raise AttributeError(
                f"{type(self).__name__!r} object has no attribute {name!r} "
                "(private attributes are not forwarded to the wrapped env)"
            )
        env = self.__dict__.get("env")
        if env is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(env, name)

    # -- spaces, metadata, spec ---------------------------------------------

    @property
    def observation_space(self) -> Space[WObsType]:
        """This wrapper's observation space, else the wrapped env's."""
        if self._observation_space is None:
            return cast("Space[WObsType]", self.env.observation_space)
        return self._observation_space

    @observation_space.setter
    def observation_space(self, space: Space[WObsType]) -> None:
        self._observation_space = space

    @property
    def action_space(self) -> Space[WActType]:
        """This wrapper's action space, else the wrapped env's."""
        if self._action_space is None:
            return cast("Space[WActType]", self.env.action_space)
        return self._action_space

    @action_space.setter
    def action_space(self, space: Space[WActType]) -> None:
        self._action_space = space

    @property
    def metadata(self) -> dict[str, Any]:
        """This wrapper's metadata if assigned, else the wrapped env's."""
        if self._metadata is None:
            return self.env.metadata
        return self._metadata

    @metadata.setter
    def metadata(self, value: dict[str, Any]) -> None:
        self._metadata = value

    @property
    def spec(self) -> EnvSpec | None:
        """The spec assigned to this wrapper, else the wrapped env's."""
        if self._spec is None:
            return self.env.spec
        return self._spec

    @spec.setter
    def spec(self, value: EnvSpec | None) -> None:
        self._spec = value

    # -- randomness ----------------------------------------------------------

    @property
    def rng(self) -> np.random.Generator:
        """The wrapped env's random generator (shared, not a copy)."""
        return self.env.rng

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self.env.rng = value

    def _set_rng(self, seed: SeedType) -> None:
        self.env._set_rng(seed)

    # -- the env API ---------------------------------------------------------
    #
    # step / reset and their async forms run the same hooks, so a wrapper that
    # overrides only the hooks behaves the same under ``await``. step runs on
    # every step of every layer: attribute reads on a wrapper are slow (it
    # defines __getattr__), so the hooks are read from the class, identity
    # hooks are skipped, and there are no typing.cast calls.

    def _before_step(self, action: WActType) -> Any:
        """Hook: the action to pass to the wrapped env (default: ``action`` itself)."""
        return action

    def _after_step(self, result: StepResult[Any]) -> StepResult[WObsType]:
        """Hook: what to return for the wrapped env's step result (default: ``result``)."""
        return result

    def _after_reset(self, result: ResetResult[Any]) -> ResetResult[WObsType]:
        """Hook: what to return for the wrapped env's reset result (default: ``result``)."""
        return result

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[WObsType]:
        """Reset the wrapped env (through the ``_after_reset`` hook)."""
        return type(self)._after_reset(self, self.env.reset(seed=seed, options=options))

    def step(self, action: WActType) -> StepResult[WObsType]:
        """Step the wrapped env (through the ``_before_step`` and ``_after_step`` hooks)."""
        hooks = type(self)._step_hooks
        if hooks is None:
            return self.env.step(action)  # type: ignore[arg-type,return-value]
        before, after = hooks
        if before is not None:
            action = before(self, action)
        result = self.env.step(action)  # type: ignore[arg-type]
        return result if after is None else after(self, result)  # type: ignore[return-value]

    async def async_reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[WObsType]:
        """Reset the wrapped env through its async method (and the ``_after_reset`` hook)."""
        result = await self.env.async_reset(seed=seed, options=options)
        return type(self)._after_reset(self, result)

    async def async_step(self, action: WActType) -> StepResult[WObsType]:
        """Step the wrapped env through its async method (and the step hooks)."""
        hooks = type(self)._step_hooks
        if hooks is None:
            return await self.env.async_step(action)  # type: ignore[arg-type,return-value]
        before, after = hooks
        if before is not None:
            action = before(self, action)
        result = await self.env.async_step(action)  # type: ignore[arg-type]
        return result if after is None else after(self, result)  # type: ignore[return-value]

    def close(self) -> None:
        """Close the wrapped env."""
        self.env.close()

    @property
    def unwrapped(self) -> Env[Any, Any]:
        """The base environment underneath every wrapper."""
        return self.env.unwrapped

    # -- the wrapper stack ---------------------------------------------------

    def __iter__(self) -> Iterator[Env[Any, Any]]:
        """Yield every layer, from this wrapper down to the base env."""
        layer: Env[Any, Any] = self
        while isinstance(layer, Wrapper):
            yield layer
            layer = layer.env
        yield layer

    def __len__(self) -> int:
        """Number of layers in the stack, the base env included."""
        return sum(1 for _ in self)

    def has_attr(self, name: str) -> bool:
        """Whether some layer of the stack (this wrapper included) defines ``name``.

        The same rule as `get_attr`: ``has_attr(name)`` is true exactly
        when ``get_attr(name)`` finds a layer.
        """
        return any(_defines(layer, name) for layer in self)

    def get_attr(self, name: str) -> Any:
        """Read ``name`` from the outermost layer that defines it.

        Unlike plain attribute access this also reaches private names and
        names a wrapper shadows. A wrapper counts as defining
        ``observation_space``, ``action_space``, ``metadata`` or ``spec`` once
        it has assigned its own; until then the name is looked up further in.

        Raises:
            AttributeError: No layer defines ``name``.
        """
        for layer in self:
            if _defines(layer, name):
                return getattr(layer, name)
        raise AttributeError(f"no layer of {self} has an attribute {name!r}")

    def set_attr(self, name: str, value: Any) -> None:
        """Assign ``value`` to ``name`` on the outermost layer that defines it.

        Setting an attribute on a wrapper with ``wrapper.x = v`` only creates
        it on the wrapper; ``set_attr`` finds the layer the attribute belongs
        to, so the change reaches the env that reads it.

        Raises:
            AttributeError: No layer defines ``name`` (nothing is created).
        """
        for layer in self:
            if _defines(layer, name):
                setattr(layer, name, value)
                return
        raise AttributeError(f"no layer of {self} has an attribute {name!r} to set")

    def __str__(self) -> str:
        return f"<{type(self).__name__}{self.env}>"

    def __repr__(self) -> str:
        return str(self)


class ObservationWrapper(
    Wrapper[WObsType, ActType, ObsType, ActType], Generic[WObsType, ActType, ObsType]
):
    """A wrapper that transforms every observation with `observation`.

    It runs in the ``_after_step`` and ``_after_reset`` hooks, so the sync
    and the async paths both apply it and the wrapped env's native async
    implementation is kept. Set ``self.observation_space`` in ``__init__``
    when the transformation changes the space.
    """

    @abstractmethod
    def observation(self, obs: ObsType) -> WObsType:
        """Transform one observation of the wrapped env."""

    def _after_step(self, result: StepResult[ObsType]) -> StepResult[WObsType]:
        return StepResult(
            self.observation(result.observation),
            result.reward,
            result.terminated,
            result.truncated,
            result.info,
        )

    def _after_reset(self, result: ResetResult[ObsType]) -> ResetResult[WObsType]:
        return ResetResult(self.observation(result.observation), result.info)


class RewardWrapper(Wrapper[ObsType, ActType, ObsType, ActType], Generic[ObsType, ActType]):
    """A wrapper that transforms every reward with `reward`.

    It runs in the ``_after_step`` hook, on the sync and the async path alike.
    """

    @abstractmethod
    def reward(self, reward: float) -> float:
        """Transform one reward of the wrapped env."""

    def _after_step(self, result: StepResult[ObsType]) -> StepResult[ObsType]:
        return StepResult(
            result.observation,
            self.reward(result.reward),
            result.terminated,
            result.truncated,
            result.info,
        )


class ActionWrapper(
    Wrapper[ObsType, WActType, ObsType, ActType], Generic[ObsType, WActType, ActType]
):
    """A wrapper that transforms every action with `action` before the env sees it.

    It runs in the ``_before_step`` hook, on the sync and the async path
    alike. Set ``self.action_space`` in ``__init__`` to the space of the
    actions the wrapper accepts when it differs from the env's.
    """

    @abstractmethod
    def action(self, action: WActType) -> ActType:
        """Turn an action of this wrapper's space into one of the wrapped env's."""

    def reverse_action(self, action: ActType) -> WActType:
        """Turn an action of the wrapped env into one of this wrapper's space.

        The inverse of `action`, for tools that replay recorded env
        actions through the wrapper. Not every transformation can be
        inverted, so the default raises.

        Raises:
            NotImplementedError: The wrapper does not define the inverse.
        """
        raise NotImplementedError(f"{type(self).__name__} does not implement reverse_action()")

    def _before_step(self, action: WActType) -> ActType:
        return self.action(action)


# Attributes found only on these classes are the forwarding machinery every
# wrapper shares, not state of a particular layer.
_FORWARDING_BASES = frozenset(
    {
        Wrapper,
        ObservationWrapper,
        RewardWrapper,
        ActionWrapper,
        Env,
        SeededRNG,
        ABC,
        Generic,
        object,
    }
)


# Read through to the wrapped env until a wrapper assigns its own (kept in ``_<name>``).
_LAZY_OVERRIDES = frozenset({"observation_space", "action_space", "metadata", "spec"})


def _defines(layer: Env[Any, Any], name: str) -> bool:
    """Whether ``layer`` itself defines ``name`` (without forwarding to inner layers)."""
    if not isinstance(layer, Wrapper):
        return defines_attribute(layer, name)
    if name in layer.__dict__:
        return True
    if name in _LAZY_OVERRIDES and layer.__dict__.get(f"_{name}") is not None:
        return True  # the wrapper has assigned its own space (metadata, spec)
    return any(
        name in klass.__dict__ for klass in type(layer).__mro__ if klass not in _FORWARDING_BASES
    )


def contains_self_resetting_layer(env: Env[Any, Any]) -> bool:
    """Whether ``env`` or a layer inside it resets its inner env by itself.

    True for the layers whose class sets ``_resets_itself = True`` (such as
    ``sekai.wrappers.AutoReset``). Wrappers with per-episode state call this on
    the env they wrap and warn when it returns True.
    """
    layers = iter(env) if isinstance(env, Wrapper) else iter((env,))
    return any(getattr(type(layer), "_resets_itself", False) is True for layer in layers)


def not_an_env_hint(value: object) -> str:
    """A sentence saying how to fix ``value`` (empty when there is nothing to add).

    Covers the usual mistakes: an env class instead of an instance, a
    [`MultiAgentEnv`][sekai.core.MultiAgentEnv], and a Gymnasium env.
    """
    if isinstance(value, type) and issubclass(value, (Env, MultiAgentEnv)):
        return f" (a class, not an instance: create the env first, e.g. {value.__name__}(...))"
    if isinstance(value, MultiAgentEnv):
        return " (a MultiAgentEnv is not a single-agent sekai.core.Env)"
    module = type(value).__module__.partition(".")[0]
    if module in ("gymnasium", "gym"):
        return " (a Gymnasium env: convert it first with sekai.compat.from_gymnasium(env))"
    return ""
