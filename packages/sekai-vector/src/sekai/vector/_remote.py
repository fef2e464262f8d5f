"""RemoteVecEnv: what ProcVecEnv and RayVecEnv share, their sub-envs running in remote workers.

[`ProcVecEnv`][sekai.vector.ProcVecEnv] (worker processes) and
[`RayVecEnv`][sekai.vector.RayVecEnv] (Ray actors) split their sub-envs
evenly, in order, into one group per worker (`split_evenly`). Each worker runs
a `sekai.vector._env_group.SubEnvGroup` and answers every command with a
`sekai.vector._replies.Reply`. `RemoteVecEnv` does, once for both, what
follows from that: it sends each worker its part of a step, reset or
attribute call; turns the replies into results (the rows in worker order) or
into the error of the first failure (after recording what a failed step froze
all the same); and schedules partial batches (``send`` / ``recv``), sending
actions for a busy worker once it has answered.

How commands reach the workers is a `Transport`, a strategy object the
backend gives `RemoteVecEnv._setup`: `sekai.vector._proc_pool.WorkerPool`
(pipes, shared memory) or `sekai.vector._ray_pool.ActorPool` (Ray actors).
The backends keep what is theirs: construction, ``close``, what an interrupted
call leaves, ProcVecEnv's shared-memory step, RayVecEnv's actor restarts.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import numpy as np
from numpy.typing import NDArray

from sekai.core import ActType, InfoDict, ObsType
from sekai.error import VecEnvWorkerError
from sekai.spaces import Space
from sekai.spaces._layout import DictNode, Layout, TupleNode, layout_of
from sekai.utils.seeding import SeedType
from sekai.vector._actions import make_action_checker
from sekai.vector._arguments import per_env_values
from sekai.vector._autoreset import rewards_array
from sekai.vector._in_process import check_same_spaces
from sekai.vector._lifecycle import HookedVecEnv
from sekai.vector._obs_batch import ObsStacker, make_obs_stacker
from sekai.vector._replies import Batch, Failure, Reply, Started, Status, as_batch, raise_failures
from sekai.vector._rows import get_row, select_rows
from sekai.vector._sub_envs import name_sub_envs
from sekai.vector.results import VecResetResult, VecStepResult

if TYPE_CHECKING:
    from sekai.vector._proc_shm import BlockViews

__all__ = ["RemoteVecEnv", "Transport", "make_slicer", "split_evenly"]

_OK = Status.OK.value


class Transport(Protocol):
    """How a `RemoteVecEnv` reaches its workers: the backend's strategy object.

    Workers are numbered from 0, in sub-env order. A command is a name: one
    of ``"step"``, ``"step_some"``, ``"reset"``, ``"call"``, ``"get_attr"`` and
    ``"set_attr"``, with the payload a `sekai.vector._env_group.SubEnvGroup`
    method of that name takes. Each worker has at most one command in flight.
    A worker found dead (or late, under a timeout) is reported as a
    [`VecEnvWorkerError`][sekai.error.VecEnvWorkerError] naming it, and so is it on every
    later command.
    """

    def send_all(self, command: str, payloads: Sequence[Any]) -> None:
        """Send ``command`` to every worker, ``payloads[k]`` to worker ``k``.

        What an interrupted command left is settled first.

        Raises:
            VecEnvWorkerError: A worker is already known to be dead.
        """

    def gather(self, what: str) -> list[Reply]:
        """Every worker's reply to the last `send_all`, in worker order.

        Every worker is read before anything is raised, so all are idle after.

        Raises:
            VecEnvWorkerError: A worker died (or did not answer in time);
                ``what`` (e.g. ``"step()"``) names the call in the message.
        """
        ...

    async def wait_all(self) -> None:
        """Wait, without blocking the event loop, until `gather` would not block."""

    def send_some(self, command: str, payloads: Mapping[int, Any]) -> None:
        """Send ``command`` to some idle workers only: ``payloads`` by worker.

        Raises:
            VecEnvWorkerError: A worker is already known to be dead.
        """

    def ready_among(self, workers: Sequence[int]) -> list[int]:
        """Wait until one of ``workers`` (each sent a command) has answered; all that have.

        A worker that died, or is late under a timeout, counts as answered:
        `reply_of` reports it.
        """
        ...

    async def ready_among_async(self, workers: Sequence[int]) -> list[int]:
        """`ready_among` without blocking the event loop."""
        ...

    def reply_of(self, worker: int, what: str) -> Reply:
        """Read ``worker``'s reply to the command `send_some` sent it.

        Raises:
            VecEnvWorkerError: The worker died or did not answer in time.
        """
        ...

    def check_alive(self) -> None:
        """Raise the `VecEnvWorkerError` of a worker already known to be dead, if any."""

    def close(self, timeout: float) -> BaseException | None:
        """Close every worker's sub-envs and end the workers (``timeout``: seconds in total).

        Returns:
            The first failure (a sub-env's ``close()`` raising, a death not
            reported yet), or ``None``.
        """
        ...


class RemoteVecEnv(HookedVecEnv[ObsType, ActType]):
    """The base of the vector envs whose sub-envs run in remote workers (see the module).

    A backend builds its workers, passes their start-up replies to
    `_accept_started` and then calls `_setup` with its `Transport`; it names
    itself in messages with ``_backend`` and ``_worker_name``.
    """

    _backend: ClassVar[str] = "RemoteVecEnv"
    """The class name that starts error messages."""
    _worker_name: ClassVar[str] = "a worker"
    """How a message names a worker that failed outside its sub-envs."""

    _transport: Transport
    _bounds: list[tuple[int, int]]
    # Observations the workers write into shared memory (ProcVecEnv), else None.
    _block: BlockViews | None = None
    # Whether each worker sends its observations as one stacked batch (RayVecEnv).
    _stacked: bool = False

    def _accept_started(self, replies: list[Reply]) -> None:
        """Check the workers' `Started` replies: the spaces and metadata of the vector env."""
        self._raise_failures(replies, "its env factory")
        started: list[Started] = [reply.payload for reply in replies]
        self.observation_space, self.action_space = check_same_spaces(
            self._backend, [entry for worker in started for entry in worker.spaces]
        )
        self.metadata = started[0].metadata

    def _setup(
        self,
        transport: Transport,
        bounds: list[tuple[int, int]],
        *,
        block: BlockViews | None = None,
        stacked: bool = False,
    ) -> None:
        """Everything the shared logic needs, once the spaces are known."""
        n = self.num_envs
        self._transport = transport
        self._bounds = bounds
        self._block = block
        self._stacked = stacked
        self._stack = make_obs_stacker(self.observation_space, n)
        self._stackers: dict[int, ObsStacker] = {n: self._stack}
        self._check_actions = make_action_checker(self.action_space, n)
        self._slice_actions = make_slicer(self.action_space, bounds)
        self._frozen: NDArray[np.bool_] = np.zeros(n, dtype=bool)
        self._frozen_view: NDArray[np.bool_] = self._frozen.view()
        self._frozen_view.flags.writeable = False
        # Partial batches: the worker of each sub-env; per busy worker, the
        # sub-envs of its command in flight and the ones waiting for it to
        # finish; the rows answered but not handed back yet.
        self._worker_of = np.repeat(np.arange(len(bounds)), [hi - lo for lo, hi in bounds])
        self._sent: dict[int, list[int]] = {}
        self._waiting: dict[int, list[tuple[int, Any]]] = {}
        self._answered: deque[tuple[int, Any, float, bool, bool, InfoDict]] = deque()

    @property
    def frozen(self) -> NDArray[np.bool_]:
        """Read-only bool array: which sub-envs are frozen (only with ``autoreset=False``)."""
        return self._frozen_view

    # -- steps and resets ---------------------------------------------------------------

    def _send_step(self, batch: Any) -> None:
        self._transport.send_all("step", self._slice_actions(batch))

    def _send_reset(self, seeds: list[SeedType], options: list[dict[str, Any] | None]) -> None:
        payloads = [(seeds[lo:hi], options[lo:hi]) for lo, hi in self._bounds]
        self._transport.send_all("reset", payloads)

    def _step_batch(self, batch: Any) -> VecStepResult[Any]:
        self._send_step(batch)
        return self._step_result(self._transport.gather("step()"))

    async def _async_step_batch(self, batch: Any) -> VecStepResult[Any]:
        self._send_step(batch)
        await self._transport.wait_all()
        return self._step_result(self._transport.gather("step()"))

    def _reset_batch(
        self, seeds: list[SeedType], options: list[dict[str, Any] | None]
    ) -> VecResetResult[Any]:
        self._send_reset(seeds, options)
        return self._reset_result(self._transport.gather("reset()"))

    async def _async_reset_batch(
        self, seeds: list[SeedType], options: list[dict[str, Any] | None]
    ) -> VecResetResult[Any]:
        self._send_reset(seeds, options)
        await self._transport.wait_all()
        return self._reset_result(self._transport.gather("reset()"))

    # -- results ------------------------------------------------------------------------

    def _raise_failures(self, replies: Iterable[Reply], what: str) -> None:
        raise_failures(replies, what, self._backend, self._worker_name)

    def _batches(self, replies: list[Reply], what: str) -> list[Batch]:
        """The batches of a step or reset; what the workers froze is recorded first.

        A step that failed in a worker froze the sub-envs its Failure lists all
        the same (the others of that worker took their step).
        """
        frozen = self._frozen
        if len(replies) == 1 and replies[0].status == _OK:
            batch = as_batch(replies[0].payload)
            if batch.frozen:
                frozen[list(batch.frozen)] = True
            return [batch]
        batches = [as_batch(reply.payload) for reply in replies if reply.status == _OK]
        for batch in batches:
            if batch.frozen:
                frozen[list(batch.frozen)] = True
        if len(batches) < len(replies):
            for status, payload in replies:
                if status != _OK and isinstance(payload, Failure) and payload.frozen:
                    frozen[list(payload.frozen)] = True
            self._raise_failures(replies, what)
        return batches

    def _observations(self, batches: list[Batch]) -> Any:
        block = self._block
        if block is not None:
            return block.copy_observations()
        if self._stacked:
            return _join([batch.observations for batch in batches])
        if len(batches) == 1:
            return self._stack(batches[0].observations)
        return self._stack(_concat(batch.observations for batch in batches))

    def _step_result(self, replies: list[Reply]) -> VecStepResult[Any]:
        batches = self._batches(replies, "step()")
        infos = batches[0].infos if len(batches) == 1 else _concat(b.infos for b in batches)
        block = self._block
        if block is not None:
            return VecStepResult(
                block.copy_observations(),
                block.rewards.copy(),
                block.terminated.copy(),
                block.truncated.copy(),
                infos,
            )
        result = VecStepResult(
            self._observations(batches),
            rewards_array(_concat(b.rewards for b in batches)),
            np.array(_concat(b.terminated for b in batches), dtype=np.bool_),
            np.array(_concat(b.truncated for b in batches), dtype=np.bool_),
            infos,
        )
        if any(batch.frozen for batch in batches):
            observations, terminated, truncated = (
                result.observations,
                result.terminated,
                result.truncated,
            )
            self._on_frozen(
                (i, get_row(observations, i), terminated[i], truncated[i])
                for batch in batches
                for i in batch.frozen
            )
        return result

    def _reset_result(self, replies: list[Reply]) -> VecResetResult[Any]:
        batches = self._batches(replies, "reset()")
        self._frozen[:] = False
        infos = batches[0].infos if len(batches) == 1 else _concat(b.infos for b in batches)
        return VecResetResult(self._observations(batches), infos)

    def _on_frozen(self, rows: Iterable[tuple[int, Any, bool, bool]]) -> None:
        """Hook: sub-envs froze in a step, ``(id, observation, terminated, truncated)`` each.

        Called for steps whose observations travel in the replies; the
        default ignores them (``rows`` is lazy: nothing is read).
        """

    # -- partial batches ------------------------------------------------------------------

    def _send_batch(self, env_ids: NDArray[np.int64], actions: list[Any]) -> None:
        self._transport.check_alive()
        groups: dict[int, list[tuple[int, Any]]] = {}
        worker_of = self._worker_of
        for i, action in zip(env_ids.tolist(), actions, strict=True):
            groups.setdefault(int(worker_of[i]), []).append((i, action))
        idle = {}
        for worker, items in groups.items():
            if worker in self._sent:  # busy: the actions wait for its answer
                self._waiting.setdefault(worker, []).extend(items)
            else:
                idle[worker] = items
        self._dispatch(idle)

    def _dispatch(self, groups: dict[int, list[tuple[int, Any]]]) -> None:
        if not groups:
            return
        payloads = {}
        for worker, items in groups.items():
            first = self._bounds[worker][0]
            payloads[worker] = ([i - first for i, _ in items], [action for _, action in items])
        self._transport.send_some("step_some", payloads)
        for worker, items in groups.items():
            self._sent[worker] = [i for i, _ in items]

    def _collect(self, workers: list[int]) -> None:
        """Read the answers of ``workers`` into the rows to hand back; send what waited."""
        transport = self._transport
        for worker in workers:
            reply = transport.reply_of(worker, "step()")
            ids = self._sent.pop(worker)
            batch = self._batches([reply], "step()")[0]
            observations = batch.observations
            if observations is None:  # in the shared block
                rows: Any = [None] * len(ids)
            elif self._stacked:
                rows = [get_row(observations, m) for m in range(len(ids))]
            else:
                rows = observations
            if batch.rewards is None or batch.terminated is None or batch.truncated is None:
                raise VecEnvWorkerError(
                    f"{self!r}: worker {worker} answered a partial step without its rewards "
                    f"and flags ({name_sub_envs(ids)}); the vector env needs a reset"
                )
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
            if batch.frozen and observations is not None:
                frozen = set(batch.frozen)
                self._on_frozen(
                    (i, observation, terminated, truncated)
                    for i, observation, _, terminated, truncated, _ in entries
                    if i in frozen
                )
            self._answered.extend(entries)
            waiting = self._waiting.pop(worker, None)
            if waiting:
                self._dispatch({worker: waiting})

    def _recv_batch(self, count: int) -> VecStepResult[Any]:
        while len(self._answered) < count:
            self._collect(self._transport.ready_among(sorted(self._sent)))
        return self._hand_back(count)

    async def _async_recv_batch(self, count: int) -> VecStepResult[Any]:
        while len(self._answered) < count:
            self._collect(await self._transport.ready_among_async(sorted(self._sent)))
        return self._hand_back(count)

    def _hand_back(self, count: int) -> VecStepResult[Any]:
        rows = [self._answered.popleft() for _ in range(count)]
        ids, observations, rewards, terminated, truncated, infos = zip(*rows, strict=True)
        env_ids = np.array(ids, dtype=np.int64)
        block = self._block
        if block is not None:  # the workers wrote the rows: copy them out of the block
            batch = select_rows(block.observations, env_ids)
        else:
            batch = self._stacker_for(count)(list(observations), ids)
        return VecStepResult(
            batch,
            rewards_array(rewards, ids),
            np.array(terminated, dtype=np.bool_),
            np.array(truncated, dtype=np.bool_),
            list(infos),
            env_ids,
        )

    def _stacker_for(self, count: int) -> ObsStacker:
        stack = self._stackers.get(count)
        if stack is None:
            stack = self._stackers[count] = make_obs_stacker(self.observation_space, count)
        return stack

    def _drop_in_flight(self) -> None:
        # The workers finish the commands in flight; the transport drops their answers.
        self._sent.clear()
        self._waiting.clear()
        self._answered.clear()

    # -- sub-env attributes -----------------------------------------------------------

    def _per_env_results(self, command: str, payloads: list[Any], what: str) -> list[Any]:
        transport = self._transport
        with self._attribute_call(command):
            transport.send_all(command, payloads)
            replies = transport.gather(what)
        self._raise_failures(replies, what)
        return _concat(reply.payload for reply in replies)

    def call(self, method: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call ``method`` on every sub-env in its worker (or read it, if not callable).

        Arguments and results travel to the workers and back: with
        cloudpickle to worker processes, through Ray to actors.

        Raises:
            AttributeError: A sub-env has no such attribute.
            VecEnvWorkerError: The method raised in a sub-env.
        """
        payloads = [(method, args, kwargs)] * len(self._bounds)
        return self._per_env_results("call", payloads, f"call({method!r})")

    def get_attr(self, name: str) -> list[Any]:
        """Read ``name`` from every sub-env, through its wrapper stack.

        Raises:
            AttributeError: A sub-env has no such attribute.
            VecEnvWorkerError: Reading it raised another error in a sub-env.
        """
        payloads = [name] * len(self._bounds)
        return self._per_env_results("get_attr", payloads, f"get_attr({name!r})")

    def set_attr(self, name: str, values: list[Any] | Any) -> None:
        """Set ``name`` on every sub-env, on the outermost layer that has it.

        Raises:
            ValueError: ``values`` is a list whose length is not ``num_envs``.
            AttributeError: A sub-env has no such attribute.
        """
        per_env = per_env_values(values, self.num_envs, name)
        payloads = [(name, per_env[lo:hi]) for lo, hi in self._bounds]
        self._per_env_results("set_attr", payloads, f"set_attr({name!r})")


def _concat(parts: Iterable[list[Any] | None]) -> list[Any]:
    """One list of the per-worker lists, in worker order."""
    return [value for part in parts if part is not None for value in part]


def _join(parts: list[Any]) -> Any:
    """One new batch of the workers' stacked batches, in worker order (leaf by leaf)."""
    first = parts[0]
    if isinstance(first, dict):
        return {key: _join([part[key] for part in parts]) for key in first}
    if isinstance(first, tuple):
        return tuple(_join([part[j] for part in parts]) for j in range(len(first)))
    return np.concatenate(parts)


def split_evenly(num_envs: int, num_workers: int) -> list[tuple[int, int]]:
    """Split ``num_envs`` sub-envs into ``num_workers`` contiguous, even groups."""
    size, extra = divmod(num_envs, num_workers)
    bounds, start = [], 0
    for i in range(num_workers):
        stop = start + size + (1 if i < extra else 0)
        bounds.append((start, stop))
        start = stop
    return bounds


def make_slicer(space: Space[Any], bounds: list[tuple[int, int]]) -> Callable[[Any], list[Any]]:
    """Split a checked batch of actions into one batch per worker (chosen once)."""
    if len(bounds) == 1:
        return lambda batch: [batch]
    cut = _row_slicer(layout_of(space))
    return lambda batch: [cut(batch, lo, hi) for lo, hi in bounds]


def _row_slicer(layout: Layout) -> Callable[[Any, int, int], Any]:
    """Rows ``lo:hi`` of a batch: dicts and tuples part by part, anything else sliced."""
    if isinstance(layout, DictNode):
        items = tuple((key, _row_slicer(child)) for key, child in layout.items)
        return lambda batch, lo, hi: {key: cut(batch[key], lo, hi) for key, cut in items}
    if isinstance(layout, TupleNode):
        parts = tuple(_row_slicer(child) for child in layout.parts)
        return lambda batch, lo, hi: tuple(
            cut(part, lo, hi) for cut, part in zip(parts, batch, strict=True)
        )
    return lambda batch, lo, hi: batch[lo:hi]
