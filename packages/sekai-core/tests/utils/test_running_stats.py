"""RunningMeanStd and ExponentialMovingStats."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from sekai.utils import ExponentialMovingStats, RunningMeanStd

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


@st.composite
def batches(draw: st.DrawFn, shape: tuple[int, ...] = (3,)) -> list[np.ndarray]:
    sizes = draw(st.lists(st.integers(0, 6), min_size=1, max_size=6).filter(lambda s: sum(s) > 0))
    return [draw(hnp.arrays(np.float64, (n, *shape), elements=finite)) for n in sizes]


@settings(max_examples=60, deadline=None)
@given(batches())
def test_running_merge_equals_numpy_on_the_concatenation(parts: list[np.ndarray]) -> None:
    rms = RunningMeanStd(shape=(3,), epsilon=0.0)
    for part in parts:
        rms.update(part)
    data = np.concatenate(parts)
    np.testing.assert_allclose(rms.mean, data.mean(axis=0), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(rms.var, data.var(axis=0), rtol=1e-7, atol=1e-7)
    assert rms.count == len(data)


def test_running_defaults_and_epsilon_prior() -> None:
    rms = RunningMeanStd()
    assert rms.shape == ()
    assert rms.mean.dtype == np.float64
    assert (rms.mean, rms.var, rms.count) == (0.0, 1.0, 1e-4)
    rms.update(np.array([2.0, 4.0]))
    # The pseudo-count barely moves the estimate.
    assert rms.mean == pytest.approx(3.0, rel=1e-4)
    assert rms.var == pytest.approx(1.0, rel=1e-3)
    assert rms.std == pytest.approx(1.0, rel=1e-3)
    assert rms.count == pytest.approx(2.0001)


def test_running_update_is_float64_for_float32_input() -> None:
    rms = RunningMeanStd(shape=(2,), epsilon=0.0)
    rms.update(np.full((4, 2), 16_777_217, dtype=np.int64))
    assert rms.mean.dtype == np.float64
    assert rms.mean[0] == 16_777_217.0


def test_running_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match=r"shape \(n, 3\).*got an array of shape \(4, 2\)"):
        RunningMeanStd(shape=(3,)).update(np.zeros((4, 2)))
    with pytest.raises(ValueError, match="epsilon"):
        RunningMeanStd(epsilon=-1.0)
    with pytest.raises(ValueError, match="shape"):
        RunningMeanStd(shape=(2.5,))  # type: ignore[arg-type]
    assert RunningMeanStd(shape=4).shape == (4,)


def test_running_empty_batch_is_a_no_op() -> None:
    rms = RunningMeanStd(shape=(2,))
    rms.update(np.zeros((0, 2)))
    assert rms.count == 1e-4


def test_running_state_dict_round_trip() -> None:
    rms = RunningMeanStd(shape=(2,))
    rms.update(np.arange(10.0).reshape(5, 2))
    state = rms.state_dict()
    other = RunningMeanStd(shape=(2,))
    other.load_state_dict(state)
    np.testing.assert_array_equal(other.mean, rms.mean)
    np.testing.assert_array_equal(other.var, rms.var)
    assert other.count == rms.count
    # state_dict is a copy
    state["mean"][0] = 1e9
    assert rms.mean[0] != 1e9
    with pytest.raises(ValueError, match="shape"):
        RunningMeanStd(shape=(3,)).load_state_dict(rms.state_dict())
    with pytest.raises(KeyError, match="var"):
        RunningMeanStd(shape=(2,)).load_state_dict({"mean": np.zeros(2), "count": 1.0})


def _ewm_reference(data: np.ndarray, halflife: float) -> tuple[np.ndarray, np.ndarray]:
    decay = 0.5 ** (1.0 / halflife)
    weights = decay ** np.arange(len(data) - 1, -1, -1, dtype=np.float64)
    weights /= weights.sum()
    mean = np.tensordot(weights, data, axes=1)
    var = np.tensordot(weights, (data - mean) ** 2, axes=1)
    return mean, var


@settings(max_examples=60, deadline=None)
@given(batches(), st.floats(0.5, 50.0))
def test_ewm_batches_equal_weighted_moments_of_the_concatenation(
    parts: list[np.ndarray], halflife: float
) -> None:
    ems = ExponentialMovingStats(shape=(3,), halflife=halflife)
    for part in parts:
        ems.update(part)
    data = np.concatenate(parts)
    mean, var = _ewm_reference(data, halflife)
    np.testing.assert_allclose(ems.mean, mean, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(ems.var, var, rtol=1e-7, atol=1e-7)
    assert ems.count == len(data)


def test_ewm_forgets_the_old_regime() -> None:
    ems = ExponentialMovingStats(halflife=10.0)
    rms = RunningMeanStd(epsilon=0.0)
    old, new = np.zeros(2000), np.full(500, 5.0)
    for part in (old, new):
        ems.update(part)
        rms.update(part)
    # 500 samples = 50 halflives: the old regime's weight is 2**-50.
    assert ems.mean == pytest.approx(5.0, abs=1e-9)
    assert ems.var == pytest.approx(0.0, abs=1e-9)
    assert rms.mean == pytest.approx(1.0)
    assert ems.alpha == pytest.approx(1 - 0.5**0.1)
    assert ExponentialMovingStats().halflife == 1000.0


def test_ewm_halflife_halves_the_weight() -> None:
    ems = ExponentialMovingStats(halflife=1.0)
    ems.update(np.array([0.0, 1.0]))
    # weights 0.5 and 1 -> mean 2/3
    assert ems.mean == pytest.approx(2.0 / 3.0)


def test_ewm_rejects_bad_arguments_and_round_trips_state() -> None:
    for bad in (0.0, -1.0, float("inf"), True):
        with pytest.raises(ValueError, match="halflife"):
            ExponentialMovingStats(halflife=bad)
    with pytest.raises(ValueError, match="shape"):
        ExponentialMovingStats(shape=(2,)).update(np.zeros((3, 4)))
    ems = ExponentialMovingStats(shape=(2,), halflife=5.0)
    ems.update(np.arange(8.0).reshape(4, 2))
    other = ExponentialMovingStats(shape=(2,), halflife=5.0)
    other.load_state_dict(ems.state_dict())
    more = np.ones((3, 2))
    ems.update(more)
    other.update(more)
    np.testing.assert_array_equal(other.mean, ems.mean)
    np.testing.assert_array_equal(other.var, ems.var)
    with pytest.raises(ValueError, match="halflife"):
        ExponentialMovingStats(shape=(2,), halflife=6.0).load_state_dict(ems.state_dict())


@pytest.mark.parametrize("stats", [RunningMeanStd(), ExponentialMovingStats()])
def test_a_single_scalar_is_not_a_batch(stats: Any) -> None:
    with pytest.raises(ValueError, match=r"batch of shape \(n\).*got an array of shape \(\)"):
        stats.update(5.0)
    assert stats.mean == 0.0


@pytest.mark.parametrize("count", [-1.0, math.nan, math.inf])
def test_update_from_moments_rejects_a_bad_count(count: float) -> None:
    rms = RunningMeanStd()
    with pytest.raises(ValueError, match=f"batch_count must be a finite number >= 0, got {count}"):
        rms.update_from_moments(1.0, 1.0, count)
    assert (rms.mean, rms.var, rms.count) == (0.0, 1.0, 1e-4)
    rms.update_from_moments(5.0, 1.0, 0)
    assert rms.mean == 0.0


@pytest.mark.parametrize(
    ("change", "error", "match"),
    [
        ({"count": None}, KeyError, r"no 'count' entry \(keys: \['mean', 'var'\]\)"),
        ({"count": -1.0}, ValueError, r"state\['count'\] must be a finite float >= 0, got -1\.0"),
        ({"count": "3"}, ValueError, r"state\['count'\] must be a finite float >= 0, got '3'"),
        ({"var": [-1.0, 1.0]}, ValueError, r"state\['var'\] must be >= 0 everywhere"),
        ({"mean": ["a", "b"]}, ValueError, r"state\['mean'\] must be an array of numbers"),
    ],
)
def test_load_state_dict_rejects_bad_entries(
    change: dict[str, Any], error: type[Exception], match: str
) -> None:
    rms = RunningMeanStd(shape=(2,))
    state = {"mean": [0.5, 0.5], "var": [2.0, 2.0], "count": 3.0}
    state.update(change)
    state = {key: value for key, value in state.items() if value is not None}
    with pytest.raises(error, match=match):
        rms.load_state_dict(state)
    assert rms.count == 1e-4  # nothing was half-loaded


def test_state_saved_through_numpy_files_loads(tmp_path: Any) -> None:
    ems = ExponentialMovingStats(shape=(2,), halflife=3.0)
    ems.update(np.arange(6.0).reshape(3, 2))
    np.savez(tmp_path / "stats.npz", **ems.state_dict())
    other = ExponentialMovingStats(shape=(2,), halflife=3.0)
    with np.load(tmp_path / "stats.npz") as saved:
        other.load_state_dict(dict(saved))
    assert (other.count, other.weight) == (ems.count, ems.weight)
    np.testing.assert_array_equal(other.var, ems.var)
