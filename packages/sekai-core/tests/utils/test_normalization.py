"""The per-space normaliser builder shared by the observation-normalising wrappers."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from sekai.spaces import Box, Dict, Discrete, MaskedBox, Tuple
from sekai.utils import ExponentialMovingStats, RunningMeanStd
from sekai.utils._normalization import build_normalizer, load_state, state_of

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 12), st.just(3)), elements=finite))
def test_single_observations_match_a_batch_of_the_same_samples(data: np.ndarray) -> None:
    space = Box(-np.inf, np.inf, (3,))
    one, _, one_rms = build_normalizer(
        space, kind="running", halflife=10.0, epsilon=1e-8, clip=None
    )
    batched, _, batch_rms = build_normalizer(
        space, kind="running", halflife=10.0, epsilon=1e-8, clip=None, num_envs=len(data)
    )
    for row in data:
        one(row, True)
    out = batched(data, True)
    np.testing.assert_allclose(one_rms.mean, batch_rms.mean, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(one_rms.var, batch_rms.var, rtol=1e-7, atol=1e-7)
    # With frozen statistics both give the same normalised rows (an absolute
    # tolerance too: for subnormal inputs the outputs are subnormal as well).
    np.testing.assert_allclose(
        np.stack([one(row, False) for row in data]), batched(data, False), atol=1e-12
    )
    assert out.shape == data.shape and out.dtype == np.float64


def test_single_scalar_box_is_clipped_to_a_scalar() -> None:
    norm, space, rms = build_normalizer(
        Box(-np.inf, np.inf, ()), kind="running", halflife=10.0, epsilon=0.0, clip=0.5
    )
    assert space == Box(-0.5, 0.5, (), np.float64)
    for value in (1.0, 3.0):
        norm(np.float64(value), True)
    out = norm(np.float64(100.0), False)
    assert isinstance(out, np.ndarray) and out.shape == () and out == 0.5
    assert isinstance(rms, RunningMeanStd)


@pytest.mark.parametrize("clip", [None, 0.5])
def test_single_scalar_box_gives_a_0d_array(clip: float | None) -> None:
    norm, space, _ = build_normalizer(
        Box(-np.inf, np.inf, ()), kind="running", halflife=10.0, epsilon=1e-8, clip=clip
    )
    for update in (True, False):
        out = norm(np.array(2.0, np.float32), update)
        assert isinstance(out, np.ndarray) and out.shape == () and out.dtype == np.float64
        assert space.contains(out)


def test_nested_space_masked_slots_and_pass_through() -> None:
    space = Tuple(
        [Dict({"x": Box(-1, 1, (2,)), "k": Discrete(3)}), MaskedBox(-1, 1, (2,), max_size=3)]
    )
    norm, out_space, rms = build_normalizer(
        space, kind="running", halflife=10.0, epsilon=0.0, clip=None, num_envs=2
    )
    assert isinstance(rms, tuple) and rms[0]["k"] is None
    assert out_space[0]["k"] == Discrete(3)
    mask = np.array([[True, False, True], [False, False, True]])
    values = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
    batch = ({"x": np.ones((2, 2)), "k": np.array([0, 2])}, {"values": values, "mask": mask})
    result = norm(batch, True)
    assert result[0]["k"] is batch[0]["k"]
    assert result[1]["mask"] is mask
    np.testing.assert_array_equal(result[1]["values"][~mask], 0.0)
    held = values[mask].astype(np.float64)
    np.testing.assert_allclose(rms[1].mean, held.mean(axis=0), rtol=1e-3)


def test_ewm_halflife_counts_samples_or_vector_steps() -> None:
    space = Dict({"b": Box(-1, 1, (1,)), "m": MaskedBox(-1, 1, (1,), max_size=4)})
    _, _, single = build_normalizer(space, kind="ewm", halflife=10.0, epsilon=0.0, clip=None)
    _, _, vector = build_normalizer(
        space, kind="ewm", halflife=10.0, epsilon=0.0, clip=None, num_envs=3
    )
    assert isinstance(single["b"], ExponentialMovingStats)
    assert (single["b"].halflife, single["m"].halflife) == (10.0, 10.0)
    assert (vector["b"].halflife, vector["m"].halflife) == (30.0, 120.0)


def test_copies_have_independent_statistics() -> None:
    space = Dict({"b": Box(-1, 1, (1,))})
    built = build_normalizer(
        space, kind="running", halflife=1.0, epsilon=0.0, clip=None, num_envs=1
    )
    for twin in (copy.deepcopy(built), pickle.loads(pickle.dumps(built))):
        norm, _, rms = twin
        norm({"b": np.array([[5.0]])}, True)
        assert rms["b"].mean[0] != 0.0
        assert built[2]["b"].mean[0] == 0.0


def test_state_round_trip_and_errors_name_the_part() -> None:
    space = Dict({"a": Box(-1, 1, (2,)), "k": Discrete(2)})
    norm, _, rms = build_normalizer(space, kind="running", halflife=1.0, epsilon=0.0, clip=None)
    norm({"a": np.array([1.0, 2.0]), "k": 0}, True)
    state = state_of(rms)
    assert state["k"] is None
    _, _, other = build_normalizer(space, kind="running", halflife=1.0, epsilon=0.0, clip=None)
    load_state(other, state)
    np.testing.assert_array_equal(other["a"].mean, rms["a"].mean)
    with pytest.raises(ValueError, match=r"state\['a'\].*count"):
        load_state(other, {"a": {"mean": [0.0, 0.0], "var": [1.0, 1.0]}, "k": None})
    with pytest.raises(ValueError, match=r"keys \['a', 'k'\].*got a dict with keys \['a'\]"):
        load_state(other, {"a": state["a"]})
    with pytest.raises(ValueError, match=r"state\['k'\] must be None"):
        load_state(other, {"a": state["a"], "k": 1})
