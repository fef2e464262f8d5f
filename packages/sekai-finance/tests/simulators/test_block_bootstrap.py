"""BlockBootstrap: returns come from the input only, in contiguous circular blocks."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from sekai.finance.simulators import BlockBootstrap


def source_rows(table: np.ndarray, prices: np.ndarray) -> np.ndarray:
    """The input row behind every simulated log-return (asserting that there is one)."""
    r = np.diff(np.log(prices), axis=-2)  # (..., n_steps, n_assets)
    flat = r.reshape(-1, table.shape[1])
    # The input rows are distinct in their first column: match on it, then check all columns.
    order = np.argsort(table[:, 0])
    position = np.clip(np.searchsorted(table[order, 0], flat[:, 0]), 1, len(table) - 1)
    left, right = order[position - 1], order[position]
    nearest = np.where(
        np.abs(table[left, 0] - flat[:, 0]) < np.abs(table[right, 0] - flat[:, 0]), left, right
    )
    np.testing.assert_allclose(flat, table[nearest], rtol=0, atol=1e-12)
    return nearest.reshape(r.shape[:-1])


def test_returns_come_from_the_input_in_contiguous_circular_blocks() -> None:
    table = np.random.default_rng(0).normal(0.0, 0.01, size=(37, 2))
    block = 5
    model = BlockBootstrap(table, block_size=block, s0=[10.0, 20.0])
    prices = model.simulate(np.random.default_rng(1), 23, n_paths=50).prices
    rows = source_rows(table, prices)  # (50, 23)
    steps = np.diff(rows, axis=1) % len(table)
    within = np.ones(22, dtype=bool)
    within[block - 1 :: block] = False  # the step from one block into the next
    assert np.all(steps[:, within] == 1)  # consecutive rows, wrapping at the end
    assert not np.all(steps[:, ~within] == 1)  # blocks start afresh
    wrapped = (rows[:, :-1] == len(table) - 1) & within[None, :]
    assert np.any(wrapped) and np.all(rows[:, 1:][wrapped] == 0)


def test_block_starts_are_uniform_over_the_rows(kit: SimpleNamespace) -> None:
    table = np.arange(1.0, 11.0)[:, None] * 1e-3  # 10 distinct rows
    model = BlockBootstrap(table, block_size=4)
    prices = model.simulate(np.random.default_rng(2), 40, n_paths=2000).prices
    starts = source_rows(table, prices)[:, ::4].ravel()
    freq = np.bincount(starts, minlength=10) / starts.size
    kit.assert_within(freq, 0.1, np.sqrt(0.1 * 0.9 / starts.size), "block start frequencies")


def test_one_asset_returns_may_be_one_dimensional() -> None:
    model = BlockBootstrap([0.01, -0.02, 0.005], block_size=2, s0=50.0)
    assert model.n_assets == 1 and model.returns.shape == (3, 1)
    sim = model.simulate(np.random.default_rng(0), 6)
    assert sim.prices.shape == (7, 1) and sim.prices[0, 0] == 50.0
    assert model.state_spec() == {} and sim.state == {}


def test_sp500_bootstrap_reproduces_the_moments_of_real_returns(kit: SimpleNamespace) -> None:
    sp500 = pytest.importorskip("arch.data.sp500")
    close = sp500.load()["Adj Close"].to_numpy(dtype=np.float64)
    returns = np.diff(np.log(close))
    assert returns.size > 5000
    model = BlockBootstrap(returns, block_size=20, s0=close[0])
    prices = model.simulate(np.random.default_rng(3), 252, n_paths=400).prices
    np.testing.assert_array_equal(prices[:, 0, 0], close[0])
    r = np.diff(np.log(prices[..., 0]), axis=1)
    # Every simulated return is a real one (the values of the history, to rounding).
    real = np.sort(returns)
    position = np.clip(np.searchsorted(real, r.ravel()), 1, real.size - 1)
    gap = np.minimum(np.abs(real[position] - r.ravel()), np.abs(real[position - 1] - r.ravel()))
    assert gap.max() < 1e-12
    # In a circular bootstrap each step's return is uniform over the input rows, so its
    # mean and mean square are the history's; the per-path averages are independent.
    mean, se = kit.mean_and_se(r.mean(axis=1))
    kit.assert_within(mean, returns.mean(), se, "mean daily log return")
    square, se2 = kit.mean_and_se((r**2).mean(axis=1))
    kit.assert_within(square, np.mean(returns**2), se2, "mean squared log return")
    # Blocks keep volatility clustering: squared returns stay autocorrelated within paths.
    s = r**2 - np.mean(returns**2)
    lag1 = np.sum(s[:, :-1] * s[:, 1:]) / np.sum(s**2)
    assert lag1 > 0.1


@pytest.mark.parametrize(
    ("returns", "kwargs", "error", "text"),
    [
        ([], {}, ValueError, "at least one row"),
        (np.zeros((3, 2, 2)), {}, ValueError, r"got shape \(3, 2, 2\)"),
        ([0.1, np.nan], {}, ValueError, "returns must be finite, got nan at row 1"),
        (
            [0.1, 0.2],
            {"block_size": 3},
            ValueError,
            r"block_size must be an int in \[1, 2\], got 3",
        ),
        (
            [0.1, 0.2],
            {"block_size": 0},
            ValueError,
            r"block_size must be an int in \[1, 2\], got 0",
        ),
        (
            np.zeros((4, 2)),
            {"block_size": 2, "s0": [1.0, 2.0, 3.0]},
            ValueError,
            "n_assets=2 but s0 has 3 values",
        ),
        (
            [0.1, 0.2],
            {"block_size": 1, "s0": -1.0},
            ValueError,
            "s0 must be a finite real number > 0.0, got -1.0",
        ),
    ],
)
def test_bad_arguments_are_named(
    returns: object, kwargs: dict[str, object], error: type[Exception], text: str
) -> None:
    with pytest.raises(error, match=text):
        BlockBootstrap(returns, **kwargs)  # type: ignore[arg-type]
