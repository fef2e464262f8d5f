"""StepResult, ResetResult, MAStepResult, MAResetResult."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import textwrap

import numpy as np
import pytest
from hypothesis import given, strategies as st

from sekai.core import MAResetResult, MAStepResult, ResetResult, StepResult
from sekai.error import ResultNotIterable, SekaiError

RESULTS = [
    StepResult(1, 0.5, True, False, {"a": 1}),
    ResetResult([1, 2], {"b": 2}),
    MAStepResult({"a": 1}, {"a": 1.0}, {"a": False}, {"a": True}, {"a": {}}),
    MAResetResult({"a": 1}, {"a": {}}),
]


def test_step_result_fields_by_name() -> None:
    r = StepResult(observation=3, reward=1.5, terminated=False, truncated=True, info={"k": 1})
    assert (r.observation, r.reward, r.terminated, r.truncated, r.info) == (
        3,
        1.5,
        False,
        True,
        {"k": 1},
    )
    assert r == StepResult(3, 1.5, False, True, {"k": 1})
    assert "StepResult(observation=3, reward=1.5" in repr(r)


@pytest.mark.parametrize(
    ("terminated", "truncated"), [(False, False), (True, False), (False, True), (True, True)]
)
def test_step_result_done_is_terminated_or_truncated(terminated: bool, truncated: bool) -> None:
    assert StepResult(0, 0.0, terminated, truncated, {}).done is (terminated or truncated)


def test_reset_result_is_never_done_and_one_loop_handles_both() -> None:
    result: StepResult[int] | ResetResult[int] = ResetResult(0, {})
    assert result.done is False
    steps = 0
    while not result.done:
        steps += 1
        result = StepResult(steps, 0.0, steps == 3, False, {})
    assert steps == 3


@pytest.mark.parametrize("result", RESULTS, ids=lambda r: type(r).__name__)
def test_results_are_frozen_and_slotted(result: object) -> None:
    assert dataclasses.is_dataclass(result)
    field = dataclasses.fields(result)[0].name  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(result, field, 99)
    with pytest.raises((AttributeError, TypeError)):
        result.new_attribute = 1  # type: ignore[attr-defined]
    assert not hasattr(result, "__dict__")


@pytest.mark.parametrize("result", RESULTS, ids=lambda r: type(r).__name__)
def test_results_pickle_copy_and_replace(result: object) -> None:
    assert pickle.loads(pickle.dumps(result)) == result
    assert copy.deepcopy(result) == result
    assert copy.copy(result) == result
    field = dataclasses.fields(result)[0].name  # type: ignore[arg-type]
    changed = dataclasses.replace(result, **{field: "x"})  # type: ignore[type-var]
    assert getattr(changed, field) == "x"


def test_results_are_generic() -> None:
    assert StepResult[int](1, 0.0, False, False, {}).observation == 1
    assert MAStepResult[int, str]({}, {}, {}, {}, {}).observations == {}


def test_ma_reset_result_never_done() -> None:
    r = MAResetResult({"a": 0}, {"a": {}})
    assert r.all_done is False
    assert r.any_done is False


def _ma(terminated: dict[str, bool], truncated: dict[str, bool]) -> MAStepResult[int, str]:
    return MAStepResult({}, {}, terminated, truncated, {})


def test_ma_empty_dicts_are_neither_all_nor_any_done() -> None:
    assert _ma({}, {}).all_done is False
    assert _ma({}, {}).any_done is False


def test_ma_agents_are_matched_by_id_and_missing_counts_as_false() -> None:
    # "a" only terminated, "b" only truncated: both done.
    r = _ma({"a": True}, {"b": True})
    assert r.all_done is True
    assert r.any_done is True
    # "b" is missing from terminated and not truncated: not done.
    r = _ma({"a": True}, {"a": False, "b": False})
    assert r.all_done is False
    assert r.any_done is True
    # Flags in a different order in the two dicts still match by ID.
    r = _ma({"a": False, "b": True}, {"b": False, "a": True})
    assert r.all_done is True


@given(
    st.dictionaries(st.sampled_from("abcde"), st.booleans()),
    st.dictionaries(st.sampled_from("abcde"), st.booleans()),
)
def test_ma_done_matches_reference(terminated: dict[str, bool], truncated: dict[str, bool]) -> None:
    agents = set(terminated) | set(truncated)
    done = {a: terminated.get(a, False) or truncated.get(a, False) for a in agents}
    r = _ma(terminated, truncated)
    assert r.all_done is (bool(agents) and all(done.values()))
    assert r.any_done is any(done.values())


def test_reset_result_docstring_example_runs() -> None:
    doc = ResetResult.__doc__ or ""
    code = doc.split("```python")[1].split("```")[0]

    class Env:
        def __init__(self) -> None:
            self.t = 0

        def reset(self, seed: int) -> ResetResult[int]:
            return ResetResult(0, {})

        def step(self, action: int) -> StepResult[int]:
            self.t += 1
            return StepResult(self.t, 0.0, self.t == 4, False, {})

    namespace: dict[str, object] = {"env": Env(), "policy": lambda obs: 0}
    exec(textwrap.dedent(code), namespace)
    assert namespace["result"] == StepResult(4, 0.0, True, False, {})


def test_results_are_not_tuples() -> None:
    # Replacing the 5-tuple means no positional unpacking that could silently swap fields.
    result = StepResult(0, 1.0, False, True, {})
    assert not isinstance(result, tuple)
    with pytest.raises(TypeError):
        _obs, _reward, _terminated, _truncated, _info = result  # type: ignore[misc]
    with pytest.raises(TypeError):
        _obs, _info = ResetResult(0, {})  # type: ignore[misc]


# What each result says to read instead, and where tuples come from.
UNPACKING_HINTS = {
    StepResult: (
        "result.observation, result.reward, result.terminated, result.truncated and result.info",
        "sekai.compat.to_gymnasium(env)",
    ),
    ResetResult: ("result.observation and result.info", "sekai.compat.to_gymnasium(env)"),
    MAStepResult: (
        "result.observations, result.rewards, result.terminated, result.truncated and result.info",
        "sekai.compat.to_pettingzoo(env)",
    ),
    MAResetResult: ("result.observations and result.info", "sekai.compat.to_pettingzoo(env)"),
}


@pytest.mark.parametrize("result", RESULTS, ids=lambda r: type(r).__name__)
def test_unpacking_a_result_says_how_to_read_it(result: object) -> None:
    # The Gymnasium habit `obs, info = env.reset()` used to give Python's bare
    # "cannot unpack non-iterable ResetResult object".
    fields_text, adapter = UNPACKING_HINTS[type(result)]  # type: ignore[index]
    n_fields = len(dataclasses.fields(result))  # type: ignore[arg-type]
    for attempt in (
        lambda: tuple(result),  # type: ignore[call-overload]
        lambda: [*result],  # type: ignore[misc]
        lambda: iter(result),  # type: ignore[call-overload]
        lambda: dict(zip("abcde", result, strict=False)),  # type: ignore[call-overload]
    ):
        with pytest.raises(ResultNotIterable) as caught:
            attempt()
        message = str(caught.value)
        assert fields_text in message and adapter in message
        assert f"{type(result).__name__} is not a tuple" in message
    if n_fields == 2:
        with pytest.raises(TypeError, match=type(result).__name__):
            _a, _b = result  # type: ignore[misc]
    else:
        with pytest.raises(TypeError, match=type(result).__name__):
            _a, _b, _c, _d, _e = result  # type: ignore[misc]
    assert issubclass(ResultNotIterable, SekaiError) and issubclass(ResultNotIterable, TypeError)


@pytest.mark.parametrize("result", RESULTS, ids=lambda r: type(r).__name__)
def test_refusing_iteration_keeps_conversions_working(result: object) -> None:
    # numpy sees an object scalar, not a sequence it would iterate
    array = np.array(result, dtype=object)
    assert array.shape == () and array.item() is result
    names = [field.name for field in dataclasses.fields(result)]  # type: ignore[arg-type]
    assert dataclasses.astuple(result) == tuple(getattr(result, n) for n in names)  # type: ignore[call-overload]
    assert dataclasses.asdict(result) == {n: getattr(result, n) for n in names}  # type: ignore[call-overload]
    assert pickle.loads(pickle.dumps(result)) == result
    assert copy.deepcopy(result) == result and result == copy.copy(result)
    restored = pickle.loads(pickle.dumps(ResultNotIterable("message")))
    assert type(restored) is ResultNotIterable and str(restored) == "message"


@given(st.lists(st.floats(allow_nan=False), min_size=1, max_size=4), st.booleans())
def test_results_holding_any_observation_stay_comparable(obs: list[float], as_array: bool) -> None:
    value = np.array(obs) if as_array else obs
    assert ResetResult(value, {"k": value}) == ResetResult(
        np.array(obs) if as_array else list(obs), {"k": value}
    )
    assert np.array([ResetResult(value, {})], dtype=object).shape == (1,)


def _obs(seed: int) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    return {"prices": rng.normal(size=(3, 2)), "legs": (rng.integers(0, 5, 2), [1.0, 2.0])}


def test_results_holding_arrays_compare_by_value() -> None:
    assert StepResult(_obs(0), 1.0, False, np.bool_(True), {"a": np.ones(2)}) == StepResult(
        _obs(0), 1.0, False, True, {"a": np.ones(2)}
    )
    assert StepResult(_obs(0), 1.0, False, False, {}) != StepResult(_obs(1), 1.0, False, False, {})
    assert ResetResult(np.zeros(3), {}) == ResetResult(np.zeros(3), {})
    assert ResetResult(np.zeros(3), {}) != ResetResult(np.zeros((1, 3)), {})
    assert ResetResult(np.zeros(3), {}) != ResetResult([0.0, 0.0, 0.0], {})
    assert MAStepResult({"a": np.ones(2)}, {"a": 1.0}, {"a": False}, {}, {}) == MAStepResult(
        {"a": np.ones(2)}, {"a": 1.0}, {"a": False}, {}, {}
    )
    assert MAResetResult({"a": np.ones(2)}, {}) != MAResetResult({"b": np.ones(2)}, {})


def test_result_equality_is_per_type_and_results_are_unhashable() -> None:
    assert ResetResult(1, {}) != StepResult(1, 0.0, False, False, {})
    assert ResetResult(1, {}) != (1, {})
    nan = np.array([np.nan])
    result = ResetResult(nan, {})
    assert result == result
    assert result != ResetResult(np.array([np.nan]), {})  # NaN is not equal to NaN
    with pytest.raises(TypeError, match="unhashable"):
        hash(result)


@given(
    st.lists(st.floats(allow_nan=False), max_size=5),
    st.lists(st.floats(allow_nan=False), max_size=5),
)
def test_array_equality_matches_numpy(a: list[float], b: list[float]) -> None:
    left = StepResult(np.array(a), 0.0, False, False, {})
    right = StepResult(np.array(b), 0.0, False, False, {})
    assert (left == right) is bool(np.array_equal(np.array(a), np.array(b)))
