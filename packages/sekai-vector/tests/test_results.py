"""VecStepResult, VecResetResult and stack_infos."""

from __future__ import annotations

import dataclasses
import doctest
import importlib
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from hypothesis import given, strategies as st

from sekai.vector import VecResetResult, VecStepResult, stack_infos


def test_dones_is_terminated_or_truncated() -> None:
    result = VecStepResult(
        np.zeros((3, 1)),
        np.zeros(3),
        np.array([True, False, False]),
        np.array([False, True, False]),
        [{}, {}, {}],
    )
    np.testing.assert_array_equal(result.dones, [True, True, False])
    assert result.num_envs == 3


def test_reset_result_dones_are_all_false() -> None:
    result = VecResetResult(np.zeros((4, 2)), [{}] * 4)
    assert result.dones.dtype == np.bool_
    np.testing.assert_array_equal(result.dones, [False] * 4)


def test_results_are_immutable() -> None:
    result = VecResetResult(np.zeros((1, 2)), [{}])
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.infos = []  # type: ignore[misc]


def test_results_are_generic() -> None:
    result = VecResetResult[np.ndarray](np.zeros((1, 2)), [{}])
    assert result.infos == [{}]


def test_stack_infos_keeps_shared_keys_only() -> None:
    stacked = stack_infos([{"a": 1, "b": 2.0}, {"a": 3}, {"a": 5, "c": 1}])
    assert list(stacked) == ["a"]
    np.testing.assert_array_equal(stacked["a"], [1, 3, 5])
    assert stack_infos([]) == {}


def test_stack_infos_arrays_and_objects() -> None:
    stacked = stack_infos(
        [
            {"v": np.ones(2), "ragged": np.ones(2), "d": {"x": 1}},
            {"v": np.zeros(2), "ragged": np.ones(3), "d": {"x": 2}},
        ]
    )
    assert stacked["v"].shape == (2, 2)
    assert stacked["ragged"].dtype == object and stacked["ragged"].shape == (2,)
    assert stacked["ragged"][1].shape == (3,)
    assert stacked["d"].dtype == object and stacked["d"][1] == {"x": 2}


def test_stack_infos_keeps_mixed_values_as_they_are() -> None:
    stacked = stack_infos([{"id": 1, "side": "buy"}, {"id": "x", "side": "sell"}])
    assert stacked["id"].dtype == object and stacked["id"].tolist() == [1, "x"]
    assert stacked["side"].tolist() == ["buy", "sell"]


@pytest.mark.parametrize("infos", [{"a": 1}, [{"a": 1}, 2], "ab", None])
def test_stack_infos_refuses_what_is_not_a_list_of_dicts(infos: Any) -> None:
    with pytest.raises(TypeError, match="list of info dicts"):
        stack_infos(infos)


@given(st.lists(st.dictionaries(st.sampled_from("abcd"), st.floats(allow_nan=False)), min_size=1))
def test_stack_infos_property(infos: list[dict[str, float]]) -> None:
    stacked = stack_infos(infos)
    shared = set(infos[0]).intersection(*infos[1:])
    assert set(stacked) == shared
    for key, values in stacked.items():
        assert values.shape == (len(infos),)
        np.testing.assert_array_equal(values, [info[key] for info in infos])


@pytest.mark.parametrize(
    "module",
    ["sekai.vector.results", "sekai.vector.native", "sekai.vector.sync_vec_env"],
)
def test_docstring_examples(module: str) -> None:
    failures, _ = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert failures == 0


def test_sekai_vector_imports_neither_wrappers_nor_envs() -> None:
    code = (
        "import sys, sekai.vector; "
        "print(sorted(m for m in sys.modules if m.startswith(('sekai.wrappers', 'sekai.envs'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _step(obs: Any, infos: list[dict[str, Any]]) -> VecStepResult[Any]:
    return VecStepResult(obs, np.ones(2), np.zeros(2, bool), np.array([True, False]), infos)


def test_results_holding_arrays_compare_by_value() -> None:
    obs = {"prices": np.arange(4.0).reshape(2, 2), "legs": (np.array([1, 2]), [1.0, 2.0])}
    final = {"final_observation": np.ones(2), "final_info": {}}
    assert _step(obs, [final, {}]) == _step(
        {"prices": np.arange(4.0).reshape(2, 2), "legs": (np.array([1, 2]), [1.0, 2.0])},
        [{"final_observation": np.ones(2), "final_info": {}}, {}],
    )
    assert _step(obs, [final, {}]) != _step(obs, [{"final_observation": np.zeros(2)}, {}])
    assert _step(np.zeros((2, 1)), [{}, {}]) != _step(np.zeros((2, 2)), [{}, {}])
    assert VecResetResult(np.zeros((2, 1)), [{}, {}]) == VecResetResult(np.zeros((2, 1)), [{}, {}])
    assert VecResetResult(np.zeros((2, 1)), [{}, {}]) != VecResetResult(np.ones((2, 1)), [{}, {}])


def test_result_equality_is_per_type_and_results_are_unhashable() -> None:
    reset = VecResetResult(np.zeros((2, 1)), [{}, {}])
    assert reset != _step(np.zeros((2, 1)), [{}, {}])
    assert reset != (reset.observations, reset.infos)
    nan = VecResetResult(np.array([np.nan]), [{}])
    assert nan == nan
    assert nan != VecResetResult(np.array([np.nan]), [{}])  # NaN is not equal to NaN
    for result in (reset, _step(np.zeros((2, 1)), [{}, {}])):
        with pytest.raises(TypeError, match="unhashable"):
            hash(result)
