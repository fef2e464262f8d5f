"""Mean reversion: the exact OU step of MeanReverting, and the CointegratedPair spread."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from sekai.finance.simulators import CointegratedPair, MeanReverting


def test_lag_one_autocorrelation_is_exp_minus_theta_dt(kit: SimpleNamespace) -> None:
    # dt = 0.1, theta = 5: exact a = exp(-0.5) = 0.607, an Euler step would give 0.5.
    theta, sigma, dt = 5.0, 0.3, 0.1
    model = MeanReverting(theta, 100.0, sigma, dt=dt)
    y = np.log(model.simulate(np.random.default_rng(0), 50, n_paths=2000).prices[..., 0] / 100.0)
    a = np.exp(-theta * dt)
    # Pooled least squares of y_{t+1} on y_t over independent paths: the error is
    # sum(y_t e_{t+1}) / sum(y_t^2) with e ~ N(0, c^2) independent of y_t, so its
    # standard error is c / sqrt(sum(y_t^2)).
    now, after = y[:, :-1], y[:, 1:]
    estimate = np.sum(now * after) / np.sum(now**2)
    c = sigma * np.sqrt((1 - a**2) / (2 * theta))
    kit.assert_within(estimate, a, c / np.sqrt(np.sum(now**2)), "AR(1) coefficient")
    residual = after - a * now
    m = residual.size
    kit.assert_within(residual.var(), c**2, c**2 * np.sqrt(2 / (m - 1)), "one-step variance")


def test_mean_and_variance_decay_to_the_stationary_law(kit: SimpleNamespace) -> None:
    theta, sigma, dt = 2.0, 0.25, 1 / 12
    model = MeanReverting(theta, [100.0, 40.0], sigma, s0=[150.0, 40.0], dt=dt)
    log_prices = np.log(model.simulate(np.random.default_rng(1), 60, n_paths=4000).prices)
    y = log_prices - np.log([100.0, 40.0])
    steps = np.array([1, 3, 6, 12, 24, 60])
    t = steps[:, None] * dt
    y0 = np.log([1.5, 1.0])
    mean = y0 * np.exp(-theta * t)
    var = sigma**2 * (1 - np.exp(-2 * theta * t)) / (2 * theta) * np.ones(2)
    n = y.shape[0]
    kit.assert_within(y[:, steps].mean(axis=0), mean, np.sqrt(var / n), "E[log S_t]")
    kit.assert_within(
        y[:, steps].var(axis=0, ddof=1), var, var * np.sqrt(2 / (n - 1)), "Var[log S_t]"
    )
    stationary = sigma**2 / (2 * theta)
    assert abs(var[-1, 0] - stationary) < 1e-6 * stationary  # 60 steps: stationary


def test_theta_zero_is_a_driftless_random_walk(kit: SimpleNamespace) -> None:
    model = MeanReverting(0.0, 100.0, 0.2, s0=120.0, dt=0.25)
    y = np.log(model.simulate(np.random.default_rng(2), 8, n_paths=4000).prices[..., 0])
    n = y.shape[0]
    var = 0.04 * 8 * 0.25
    kit.assert_within(y[:, -1].mean(), np.log(120.0), np.sqrt(var / n), "mean of the walk")
    kit.assert_within(y[:, -1].var(ddof=1), var, var * np.sqrt(2 / (n - 1)), "variance of the walk")


def test_cointegrated_pair_spread_is_the_log_price_gap() -> None:
    model = CointegratedPair(s0=(100.0, 80.0))
    sim = model.simulate(np.random.default_rng(3), 100, n_paths=3)
    gap = np.log(sim.prices[..., 1] / sim.prices[..., 0]) - np.log(80.0 / 100.0)
    np.testing.assert_allclose(sim.state["spread"], gap, atol=1e-12)
    np.testing.assert_array_equal(sim.state["spread"][:, 0], 0.0)
    np.testing.assert_array_equal(sim.prices[:, 0], [[100.0, 80.0]] * 3)


def test_cointegrated_pair_spread_is_stationary_while_prices_wander(kit: SimpleNamespace) -> None:
    mu, sigma, theta, spread_sigma, dt = 0.05, 0.2, 5.0, 0.1, 1 / 52
    model = CointegratedPair(mu, sigma, theta, spread_sigma, dt=dt)
    sim = model.simulate(np.random.default_rng(4), 520, n_paths=2000)
    spread = sim.state["spread"]
    n = spread.shape[0]
    stationary = spread_sigma**2 / (2 * theta)
    for step in (260, 520):  # 5 and 10 years: the spread's variance no longer grows
        expected = stationary * (1 - np.exp(-2 * theta * step * dt))
        kit.assert_within(
            spread[:, step].var(ddof=1), expected, expected * np.sqrt(2 / (n - 1)), "Var[spread]"
        )
    kit.assert_within(spread[:, -1].mean(), 0.0, np.sqrt(stationary / n), "E[spread]")
    a = np.exp(-theta * dt)
    now, after = spread[:, :-1], spread[:, 1:]
    c = spread_sigma * np.sqrt((1 - a**2) / (2 * theta))
    kit.assert_within(
        np.sum(now * after) / np.sum(now**2), a, c / np.sqrt(np.sum(now**2)), "spread AR(1)"
    )
    # Asset 0 is a GBM: its log-price variance grows linearly, sigma^2 t.
    log0 = np.log(sim.prices[..., 0])
    for step in (260, 520):
        var = sigma**2 * step * dt
        kit.assert_within(log0[:, step].var(ddof=1), var, var * np.sqrt(2 / (n - 1)), "Var[log S0]")
    r = np.diff(log0, axis=1).ravel()
    kit.assert_within(
        r.mean(), (mu - sigma**2 / 2) * dt, sigma * np.sqrt(dt / r.size), "mean log return"
    )
