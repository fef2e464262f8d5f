"""RayVecEnv: sub-envs run in Ray actors, on one machine or across a Ray cluster."""

from __future__ import annotations

import asyncio
import contextlib
import time
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

try:
    import cloudpickle
    import ray
    from ray.exceptions import RayActorError, RayError
except ImportError as _missing:
    raise ImportError(
        "RayVecEnv needs Ray and cloudpickle; install the sekai-vector[ray] distribution "
        "(or `pip install ray cloudpickle`)"
    ) from _missing

from sekai._validation import check_bool, check_int, check_real
from sekai.core import ActType, Env, InfoDict, ObsType
from sekai.error import VecEnvWorkerError
from sekai.spaces._layout import copier_for
from sekai.utils.seeding import SeedType
from sekai.vector._actions import make_action_checker
from sekai.vector._arguments import per_env_values
from sekai.vector._autoreset import rewards_array
from sekai.vector._in_process import check_batch_size, check_env_fns, check_same_spaces
from sekai.vector._obs_batch import ObsStacker, make_obs_stacker
from sekai.vector._ray_actor import (
    ActorCall,
    ActorSlot,
    RaySession,
    Restart,
    check_actor_options,
    default_num_workers,
    remote_group,
    scheduling_strategies,
    stacks_observations,
    wait_all,
)
from sekai.vector._replies import (
    Batch,
    Failure,
    Reply,
    Started,
    Status,
    invalid_observation,
    worker_error,
)
from sekai.vector._rows import get_row
from sekai.vector.proc_vec_env import _make_slicer, _split_evenly
from sekai.vector.results import VecResetResult, VecStepResult
from sekai.vector.vec_env import HookedVecEnv

__all__ = ["RayVecEnv"]

_OK = Status.OK.value
_ATTRIBUTE_ERROR = Status.ATTRIBUTE_ERROR.value
_INVALID = Status.INVALID_OBSERVATION.value


