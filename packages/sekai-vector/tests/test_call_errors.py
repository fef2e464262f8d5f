"""Errors of vector calls: checked, catchable as SekaiError, naming the sub-env.

- A bad argument of ``send`` / ``reset`` / ``set_attr`` / ``async_step``
  raises ``InvalidArgument`` (a ``ValueError``) or ``InvalidArgumentType``
  (also a ``TypeError``) on every backend, from one validation place.
- A sub-env's result that does not fit (an info that is not a dict, a reward
  too large for a float64) raises ``InvalidObservation`` naming the sub-env.
- An exception a sub-env raises in SyncVecEnv / AsyncVecEnv keeps its type
  and gains a note naming the sub-env.
- Messages name one sub-env in the singular ("sub-env 3", not "sub-envs 3").
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from numpy.typing import NDArray

from sekai.core import Env, ResetResult, StepResult
from sekai.error import (
    InvalidArgument,
    InvalidArgumentType,
    InvalidObservation,
    SekaiError,
)
from sekai.spaces import Box, Discrete
from sekai.vector import AsyncVecEnv, NativeVecEnv, ProcVecEnv, SyncVecEnv, VecEnv

CONTEXT = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
with contextlib.suppress(ImportError, ValueError):
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])

NOTES = sys.version_info >= (3, 11)  # BaseException.add_note
EMPTY: Any = object()  # "an empty info dict" (None is an info under test)


class Plain(Env[NDArray[np.float32], Any]):
    """Returns ``info`` and ``reward`` from every step; ends its episode when ``done``.

    ``fail`` makes step (``"step"``) or reset (``"reset"``, after the first)
    raise a RuntimeError.
    """

    def __init__(
        self,
        info: Any = EMPTY,
        reward: Any = 0.0,
        done: bool = False,
        fail: str = "",
        reset_info: Any = EMPTY,
    ) -> None:
        self.observation_space = Box(-1.0, 1.0, (2,), np.float32)
        self.action_space = Discrete(3)
        self.info = {} if info is EMPTY else info
        self.reset_info = {} if reset_info is EMPTY else reset_info
        self.reward = reward
        self.done = done
        self.fail = fail
        self.resets = 0

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[NDArray[np.float32]]:
        self.resets += 1
        if self.fail == "reset" and self.resets > 1:
            raise RuntimeError("reset failed")
        return ResetResult(np.zeros(2, np.float32), self.reset_info)

    def step(self, action: int) -> StepResult[NDArray[np.float32]]:
        if self.fail == "step":
            raise RuntimeError("step failed")
        return StepResult(np.zeros(2, np.float32), self.reward, self.done, False, self.info)


class Native(NativeVecEnv[NDArray[np.float32], Any]):
    """A native vector env whose ``_step`` returns ``rewards`` as given (a list)."""

    def __init__(self, num_envs: int, rewards: list[Any] | None = None) -> None:
        super().__init__(num_envs, Box(-1.0, 1.0, (2,), np.float32), Discrete(3))
        self.rewards = rewards if rewards is not None else [0.0] * num_envs
        self.level = np.zeros(num_envs)

    def _reset_envs(self, indices: NDArray[np.intp], options: Any) -> None:
        self.level[indices] = 0.0

    def _observe(self) -> NDArray[np.float32]:
        return np.zeros((self.num_envs, 2), np.float32)

    def _step(self, actions: Any) -> tuple[Any, Any, Any, dict[str, Any]]:
        false = np.zeros(self.num_envs, dtype=bool)
        return list(self.rewards), false, false.copy(), {}


def _proc(fns: Any, **kwargs: Any) -> VecEnv[Any, Any]:
    pytest.importorskip("cloudpickle")
    return ProcVecEnv(fns, context=CONTEXT, num_workers=2, **kwargs)


Factory = Callable[..., VecEnv[Any, Any]]
BACKENDS: dict[str, Factory] = {"sync": SyncVecEnv, "async": AsyncVecEnv, "proc": _proc}
IN_PROCESS: dict[str, Factory] = {"sync": SyncVecEnv, "async": AsyncVecEnv}


def _envs(n: int = 4, **second: Any) -> list[Callable[[], Env[Any, Any]]]:
    """``n`` factories; sub-env 1 is built with ``second``, the others plain."""
    return [(lambda: Plain(**second)) if i == 1 else Plain for i in range(n)]


def _vec(kind: str, n: int = 4, **kwargs: Any) -> VecEnv[Any, Any]:
    if kind == "native":
        return Native(n)
    return BACKENDS[kind](_envs(n), **kwargs)


# -- item 10: send() misuse ------------------------------------------------------------

ALL_KINDS = ["sync", "async", "proc", "native"]


def _assert_argument_error(error: BaseException) -> None:
    assert isinstance(error, InvalidArgument)
    assert isinstance(error, SekaiError)
    assert isinstance(error, ValueError)


@pytest.mark.parametrize("kind", ALL_KINDS)
@pytest.mark.parametrize(
    ("env_ids", "match"),
    [
        ([0, 0], "twice"),
        ([4], r"\[0, 4\)"),
        ([-1], r"\[0, 4\)"),
        ([0.0, 1.0], "1-D sequence of ints"),
        ([], "non-empty"),
        ([[0, 1]], "1-D sequence of ints"),
    ],
)
def test_send_misuse_raises_invalid_argument(kind: str, env_ids: Any, match: str) -> None:
    vec = _vec(kind, batch_size=2) if kind != "native" else _vec(kind)
    try:
        vec.reset(seed=0)
        actions = np.zeros(max(len(env_ids), 1), dtype=np.int64)
        with pytest.raises(InvalidArgument, match=match) as info:
            vec.send(actions, env_ids)
        _assert_argument_error(info.value)
        # Ids of the wrong type are a TypeError as well; ids of the wrong shape are not.
        assert isinstance(info.value, TypeError) == (env_ids == [0.0, 1.0])
        # Nothing was sent: a full step still works.
        assert vec.step(np.zeros(4, dtype=np.int64)).rewards.shape == (4,)
    finally:
        vec.close()


@pytest.mark.parametrize("kind", ["sync", "async", "proc"])
def test_send_of_sub_envs_in_flight_names_them(kind: str) -> None:
    vec = _vec(kind, batch_size=2)
    try:
        vec.reset(seed=0)
        vec.send(np.zeros(1, dtype=np.int64), [3])
        with pytest.raises(InvalidArgument, match=r"but sub-env 3 was sent actions") as info:
            vec.send(np.zeros(2, dtype=np.int64), [2, 3])
        _assert_argument_error(info.value)
        vec.send(np.zeros(2, dtype=np.int64), [0, 1])
        with pytest.raises(InvalidArgument, match="sub-envs 0, 1 and 3 were sent"):
            vec.send(np.zeros(3, dtype=np.int64), [0, 1, 3])
        vec.send(np.zeros(1, dtype=np.int64), [2])
        with pytest.raises(InvalidArgument, match="all 4 are in flight"):
            vec.send(np.zeros(4, dtype=np.int64))  # env_ids=None: nothing left to send
    finally:
        vec.close()


def test_native_partial_send_raises_invalid_argument() -> None:
    vec = _vec("native")
    vec.reset(seed=0)
    with pytest.raises(InvalidArgument, match="every sub-env at once"):
        vec.send(np.zeros(2, dtype=np.int64), [0, 1])
    vec.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ids=st.one_of(
        st.lists(st.integers(-3, 7), max_size=6),
        st.lists(st.floats(-1, 5, allow_nan=False), min_size=1, max_size=3),
    ),
    busy=st.lists(st.integers(0, 3), max_size=2, unique=True),
)
def test_send_accepts_exactly_the_valid_env_ids(ids: list[Any], busy: list[int]) -> None:
    vec = SyncVecEnv(_envs(4), batch_size=1)
    try:
        vec.reset(seed=0)
        if busy:
            vec.send(np.zeros(len(busy), dtype=np.int64), busy)
        valid = (
            len(ids) > 0
            and all(isinstance(i, int) for i in ids)
            and all(0 <= i < 4 for i in ids)
            and len(set(ids)) == len(ids)
            and not set(ids) & set(busy)
        )
        if valid:
            vec.send(np.zeros(len(ids), dtype=np.int64), ids)
        else:
            with pytest.raises(InvalidArgument):
                vec.send(np.zeros(max(len(ids), 1), dtype=np.int64), ids)
    finally:
        vec.close()


# -- item 10: the other vector call arguments ------------------------------------------


@pytest.mark.parametrize("kind", ALL_KINDS)
@pytest.mark.parametrize(
    ("seed", "options", "error", "builtin"),
    [
        (np.random.default_rng(0), None, InvalidArgumentType, TypeError),
        ("7", None, InvalidArgumentType, TypeError),
        ([1, 2], None, InvalidArgument, ValueError),
        ([1, 2, 3, 1.5], None, InvalidArgumentType, TypeError),
        ([1, 2, 3, -4], None, InvalidArgument, ValueError),
        (-1, None, InvalidArgument, ValueError),
        (None, [{}], InvalidArgument, ValueError),
        (None, "fast", InvalidArgumentType, TypeError),
        (None, [{}, {}, {}, 3], InvalidArgumentType, TypeError),
    ],
)
def test_reset_arguments_raise_sekai_errors(
    kind: str, seed: Any, options: Any, error: type[Exception], builtin: type[Exception]
) -> None:
    vec = _vec(kind)
    try:
        with pytest.raises(error) as info:
            vec.reset(seed=seed, options=options)
        assert isinstance(info.value, SekaiError)
        assert isinstance(info.value, builtin)  # what it raised before
    finally:
        vec.close()


@pytest.mark.parametrize("kind", ALL_KINDS)
def test_set_attr_list_of_wrong_length_raises_invalid_argument(kind: str) -> None:
    vec = _vec(kind)
    try:
        name = "level" if kind == "native" else "reward"
        with pytest.raises(InvalidArgument, match="one entry per sub-env"):
            vec.set_attr(name, [1.0, 2.0])
    finally:
        vec.close()


@pytest.mark.parametrize("kind", ALL_KINDS)
def test_async_step_given_the_batch_twice_or_not_at_all(kind: str) -> None:
    vec = _vec(kind)
    try:
        vec.reset(seed=0)
        batch = np.zeros(4, dtype=np.int64)
        with pytest.raises(InvalidArgumentType, match="twice") as info:
            asyncio.run(vec.async_step(batch, action=batch))
        assert isinstance(info.value, TypeError)
        with pytest.raises(InvalidArgumentType, match="neither"):
            asyncio.run(vec.async_step())
    finally:
        vec.close()


# -- item 11: infos and rewards that do not fit ----------------------------------------

NOT_DICTS = [None, [("a", 1)], "xy", 3]


@pytest.mark.parametrize("kind", list(BACKENDS))
@pytest.mark.parametrize("info", NOT_DICTS, ids=repr)
@pytest.mark.parametrize("done", [False, True], ids=["running", "ended"])
def test_an_info_that_is_not_a_dict_is_refused(kind: str, info: Any, done: bool) -> None:
    vec = BACKENDS[kind](_envs(4, info=info, done=done))
    try:
        vec.reset(seed=0)
        with pytest.raises(
            InvalidObservation, match=r"sub-env 1 returned info .*needs a dict"
        ) as e:
            vec.step(np.zeros(4, dtype=np.int64))
        assert f"({type(info).__name__})" in str(e.value)
    finally:
        vec.close()


@pytest.mark.parametrize("kind", list(BACKENDS))
def test_an_info_that_is_not_a_dict_is_refused_in_a_partial_batch(kind: str) -> None:
    vec = BACKENDS[kind](_envs(4, info=[1]), batch_size=2)
    try:
        vec.reset(seed=0)
        vec.send(np.zeros(2, dtype=np.int64), [0, 1])
        with pytest.raises(InvalidObservation, match=r"sub-env 1 returned info \[1\] \(list\)"):
            vec.recv()
    finally:
        vec.close()


@pytest.mark.parametrize("kind", list(BACKENDS))
def test_a_reset_info_that_is_not_a_dict_is_refused(kind: str) -> None:
    vec = BACKENDS[kind](_envs(4, reset_info=("x",)))
    try:
        with pytest.raises(InvalidObservation, match=r"sub-env 1 returned info \('x',\) \(tuple\)"):
            vec.reset(seed=0)
    finally:
        vec.close()


def test_an_info_dict_subclass_passes() -> None:
    from collections import OrderedDict

    vec = SyncVecEnv(_envs(2, info=OrderedDict(a=1), done=True))
    vec.reset(seed=0)
    result = vec.step(np.zeros(2, dtype=np.int64))
    assert result.infos[1]["final_info"] == {"a": 1}
    vec.close()


@pytest.mark.parametrize("kind", list(BACKENDS))
@pytest.mark.parametrize("reward", [10**400, -(10**309)], ids=["1e400", "-1e309"])
def test_a_reward_too_large_for_a_float_is_refused(kind: str, reward: int) -> None:
    vec = BACKENDS[kind](_envs(4, reward=reward))
    try:
        vec.reset(seed=0)
        with pytest.raises(
            InvalidObservation, match=r"sub-env 1 returned reward -?1e\+\d+ \(int\)"
        ):
            vec.step(np.zeros(4, dtype=np.int64))
    finally:
        vec.close()


def test_a_native_reward_too_large_for_a_float_is_refused() -> None:
    vec = Native(3, rewards=[0.0, 0.5, 10**400])
    vec.reset(seed=0)
    with pytest.raises(InvalidObservation, match=r"sub-env 2 returned reward 1e\+400"):
        vec.step(np.zeros(3, dtype=np.int64))
    vec.close()


@settings(max_examples=40, deadline=None)
@given(
    reward=st.one_of(
        st.integers(min_value=2**1024, max_value=10**2000),
        st.integers(max_value=-(2**1024), min_value=-(10**2000)),
        st.integers(-(2**60), 2**60),
    ),
    row=st.integers(0, 2),
)
def test_rewards_array_refuses_exactly_the_ints_beyond_float64(reward: int, row: int) -> None:
    from sekai.vector._autoreset import rewards_array

    rewards: list[Any] = [0.0, 1, 2.5]
    rewards[row] = reward
    if abs(reward) < 2**1024:
        assert rewards_array(rewards)[row] == float(reward)
    else:
        with pytest.raises(InvalidObservation, match=f"sub-env {row} returned reward"):
            rewards_array(rewards)


# -- item 11: a sub-env's own exception names the sub-env ------------------------------


def _notes(error: BaseException) -> list[str]:
    return list(getattr(error, "__notes__", []))


@pytest.mark.skipif(not NOTES, reason="exception notes need Python 3.11")
@pytest.mark.parametrize("kind", list(IN_PROCESS))
def test_a_failing_step_keeps_its_type_and_names_the_sub_env(kind: str) -> None:
    vec = IN_PROCESS[kind](_envs(4, fail="step"))
    vec.reset(seed=0)
    with pytest.raises(RuntimeError, match="step failed") as info:
        vec.step(np.zeros(4, dtype=np.int64))
    assert type(info.value) is RuntimeError
    assert _notes(info.value) == ["(raised by sub-env 1 in its step())"]
    assert info.value.__traceback__ is not None
    vec.close()


@pytest.mark.skipif(not NOTES, reason="exception notes need Python 3.11")
@pytest.mark.parametrize("kind", list(IN_PROCESS))
def test_a_failing_recv_names_the_sub_env(kind: str) -> None:
    vec = IN_PROCESS[kind](_envs(4, fail="step"), batch_size=2)
    vec.reset(seed=0)
    vec.send(np.zeros(2, dtype=np.int64), [1, 2])
    with pytest.raises(RuntimeError, match="step failed") as info:
        vec.recv()
    assert _notes(info.value) == ["(raised by sub-env 1 in its step())"]
    vec.close()


@pytest.mark.skipif(not NOTES, reason="exception notes need Python 3.11")
@pytest.mark.parametrize("kind", list(IN_PROCESS))
def test_a_failing_reset_names_the_sub_env(kind: str) -> None:
    vec = IN_PROCESS[kind](_envs(4, fail="reset"))
    vec.reset(seed=0)
    with pytest.raises(RuntimeError, match="reset failed") as info:
        vec.reset(seed=1)
    assert _notes(info.value) == ["(raised by sub-env 1 in its reset())"]
    vec.close()


@pytest.mark.skipif(not NOTES, reason="exception notes need Python 3.11")
@pytest.mark.parametrize("kind", list(IN_PROCESS))
def test_a_failing_autoreset_is_not_called_a_step(kind: str) -> None:
    vec = IN_PROCESS[kind](_envs(4, fail="reset", done=True))
    vec.reset(seed=0)
    with pytest.raises(RuntimeError, match="reset failed") as info:
        vec.step(np.zeros(4, dtype=np.int64))
    assert _notes(info.value) == [
        "(raised by the autoreset of sub-env 1: its reset() after the episode)"
    ]
    vec.close()


# -- item 13: wording ------------------------------------------------------------------


@given(ids=st.lists(st.integers(0, 10**6), min_size=1, max_size=8))
def test_sub_envs_are_named_in_the_singular_or_the_plural(ids: list[int]) -> None:
    from sekai.vector._sub_envs import count_sub_envs, name_sub_envs

    text = name_sub_envs(ids)
    if len(ids) == 1:
        assert text == f"sub-env {ids[0]}"
    else:
        assert text.startswith("sub-envs ")
        assert text.endswith(f" and {ids[-1]}")
        assert text.count(",") == len(ids) - 2
    assert count_sub_envs(len(ids)).endswith("sub-env" if len(ids) == 1 else "sub-envs")


@pytest.mark.parametrize("cls", [SyncVecEnv, AsyncVecEnv])
def test_step_while_one_sub_env_is_in_flight_says_so_in_the_singular(cls: Any) -> None:
    vec = cls(_envs(4), batch_size=2)
    vec.reset(seed=0)
    vec.send(np.zeros(1, dtype=np.int64), [3])
    with pytest.raises(SekaiError, match=r"1 sub-env sent actions with send\(\) was not received"):
        vec.step(np.zeros(4, dtype=np.int64))
    vec.close()


def test_batch_size_of_one_sub_env_says_there_is_one() -> None:
    with pytest.raises(ValueError, match=r"there is 1 sub-env\)"):
        SyncVecEnv(_envs(1), batch_size=2)
