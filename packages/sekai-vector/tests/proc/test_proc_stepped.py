"""The step's fixed binary answer (STEPPED): what it carries, when it is used, what it replaces.

A worker whose step results are all in the shared block answers with a
zero byte and the sequence number, followed by the pickled infos only when
one is not an empty dict; the parent then builds the result from the block
without unpickling a reply. These tests check that this path gives exactly
what SyncVecEnv gives, whatever the infos hold, and that it is the path taken.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Discrete
from sekai.vector import SyncVecEnv, VecEnv, _proc_pool, _proc_worker
from sekai.vector._proc_protocol import STEPPED, STEPPED_TAG

# What a step's info holds, by code: the infos of a step mix these across sub-envs.
_INFO_KINDS = 6


def _info(kind: int, t: int) -> dict[str, Any]:
    if kind == 0:
        return {}
    if kind == 1:
        return {"t": t, "name": f"step {t}", "ok": t % 2 == 0}
    if kind == 2:
        return {"array": np.full((2, 3), t, dtype=np.float32)}
    if kind == 3:
        return OrderedDict()  # empty, but not a plain dict: it must come back as itself
    if kind == 4:
        return OrderedDict(t=t)
    return {"scale": lambda x, t=t: x * t}  # needs cloudpickle


class ScheduledEnv(Env[Any, Any]):
    """A sub-env whose episodes last ``length`` steps and whose infos follow ``kinds``."""

    observation_space = Box(-1e6, 1e6, (3,), np.float64)
    action_space = Discrete(3)

    def __init__(self, length: int, kinds: list[int], truncate: bool) -> None:
        self.length = length
        self.kinds = kinds
        self.truncate = truncate
        self.t = 0
        self.calls = 0

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        self.t = 0
        return ResetResult(np.array([0.0, self.calls, -1.0]), {"reset": self.calls})

    def step(self, action: Any) -> StepResult[Any]:
        self.t += 1
        self.calls += 1
        kind = self.kinds[self.calls % len(self.kinds)]
        done = self.t >= self.length
        return StepResult(
            np.array([self.t, self.calls, float(action)]),
            0.5 * self.calls,
            done and not self.truncate,
            done and self.truncate,
            _info(kind, self.t),
        )


def _same(a: Any, b: Any) -> None:
    """Equal, with the same types all the way down (dict subclasses included)."""
    assert type(a) is type(b), (a, b)
    if isinstance(a, dict):
        assert list(a) == list(b)
        for key in a:
            _same(a[key], b[key])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    elif callable(a):
        assert a(2.0) == b(2.0)
    else:
        assert a == b


def _trace(vec: VecEnv[Any, Any], actions: list[list[int]]) -> list[Any]:
    reset = vec.reset(seed=0)
    trace: list[Any] = [(reset.observations, reset.infos)]
    for batch in actions:
        r = vec.step(np.array(batch, dtype=np.int64))
        trace.append((r.observations, r.rewards, r.terminated, r.truncated, r.infos))
    vec.close()
    return trace


case = st.integers(1, 5).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(1, 5), min_size=n, max_size=n),  # episode lengths
        st.lists(  # info kinds of each sub-env, cycled
            st.lists(st.integers(0, _INFO_KINDS - 1), min_size=1, max_size=4),
            min_size=n,
            max_size=n,
        ),
        st.lists(st.lists(st.integers(0, 2), min_size=n, max_size=n), min_size=1, max_size=8),
        st.integers(1, n),  # workers
        st.booleans(),  # autoreset
        st.booleans(),  # truncate instead of terminate
    )
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case)
def test_steps_agree_with_sync_whatever_the_infos(proc: Any, scenario: Any) -> None:
    lengths, kinds, actions, workers, autoreset, truncate = scenario
    fns = [
        lambda n=n, k=k: ScheduledEnv(n, k, truncate) for n, k in zip(lengths, kinds, strict=True)
    ]
    expected = _trace(SyncVecEnv(fns, autoreset=autoreset), actions)
    vec = proc(fns, autoreset=autoreset, num_workers=workers)
    assert vec.shared_memory
    _same(expected, _trace(vec, actions))


def test_a_step_with_empty_infos_unpickles_nothing(
    proc: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every worker answers STEPPED alone: the parent unpickles no reply, steps stay exact."""
    fns = [lambda: ScheduledEnv(3, [0], False)] * 4
    vec = proc(fns, num_workers=2)
    sync = SyncVecEnv(fns)
    vec.reset(seed=0)
    sync.reset(seed=0)
    loads: list[bytes] = []
    real_loads = _proc_pool._loads

    def counting_loads(data: bytes) -> Any:
        loads.append(data)
        return real_loads(data)

    monkeypatch.setattr(_proc_pool, "_loads", counting_loads)
    actions = np.array([0, 1, 2, 1], dtype=np.int64)
    for _ in range(7):  # two autoresets per sub-env: their infos are not empty
        got, want = vec.step(actions), sync.step(actions)
        _same(
            (want.observations, want.rewards, want.terminated, want.truncated, want.infos),
            (got.observations, got.rewards, got.terminated, got.truncated, got.infos),
        )
        assert got.infos[0] is not got.infos[1]  # fresh dicts, not one shared
    sync.close()
    # Only the steps that reset a sub-env sent infos (steps 3 and 6, one per worker).
    assert len(loads) == 4
    assert all(data[0] != STEPPED_TAG for data in loads)  # the infos alone, not a reply


def test_the_answer_is_the_fixed_header_and_the_infos_only_when_one_is_not_empty() -> None:
    """What a worker sends for a step that wrote everything into the block."""
    worker: Any = type("W", (), {})()
    worker.stepped_infos = [{}, {}]
    assert _proc_worker._stepped(7, worker) == STEPPED.pack(STEPPED_TAG, 7)
    assert worker.stepped_infos == []
    infos = [{}, {"t": 1}]
    worker.stepped_infos = infos
    message = _proc_worker._stepped(8, worker)
    head = STEPPED.pack(STEPPED_TAG, 8)
    assert message.startswith(head)
    assert _proc_pool._stepped_infos(message, len(head), 2) == infos
    empty = _proc_pool._stepped_infos(head, len(head), 3)
    assert empty == [{}, {}, {}] and len({id(info) for info in empty}) == 3


def test_a_step_that_freezes_a_sub_env_takes_the_general_answer(proc: Any) -> None:
    """autoreset=False: a step that freezes a sub-env says so in a pickled Batch."""
    fns = [lambda n=n: ScheduledEnv(n, [0, 1], False) for n in (1, 2, 3)]
    vec = proc(fns, autoreset=False, num_workers=3)
    vec.reset(seed=0)
    for step in range(3):
        r = vec.step(np.zeros(3, dtype=np.int64))
        assert r.terminated.tolist() == [True, step >= 1, step >= 2]
        assert vec.frozen.tolist() == r.terminated.tolist()
