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
