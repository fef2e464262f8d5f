"""Vector results are not tuples: unpacking one says what to read instead (issue 32, item 14)."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from collections.abc import Iterable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, strategies as st

from sekai.error import ResultNotIterable, SekaiError
from sekai.vector import SyncVecEnv, VecResetResult, VecStepResult
from sekai.vector.results import deferred_step_result


def _step(n: int, env_ids: np.ndarray | None = None) -> VecStepResult[np.ndarray]:
    return VecStepResult(
        np.arange(n * 2.0).reshape(n, 2),
        np.linspace(0.0, 1.0, n),
        np.arange(n) % 2 == 0,
        np.zeros(n, dtype=bool),
        [{"i": i} for i in range(n)],
        env_ids,
    )


def _reset(n: int) -> VecResetResult[np.ndarray]:
    return VecResetResult(np.ones((n, 3)), [{} for _ in range(n)])


STEP_FIELDS = (
    "result.observations, result.rewards, result.terminated, result.truncated and result.infos"
)


@pytest.mark.parametrize(
    ("build", "fields_text", "call"),
    [
        (lambda: _reset(3), "result.observations and result.infos", "vec.reset()"),
        (lambda: _step(3), STEP_FIELDS, "vec.step(actions)"),
        (lambda: _step(2, np.array([0, 2])), STEP_FIELDS, "vec.step(actions)"),
        (
            lambda: deferred_step_result(
                np.zeros((2, 1)), np.zeros(2), np.zeros(2, bool), np.zeros(2, bool), list
            ),
            STEP_FIELDS,
            "vec.step(actions)",
        ),
    ],
)
def test_unpacking_a_vector_result_says_how_to_read_it(
    build: object, fields_text: str, call: str
) -> None:
    # It used to give Python's bare "cannot unpack non-iterable VecResetResult object".
    result = build()  # type: ignore[operator]
    name = type(result).__name__
    for attempt in (
        lambda: tuple(result),
        lambda: [*result],
        lambda: iter(result),
    ):
        with pytest.raises(ResultNotIterable) as caught:
            attempt()
        message = str(caught.value)
        assert f"{name} is not a tuple" in message and fields_text in message
        assert f"result = {call}" in message
        assert "sekai.compat.to_gymnasium_vector(vec)" in message
        assert isinstance(caught.value, TypeError) and isinstance(caught.value, SekaiError)
    if isinstance(result, VecResetResult):
        with pytest.raises(ResultNotIterable, match="VecResetResult is not a tuple"):
            _observations, _infos = result  # type: ignore[misc]
    else:
        with pytest.raises(ResultNotIterable, match="VecStepResult is not a tuple"):
            _o, _r, _te, _tr, _i = result
    assert isinstance(result, Iterable)  # the refusing __iter__ counts, as documented


def test_a_vector_env_result_refuses_unpacking(kit: Any) -> None:
    with SyncVecEnv([kit.CountingEnv, kit.CountingEnv]) as vec:
        with pytest.raises(ResultNotIterable, match="to_gymnasium_vector"):
            _observations, _infos = vec.reset(seed=0)  # type: ignore[misc]
        with pytest.raises(ResultNotIterable, match=r"result\.rewards"):
            _o, _r, _te, _tr, _i = vec.step(np.array([1, 0]))  # type: ignore[misc]
        assert vec.step(np.array([1, 1])).rewards.shape == (2,)


@given(st.integers(1, 5), st.booleans())
def test_refusing_iteration_keeps_conversions_working(n: int, partial: bool) -> None:
    env_ids = np.arange(n, dtype=np.int64) * 2 if partial else None
    for result in (_step(n, env_ids), _reset(n)):
        array = np.array(result, dtype=object)  # an object scalar, not a sequence
        assert array.shape == () and array.item() is result
        assert np.array([result, result], dtype=object).shape == (2,)
        names = [field.name for field in dataclasses.fields(result)]
        assert dataclasses.astuple(result)[0] is not None
        assert len(dataclasses.astuple(result)) == len(names)
        restored = pickle.loads(pickle.dumps(result))
        assert restored == result and type(restored) is type(result)
        assert copy.deepcopy(result) == result and copy.copy(result) == result
        if isinstance(result, VecStepResult):
            assert restored.env_ids is None if env_ids is None else restored.env_ids.tolist()
            assert result != _step(n + 1)
        else:
            assert result != _reset(n + 1)
