"""The :class:`VecEnv` base class shared by every vectorisation backend."""

from __future__ import annotations

import types
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic

import numpy as np
from numpy.typing import NDArray

from sekai.core import ActType, ObsType
from sekai.core._async_routing import route_async_methods
from sekai.error import AsyncCallPending, ResetRequired, VecEnvClosed
from sekai.spaces import Space, batch_space
from sekai.utils.seeding import SeedType
from sekai.vector._arguments import per_env_options, per_env_seeds

if TYPE_CHECKING:
    from types import TracebackType

    from sekai.registry import EnvSpec
    from sekai.vector.results import VecResetResult, VecStepResult

__all__ = ["VecEnv"]


class VecEnv(ABC, Generic[ObsType, ActType]):
    """Base class of vectorised environments: ``num_envs`` environments stepped as one.

    ``observation_space`` and ``action_space`` are the spaces of one sub-env;
    :attr:`batch_observation_space` and :attr:`batch_action_space` are the
    spaces of a batch (a leading ``num_envs`` axis, see
    :func:`~sekai.spaces.batch_space`). :meth:`step` and :meth:`reset` return
    :class:`~sekai.vector.VecStepResult` / :class:`~sekai.vector.VecResetResult`
    with float64 rewards, bool flags and a list of per-env info dicts.

    Autoreset (the default): a sub-env whose episode ends is reset inside the
    same :meth:`step`. Its row of the returned batch is then the first
    observation of its new episode, and its info holds the step's info keys
    plus ``"final_observation"`` (the terminal observation), ``"final_info"``
    (the step's info) and ``"reset_info"`` (the reset's info), as the
    ``AutoReset`` wrapper does for a single env.

    Without autoreset, a sub-env that finishes is frozen until the next
    :meth:`reset`: it is not stepped again and its action is ignored; every
    later step reports its final observation, reward 0, its final
    ``terminated`` / ``truncated`` flags (so it stays done) and an empty info.
    A sub-env that resets itself (its info carries ``"final_observation"``,
    e.g. because it is wrapped in ``AutoReset``) keeps running and is not
    frozen.

    Every vector env has :meth:`async_step` / :meth:`async_reset`. By default
    they run :meth:`step` / :meth:`reset`; :class:`~sekai.vector.AsyncVecEnv`
    runs its sub-envs concurrently. As for :class:`~sekai.core.Env`, a subclass
    that overrides ``step`` (or ``reset``) but not its async form gets an async
    method that runs its override, decided once when the class is created.

    A vector env is a context manager that closes itself on exit; using it
    after :meth:`close` raises :class:`~sekai.error.VecEnvClosed`.

    Writing a backend: a direct subclass may implement :meth:`step`,
    :meth:`reset` and :meth:`close` itself. A backend that implements the
    batch hooks instead gets this class's lifecycle as its ``step``,
    ``reset``, ``async_step`` and ``async_reset`` (installed once, when the
    class is created, unless the class defines them itself):

    * ``_step_batch(batch)``: step the sub-envs with an already checked
      batch of actions (``self._check_actions(actions)``, which the backend
      sets at construction), apply autoreset or freezing, and return the
      :class:`~sekai.vector.VecStepResult`;
    * ``_reset_batch(seeds, options)``: reset every sub-env with one seed
      and one options entry each, already derived by the vector seeding
      rule, and return the :class:`~sekai.vector.VecResetResult`;
    * ``_async_step_batch`` / ``_async_reset_batch`` (optional): their async
      forms, which by default run the sync ones.

    The lifecycle owns the rest, once for every backend: closed, never reset
    and call-still-running checks, the action-batch check, the per-env seeds
    and options, and the bookkeeping of calls in progress.

    Attributes:
        num_envs: Number of sub-environments.
        observation_space: The space of one sub-env's observation.
        action_space: The space of one sub-env's action.
        metadata: Free-form description (render modes, ...).
        spec: The :class:`~sekai.registry.EnvSpec` of the sub-envs when
            :func:`sekai.registry.make_vec` built this vector env, else ``None``.
    """

    metadata: dict[str, Any] = {}  # noqa: RUF012 - replaced, never mutated, by instances
    spec: EnvSpec | None = None

    num_envs: int
    observation_space: Space[Any]
    action_space: Space[Any]

    _batch_obs_cache: tuple[Space[Any], int, Space[Any]] | None = None
    _batch_act_cache: tuple[Space[Any], int, Space[Any]] | None = None

    # Lifecycle state of a backend that uses the batch hooks.
    _closed: bool = False
    _needs_reset: bool = True
    _pending: bool = False
    _check_actions: Callable[[Any], Any]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls._step_batch is not VecEnv._step_batch:
            _install_lifecycle(cls)
        route_async_methods(cls)

    # -- spaces -----------------------------------------------------------------

    @property
    def batch_observation_space(self) -> Space[Any]:
        """The space of a batch of observations, with a leading ``num_envs`` axis.

        Computed from :attr:`observation_space` on first use (and again if
        that space is replaced).

        Raises:
            TypeError: The observation space has no fixed shape (e.g. a
                ``Sequence``), so it cannot be batched.
        """
        space, n = self.observation_space, self.num_envs
        cache = self._batch_obs_cache
        if cache is None or cache[0] is not space or cache[1] != n:
            cache = (space, n, batch_space(space, n))
            self._batch_obs_cache = cache
        return cache[2]

    @property
    def batch_action_space(self) -> Space[Any]:
        """The space of a batch of actions, with a leading ``num_envs`` axis.

        Raises:
            TypeError: The action space has no fixed shape, so it cannot be
                batched.
        """
        space, n = self.action_space, self.num_envs
        cache = self._batch_act_cache
        if cache is None or cache[0] is not space or cache[1] != n:
            cache = (space, n, batch_space(space, n))
            self._batch_act_cache = cache
        return cache[2]

    # -- the env API --------------------------------------------------------------

    @abstractmethod
    def step(self, actions: Any) -> VecStepResult[Any]:
        """Step every sub-env with its action from a batch.

        Args:
            actions: A batch of actions: an array of shape
                ``(num_envs, *action_space.shape)`` for array spaces, a dict /
                tuple of such batches for Dict / Tuple spaces, otherwise a
                sequence of ``num_envs`` actions.

        Returns:
            The batched observations, rewards, flags and per-env infos.

        Raises:
            ValueError: The batch has the wrong length or shape (nothing is
                stepped); the message names the expected batch shape. A
                float batch for a Discrete, MultiDiscrete or MultiBinary
                action space raises :class:`~sekai.error.InvalidAction` (a
                ValueError) on the backends that run sub-env objects.
            ResetRequired: :meth:`reset` was never called.
            VecEnvClosed: The vector env is closed.
        """

    @abstractmethod
    def reset(
        self,
        *,
        seed: list[SeedType] | SeedType = None,
        options: list[dict[str, Any] | None] | dict[str, Any] | None = None,
    ) -> VecResetResult[Any]:
        """Reset every sub-env and return the first observations.

        Args:
            seed: An int derives one independent seed per sub-env (with
                :func:`~sekai.utils.seeding.make_seed_sequence`, identical on
                every backend); a list gives each sub-env its own seed (an
                int, a Generator or ``None``); ``None`` continues each
                sub-env's random stream.
            options: One dict given to every sub-env, or a list with one dict
                (or ``None``) per sub-env.

        Raises:
            TypeError: ``seed`` is a single Generator, or of another type.
            ValueError: A list has the wrong length, or an int seed is negative.
            VecEnvClosed: The vector env is closed.
        """

    @abstractmethod
    def close(self) -> None:
        """Close every sub-env and release the backend's resources.

        Every sub-env is closed even when closing another raises; the first
        such error is re-raised once everything is released. Closing twice
        is harmless.
        """

    async def async_step(self, actions: Any) -> VecStepResult[Any]:
        """Async form of :meth:`step`; the default runs :meth:`step`."""
        return self.step(actions)

    async def async_reset(
        self,
        *,
        seed: list[SeedType] | SeedType = None,
        options: list[dict[str, Any] | None] | dict[str, Any] | None = None,
    ) -> VecResetResult[Any]:
        """Async form of :meth:`reset`; the default runs :meth:`reset`."""
        return self.reset(seed=seed, options=options)

    # -- the lifecycle of a backend that implements the batch hooks -----------------------

    @property
    def frozen(self) -> NDArray[np.bool_]:
        """Read-only bool array: which sub-envs are frozen (see the class docstring).

        Only a vector env without autoreset freezes sub-envs; vector wrappers
        read this instead of guessing from the infos. A sub-env that
        finished in the last step and was frozen by it is already marked.
        The default (for a direct subclass that never freezes) is all
        ``False``.
        """
        return np.zeros(self.num_envs, dtype=bool)

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    def _check_open(self) -> None:
        """Raise if the vector env is closed or a call of it is still running."""
        if self.closed:
            raise VecEnvClosed(f"{self!r} is closed")
        if self._pending:
            raise AsyncCallPending(
                f"{self!r}: called while an earlier call (e.g. an async_step() or "
                "async_reset() not awaited to the end) is still running"
            )

    def _not_ready(self) -> Exception:
        """The error for a step that cannot run: closed, call running, or never reset."""
        try:
            self._check_open()
        except (VecEnvClosed, AsyncCallPending) as error:
            return error
        return ResetRequired(f"{self!r}: call reset() before step()")

    def _step_batch(self, batch: Any) -> VecStepResult[Any]:
        """Hook: step every sub-env with a checked batch of actions (see the class docstring)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement _step_batch()")

    def _reset_batch(
        self, seeds: list[SeedType], options: list[dict[str, Any] | None]
    ) -> VecResetResult[Any]:
        """Hook: reset every sub-env with its own seed and options (see the class docstring)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement _reset_batch()")

    def _per_env_seeds(self, seed: object) -> list[SeedType]:
        """One seed per sub-env from the ``seed`` of :meth:`reset` (the vector seeding rule)."""
        return per_env_seeds(seed, self.num_envs)

    async def _async_step_batch(self, batch: Any) -> VecStepResult[Any]:
        """Hook: the async form of :meth:`_step_batch`; the default runs it."""
        return self._step_batch(batch)

    async def _async_reset_batch(
        self, seeds: list[SeedType], options: list[dict[str, Any] | None]
    ) -> VecResetResult[Any]:
        """Hook: the async form of :meth:`_reset_batch`; the default runs it."""
        return self._reset_batch(seeds, options)

    # -- sub-env attributes -----------------------------------------------------------

    def call(self, method: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call ``method`` on every sub-env and return the ``num_envs`` results.

        When the name is not callable, its value is returned instead (so
        ``call`` also reads attributes). Like :meth:`get_attr`, the name is
        looked up through each sub-env's wrapper stack.
        """
        raise NotImplementedError(f"{type(self).__name__} does not implement call()")

    def get_attr(self, name: str) -> list[Any]:
        """Read attribute ``name`` of every sub-env, searching its wrapper stack.

        The outermost layer of each sub-env that defines ``name`` answers (as
        with :meth:`Wrapper.get_attr <sekai.core.Wrapper.get_attr>`).

        Raises:
            AttributeError: A sub-env has no such attribute.
        """
        raise NotImplementedError(f"{type(self).__name__} does not implement get_attr()")

    def set_attr(self, name: str, values: list[Any] | Any) -> None:
        """Set attribute ``name`` on every sub-env.

        Args:
            name: The attribute. It is set on the outermost layer of each
                sub-env's wrapper stack that has it (as with
                :meth:`Wrapper.set_attr <sekai.core.Wrapper.set_attr>`).
            values: A list of ``num_envs`` values (one per sub-env), or any
                other object, given to every sub-env.

        Raises:
            ValueError: ``values`` is a list of the wrong length.
            AttributeError: A sub-env has no such attribute.
        """
        raise NotImplementedError(f"{type(self).__name__} does not implement set_attr()")

    # -- misc ---------------------------------------------------------------------------

    @property
    def unwrapped(self) -> VecEnv[Any, Any]:
        """The innermost vector env under any :class:`~sekai.vector.VecWrapper`."""
        return self

    def __enter__(self) -> VecEnv[ObsType, ActType]:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        spec = self.spec
        name = f"<{spec.id}>" if spec is not None else ""
        return f"{type(self).__name__}{name}(num_envs={getattr(self, 'num_envs', '?')})"


# -- the lifecycle methods installed on backends ----------------------------------------------


def _lifecycle_step(self: VecEnv[Any, Any], actions: Any) -> VecStepResult[Any]:
    if self._needs_reset or self._pending or self.closed:
        raise self._not_ready()
    batch = self._check_actions(actions)
    self._pending = True
    try:
        return self._step_batch(batch)
    finally:
        self._pending = False


async def _lifecycle_async_step(self: VecEnv[Any, Any], actions: Any) -> VecStepResult[Any]:
    if self._needs_reset or self._pending or self.closed:
        raise self._not_ready()
    batch = self._check_actions(actions)
    self._pending = True
    try:
        return await self._async_step_batch(batch)
    finally:
        self._pending = False


def _lifecycle_reset(
    self: VecEnv[Any, Any],
    *,
    seed: list[SeedType] | SeedType = None,
    options: list[dict[str, Any] | None] | dict[str, Any] | None = None,
) -> VecResetResult[Any]:
    self._check_open()
    seeds = self._per_env_seeds(seed)
    per_env = per_env_options(options, self.num_envs)
    self._pending = True
    try:
        result = self._reset_batch(seeds, per_env)
    finally:
        self._pending = False
    self._needs_reset = False
    return result


async def _lifecycle_async_reset(
    self: VecEnv[Any, Any],
    *,
    seed: list[SeedType] | SeedType = None,
    options: list[dict[str, Any] | None] | dict[str, Any] | None = None,
) -> VecResetResult[Any]:
    self._check_open()
    seeds = self._per_env_seeds(seed)
    per_env = per_env_options(options, self.num_envs)
    self._pending = True
    try:
        result = await self._async_reset_batch(seeds, per_env)
    finally:
        self._pending = False
    self._needs_reset = False
    return result


_LIFECYCLE: tuple[tuple[str, Callable[..., Any]], ...] = (
    ("step", _lifecycle_step),
    ("async_step", _lifecycle_async_step),
    ("reset", _lifecycle_reset),
    ("async_reset", _lifecycle_async_reset),
)


def _install_lifecycle(cls: type[VecEnv[Any, Any]]) -> None:
    """Give a backend that implements the batch hooks the lifecycle methods it does not define."""
    for name, function in _LIFECYCLE:
        owner = next(klass for klass in cls.__mro__ if name in klass.__dict__)
        if owner is not VecEnv:
            continue  # the backend (or a base between it and VecEnv) defines its own
        method = _named_copy(function, name, cls)
        setattr(cls, name, method)


def _named_copy(function: Callable[..., Any], name: str, cls: type) -> Callable[..., Any]:
    """``function`` under the name, docstring and owner of ``VecEnv.<name>`` on ``cls``."""
    copy = types.FunctionType(
        function.__code__, function.__globals__, name, function.__defaults__, function.__closure__
    )
    copy.__kwdefaults__ = function.__kwdefaults__
    copy.__qualname__ = f"{cls.__qualname__}.{name}"
    copy.__module__ = cls.__module__
    copy.__doc__ = getattr(VecEnv, name).__doc__
    copy.__annotations__ = dict(function.__annotations__)
    return copy
