"""The Ray actor of [`RayVecEnv`][sekai.vector.RayVecEnv]: one group of sub-envs.

`EnvGroup` is the Ray counterpart of a ProcVecEnv worker process: it
owns a contiguous group of sub-envs, steps the ones it is asked to with the
per-sub-env rule of every vector env
(`end_episode`, through the `sekai.vector._env_group.SubEnvGroup` a ProcVecEnv
worker runs too) and reports the sub-envs it freezes. It is
a plain class, made a Ray actor with ``ray.remote`` by `remote_group`.

Every method takes the payload a ProcVecEnv worker gets for the same command
and answers with a `Reply` (see `sekai.vector._replies`): the result (``Status.OK``), a
`Failure` naming the sub-env that raised,
with its traceback (``Status.ERROR``), or the message of a name a sub-env
lacks (``Status.ATTRIBUTE_ERROR``). Steps and resets answer with a
`Batch` whose ``observations`` are the
group's observations already stacked into one batch when the observation
space is made of arrays (so they travel as numpy buffers, which Ray reads
without copying), else a list of them.

A group that replaces an actor that died (``RayVecEnv(restart_failed=True)``)
is started with a `Restart`: it resets its sub-envs and answers the
next step of each of them, without stepping it, with the row described in
`Restart`.

The rest of the module is what the parent needs to create actors:
`RaySession` (the Ray session RayVecEnvs started themselves), `remote_group`
and the checks of the actor options; `sekai.vector._ray_pool` talks to them.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import cloudpickle
import ray

from sekai._internal.validation import check_real
from sekai.core import InfoDict
from sekai.spaces import Space
from sekai.spaces._layout import ArrayLeaf, layout_of, leaves
from sekai.vector._env_group import (
    SubEnvFailure,
    SubEnvGroup,
    build_group,
    failure_reply,
    started,
)
from sekai.vector._obs_batch import ObsStacker, make_obs_stacker
from sekai.vector._replies import Batch, Reply, Status, make_reply

__all__ = [
    "WORKER_RESTARTED",
    "EnvGroup",
    "RaySession",
    "Restart",
    "check_actor_options",
    "default_num_workers",
    "remote_group",
    "scheduling_strategies",
    "stacks_observations",
]

WORKER_RESTARTED = "worker_restarted"
"""The info key of the row that ends an episode interrupted by the death of its actor."""

_OK = Status.OK.value


def stacks_observations(space: Space[Any]) -> bool:
    """Whether a group sends its observations as one stacked batch (every leaf an array)."""
    return all(isinstance(leaf, ArrayLeaf) for leaf in leaves(layout_of(space)))


class Restart(NamedTuple):
    """How a group that replaces a dead actor starts.

    Every sub-env of the group is reset (without a seed or options, as an
    autoreset does), except those frozen before the death, which are frozen
    again with the rows they reported. The next step of each reset sub-env
    does not step it: its row is the new episode's first observation, reward
    0, ``terminated=False``, ``truncated=True`` and the info
    ``{"worker_restarted": True, "reset_info": <the reset's info>}``. Without
    autoreset the sub-env is frozen from then on, reporting that
    observation, as a sub-env whose episode ended.

    Attributes:
        frozen: ``(local index, observation, terminated, truncated)`` of
            each sub-env of the group that was frozen before the death.
    """

    frozen: list[tuple[int, Any, bool, bool]]


class EnvGroup:
    """A contiguous group of sub-envs inside one Ray actor.

    Args:
        env_fns_blob: The cloudpickled list of every env factory of the
            vector env (the object store holds it once, for every actor).
        first: Index (in the vector env) of the group's first sub-env.
        count: Number of sub-envs in the group.
        autoreset: The vector env's autoreset flag.
    """

    def __init__(self, env_fns_blob: bytes, first: int, count: int, autoreset: bool) -> None:
        self.blob = env_fns_blob
        self.first = first
        self.count = count
        self.end = first + count
        self.autoreset = autoreset
        self.worker: SubEnvGroup | None = None
        self.stacked = False
        self.stackers: dict[int, ObsStacker] = {}
        # Sub-envs reset after a restart, not reported yet: local index -> (observation, info).
        self.pending: dict[int, tuple[Any, InfoDict]] = {}

    # -- start-up ------------------------------------------------------------------------

    def start(self, restart: Restart | None = None) -> Reply:
        """Build the sub-envs; answer with `Started`."""
        first = self.first
        try:
            fns = pickle.loads(self.blob)[first : first + self.count]
            envs = build_group(fns, first, "RayVecEnv")
        except BaseException as error:
            return failure_reply(error, None, first, cloudpickle)
        self.blob = b""
        self.worker = worker = SubEnvGroup(envs, first, self.autoreset, cloudpickle)
        self.stacked = stacks_observations(envs[0].observation_space)
        if restart is not None:
            reply = self._answer(lambda: self._restart(restart))
            if reply.status != _OK:
                return reply
        return make_reply(_OK, started(worker.envs, first))

    def _restart(self, restart: Restart) -> None:
        worker = self._worker()
        frozen = {
            j: (obs, terminated, truncated) for j, obs, terminated, truncated in restart.frozen
        }
        for j, env in enumerate(worker.envs):
            worker.current = j
            if j in frozen:
                worker.frozen.freeze(j, *frozen[j])
                continue
            reset = env.reset()
            observation = worker.copy(reset.observation)
            self.pending[j] = (observation, dict(reset.info))
            if not self.autoreset:
                worker.frozen.freeze(j, observation, False, True)

    def ping(self) -> None:
        """Answer at once (the actor is alive and idle)."""

    # -- commands ------------------------------------------------------------------------

    def step(self, actions: Any) -> Reply:
        """Step every sub-env of the group with its rows of a checked batch of actions."""
        return self._answer(lambda: self._step(range(self.count), self._worker().split(actions)))

    def step_some(self, payload: tuple[list[int], list[Any]]) -> Reply:
        """Step some sub-envs: ``(local indices, one action each)``, a partial batch."""
        return self._answer(lambda: self._step(*payload))

    def reset(self, payload: tuple[list[Any], list[Any]]) -> Reply:
        """Reset every sub-env: ``(seeds, options)``, one entry per sub-env."""

        def run() -> Batch:
            self.pending.clear()
            infos, observations, *_ = self._worker().reset(payload)
            return Batch(infos, self._batch(observations, range(self.first, self.end)))

        return self._answer(run)

    def call(self, payload: tuple[str, tuple[Any, ...], dict[str, Any]]) -> Reply:
        """Call ``(name, args, kwargs)`` on every sub-env (or read it, if it is not callable)."""
        return self._answer(lambda: self._worker().call(payload))

    def get_attr(self, name: str) -> Reply:
        """Read ``name`` from every sub-env, through its wrapper stack."""
        return self._answer(lambda: self._worker().get_attr(name))

    def set_attr(self, payload: tuple[str, list[Any]]) -> Reply:
        """Set ``(name, one value per sub-env)`` on every sub-env."""
        return self._answer(lambda: self._worker().set_attr(payload))

    def close(self) -> Reply:
        """Close every sub-env (all of them, even if one raises)."""
        worker = self.worker
        if worker is None:
            return make_reply(_OK, None)
        self.worker = None
        return self._answer(lambda: worker.close(), worker)

    # -- helpers ---------------------------------------------------------------------------

    def _worker(self) -> SubEnvGroup:
        worker = self.worker
        if worker is None:
            raise RuntimeError("RayVecEnv: this actor's sub-envs were not built or are closed")
        return worker

    def _answer(self, run: Callable[[], Any], worker: SubEnvGroup | None = None) -> Reply:
        """Run a command; its result, or the failure of the sub-env that raised, as a Reply.

        Failures are reported as a ProcVecEnv worker reports them (see
        `failure_reply`): with the sub-env's index, what it was doing and the
        sub-envs a failed step froze all the same.
        """
        worker = worker or self.worker
        if worker is not None:
            worker.current = 0
        try:
            return make_reply(_OK, run())
        except BaseException as error:
            return failure_reply(error, worker, self.first, cloudpickle)

    def _step(self, indices: Sequence[int], actions: list[Any]) -> Batch:
        worker = self._worker()
        ids = [self.first + j for j in indices]
        if not self.pending:
            infos, observations, rewards, terminated, truncated, frozen = worker.step_rows(
                indices, actions
            )
            batch = self._batch(observations, ids)
            return Batch(infos, batch, rewards, terminated, truncated, frozen)
        # The first step after a restart: the reset sub-envs report their restart row,
        # the others step (all of them, even if one raises, as in step_rows).
        rows: list[tuple[Any, ...]] = []
        failure: SubEnvFailure | None = None
        for j, action in zip(indices, actions, strict=True):
            reset = self.pending.pop(j, None)
            if reset is not None:
                observation, reset_info = reset
                info = {WORKER_RESTARTED: True, "reset_info": reset_info}
                frozen_now = () if self.autoreset else (self.first + j,)
                rows.append(([info], [observation], [0.0], [False], [True], frozen_now))
                continue
            try:
                rows.append(worker.step_rows([j], [action]))
            except SubEnvFailure as error:
                failure = failure or error
        columns = [[value for row in rows for value in row[k]] for k in range(6)]
        infos, observations, rewards, terminated, truncated, frozen = columns
        if failure is not None:
            failure.frozen = tuple(frozen)
            raise failure
        return Batch(
            infos, self._batch(observations, ids), rewards, terminated, truncated, tuple(frozen)
        )

    def _batch(self, observations: list[Any], ids: Sequence[int]) -> Any:
        """The observations as they travel: one stacked batch for array spaces, else the list.

        Raises:
            InvalidObservation: An observation does not fit the space (naming
                its sub-env, by its index in ``ids``).
        """
        if not self.stacked:
            return observations
        count = len(observations)
        stack = self.stackers.get(count)
        if stack is None:
            space = self._worker().envs[0].observation_space
            stack = self.stackers[count] = make_obs_stacker(space, count)
        return stack(observations, ids)


# -- the parent's side ------------------------------------------------------------------

# Options RayVecEnv sets itself: an actor runs one call at a time, in order, and dies with it.
_RESERVED_OPTIONS = frozenset(
    {
        "num_cpus",
        "resources",
        "scheduling_strategy",
        "max_restarts",
        "max_task_retries",
        "max_concurrency",
        "concurrency_groups",
        "lifetime",
        "name",
        "namespace",
        "get_if_exists",
    }
)


class RaySession:
    """The Ray session RayVecEnvs started themselves: shut down when the last of them closes.

    Each session they start gets a new number; a RayVecEnv leaves the one it
    joined, so one that outlives its session (the user called
    ``ray.shutdown()``) never ends a later one.
    """

    users = 0
    number = 0  # of the session RayVecEnvs started last
    address: str | None = None

    @classmethod
    def join(cls, address: str | None) -> int | None:
        """Use Ray's current session, or start one (``ray.init(address=address)``).

        Returns:
            The number of the session when RayVecEnvs started it (to give
            `leave`), ``None`` for a session started by someone else.
        """
        if ray.is_initialized():
            if cls.users and cls.address == ray.get_runtime_context().gcs_address:
                cls.users += 1
                return cls.number
            return None
        start_or_join(address)
        cls.number += 1
        cls.users, cls.address = 1, ray.get_runtime_context().gcs_address
        return cls.number

    @classmethod
    def leave(cls, number: int) -> None:
        """Leave session ``number``; the last RayVecEnv to leave it shuts it down."""
        if number != cls.number or cls.users == 0:
            return  # a session that ended already
        cls.users -= 1
        if cls.users == 0:
            cls.address = None
            if ray.is_initialized():
                ray.shutdown()


def start_or_join(address: str | None) -> None:
    """``ray.init(address=address)``; a new local session listens on loopback only.

    Joining a running cluster (``address``, ``RAY_ADDRESS`` or one started
    with ``ray start`` on this machine) leaves its network settings to it.
    A session started here is reachable from this machine only: its node
    address is ``127.0.0.1`` and there is no dashboard. Ray's default, the
    node's own address (and every interface), would let anyone on the
    network reach the GCS and the workers, which run what they are sent.
    """
    # Private Ray API, checked by the tests against the version in the lock:
    # whether ray.init would join a cluster, and the switch Ray itself uses on
    # macOS and Windows to keep a local session on loopback (without it, Ray
    # turns a node address of 127.0.0.1 into the node's routable address).
    from ray._private import ray_constants, services

    if address is None:  # RAY_ADDRESS, or a cluster `ray start` left running, if any
        joins = services.canonicalize_bootstrap_address(None) is not None  # type: ignore[arg-type]
    else:
        joins = address != "local"
    if joins:
        ray.init(address=address)
        return
    routable = ray_constants.ENABLE_RAY_CLUSTER
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        ray.init(address=address, _node_ip_address="127.0.0.1", include_dashboard=False)
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = routable


_REMOTE_GROUP: list[Any] = []


def remote_group() -> Any:
    """`EnvGroup` as a Ray actor class (made once)."""
    if not _REMOTE_GROUP:
        _REMOTE_GROUP.append(ray.remote(EnvGroup))
    return _REMOTE_GROUP[0]


def check_actor_options(num_cpus: float, resources: object, extra: object) -> dict[str, Any]:
    """The Ray options of every actor, checked."""
    options: dict[str, Any] = {"num_cpus": num_cpus, "max_restarts": 0, "max_concurrency": 1}
    if resources is not None:
        if not isinstance(resources, Mapping):
            raise TypeError(
                f"RayVecEnv: resources must be None or a dict of resource name -> amount, "
                f"got {resources!r}"
            )
        checked = {}
        for name, amount in resources.items():
            if not isinstance(name, str):
                raise TypeError(f"RayVecEnv: resource names must be str, got {name!r}")
            checked[name] = check_real(
                amount, f"RayVecEnv: resources[{name!r}]", minimum=0, expected="a number >= 0"
            )
        options["resources"] = checked
    if extra is not None:
        if not isinstance(extra, Mapping):
            raise TypeError(f"RayVecEnv: actor_options must be None or a dict, got {extra!r}")
        clash = sorted(set(extra) & _RESERVED_OPTIONS)
        if clash:
            raise ValueError(
                f"RayVecEnv: actor_options cannot set {clash}: RayVecEnv sets them itself (pass "
                "num_cpus=, resources= and scheduling_strategy= as arguments)"
            )
        options.update(extra)
    return options


def scheduling_strategies(strategy: Any, num_workers: int) -> list[Any]:
    """One scheduling strategy (or ``None``) per actor."""
    if isinstance(strategy, (list, tuple)):
        if len(strategy) != num_workers:
            raise ValueError(
                f"RayVecEnv: scheduling_strategy as a sequence needs one entry per actor "
                f"({num_workers}), got {len(strategy)}: {strategy!r}"
            )
        return list(strategy)
    return [strategy] * num_workers


def default_num_workers(num_envs: int, num_cpus: float) -> int:
    """As many actors as the cluster's CPUs hold at ``num_cpus`` each, within ``[1, num_envs]``."""
    if num_cpus == 0:
        return num_envs
    cpus = float(ray.cluster_resources().get("CPU", 0.0))  # type: ignore[no-untyped-call]
    return max(1, min(num_envs, int(cpus // num_cpus)))