class RayVecEnv(HookedVecEnv[ObsType, ActType]):
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
    there is one, else a new local one). A session a RayVecEnv started is
    shut down when the last RayVecEnv using it closes; call ``ray.init``
    yourself to keep it, and to choose its options.

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
    (``index`` is its first sub-env), and so does every later call. With
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
    """

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
    ) -> None:
        self._closed = True  # until construction succeeds
        self._slots: list[ActorSlot] = []
        self._session: int | None = None
        fns = check_env_fns(env_fns, "RayVecEnv")
        n = self.num_envs = len(fns)
        self.autoreset = check_bool(autoreset, "RayVecEnv: autoreset")
        self._batch_size = check_batch_size(batch_size, n, "RayVecEnv")
        if num_workers is not None:
            num_workers = check_int(
                num_workers,
                "RayVecEnv: num_workers",
                minimum=1,
                maximum=n,
                expected=f"None or an int in [1, {n}] (there are {n} sub-envs)",
            )
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
        if address is not None and not isinstance(address, str):
            raise TypeError(f"RayVecEnv: address must be None or a str, got {address!r}")
        options = check_actor_options(cpus, resources, actor_options)
        self._session = RaySession.join(address)
        try:
            self.num_workers = num_workers or default_num_workers(n, cpus)
            bounds = _split_evenly(n, self.num_workers)
            strategies = scheduling_strategies(scheduling_strategy, self.num_workers)
            self._blob: Any = ray.put(cloudpickle.dumps(list(fns)))
            self._options = options
            self._slots = [
                ActorSlot(k, lo, hi - lo, strategy)
                for k, ((lo, hi), strategy) in enumerate(zip(bounds, strategies, strict=True))
            ]
            for slot in self._slots:
                slot.handle = self._create(slot)
            calls = [ActorCall(slot, "start", (None,)) for slot in self._slots]
            replies = self._gather(calls, "its env factory", restart=False)
            self._raise_failures(replies, "its env factory")
            started: list[Started] = [reply.payload for reply in replies]
            self.observation_space, self.action_space = check_same_spaces(
                "RayVecEnv", [entry for group in started for entry in group.spaces]
            )
            self.metadata = started[0].metadata
        except BaseException:
            with contextlib.suppress(Exception), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the construction error is the one to report
                self._release()
            raise
        space = self.observation_space
        self._stacked = stacks_observations(space)
        self._stackers: dict[int, ObsStacker] = {n: make_obs_stacker(space, n)}
        self._copy = copier_for(space)
        self._check_actions = make_action_checker(self.action_space, n)
        self._slice_actions = _make_slicer(self.action_space, bounds)
        self._frozen: NDArray[np.bool_] = np.zeros(n, dtype=bool)
        self._frozen_view: NDArray[np.bool_] = self._frozen.view()
        self._frozen_view.flags.writeable = False
        # A replacement actor re-freezes its frozen sub-envs with their rows: kept only then.
        self._frozen_rows: dict[int, tuple[Any, bool, bool]] | None = (
            {} if self.restart_failed and not self.autoreset else None
        )
        self._broken = False
        # Partial batches: the actor of each sub-env; per busy actor, its call in
        # flight and the sub-envs of it; per busy actor, the sub-envs waiting for
        # it; the rows answered and not handed back yet.
        self._worker_of = np.repeat(np.arange(self.num_workers), [hi - lo for lo, hi in bounds])
        self._sent: dict[int, tuple[ActorCall, list[int]]] = {}
        self._waiting: dict[int, list[tuple[int, Any]]] = {}
        self._answered: deque[tuple[int, Any, float, bool, bool, InfoDict]] = deque()
        # The step or reset being waited for, and one an interrupt left running.
        self._running: tuple[str, list[ActorCall]] | None = None
        self._interrupted: tuple[str, list[ActorCall]] | None = None
        self._closed = False

    # -- properties -------------------------------------------------------------------

    @property
    def frozen(self) -> NDArray[np.bool_]:
        """Read-only bool array: which sub-envs are frozen (only with ``autoreset=False``)."""
        return self._frozen_view

    @property
    def actors(self) -> list[Any]:
        """The Ray actor handles, one per worker, in sub-env order (a replaced actor's new one)."""
        return [slot.handle for slot in self._slots]

    @property
    def restarts(self) -> int:
        """How many dead actors were replaced since construction."""
        return sum(slot.restarts for slot in self._slots)

    # -- actors -----------------------------------------------------------------------

    def _create(self, slot: ActorSlot) -> Any:
        options = dict(self._options)
        if slot.strategy is not None:
            options["scheduling_strategy"] = slot.strategy
        group = remote_group().options(**options)
        return group.remote(self._blob, slot.first, slot.count, self.autoreset)

    def _settle(self, call: ActorCall, what: str, restart: bool = True) -> Reply:
        """The reply of ``call``; a dead actor is replaced (and the call sent again) or raised."""
        while True:
            try:
                reply: Reply = ray.get(call.ref)
            except RayActorError as error:
                self._replace(call.slot, error, restart)
                call.send()
            except RayError as error:  # e.g. a result Ray could not serialise
                slot = call.slot
                raise VecEnvWorkerError(
                    f"RayVecEnv: actor {slot.index} (sub-env{slot.plural} {slot.sub_envs}) "
                    f"failed in {what}: {error}",
                    slot.first,
                    str(error),
                ) from error
            else:
                return reply

    def _gather(self, calls: list[ActorCall], what: str, restart: bool = True) -> list[Reply]:
        """Every call's reply; every actor answers (or is replaced) before anything is raised."""
        try:
            return ray.get([call.ref for call in calls])
        except RayError:
            pass
        replies: list[Reply] = []
        first: VecEnvWorkerError | None = None
        for call in calls:
            try:
                replies.append(self._settle(call, what, restart))
            except VecEnvWorkerError as error:
                first = first or error
        if first is not None:
            raise first
        return replies

    def _replace(self, slot: ActorSlot, error: RayActorError, restart: bool) -> None:
        """Replace the dead actor of ``slot`` (within its budget), or raise its death."""
        allowed = restart and self.restart_failed
        while allowed and slot.restarts < self.max_restarts:
            slot.restarts += 1
            with contextlib.suppress(Exception):
                ray.kill(slot.handle, no_restart=True)
            if self.restart_delay:
                time.sleep(self.restart_delay)
            slot.handle = self._create(slot)
            try:
                reply = ray.get(slot.handle.start.remote(self._restart_of(slot)))
            except RayActorError as again:
                error = again
                continue
            if reply.status != _OK:  # its sub-envs could not be rebuilt or reset
                self._break(slot, "its replacement failed to start; close this vector env")
                self._raise_failures([reply], f"restarting actor {slot.index}")
            return
        hint = self._death_hint(allowed)
        self._break(slot, hint)
        raise slot.death_error(error, hint=hint) from error

    def _death_hint(self, restarting: bool) -> str:
        if not restarting:
            return (
                "close this vector env and create a new one, or build it with "
                "restart_failed=True to replace dead actors"
            )
        return (
            f"its max_restarts={self.max_restarts} replacements are used up; close this vector "
            "env and create a new one"
        )

    def _break(self, slot: ActorSlot, hint: str) -> None:
        """Mark ``slot``'s actor as dead for good; ``hint`` ends the error of every later call."""
        slot.dead = True
        slot.hint = hint
        self._broken = True

    def _restart_of(self, slot: ActorSlot) -> Restart:
        rows = self._frozen_rows or {}
        frozen = [
            (i - slot.first, *rows[i])
            for i in range(slot.first, slot.first + slot.count)
            if self._frozen[i] and i in rows
        ]
        return Restart(frozen)

    def _check_alive(self) -> None:
        """Raise for an actor already known to be dead."""
        if self._broken:
            slot = next(slot for slot in self._slots if slot.dead)
            raise slot.death_error(None, earlier=True, hint=slot.hint)

    def _raise_failures(self, replies: Iterable[Reply], what: str) -> None:
        for status, payload in replies:
            if status == _ATTRIBUTE_ERROR:
                raise AttributeError(payload)
            if status == _INVALID:
                raise invalid_observation(payload, "RayVecEnv")
            if status != _OK:
                raise worker_error(payload, what, "RayVecEnv", "an actor")

    def _batches(self, replies: list[Reply], what: str) -> list[Batch]:
        """The batches of a step or reset; what the actors froze is recorded first.

        A step that failed in an actor froze the sub-envs its Failure lists all
        the same (the others of that actor took their step).
        """
        batches = [reply.payload for reply in replies if reply.status == _OK]
        for batch in batches:
            if batch.frozen:
                self._frozen[list(batch.frozen)] = True
        if len(batches) < len(replies):
            for status, payload in replies:
                if status != _OK and isinstance(payload, Failure) and payload.frozen:
                    self._frozen[list(payload.frozen)] = True
            self._raise_failures(replies, what)
        return batches

    def _keep_frozen_rows(self, entries: Iterable[tuple[int, Any, bool, bool]]) -> None:
        """Remember ``(id, observation, terminated, truncated)`` of sub-envs that froze.

        Kept only when a replacement actor may need them (see ``_restart_of``).
        """
        kept = self._frozen_rows
        if kept is not None:
            for i, observation, terminated, truncated in entries:
                kept[i] = (self._copy(observation), bool(terminated), bool(truncated))

    def _row(self, observations: Any, k: int) -> Any:
        return get_row(observations, k) if self._stacked else observations[k]

    # -- steps and resets ---------------------------------------------------------------

    def _send_step(self, batch: Any) -> list[ActorCall]:
        self._running = None
        self._check_alive()
        parts = self._slice_actions(batch)
        calls = [
            ActorCall(slot, "step", (part,)) for slot, part in zip(self._slots, parts, strict=True)
        ]
        self._running = ("step", calls)
        return calls

    def _send_reset(
        self, seeds: list[SeedType], options: list[dict[str, Any] | None]
    ) -> list[ActorCall]:
        self._running = None
        self._check_alive()
        calls = [
            ActorCall(
                slot, "reset", ((seeds[slot.first : slot.end], options[slot.first : slot.end]),)
            )
            for slot in self._slots
        ]
        self._running = ("reset", calls)
        return calls

    def _on_interrupt(self, call: str) -> None:
        """An interrupted step or reset runs to its end in the actors: read it before going on.

        The actors cannot be stopped half-way, and every later call to an
        actor runs after it; the next call of this vector env first waits for
        the interrupted one and records what it froze (its results are
        dropped). An interrupted ``send`` / ``recv`` drops what is in flight
        (the next call raises ResetRequired until `reset`).
        """
        running, self._running = self._running, None
        if call in ("step", "reset") and running is not None and running[0] == call:
            self._interrupted = running
            self._unfinished = True
        else:
            super()._on_interrupt(call)

    def _finish_interrupted(self) -> None:
        interrupted, self._interrupted = self._interrupted, None
        self._unfinished = False
        if interrupted is None:
            return
        call, calls = interrupted
        with contextlib.suppress(Exception):  # the call's results and errors are dropped
            replies = self._gather(calls, f"{call}()")
            if call == "reset":
                self._frozen[:] = False
            self._batches(replies, f"{call}()")

    def _step_batch(self, batch: Any) -> VecStepResult[Any]:
        calls = self._send_step(batch)
        return self._step_result(self._gather(calls, "step()"))

    async def _async_step_batch(self, batch: Any) -> VecStepResult[Any]:
        calls = self._send_step(batch)
        await wait_all(calls)
        return self._step_result(self._gather(calls, "step()"))

    def _reset_batch(
        self, seeds: list[SeedType], options: list[dict[str, Any] | None]
    ) -> VecResetResult[Any]:
        calls = self._send_reset(seeds, options)
        return self._reset_result(self._gather(calls, "reset()"))

    async def _async_reset_batch(
        self, seeds: list[SeedType], options: list[dict[str, Any] | None]
    ) -> VecResetResult[Any]:
        calls = self._send_reset(seeds, options)
        await wait_all(calls)
        return self._reset_result(self._gather(calls, "reset()"))

    def _observations(self, batches: list[Batch]) -> Any:
        if self._stacked:
            return _join([batch.observations for batch in batches])
        return self._stackers[self.num_envs](_concat(batch.observations for batch in batches))

    def _step_result(self, replies: list[Reply]) -> VecStepResult[Any]:
        batches = self._batches(replies, "step()")
        result = VecStepResult(
            self._observations(batches),
            rewards_array(_concat(batch.rewards for batch in batches)),
            np.array(_concat(batch.terminated for batch in batches), dtype=np.bool_),
            np.array(_concat(batch.truncated for batch in batches), dtype=np.bool_),
            _concat(batch.infos for batch in batches),
        )
        if self._frozen_rows is not None:
            observations, terminated, truncated = (
                result.observations,
                result.terminated,
                result.truncated,
            )
            self._keep_frozen_rows(
                (i, get_row(observations, i), terminated[i], truncated[i])
                for batch in batches
                for i in batch.frozen
            )
        return result

    def _reset_result(self, replies: list[Reply]) -> VecResetResult[Any]:
        batches = self._batches(replies, "reset()")
        self._frozen[:] = False
        if self._frozen_rows:
            self._frozen_rows.clear()
        return VecResetResult(
            self._observations(batches), _concat(batch.infos for batch in batches)
        )

    # -- partial batches ------------------------------------------------------------------

    def _send_batch(self, env_ids: NDArray[np.int64], actions: list[Any]) -> None:
        self._check_alive()
        groups: dict[int, list[tuple[int, Any]]] = {}
        worker_of = self._worker_of
        for i, action in zip(env_ids.tolist(), actions, strict=True):
            groups.setdefault(int(worker_of[i]), []).append((i, action))
        for k, items in groups.items():
            if k in self._sent:  # busy: the actions wait for its answer
                self._waiting.setdefault(k, []).extend(items)
            else:
                self._dispatch(k, items)

    def _dispatch(self, k: int, items: list[tuple[int, Any]]) -> None:
        slot = self._slots[k]
        ids = [i for i, _ in items]
        args = ([i - slot.first for i in ids], [action for _, action in items])
        self._sent[k] = (ActorCall(slot, "step_some", (args,)), ids)

    def _ready(self, timeout: float | None) -> list[int]:
        """The busy actors that have answered, waiting up to ``timeout`` for the first one."""
        keys = sorted(self._sent)
        refs = [self._sent[k][0].ref for k in keys]
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
        if not ready and timeout != 0:
            ready, _ = ray.wait(refs, num_returns=1, timeout=timeout)
        done = set(ready)
        return [k for k, ref in zip(keys, refs, strict=True) if ref in done]

    def _collect(self, keys: list[int]) -> None:
        """Read the answers of actors ``keys`` into the rows to hand back; send what waited."""
        for k in keys:
            call, ids = self._sent.pop(k)
            reply = self._settle(call, "step()")
            batch: Batch = self._batches([reply], "step()")[0]
            rows = [self._row(batch.observations, m) for m in range(len(ids))]
            assert batch.rewards is not None
            assert batch.terminated is not None and batch.truncated is not None
            entries = list(
                zip(
                    ids,
                    rows,
                    batch.rewards,
                    batch.terminated,
                    batch.truncated,
                    batch.infos,
                    strict=True,
                )
            )
            if batch.frozen and self._frozen_rows is not None:
                frozen = set(batch.frozen)
                self._keep_frozen_rows(
                    (i, observation, terminated, truncated)
                    for i, observation, _, terminated, truncated, _ in entries
                    if i in frozen
                )
            self._answered.extend(entries)
            waiting = self._waiting.pop(k, None)
            if waiting:
                self._dispatch(k, waiting)

    def _recv_batch(self, count: int) -> VecStepResult[Any]:
        while len(self._answered) < count:
            self._collect(self._ready(None))
        return self._hand_back(count)

    async def _async_recv_batch(self, count: int) -> VecStepResult[Any]:
        while len(self._answered) < count:
            ready = self._ready(0)
            if not ready:
                refs = [call.ref for call, _ in self._sent.values()]
                await asyncio.to_thread(ray.wait, refs, num_returns=1)
                ready = self._ready(0)
            self._collect(ready)
        return self._hand_back(count)

    def _hand_back(self, count: int) -> VecStepResult[Any]:
        rows = [self._answered.popleft() for _ in range(count)]
        ids, observations, rewards, terminated, truncated, infos = zip(*rows, strict=True)
        stack = self._stackers.get(count)
        if stack is None:
            stack = self._stackers[count] = make_obs_stacker(self.observation_space, count)
        return VecStepResult(
            stack(list(observations), ids),
            rewards_array(rewards, ids),
            np.array(terminated, dtype=np.bool_),
            np.array(truncated, dtype=np.bool_),
            list(infos),
            np.array(ids, dtype=np.int64),
        )

    def _drop_in_flight(self) -> None:
        # The actors finish the calls in flight; later calls queue behind them.
        self._sent.clear()
        self._waiting.clear()
        self._answered.clear()

    # -- sub-env attributes -----------------------------------------------------------

    def _per_env_results(
        self, method: str, payloads: list[tuple[Any, ...]], what: str
    ) -> list[Any]:
        self._check_open()
        self._check_alive()
        self._pending = True
        try:
            calls = [
                ActorCall(slot, method, args)
                for slot, args in zip(self._slots, payloads, strict=True)
            ]
            replies = self._gather(calls, what)
        finally:
            self._pending = False
        self._raise_failures(replies, what)
        return _concat(reply.payload for reply in replies)

    def call(self, method: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call ``method`` on every sub-env in its actor (or read it, if not callable).

        Arguments and results travel through Ray.

        Raises:
            AttributeError: A sub-env has no such attribute.
            VecEnvWorkerError: The method raised in a sub-env.
        """
        payloads = [((method, args, kwargs),)] * self.num_workers
        return self._per_env_results("call", payloads, f"call({method!r})")

    def get_attr(self, name: str) -> list[Any]:
        """Read ``name`` from every sub-env, through its wrapper stack.

        Raises:
            AttributeError: A sub-env has no such attribute.
            VecEnvWorkerError: Reading it raised another error in a sub-env.
        """
        return self._per_env_results(
            "get_attr", [(name,)] * self.num_workers, f"get_attr({name!r})"
        )

    def set_attr(self, name: str, values: list[Any] | Any) -> None:
        """Set ``name`` on every sub-env, on the outermost layer that has it.

        Raises:
            ValueError: ``values`` is a list whose length is not ``num_envs``.
            AttributeError: A sub-env has no such attribute.
        """
        self._check_open()
        per_env = per_env_values(values, self.num_envs, name)
        payloads = [((name, per_env[slot.first : slot.end]),) for slot in self._slots]
        self._per_env_results("set_attr", payloads, f"set_attr({name!r})")

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
        late: list[ActorSlot] = []
        live = [slot for slot in self._slots if slot.handle is not None and not slot.dead]
        if not ray.is_initialized():  # the session was shut down: its actors went with it
            live = []
        exits: list[Any] = []
        try:
            closing = [slot.handle.close.remote() for slot in live]
            # Queued behind the close: the actor exits, and the ref resolves (as an
            # error) once it is gone.
            exits = [slot.handle.__ray_terminate__.remote() for slot in live]
            ready = set(ray.wait(closing, num_returns=len(closing), timeout=self.close_timeout)[0])
            for slot, ref in zip(live, closing, strict=True):
                if ref not in ready:
                    late.append(slot)
                    continue
                try:
                    reply = ray.get(ref)
                except RayError as error:
                    hint = "its sub-envs were not closed"
                    failure = failure or slot.death_error(error, hint=hint)
                else:
                    if reply.status != _OK and failure is None:
                        failure = worker_error(reply.payload, "close()", "RayVecEnv", "an actor")
        finally:
            for slot in late:
                with contextlib.suppress(Exception):
                    ray.kill(slot.handle, no_restart=True)
            if exits:
                with contextlib.suppress(Exception):
                    ray.wait(exits, num_returns=len(exits), timeout=max(self.close_timeout, 5.0))
            for slot in self._slots:  # those that did not exit, and earlier replaced ones
                if slot.handle is not None:
                    with contextlib.suppress(Exception):
                        ray.kill(slot.handle, no_restart=True)
            self._blob = None
            session, self._session = self._session, None
            if session is not None:
                RaySession.leave(session)
        if late:
            names = ", ".join(f"actor {s.index} (sub-envs {s.sub_envs})" for s in late)
            warnings.warn(
                f"RayVecEnv.close(): {names} did not finish closing in time and was killed",
                RuntimeWarning,
                stacklevel=3,
            )
        if failure is not None:
            raise failure


def _concat(parts: Iterable[list[Any] | None]) -> list[Any]:
    """One list of the per-actor lists, in actor order."""
    return [value for part in parts if part is not None for value in part]


def _join(parts: list[Any]) -> Any:
    """One new batch of the actors' stacked batches, in actor order (leaf by leaf)."""
    first = parts[0]
    if isinstance(first, dict):
        return {key: _join([part[key] for part in parts]) for key in first}
    if isinstance(first, tuple):
        return tuple(_join([part[j] for part in parts]) for j in range(len(first)))
    return np.concatenate(parts)
