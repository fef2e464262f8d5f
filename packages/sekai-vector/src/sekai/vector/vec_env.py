"""The `VecEnv` base class shared by every vectorisation backend."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Generic

import numpy as np
from numpy.typing import NDArray

from sekai.core import ActType, ObsType
from sekai.core._async_routing import route_async_methods
from sekai.error import InvalidArgument, InvalidArgumentType, NothingInFlight
from sekai.spaces import Space, batch_space
from sekai.utils.seeding import SeedType
from sekai.vector._actions import ActionSplitter, make_action_splitter
from sekai.vector._arguments import (
    GENERATOR_SEED_ERROR,
    NOT_GIVEN,
    actions_argument,
)
from sekai.vector._autoreset import frozen_step, merge_autoreset, needs_autoreset
from sekai.vector._sub_envs import (
    build_envs,
    close_all as close_envs,
    env_call,
    name_sub_envs,
    read_attr as env_get_attr,
    write_attr as env_set_attr,
)
from sekai.vector.results import with_env_ids

if TYPE_CHECKING:
    from types import TracebackType

    from sekai.registry import EnvSpec
    from sekai.vector.results import VecResetResult, VecStepResult

__all__ = [  # noqa: RUF022 (grouped by topic)
    "VecEnv",
    # sekai 0.2's helpers of this module, kept under their names: the functions
    # every backend uses (the autoreset rule, sub-env attributes, seeding).
    "GENERATOR_SEED_ERROR",
    "build_envs",
    "close_envs",
    "env_call",
    "env_get_attr",
    "env_set_attr",
    "frozen_step",
    "merge_autoreset",
    "needs_autoreset",
]


class VecEnv(ABC, Generic[ObsType, ActType]):
    """Base class of vectorised environments: ``num_envs`` environments stepped as one.

    ``observation_space`` and ``action_space`` are the spaces of one sub-env;
    `batch_observation_space` and `batch_action_space` are the
    spaces of a batch (a leading ``num_envs`` axis, see
    [`batch_space`][sekai.spaces.batch_space]). `step` and `reset` return
    [`VecStepResult`][sekai.vector.VecStepResult] / [`VecResetResult`][sekai.vector.VecResetResult]
    with float64 rewards, bool flags and a list of per-env info dicts.

    Autoreset (the default): a sub-env whose episode ends is reset inside the
    same `step`. Its row of the returned batch is then the first
    observation of its new episode, and its info holds the step's info keys
    plus ``"final_observation"`` (the terminal observation), ``"final_info"``
    (the step's info) and ``"reset_info"`` (the reset's info), as the
    ``AutoReset`` wrapper does for a single env.

    Without autoreset, a sub-env that finishes is frozen until the next
    `reset`: it is not stepped again and its action is ignored; every
    later step reports its final observation, reward 0, its final
    ``terminated`` / ``truncated`` flags (so it stays done) and an empty info.
    A sub-env that resets itself (its info carries ``"final_observation"``,
    e.g. because it is wrapped in ``AutoReset``) keeps running and is not
    frozen.

    Every vector env has `async_step` / `async_reset`. By default
    they run `step` / `reset`; [`AsyncVecEnv`][sekai.vector.AsyncVecEnv]
    runs its sub-envs concurrently. As for [`Env`][sekai.core.Env], a subclass
    that overrides ``step`` (or ``reset``) but not its async form gets an async
    method that runs its override, decided once when the class is created.

    Partial batches: `send` starts stepping some sub-envs and `recv` hands
    back the first `batch_size` of those sent that are done, with their ids
    in `VecStepResult.env_ids` ([`VecStepResult`][sekai.vector.VecStepResult]), so a
    learner never waits for the slowest sub-env. Autoreset, freezing and
    seeding hold per sub-env as in `step`. ``batch_size`` is chosen at
    construction by the backends that can return early (``SyncVecEnv``,
    ``AsyncVecEnv``, ``ProcVecEnv``); it is ``num_envs`` everywhere else,
    where ``send`` + ``recv`` is a `step` in two halves.

    A vector env is a context manager that closes itself on exit; using it
    after `close` raises [`VecEnvClosed`][sekai.error.VecEnvClosed].

    Threads: a vector env belongs to one thread at a time. A call made while
    another call of it runs (from a second thread, from inside a sub-env, or
    while an ``async_step()`` is still awaited) raises
    [`AsyncCallPending`][sekai.error.AsyncCallPending] at once instead of mixing the two;
    hand a vector env to another thread only between calls.

    Failures: a call that raises drops its results. A step where a sub-env
    raised leaves the vector env usable (see each backend for where its
    sub-envs stand); a `reset` or `recv` that raised, and a call
    interrupted (Ctrl-C, cancellation) on a backend that cannot complete
    it, make the next call raise [`ResetRequired`][sekai.error.ResetRequired] until
    `reset`.

    Writing a backend: a direct subclass implements `step`, `reset`
    and `close` itself. sekai's own backends subclass ``HookedVecEnv``
    (internal, in ``sekai.vector._lifecycle``) instead: they inherit the lifecycle as
    its ``step``, ``reset``, ``send``, ``recv`` and their async forms, written
    once for every backend, and implements only batch hooks:

    * ``_step_batch(batch)``: step the sub-envs with an already checked
      batch of actions (``self._check_actions(actions)``, which the backend
      sets at construction), apply autoreset or freezing, and return the
      [`VecStepResult`][sekai.vector.VecStepResult];
    * ``_reset_batch(seeds, options)``: reset every sub-env with one seed
      and one options entry each, already derived by the vector seeding
      rule, and return the [`VecResetResult`][sekai.vector.VecResetResult];
    * ``_async_step_batch`` / ``_async_reset_batch`` (optional): their async
      forms, which by default run the sync ones;
    * ``_send_batch(env_ids, actions)``, ``_recv_batch(count)`` and
      ``_drop_in_flight()`` (optional, with ``_async_recv_batch``): start
      stepping the given sub-envs with one action each, hand back a
      [`VecStepResult`][sekai.vector.VecStepResult] of ``count`` of them that are
      done (with ``env_ids``), and forget the ones still in flight (before
      a reset). Without them, ``send`` takes every sub-env at once and
      ``recv`` runs ``_step_batch``.

    The lifecycle owns the rest: closed, never reset and call-still-running
    checks (the call gate, which also keeps a second thread out), the
    action-batch check, the per-env seeds and options, the sub-envs in
    flight between ``send`` and ``recv``, and what a failed or interrupted
    call leaves (the ``_on_interrupt`` / ``_finish_interrupted`` hooks). Its
    own bookkeeping cannot be split by a Ctrl-C: one that lands there is
    raised when the call ends.

    Attributes:
        num_envs: Number of sub-environments.
        observation_space: The space of one sub-env's observation.
        action_space: The space of one sub-env's action.
        metadata: Free-form description (render modes, ...).
        autoreset: Whether a sub-env whose episode ends is reset within the
            same step (else it is frozen until `reset`).
        spec: The [`EnvSpec`][sekai.registry.EnvSpec] of the sub-envs when
            [`sekai.registry.make_vec`][sekai.registry.make_vec] built this
            vector env, else ``None``.
    """

    metadata: dict[str, Any] = {}  # noqa: RUF012 - replaced, never mutated, by instances
    spec: EnvSpec | None = None
    autoreset: bool = True  # each backend sets its own in __init__

    num_envs: int
    observation_space: Space[Any]
    action_space: Space[Any]

    _batch_obs_cache: tuple[Space[Any], int, Space[Any]] | None = None
    _batch_act_cache: tuple[Space[Any], int, Space[Any]] | None = None

    _closed: bool = False
    # Partial batches: the batch_size chosen at construction (None: num_envs),
    # which sub-envs were sent actions and not received yet, and how many.
    _batch_size: int | None = None
    _in_flight: NDArray[np.bool_] | None = None
    _flying: int = 0
    _handed_back: NDArray[np.int64] | None = None  # ids of the last recv, in row order
    _splitters: dict[int, ActionSplitter] | None = None
    _parked: Any = None  # send() of a vector env without partial-batch hooks

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        route_async_methods(cls)

    # -- spaces -----------------------------------------------------------------

    @property
    def batch_observation_space(self) -> Space[Any]:
        """The space of a batch of observations, with a leading ``num_envs`` axis.

        Computed from `observation_space` on first use (and again if
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
                action space raises [`InvalidAction`][sekai.error.InvalidAction] (a
                ValueError) on the backends that run sub-env objects.
            InvalidObservation: A sub-env returned an observation that does
                not fit `observation_space`, a ``terminated`` /
                ``truncated`` that is not a bool (or 0 / 1), or a reward that
                is not a number; the message names the sub-env.
            ResetRequired: `reset` was never called, or the last
                reset, recv or interrupted call left the sub-envs out of step.
            AsyncCallPending: Another call of this vector env is running
                (another thread, an unfinished ``async_step()``).
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
                [`make_seed_sequence`][sekai.utils.seeding.make_seed_sequence], identical on
                every backend); a list gives each sub-env its own seed (an
                int, a Generator or ``None``); ``None`` continues each
                sub-env's random stream.
            options: One dict given to every sub-env, or a list with one dict
                (or ``None``) per sub-env.

        Raises:
            InvalidArgumentType: ``seed`` is a single Generator, or of
                another type, or ``options`` is not a dict, a list or
                ``None`` (a ``TypeError``).
            InvalidArgument: A list has the wrong length, or an int seed is
                negative (a ``ValueError``).
            VecEnvClosed: The vector env is closed.
        """

    @abstractmethod
    def close(self) -> None:
        """Close every sub-env and release the backend's resources.

        Every sub-env is closed even when closing another raises; the first
        such error is re-raised once everything is released. Closing twice
        is harmless.
        """

    async def async_step(
        self, actions: Any = NOT_GIVEN, *, action: Any = NOT_GIVEN
    ) -> VecStepResult[Any]:
        """Async form of `step`; the default runs `step`.

        Args:
            actions: The batch of actions, as for `step`.
            action: The same batch by keyword under the name sekai 0.2 gave
                it on ``SyncVecEnv``, ``ProcVecEnv`` and ``NativeVecEnv``
                (kept for compatibility; give one of the two).

        Raises:
            TypeError: Both ``actions`` and ``action`` are given, or neither.
        """
        if action is not NOT_GIVEN or actions is NOT_GIVEN:
            actions = actions_argument(actions, action, "async_step")
        return self.step(actions)

    async def async_reset(
        self,
        *,
        seed: list[SeedType] | SeedType = None,
        options: list[dict[str, Any] | None] | dict[str, Any] | None = None,
    ) -> VecResetResult[Any]:
        """Async form of `reset`; the default runs `reset`."""
        return self.reset(seed=seed, options=options)

    @property
    def batch_size(self) -> int:
        """How many sub-envs `recv` hands back: ``num_envs`` unless chosen at construction."""
        return self.num_envs if self._batch_size is None else self._batch_size

    def send(self, actions: Any, env_ids: Any = None) -> None:
        """Start stepping some sub-envs; `recv` collects them.

        Args:
            actions: One action per sub-env of ``env_ids``, as a batch (see
                `step`) with ``len(env_ids)`` rows, in the order of
                ``env_ids``.
            env_ids: The sub-envs to step: distinct ints in
                ``[0, num_envs)``, none of them sent and not received yet.
                ``None`` takes the sub-envs `recv` last handed back,
                in the order of its rows (so ``send(policy(result.observations))``
                gives each row's action to its sub-env); before any
                `recv`, every sub-env not in flight (all of them
                after `reset`).

        Raises:
            InvalidArgument: ``env_ids`` names a sub-env twice, out of range
                or still in flight, or is not a non-empty 1-D sequence of
                ints (a ``ValueError``); nothing is sent.
            InvalidAction: The batch does not match ``env_ids``; nothing is
                sent.
            ResetRequired: `reset` was never called.
            VecEnvClosed: The vector env is closed.

        This default, for a vector env that steps all its sub-envs at once,
        keeps the actions of every sub-env for `recv`, which runs
        `step`.
        """
        ids = self._ids_to_send(env_ids)
        self._check_full_batch(ids)
        self._parked = actions
        self._mark_in_flight(ids)

    def recv(self) -> VecStepResult[Any]:
        """Wait for the first `batch_size` sent sub-envs to finish their step.

        Returns:
            Their rows, in the order they finished (ties by id), with
            `env_ids` saying which
            sub-envs they are; the next `send` (with ``env_ids=None``)
            takes actions for exactly those. A sub-env whose episode ended
            was reset (or frozen) as in `step`.

        Raises:
            NothingInFlight: Fewer than ``batch_size`` sub-envs are in flight.
            ResetRequired: `reset` was never called.
            VecEnvClosed: The vector env is closed.

        A sub-env raising during its step makes `recv` raise; the
        vector env then needs a `reset`.
        """
        self._check_receivable()
        actions, self._parked = self._parked, None
        self._clear_in_flight()
        result = self.step(actions)
        return with_env_ids(result, np.arange(self.num_envs)) if result.env_ids is None else result

    async def async_recv(self) -> VecStepResult[Any]:
        """Async form of `recv`; the default runs `recv`."""
        return self.recv()

    # -- partial-batch bookkeeping, shared by the defaults and the lifecycle -------------

    def _ids_to_send(self, env_ids: Any) -> NDArray[np.int64]:
        """Check the ``env_ids`` of `send` (``None``: every idle sub-env) and return them.

        Raises:
            InvalidArgument: ``env_ids`` is not a non-empty 1-D sequence of
                ints, names a sub-env out of range, twice or in flight, or
                is ``None`` while every sub-env is in flight.
        """
        n = self.num_envs
        flying = self._in_flight
        if env_ids is None:
            back = self._handed_back
            if back is not None and flying is not None and not flying[back].any():
                return back
            if flying is None or not self._flying:
                return np.arange(n, dtype=np.int64)
            ids = np.flatnonzero(~flying)
            if len(ids) == 0:
                raise InvalidArgument(
                    f"{self!r}: send() found no sub-env to step: all {n} are in flight; "
                    "call recv() first"
                )
            return ids.astype(np.int64)
        ids = np.asarray(env_ids)
        if ids.ndim != 1 or len(ids) == 0 or ids.dtype.kind not in "iu":
            # Ids of the wrong type (floats, text) are a TypeError too; a wrong shape is not.
            wrong_type = ids.size > 0 and ids.dtype.kind not in "iu"
            raise (InvalidArgumentType if wrong_type else InvalidArgument)(
                f"{self!r}: send() needs env_ids as a non-empty 1-D sequence of ints, "
                f"got {env_ids!r}"
            )
        ids = ids.astype(np.int64)
        if ids.min() < 0 or ids.max() >= n:
            raise InvalidArgument(f"{self!r}: send() needs env_ids in [0, {n}), got {ids.tolist()}")
        if len(np.unique(ids)) != len(ids):
            raise InvalidArgument(
                f"{self!r}: send() got env_ids naming a sub-env twice: {ids.tolist()}"
            )
        if flying is not None and flying[ids].any():
            busy = ids[flying[ids]].tolist()
            raise InvalidArgument(
                f"{self!r}: send() got env_ids {ids.tolist()}, but {name_sub_envs(busy)} "
                f"{'was' if len(busy) == 1 else 'were'} sent actions and not "
                "received yet; recv() them before sending again"
            )
        return ids

    def _check_full_batch(self, ids: NDArray[np.int64]) -> None:
        """Raise `InvalidArgument` unless ``ids`` is every sub-env in order (no partial batches)."""
        n = self.num_envs
        if len(ids) != n or (ids != np.arange(n)).any():
            raise InvalidArgument(
                f"{self!r} steps every sub-env at once: send() takes actions for all {n} "
                f"of them, in order, got env_ids {ids.tolist()}"
            )

    def _mark_in_flight(self, ids: NDArray[np.int64]) -> None:
        flying = self._in_flight
        if flying is None:
            flying = self._in_flight = np.zeros(self.num_envs, dtype=bool)
        flying[ids] = True
        self._flying += len(ids)
        self._handed_back = None

    def _clear_in_flight(self, ids: NDArray[np.int64] | None = None) -> None:
        """Mark ``ids`` (``None``: every sub-env) as no longer in flight."""
        flying = self._in_flight
        if flying is None:
            return
        if ids is None:
            flying[:] = False
            self._flying = 0
            self._handed_back = None
        else:
            flying[ids] = False
            self._flying -= len(ids)
            self._handed_back = ids  # send(env_ids=None) goes to them, in this order

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

    # -- state ----------------------------------------------------------------------------

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
        """Whether `close` was called.

        A direct subclass that implements `close` itself may set it
        (``self.closed = True``), as sekai 0.2's vector envs did.
        """
        return self._closed

    @closed.setter
    def closed(self, value: bool) -> None:
        self._closed = bool(value)

    # -- sub-env attributes -----------------------------------------------------------

    def call(self, method: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call ``method`` on every sub-env and return the ``num_envs`` results.

        When the name is not callable, its value is returned instead (so
        ``call`` also reads attributes). Like `get_attr`, the name is
        looked up through each sub-env's wrapper stack.
        """
        raise NotImplementedError(f"{type(self).__name__} does not implement call()")

    def get_attr(self, name: str) -> list[Any]:
        """Read attribute ``name`` of every sub-env, searching its wrapper stack.

        The outermost layer of each sub-env that defines ``name`` answers (as
        with [`Wrapper.get_attr`][sekai.core.Wrapper.get_attr]).

        Raises:
            AttributeError: A sub-env has no such attribute.
        """
        raise NotImplementedError(f"{type(self).__name__} does not implement get_attr()")

    def set_attr(self, name: str, values: list[Any] | Any) -> None:
        """Set attribute ``name`` on every sub-env.

        Args:
            name: The attribute. It is set on the outermost layer of each
                sub-env's wrapper stack that has it (as with
                [`Wrapper.set_attr`][sekai.core.Wrapper.set_attr]).
            values: A list of ``num_envs`` values (one per sub-env), or any
                other object, given to every sub-env.

        Raises:
            InvalidArgument: ``values`` is a list of the wrong length (a
                ``ValueError``).
            AttributeError: A sub-env has no such attribute.
        """
        raise NotImplementedError(f"{type(self).__name__} does not implement set_attr()")

    # -- misc ---------------------------------------------------------------------------

    @property
    def unwrapped(self) -> VecEnv[Any, Any]:
        """The innermost vector env under any [`VecWrapper`][sekai.vector.VecWrapper]."""
        return self

    def __len__(self) -> int:
        """``num_envs``: the number of sub-environments."""
        return self.num_envs

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
