"""GBM: exact log-normal steps, correlation, broadcasting of parameters."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from sekai.finance.simulators import GBM


def test_log_returns_have_the_exact_mean_and_variance(kit: SimpleNamespace) -> None:
    # A large dt, where an Euler step or a missing Ito term would be far off.
    mu, sigma, dt = np.array([0.1, -0.3, 0.5]), np.array([0.2, 0.5, 1.0]), 0.5
    model = GBM(mu, sigma, corr=kit.CORR3, dt=dt)
    sim = model.simulate(np.random.default_rng(0), 10, n_paths=4000)
    r = kit.log_returns(sim.prices).reshape(-1, 3)  # iid rows: exact discretisation
    m = r.shape[0]
    kit.assert_within(
        r.mean(axis=0), (mu - sigma**2 / 2) * dt, sigma * np.sqrt(dt / m), "mean log return"
    )
    var = sigma**2 * dt
    kit.assert_within(
        r.var(axis=0, ddof=1), var, var * np.sqrt(2 / (m - 1)), "variance of log returns"
    )
    corr = np.corrcoef(r.T)
    upper = np.triu_indices(3, 1)
    expected = kit.CORR3[upper]
    kit.assert_within(corr[upper], expected, (1 - expected**2) / np.sqrt(m), "correlation")


def test_perfectly_correlated_assets_move_together() -> None:
    # A singular correlation matrix is valid (no Cholesky factor: an eigen factor is used).
    model = GBM(0.05, [0.2, 0.2, 0.2], corr=[[1, 1, -1], [1, 1, -1], [-1, -1, 1]])
    r = np.diff(np.log(model.simulate(np.random.default_rng(1), 50, n_paths=3).prices), axis=1)
    np.testing.assert_allclose(r[..., 0], r[..., 1], atol=1e-12)
    drift = (0.05 - 0.02) * model.dt
    np.testing.assert_allclose(r[..., 0] - drift, -(r[..., 2] - drift), atol=1e-12)


def test_zero_volatility_is_deterministic_growth() -> None:
    prices = (
        GBM([0.1, -0.2], 0.0, s0=[1.0, 2.0], dt=0.25).simulate(np.random.default_rng(0), 4).prices
    )
    t = np.arange(5)[:, None] * 0.25
    np.testing.assert_allclose(prices, np.array([1.0, 2.0]) * np.exp(np.array([0.1, -0.2]) * t))


def test_each_path_is_its_start_times_a_lognormal_walk() -> None:
    model = GBM([0.0, 0.1], [0.3, 0.1], s0=[5.0, 50.0])
    prices = model.simulate(np.random.default_rng(2), 20, n_paths=2).prices
    np.testing.assert_array_equal(prices[:, 0], [[5.0, 50.0], [5.0, 50.0]])
    np.testing.assert_allclose(
        np.cumprod(prices[:, 1:] / prices[:, :-1], axis=1)[:, -1], prices[:, -1] / prices[:, 0]
    )


@pytest.mark.parametrize(
    ("kwargs", "n_assets"),
    [
        ({}, 1),
        ({"n_assets": 4}, 4),
        ({"mu": [0.1, 0.2]}, 2),
        ({"sigma": [0.1, 0.2, 0.3], "mu": 0.05}, 3),
        ({"s0": [1.0, 2.0, 3.0, 4.0, 5.0]}, 5),
        ({"corr": np.eye(3)}, 3),
        ({"mu": [0.1], "sigma": [0.1, 0.2]}, 2),  # length 1 broadcasts like a scalar
        ({"mu": [0.1, 0.2], "n_assets": 2, "corr": [[1.0, 0.3], [0.3, 1.0]]}, 2),
    ],
)
def test_n_assets_is_inferred_from_the_shapes(kwargs: dict[str, object], n_assets: int) -> None:
    model = GBM(**kwargs)  # type: ignore[arg-type]
    assert model.n_assets == n_assets
    for name in ("mu", "sigma", "s0"):
        assert getattr(model, name).shape == (n_assets,)
    assert model.corr.shape == (n_assets, n_assets)
    assert model.simulate(np.random.default_rng(0), 3).prices.shape == (4, n_assets)


@pytest.mark.parametrize(
    ("kwargs", "text"),
    [
        ({"mu": [0.1, 0.2], "sigma": [0.1, 0.2, 0.3]}, "mu has 2 values but sigma has 3 values"),
        ({"mu": [0.1, 0.2], "n_assets": 3}, "n_assets=3 but mu has 2 values"),
        ({"corr": np.eye(2), "s0": [1.0, 2.0, 3.0]}, "corr is 2 x 2 but s0 has 3 values"),
    ],
)
def test_disagreeing_shapes_name_both_sides(kwargs: dict[str, object], text: str) -> None:
    with pytest.raises(
        ValueError, match=f"GBM: the parameters disagree on the number of assets: {text}"
    ):
        GBM(**kwargs)  # type: ignore[arg-type]
