"""RayVecEnv's arguments, actor options and placement, the Ray session, make_vec and the extra."""

from __future__ import annotations

import ipaddress
import json
import os
import subprocess
import sys
import textwrap
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from sekai.core import Env, ResetResult, StepResult
from sekai.registry import EnvRegistry
from sekai.spaces import Box, Discrete

ray = pytest.importorskip("ray")
ray_vec_env = pytest.importorskip("sekai.vector.ray_vec_env")
RayVecEnv = ray_vec_env.RayVecEnv
MB = 1024 * 1024


class Placed(Env[Any, int]):
    """Reports where its actor runs and what Ray reserved for it."""

    observation_space = Box(-1.0, 1.0, (1,), np.float32)
    action_space = Discrete(2)

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        return ResetResult(np.zeros(1, np.float32), {})

    def step(self, action: int) -> StepResult[Any]:
        return StepResult(np.zeros(1, np.float32), 0.0, False, False, {})

    def placement(self) -> tuple[dict[str, float], str | None]:
        import ray

        context = ray.get_runtime_context()
        return context.get_assigned_resources(), context.get_placement_group_id()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"autoreset": 1}, TypeError, "autoreset must be a bool"),
        ({"num_workers": 0}, ValueError, r"num_workers must be None or an int in \[1, 2\]"),
        ({"num_workers": 3}, ValueError, "there are 2 sub-envs"),
        ({"batch_size": 3}, ValueError, "batch_size"),
        ({"num_cpus": -1}, ValueError, "num_cpus must be a number >= 0"),
        ({"num_cpus": "1"}, TypeError, "num_cpus"),
        ({"resources": ["gpu"]}, TypeError, "resources must be None or a dict"),
        ({"resources": {"feed": -1}}, ValueError, r"resources\['feed'\] must be a number >= 0"),
        ({"actor_options": {"num_cpus": 2}}, ValueError, r"cannot set \['num_cpus'\]"),
        ({"actor_options": {"lifetime": "detached"}}, ValueError, "lifetime"),
        ({"actor_options": 3}, TypeError, "actor_options must be None or a dict"),
        ({"restart_failed": "yes"}, TypeError, "restart_failed must be a bool"),
        ({"max_restarts": -1}, ValueError, "max_restarts"),
        ({"restart_delay": float("nan")}, ValueError, "restart_delay"),
        ({"close_timeout": -1}, ValueError, "close_timeout"),
        ({"address": 6379}, TypeError, "address must be None or a str"),
        ({"scheduling_strategy": ["SPREAD"] * 3}, ValueError, r"one entry per actor \(2\)"),
    ],
)
def test_bad_arguments_raise_before_any_actor_starts(
    kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    kwargs.setdefault("num_workers", 2)
    with pytest.raises(error, match=match):
        RayVecEnv([Placed, Placed], num_cpus=kwargs.pop("num_cpus", 0), **kwargs)


def test_env_fns_are_checked() -> None:
    with pytest.raises(TypeError, match="sequence of callables"):
        RayVecEnv(Placed)
    with pytest.raises(ValueError, match="at least one"):
        RayVecEnv([])


def test_resources_placement_and_actor_options_reach_the_actors(ray_vec: Any) -> None:
    from ray.util.placement_group import placement_group, remove_placement_group
    from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

    bundle = {"CPU": 0.25, "sekai_test": 1, "memory": 10 * MB}
    group = placement_group([bundle, bundle])
    ray.get(group.ready())
    try:
        strategies = [
            PlacementGroupSchedulingStrategy(group, placement_group_bundle_index=i)
            for i in range(2)
        ]
        vec = ray_vec(
            [Placed] * 3,
            num_workers=2,
            num_cpus=0.25,
            resources={"sekai_test": 1},
            scheduling_strategy=strategies,
            actor_options={"memory": 10 * MB},
        )
        for resources, group_id in vec.call("placement"):
            assert resources == {"CPU": 0.25, "sekai_test": 1.0, "memory": 10.0 * MB}
            assert group_id == group.id.hex()
        vec.close()
    finally:
        remove_placement_group(group)


def test_num_workers_follows_the_cluster_cpus() -> None:
    assert ray.cluster_resources()["CPU"] == 2  # the test cluster
    assert ray_vec_env.default_num_workers(5, 1.0) == 2
    assert ray_vec_env.default_num_workers(5, 0.5) == 4
    assert ray_vec_env.default_num_workers(3, 0.5) == 3  # at most one actor per sub-env
    assert ray_vec_env.default_num_workers(5, 4.0) == 1  # at least one
    assert ray_vec_env.default_num_workers(5, 0.0) == 5  # no CPU reserved: one per sub-env


def test_make_vec_builds_a_ray_vec_env_and_close_leaves_the_cluster(kit: Any) -> None:
    registry = EnvRegistry()
    registry.register("RayCounting-v0", kit.CountingEnv, kwargs={"length": 3})
    vec = registry.make_vec(
        "RayCounting-v0",
        3,
        vectorization_mode="ray",
        vector_kwargs={"num_cpus": 0, "num_workers": 1},
        batch_size=2,
        random_start=True,
    )
    assert isinstance(vec, RayVecEnv) and vec.batch_size == 2
    assert vec.spec is not None and vec.spec.id == "RayCounting-v0"
    sync = registry.make_vec("RayCounting-v0", 3, vectorization_mode="sync", random_start=True)
    assert vec.reset(seed=4) == sync.reset(seed=4)
    for actions in ([0, 1, 2], [2, 2, 2], [1, 0, 1]):
        assert vec.step(actions) == sync.step(actions)
    vec.close()
    sync.close()
    assert ray.is_initialized()  # the session belongs to the test fixture: left running
    assert ray.get(ray.put(7)) == 7


def test_without_ray_the_import_names_the_extra() -> None:
    code = textwrap.dedent(
        """
        import sys

        import sekai.vector

        assert "ray" not in sys.modules, "importing sekai.vector imported Ray"
        assert "RayVecEnv" in dir(sekai.vector) and "RayVecEnv" not in sekai.vector.__all__
        sys.modules["ray"] = None  # as if Ray were not installed
        try:
            from sekai.vector import RayVecEnv
        except ImportError as error:
            assert "install the sekai-vector[ray] distribution" in str(error), error
        else:
            raise AssertionError("no ImportError")
        from sekai.registry import EnvRegistry

        registry = EnvRegistry()
        registry.register("Nothing-v0", lambda: None)
        try:
            registry.make_vec("Nothing-v0", 2, vectorization_mode="ray")
        except ImportError as error:
            assert "install the sekai-vector[ray] distribution" in str(error), error
        else:
            raise AssertionError("no ImportError")
        print("ok")
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_a_session_started_by_ray_vec_envs_ends_with_the_last_of_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bookkeeping of the session RayVecEnvs start, against a stand-in for Ray."""
    calls: list[Any] = []
    started: list[dict[str, Any]] = []
    state = SimpleNamespace(up=False)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)

    def init(address: Any = None, **options: Any) -> None:
        calls.append(("init", address))
        started.append(options)
        state.up = True

    def shutdown() -> None:
        calls.append(("shutdown",))
        state.up = False

    fake = SimpleNamespace(
        is_initialized=lambda: state.up,
        init=init,
        shutdown=shutdown,
        get_runtime_context=lambda: SimpleNamespace(gcs_address="10.0.0.1:6379"),
    )
    actor_module = sys.modules["sekai.vector._ray_actor"]
    monkeypatch.setattr(actor_module, "ray", fake)
    monkeypatch.setattr(actor_module.RaySession, "users", 0)
    monkeypatch.setattr(actor_module.RaySession, "number", 0)
    session = actor_module.RaySession
    first = session.join("ray://head:10001")  # started here
    assert first is not None
    assert session.join(None) == first  # joins the session a RayVecEnv started
    session.leave(first)
    assert state.up  # one RayVecEnv still uses it
    session.leave(first)
    assert calls == [("init", "ray://head:10001"), ("shutdown",)]

    state.up = True  # a session the user started is never shut down
    assert session.join(None) is None
    state.up = False
    second = session.join(None)
    assert second != first
    session.leave(first)  # a RayVecEnv of the ended session: no effect on this one
    assert state.up
    session.leave(second)
    assert calls == [("init", "ray://head:10001"), ("shutdown",), ("init", None), ("shutdown",)]
    # Joining a cluster keeps its settings; a new local session is on loopback.
    assert started == [{}, {"_node_ip_address": "127.0.0.1", "include_dashboard": False}]


_LISTENERS = """
import json

import ray
import psutil  # Ray's own copy: importing ray puts it on the path

import numpy as np
from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Discrete
from sekai.vector import RayVecEnv


class Still(Env):  # this session has sekai-vector and sekai-core only
    observation_space = Box(0.0, 1.0, (1,), np.float32)
    action_space = Discrete(2)

    def reset(self, *, seed=None, options=None):
        return ResetResult(np.zeros(1, np.float32), {})

    def step(self, action):
        return StepResult(np.zeros(1, np.float32), 0.0, False, False, {})


vec = RayVecEnv([Still] * 2, num_workers=2, num_cpus=0)
vec.reset(seed=0)
sockets = []
for process in [psutil.Process(), *psutil.Process().children(recursive=True)]:
    try:
        connections = process.net_connections(kind="inet")
    except psutil.Error:
        continue
    sockets += [
        [process.name(), c.laddr.ip, c.laddr.port]
        for c in connections
        if c.status == psutil.CONN_LISTEN
    ]
found = {
    "gcs": ray.get_runtime_context().gcs_address,
    "nodes": [node["NodeManagerAddress"] for node in ray.nodes()],
    "listening": sockets,
}
vec.close()
found["after_close"] = ray.is_initialized()
print(json.dumps(found))
"""


def _is_loopback(ip: str) -> bool:
    address = ipaddress.ip_address(ip.split("%")[0])
    mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:127.0.0.1
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def test_a_session_a_ray_vec_env_starts_listens_on_loopback_only() -> None:
    """Every socket the session's processes listen on, read from the OS, is a loopback one."""
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["RAY_ENABLE_UV_RUN_RUNTIME_ENV"] = "0"
    done = subprocess.run(
        [sys.executable, "-c", _LISTENERS],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    gcs_host, _, gcs_port = found["gcs"].rpartition(":")
    assert _is_loopback(gcs_host), found
    assert found["nodes"] and all(_is_loopback(node) for node in found["nodes"]), found
    listening = found["listening"]
    ports = {port for _, _, port in listening}
    assert int(gcs_port) in ports, found  # the session's own processes were read
    exposed = [entry for entry in listening if not _is_loopback(entry[1])]
    assert exposed == [], f"listening beyond loopback: {exposed}"
    assert found["after_close"] is False  # the session it started ended with it
