"""A real Ctrl-C at every line of sekai's code during one call of RayVecEnv.

RayVecEnv's actors run on while the driver stops wherever the signal lands.
The contract of ``_interrupts.py`` (through the ``interrupts`` fixture) must
hold as for the other backends: sub-envs in step or ResetRequired until a
reset, no wedged call, no bare error, no hang, no actor left alive by an
interrupted construction or close.

Starting actors is slow, so one vector env (two actors, three sub-envs)
serves the runs of a sweep as long as it recovers; construction and close
build one per run, with a wider stride.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

import pytest

ray = pytest.importorskip("ray")
RayVecEnv = pytest.importorskip("sekai.vector.ray_vec_env").RayVecEnv

STRIDE = 23  # a prime; a vector env that recovered serves the next run
BUILD_STRIDE = 97  # construction and close start two actors per run
# The first lines of every call are the lifecycle all backends share (the other
# backends' sweeps try them); here the sweep starts later, where Ray's code runs.
FIRST = (5,)
NUM_ENVS = 3
NUM_WORKERS = 2


def _alive_actors() -> list[Any]:
    from ray._private import state

    return [info for info in state.actors().values() if info.get("State") not in ("DEAD", None)]


def ray_leaks() -> str:
    """Actors still alive after a bounded wait (then killed, so that later runs start clean)."""
    deadline = time.monotonic() + 5.0  # well within a run's time limit
    alive = _alive_actors()
    while alive and time.monotonic() < deadline:
        time.sleep(0.1)  # polling Ray's actor table: deaths are reported asynchronously
        alive = _alive_actors()
    for info in alive:
        if info.get("Name"):
            with contextlib.suppress(Exception):  # best effort: the leak is reported anyway
                ray.kill(ray.get_actor(info["Name"]))
    if not alive:
        return ""
    return f"actors alive: {sorted(info['ActorClassName'] for info in alive)}"


def test_ctrl_c_at_any_line(interrupted_call: str, interrupts: Any, kit: Any) -> None:
    """After a Ctrl-C anywhere in ``call``, the contract of `_interrupts` holds."""
    fns = kit.counting_fns([interrupts.LENGTH] * NUM_ENVS)

    def make() -> Any:
        return RayVecEnv(fns, num_workers=NUM_WORKERS, num_cpus=0, close_timeout=3.0)

    builds = interrupted_call in ("init", "close")
    rig = interrupts.Rig(
        make=make,
        leaks=ray_leaks if builds else (lambda: ""),
        num_envs=NUM_ENVS,
        reuse=not builds,
    )
    case = interrupts.Case(rig, interrupted_call)
    failures = case.sweep(BUILD_STRIDE if builds else STRIDE, FIRST)
    assert case.runs > 1, "the call ran no line of sekai"
    assert not failures, case.summary()
