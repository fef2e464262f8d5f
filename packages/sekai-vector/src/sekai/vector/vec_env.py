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
from sekai.error import AsyncCallPending, NothingInFlight, ResetRequired, VecEnvClosed
from sekai.spaces import Space, batch_space
from sekai.utils.seeding import SeedType
from sekai.vector._actions import ActionSplitter, make_action_splitter
from sekai.vector._arguments import per_env_options, per_env_seeds
from sekai.vector.results import with_env_ids

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

    Partial batches: :meth:`send` starts stepping some sub-envs and
    :meth:`recv` hands back the first :attr:`batch_size` of those sent that
    are done, with their ids in :attr:`VecStepResult.env_ids
    <sekai.vector.VecStepResult.env_ids>`, so a learner never waits for the
    slowest sub-env. Autoreset, freezing and seeding hold per sub-env as in
    :meth:`step`. ``batch_size`` is chosen at construction by the backends
    that can return early (``SyncVecEnv``, ``AsyncVecEnv``, ``ProcVecEnv``);
    it is ``num_envs`` everywhere else, where ``send`` + ``recv`` is a
    :meth:`step` in two halves.

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
      forms, which by default run the sync ones;
    * ``_send_batch(env_ids, actions)``, ``_recv_batch(count)`` and
      ``_drop_in_flight()`` (optional, with ``_async_recv_batch``): start
      stepping the given sub-envs with one action each, hand back a
      :class:`~sekai.vector.VecStepResult` of ``count`` of them that are
      done (with ``env_ids``), and forget the ones still in flight (before
      a reset). Without them, ``send`` takes every sub-env at once and
      ``recv`` runs ``_step_batch``.

    The lifecycle owns the rest, once for every backend: closed, never reset
    and call-still-running checks, the action-batch check, the per-env seeds
    and options, the bookkeeping of calls in progress and of the sub-envs
    in flight between ``send`` and ``recv``.

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
    # Partial batches: the batch_size chosen at construction (None: num_envs),
    # which sub-envs were sent actions and not received yet, and how many.
    _batch_size: int | None = None
    _in_flight: NDArray[np.bool_] | None = None
    _flying: int = 0
    _splitters: dict[int, ActionSplitter] | None = None
    _parked: Any = None  # send() of a vector env without partial-batch hooks

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

    @property
    def batch_size(self) -> int:
        """How many sub-envs :meth:`recv` hands back: ``num_envs`` unless chosen at construction."""
        return self.num_envs if self._batch_size is None else self._batch_size

    def send(self, actions: Any, env_ids: Any = None) -> None:
        """Start stepping some sub-envs; :meth:`recv` collects them.

        Args:
            actions: One action per sub-env of ``env_ids``, as a batch (see
                :meth:`step`) with ``len(env_ids)`` rows, in the order of
                ``env_ids``.
            env_ids: The sub-envs to step: distinct ints in
                ``[0, num_envs)``, none of them sent and not received yet.
                ``None`` takes every sub-env that is not in flight: all of
                them after :meth:`reset`, the ones :meth:`recv` just handed
                back afterwards.

        Raises:
            ValueError: ``env_ids`` names a sub-env twice, out of range or
                still in flight, or the batch does not match it; nothing
                is sent.
            ResetRequired: :meth:`reset` was never called.
            VecEnvClosed: The vector env is closed.

        This default, for a vector env that steps all its sub-envs at once,
        keeps the actions of every sub-env for :meth:`recv`, which runs
        :meth:`step`.
        """
        ids = self._ids_to_send(env_ids)
        self._check_full_batch(ids)
        self._parked = actions
        self._mark_in_flight(ids)

    def recv(self) -> VecStepResult[Any]:
        """Wait for the first :attr:`batch_size` sent sub-envs to finish their step.

        Returns:
            Their rows, in the order they finished (ties by id), with
            :attr:`~sekai.vector.VecStepResult.env_ids` saying which
            sub-envs they are; the next :meth:`send` (with ``env_ids=None``)
            takes actions for exactly those. A sub-env whose episode ended
            was reset (or frozen) as in :meth:`step`.

        Raises:
            NothingInFlight: Fewer than ``batch_size`` sub-envs are in flight.
            ResetRequired: :meth:`reset` was never called.
            VecEnvClosed: The vector env is closed.

        A sub-env raising during its step makes :meth:`recv` raise; the
        vector env then needs a :meth:`reset`.
        """
        self._check_receivable()
        actions, self._parked = self._parked, None
        self._clear_in_flight()
        result = self.step(actions)
        return with_env_ids(result, np.arange(self.num_envs)) if result.env_ids is None else result

    async def async_recv(self) -> VecStepResult[Any]:
        """Async form of :meth:`recv`; the default runs :meth:`recv`."""
        return self.recv()

    # -- partial-batch bookkeeping, shared by the defaults and the lifecycle -------------

    def _ids_to_send(self, env_ids: Any) -> NDArray[np.int64]:
        """Check the ``env_ids`` of :meth:`send` (``None``: every idle sub-env) and return them."""
        n = self.num_envs
        flying = self._in_flight
        if env_ids is None:
            if flying is None or not self._flying:
                return np.arange(n, dtype=np.int64)
            ids = np.flatnonzero(~flying)
            if len(ids) == 0:
                raise ValueError(
                    f"{self!r}: send() found no sub-env to step: all {n} are in flight; "
                    "call recv() first"
                )
            return ids.astype(np.int64)
        ids = np.asarray(env_ids)
        if ids.ndim != 1 or len(ids) == 0 or ids.dtype.kind not in "iu":
            raise ValueError(
                f"{self!r}: send() needs env_ids as a non-empty 1-D sequence of ints, "
                f"got {env_ids!r}"
            )
        ids = ids.astype(np.int64)
        if ids.min() < 0 or ids.max() >= n:
            raise ValueError(f"{self!r}: env_ids must lie in [0, {n}), got {ids.tolist()}")
        if len(np.unique(ids)) != len(ids):
            raise ValueError(f"{self!r}: env_ids names a sub-env twice: {ids.tolist()}")
        if flying is not None and flying[ids].any():
            busy = ids[flying[ids]].tolist()
            raise ValueError(
                f"{self!r}: sub-envs {busy} were sent actions and not received yet; "
                "recv() them before sending again"
            )
        return ids

    def _check_full_batch(self, ids: NDArray[np.int64]) -> None:
        """Raise unless ``ids`` is every sub-env in order (a backend without partial batches)."""
        n = self.num_envs
        if len(ids) != n or (ids != np.arange(n)).any():
            raise ValueError(
                f"{self!r} steps every sub-env at once: send() takes actions for all {n} "
                f"of them, in order, got env_ids {ids.tolist()}"
            )

    def _mark_in_flight(self, ids: NDArray[np.int64]) -> None:
        flying = self._in_flight
        if flying is None:
            flying = self._in_flight = np.zeros(self.num_envs, dtype=bool)
        flying[ids] = True
        self._flying += len(ids)

    def _clear_in_flight(self, ids: NDArray[np.int64] | None = None) -> None:
        """Mark ``ids`` (``None``: every sub-env) as no longer in flight."""
        flying = self._in_flight
        if flying is None:
            return
        if ids is None:
            flying[:] = False
            self._flying = 0
        else:
            flying[ids] = False
            self._flying -= len(ids)

    def _check_receivable(self) -> None:
        if self._flying < self.batch_size:
            raise NothingInFlight(
                f"{self!r}: recv() hands back batch_size={self.batch_size} sub-envs, but "
                f"{self._flying} were sent actions and not received; call send() first"
            )

    def _splitter_for(self, count: int) -> ActionSplitter:
        """The action check and split for a batch of ``count`` rows (made once per count)."""
        splitters = self._splitters
        if splitters is None:
            splitters = self._splitters = {}
        splitter = splitters.get(count)
        if splitter is None:
            splitter = splitters[count] = make_action_splitter(self.action_space, count)
        return splitter

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
        if self._flying and not self._needs_reset:
            return AsyncCallPending(
                f"{self!r}: {self._flying} sub-envs were sent actions with send() and not "
                "received; call recv() (or reset()) before step()"
            )
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

    def _send_batch(self, env_ids: NDArray[np.int64], actions: list[Any]) -> None:
        """Hook: start stepping ``env_ids``, one action each (see the class docstring)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement _send_batch()")

    def _recv_batch(self, count: int) -> VecStepResult[Any]:
        """Hook: ``count`` sent sub-envs that are done; the default steps the kept full batch."""
        batch, self._parked = self._parked, None
        return with_env_ids(self._step_batch(batch), np.arange(self.num_envs))

    async def _async_recv_batch(self, count: int) -> VecStepResult[Any]:
        """Hook: the async form of :meth:`_recv_batch`; the default runs it."""
        return self._recv_batch(count)

    def _drop_in_flight(self) -> None:
        """Hook: forget the sub-envs sent and not received (a reset is coming)."""
        self._parked = None

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
    if self._needs_reset or self._pending or self._flying or self.closed:
        raise self._not_ready()
    batch = self._check_actions(actions)
    self._pending = True
    try:
        return self._step_batch(batch)
    finally:
        self._pending = False


async def _lifecycle_async_step(self: VecEnv[Any, Any], actions: Any) -> VecStepResult[Any]:
    if self._needs_reset or self._pending or self._flying or self.closed:
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
    seeds, per_env = _start_reset(self, seed, options)
    with _Running(self):
        result = self._reset_batch(seeds, per_env)
    self._needs_reset = False
    return result


async def _lifecycle_async_reset(
    self: VecEnv[Any, Any],
    *,
    seed: list[SeedType] | SeedType = None,
    options: list[dict[str, Any] | None] | dict[str, Any] | None = None,
) -> VecResetResult[Any]:
    seeds, per_env = _start_reset(self, seed, options)
    with _Running(self):
        result = await self._async_reset_batch(seeds, per_env)
    self._needs_reset = False
    return result


def _start_reset(
    self: VecEnv[Any, Any], seed: object, options: object
) -> tuple[list[SeedType], list[dict[str, Any] | None]]:
    """Check the vector env and the arguments of a reset; drop what is in flight."""
    self._check_open()
    seeds = self._per_env_seeds(seed)
    per_env = per_env_options(options, self.num_envs)
    if self._flying:
        self._drop_in_flight()
        self._clear_in_flight()
    return seeds, per_env


def _lifecycle_send(self: VecEnv[Any, Any], actions: Any, env_ids: Any = None) -> None:
    if self._needs_reset or self._pending or self.closed:
        raise self._not_ready()
    ids = self._ids_to_send(env_ids)
    if type(self)._send_batch is VecEnv._send_batch:  # no partial batches: a step in two halves
        self._check_full_batch(ids)
        self._parked = self._check_actions(actions)
    else:
        self._send_batch(ids, self._splitter_for(len(ids))(actions))
    self._mark_in_flight(ids)


def _lifecycle_recv(self: VecEnv[Any, Any]) -> VecStepResult[Any]:
    _start_recv(self)
    with _Running(self, abandon_on_error=True):
        result = self._recv_batch(self.batch_size)
    self._clear_in_flight(result.env_ids)
    return result


async def _lifecycle_async_recv(self: VecEnv[Any, Any]) -> VecStepResult[Any]:
    _start_recv(self)
    with _Running(self, abandon_on_error=True):
        result = await self._async_recv_batch(self.batch_size)
    self._clear_in_flight(result.env_ids)
    return result


def _start_recv(self: VecEnv[Any, Any]) -> None:
    if self._needs_reset or self._pending or self.closed:
        raise self._not_ready()
    self._check_receivable()


class _Running:
    """Marks a call of the vector env as running (``_pending``) for the ``with`` block.

    With ``abandon_on_error``, an error inside drops the sub-envs in flight and
    makes the vector env need a reset (a recv that failed half-way).
    """

    __slots__ = ("abandon_on_error", "vec")

    def __init__(self, vec: VecEnv[Any, Any], *, abandon_on_error: bool = False) -> None:
        self.vec = vec
        self.abandon_on_error = abandon_on_error

    def __enter__(self) -> None:
        self.vec._pending = True

    def __exit__(self, exc_type: type[BaseException] | None, *_: object) -> None:
        self.vec._pending = False
        if exc_type is not None and self.abandon_on_error:
            _abandon(self.vec)


def _abandon(self: VecEnv[Any, Any]) -> None:
    """After a failed recv: drop what is in flight; the vector env needs a reset."""
    try:
        self._drop_in_flight()
    finally:
        self._clear_in_flight()
        self._needs_reset = True


_LIFECYCLE: tuple[tuple[str, Callable[..., Any]], ...] = (
    ("step", _lifecycle_step),
    ("send", _lifecycle_send),
    ("recv", _lifecycle_recv),
    ("async_recv", _lifecycle_async_recv),
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
