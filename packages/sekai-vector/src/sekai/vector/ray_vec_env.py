"""RayVecEnv: sub-envs run in Ray actors, on one machine or across a Ray cluster."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

try:
    import cloudpickle
    import ray
except ImportError as _missing:
    raise ImportError(
        "RayVecEnv needs Ray and cloudpickle; install the sekai-vector[ray] distribution "
        "(or `pip install ray cloudpickle`)"
    ) from _missing

from sekai._internal.validation import check_bool, check_int, check_real
from sekai.core import ActType, Env, ObsType
from sekai.spaces._layout import copier_for
from sekai.vector._arguments import check_num_workers, check_step_timeout
from sekai.vector._in_process import check_batch_size, check_env_fns
from sekai.vector._ray_actor import (
    RaySession,
    Restart,
    check_actor_options,
    default_num_workers,
    scheduling_strategies,
    stacks_observations,
)
from sekai.vector._ray_pool import ActorPool, ActorSlot
from sekai.vector._remote import RemoteVecEnv, split_evenly
from sekai.vector._replies import Reply
from sekai.vector.results import VecResetResult

__all__ = ["RayVecEnv"]


class RayVecEnv(RemoteVecEnv[ObsType, ActType]):
    """Runs sub-environments in Ray actors, for simulators that need a cluster.

    Sub-envs are split evenly, in order, over ``num_workers`` actors (as
    [`ProcVecEnv`][sekai.vector.ProcVecEnv] splits them over processes); each
    actor builds its sub-envs from the env factories, which are
    cloudpickled and put in Ray's object store once. Every command (a step,
    a reset, ...) is one remote call per actor, never per sub-env. For
    array observations (Box, Discrete, MultiDiscrete, MultiBinary, and Dict
    / Tuple / MaskedBox of them) each actor sends its sub-envs' rows as one
    stacked batch, which Ray hands over without copying; the batches
    returned here are new arrays.

    Autoreset, frozen sub-envs, seeding, options, ``call`` / ``get_attr`` /
    ``set_attr``, async methods and partial batches follow
    [`VecEnv`][sekai.vector.VecEnv] exactly: the same seed and actions give
    the trajectories of [`SyncVecEnv`][sekai.vector.SyncVecEnv].

    The cluster: if Ray is already initialised, its session is used (and
    ``address`` ignored); otherwise ``ray.init(address=address)`` starts or
    joins one, as ``ray.init`` does (``None``: a running local cluster if
    there is one, else a new local one). A new local session started here
    listens on loopback only (node address ``127.0.0.1``, no dashboard),
    where Ray's default would listen on the node's address; a session the
    user started, or a cluster joined, keeps its own settings. A session a
    RayVecEnv started is shut down when the last RayVecEnv using it closes;
    call ``ray.init`` yourself to keep it, and to choose its options.

    Failures: an exception in a sub-env raises
    [`VecEnvWorkerError`][sekai.error.VecEnvWorkerError] with the sub-env's ``index``,
    the actor's ``worker_traceback`` and, when it can be pickled, the
    original exception as ``__cause__``; the replies of the other actors
    are read first, so the vector env stays usable (the results of that
    call are dropped; a failed `recv` needs a `reset`); the
    other sub-envs of the failing one's actor take their step too. An
    observation, reward or flag that does not fit raises
    [`InvalidObservation`][sekai.error.InvalidObservation] naming the sub-env, as on every
    backend. A step or reset interrupted here (Ctrl-C, a cancelled
    ``await``) runs to its end in the actors, and the next call waits for
    it first (its results are dropped). An actor that dies raises
    VecEnvWorkerError naming it and its sub-envs
    (``index`` is its first sub-env), and so does every later call; with
    ``step_timeout``, so does an actor that does not answer in time, which
    is killed. With
    ``restart_failed=True`` a dead actor is replaced instead: a new actor
    builds its sub-envs and resets them (without a seed or options, as an
    autoreset does), and the call that found it dead is sent again. Each of
    its sub-envs then reports, at its next step and without being stepped,
    the end of its interrupted episode: the new episode's first
    observation, reward 0, ``terminated=False``, ``truncated=True`` and the
    info ``{"worker_restarted": True, "reset_info": <the reset's info>}``.
    The episode's last observation died with the actor, so the info has no
    ``"final_observation"`` (nor ``"final_info"``): do not bootstrap a value
    from it. Without autoreset those sub-envs are then frozen, reporting
    that observation; sub-envs frozen before the death stay frozen with
    their rows. A restart that happens during a reset just runs the reset
    on the new actor.

    Args:
        env_fns: One callable per sub-env, run in its actor, each returning
            a new [`Env`][sekai.core.Env]. They travel with cloudpickle, so
            lambdas and locally defined classes work. If one raises, every
            actor is killed and the error is raised as VecEnvWorkerError.
        autoreset: Reset sub-envs within the step that ends their episode;
            ``False`` freezes them instead (see [`VecEnv`][sekai.vector.VecEnv]).
        num_workers: Number of actors (1 to ``num_envs``). ``None``: as
            many as the cluster's CPUs allow at ``num_cpus`` each (one per
            sub-env when ``num_cpus`` is 0), at most ``num_envs``.
        batch_size: How many sub-envs `recv` hands back (``None``:
            all of them): the first whose actors answer. An actor steps the
            sub-envs sent to it together and answers for all of them;
            actions sent to a busy actor wait here until it answers.
        num_cpus: CPUs Ray reserves for each actor (may be fractional).
            The constructor waits until every actor is placed: ask for no
            more than the cluster has (Ray logs a warning for requests it
            cannot place).
        resources: Custom Ray resources each actor needs, e.g.
            ``{"market_data": 1}``.
        scheduling_strategy: Where actors go: a Ray scheduling strategy
            (``"SPREAD"``, a ``PlacementGroupSchedulingStrategy``, ...) for
            every actor, or a sequence with one per actor (e.g. one bundle
            of a placement group each).
        actor_options: Other Ray actor options (``num_gpus``, ``memory``,
            ``runtime_env``, ...). The options RayVecEnv sets itself
            (``num_cpus``, ``resources``, ``scheduling_strategy``,
            ``max_restarts``, ``max_concurrency``, ``lifetime``, ``name``,
            ...) are refused here.
        address: The cluster to join when Ray is not initialised yet.
        restart_failed: Replace actors that die (see above).
        max_restarts: How many times each actor may be replaced over the
            vector env's life; when they are used up, a death is raised.
        restart_delay: Seconds to wait before each replacement (time for
            the cluster to recover).
        close_timeout: Seconds `close` waits in total for the actors
            to close their sub-envs before killing them.
        step_timeout: Seconds an actor may take to answer a call (a step,
            including its autoreset, a reset, a `recv`, ``call`` /
            ``get_attr`` / ``set_attr``); ``None`` (the default) waits
            without limit. An actor that takes longer is killed and the call
            raises VecEnvWorkerError naming it and its sub-envs, once the
            other actors have answered; every later call reports it dead
            (close the vector env and build a new one). A late actor is not
            replaced, even with ``restart_failed=True``. The constructor is
            not bounded by it (it waits until every actor is placed).

    Raises:
        ImportError: Ray or cloudpickle is not installed (they come with the
            ``sekai-vector[ray]`` distribution); raised on import.
        TypeError, ValueError: A bad argument.
        SpaceMismatch: The sub-envs do not all have the same spaces.
        VecEnvWorkerError: A factory raised or returned something that is
            not an Env, or an actor died while starting.

    Examples:
        >>> ray.init(num_cpus=4)  # doctest: +SKIP
        >>> with RayVecEnv([make_env] * 16, num_workers=4) as vec:  # doctest: +SKIP
        ...     result = vec.reset(seed=0)
        ...     result = vec.step(vec.batch_action_space.sample())

    Attributes:
        autoreset: Whether finished sub-envs are reset within the step.
        num_workers: Number of actors.
        restart_failed: Whether dead actors are replaced.
        max_restarts: The ``max_restarts`` argument.
        restart_delay: The ``restart_delay`` argument.
        close_timeout: The ``close_timeout`` argument.
        step_timeout: The ``step_timeout`` argument.
    """

    _backend: ClassVar[str] = "RayVecEnv"
    _worker_name: ClassVar[str] = "an actor"

    def __init__(
        self,
        env_fns: Sequence[Callable[[], Env[ObsType, ActType]]],
        *,
        autoreset: bool = True,
        num_workers: int | None = None,
        batch_size: int | None = None,
        num_cpus: float = 1.0,
        resources: Mapping[str, float] | None = None,
        scheduling_strategy: Any = None,
        actor_options: Mapping[str, Any] | None = None,
        address: str | None = None,
        restart_failed: bool = False,
        max_restarts: int = 3,
        restart_delay: float = 1.0,
        close_timeout: float = 5.0,
        step_timeout: float | None = None,
    ) -> None:
        self._closed = True  # until construction succeeds
        self._pool: ActorPool | None = None
        self._session: int | None = None
        fns = check_env_fns(env_fns, "RayVecEnv")
        n = self.num_envs = len(fns)
        self.autoreset = check_bool(autoreset, "RayVecEnv: autoreset")
        self._batch_size = check_batch_size(batch_size, n, "RayVecEnv")
        num_workers = check_num_workers(num_workers, n, "RayVecEnv")
        cpus = check_real(num_cpus, "RayVecEnv: num_cpus", minimum=0, expected="a number >= 0")
        self.restart_failed = check_bool(restart_failed, "RayVecEnv: restart_failed")
        self.max_restarts = check_int(max_restarts, "RayVecEnv: max_restarts", minimum=0)
        self.restart_delay = check_real(
            restart_delay,
            "RayVecEnv: restart_delay",
            minimum=0,
            expected="a number of seconds >= 0",
        )
        self.close_timeout = check_real(
            close_timeout,
            "RayVecEnv: close_timeout",
            finite=False,
            minimum=0,
            expected="a number of seconds >= 0",
        )
        self.step_timeout = check_step_timeout(step_timeout, "RayVecEnv")
        if address is not None and not isinstance(address, str):
            raise TypeError(f"RayVecEnv: address must be None or a str, got {address!r}")
        options = check_actor_options(cpus, resources, actor_options)
        self._session = RaySession.join(address)
        try:
            self.num_workers = num_workers or default_num_workers(n, cpus)
            bounds = split_evenly(n, self.num_workers)
            strategies = scheduling_strategies(scheduling_strategy, self.num_workers)
            slots = [
                ActorSlot(k, lo, hi - lo, strategy)
                for k, ((lo, hi), strategy) in enumerate(zip(bounds, strategies, strict=True))
            ]
            timeout = self.step_timeout
            self._pool = pool = ActorPool(
                slots,
                ray.put(cloudpickle.dumps(list(fns))),
                options,
                self.autoreset,
                self._restart_of,
                restart_failed=self.restart_failed,
                max_restarts=self.max_restarts,
                restart_delay=self.restart_delay,
                timeout=None if timeout == float("inf") else timeout,
            )
            self._accept_started(pool.start())
        except BaseException:
            with contextlib.suppress(Exception), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the construction error is the one to report
                self._release()
            raise
        space = self.observation_space
        self._setup(pool, bounds, stacked=stacks_observations(space))
        self._copy = copier_for(space)
        # A replacement actor re-freezes its frozen sub-envs with their rows: kept only then.
        self._frozen_rows: dict[int, tuple[Any, bool, bool]] | None = (
            {} if self.restart_failed and not self.autoreset else None
        )
        # A step or reset an interrupt left running.
        self._interrupted: tuple[str, list[Any]] | None = None
        self._closed = False

    # -- properties -------------------------------------------------------------------

    @property
    def actors(self) -> list[Any]:
        """The Ray actor handles, one per worker, in sub-env order (a replaced actor's new one)."""
        return [] if self._pool is None else [slot.handle for slot in self._pool.slots]

    @property
    def restarts(self) -> int:
        """How many dead actors were replaced since construction."""
        return 0 if self._pool is None else sum(slot.restarts for slot in self._pool.slots)

    # -- restarts -----------------------------------------------------------------------

    def _restart_of(self, slot: ActorSlot) -> Restart:
        rows = self._frozen_rows or {}
        frozen = [
            (i - slot.first, *rows[i])
            for i in range(slot.first, slot.end)
            if self._frozen[i] and i in rows
        ]
        return Restart(frozen)

    def _on_frozen(self, rows: Iterable[tuple[int, Any, bool, bool]]) -> None:
        """Remember ``(id, observation, terminated, truncated)`` of sub-envs that froze.

        Kept only when a replacement actor may need them (see ``_restart_of``).
        """
        kept = self._frozen_rows
        if kept is not None:
            for i, observation, terminated, truncated in rows:
                kept[i] = (self._copy(observation), bool(terminated), bool(truncated))

    def _reset_result(self, replies: list[Reply]) -> VecResetResult[Any]:
        result = super()._reset_result(replies)
        if self._frozen_rows:
            self._frozen_rows.clear()
        return result

    # -- interrupted calls --------------------------------------------------------------

    def _on_interrupt(self, call: str) -> None:
        """An interrupted step or reset runs to its end in the actors: read it before going on.

        The actors cannot be stopped half-way, and every later call to an
        actor runs after it; the next call of this vector env first waits for
        the interrupted one and records what it froze (its results are
        dropped). An interrupted ``send`` / ``recv`` drops what is in flight
        (the next call raises ResetRequired until `reset`).
        """
        pool = self._pool
        running = None
        if pool is not None:
            running, pool.running = pool.running, None
        if call in ("step", "reset") and running is not None and running[0] == call:
            self._interrupted = running
            self._unfinished = True
        else:
            super()._on_interrupt(call)

    def _finish_interrupted(self) -> None:
        interrupted, self._interrupted = self._interrupted, None
        self._unfinished = False
        if interrupted is None or self._pool is None:
            return
        call, calls = interrupted
        with contextlib.suppress(Exception):  # the call's results and errors are dropped
            replies = self._pool.gather_calls(calls, f"{call}()")
            if call == "reset":
                self._frozen[:] = False
            self._batches(replies, f"{call}()")

    # -- shutdown ---------------------------------------------------------------------

    def close(self) -> None:
        """Close every sub-env and kill every actor this vector env created.

        The actors get ``close_timeout`` seconds in total to close their
        sub-envs; those still busy are then killed (with a
        `RuntimeWarning`). The cluster keeps running; a Ray session
        that a RayVecEnv started is shut down when the last RayVecEnv using
        it closes. Closing twice is harmless; actors of a vector env that is
        never closed die when their handles are garbage collected or the
        driver exits, as Ray does for every actor.

        Raises:
            VecEnvWorkerError: The first failure: a sub-env's ``close()``
                raised, or an actor had died without it being reported yet.
                Raised once every actor is gone.
        """
        if self._closed:
            return
        with self._closing():
            self._closed = True
            self._drop_in_flight()
            self._clear_in_flight()
            self._release()

    def _release(self) -> None:
        """Close the sub-envs, end the actors, leave the Ray session; raise the first failure."""
        failure: BaseException | None = None
        try:
            if self._pool is not None:
                failure = self._pool.close(self.close_timeout)
        finally:
            session, self._session = self._session, None
            if session is not None:
                RaySession.leave(session)
        if failure is not None:
            raise failure
