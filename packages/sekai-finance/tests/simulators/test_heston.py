"""Heston: full-truncation Euler; the variance reverts to theta; shocks correlated as documented."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from sekai.finance.simulators import Heston


def test_mean_variance_reverts_to_theta(kit: SimpleNamespace) -> None:
    kappa, theta, v0 = 2.0, 0.04, 0.16
    model = Heston(0.05, kappa, theta, 0.3, -0.7, v0=v0)
    sim = model.simulate(np.random.default_rng(0), 504, n_paths=4000)
    variance = sim.state["variance"][..., 0]
    assert variance.min() >= 0.0
    steps = np.array([0, 21, 63, 126, 252, 504])
    mean, se = kit.mean_and_se(variance[:, steps])
    # The scheme's mean obeys m' = m + kappa (theta - m) dt (while v > 0), i.e.
    # theta + (v0 - theta) (1 - kappa dt)^t, within O(dt) of exp(-kappa t).
    discrete = theta + (v0 - theta) * (1 - kappa * model.dt) ** steps
    continuous = theta + (v0 - theta) * np.exp(-kappa * steps * model.dt)
    assert np.max(np.abs(discrete - continuous)) < 2e-4
    np.testing.assert_array_equal(variance[:, 0], v0)
    kit.assert_within(mean[1:], discrete[1:], se[1:], "E[v_t]")
    # After two years the mean is within 5% of (v0 - theta) of theta: it has reverted.
    assert abs(mean[-1] - theta) < 0.05 * (v0 - theta)


def test_variance_starts_at_theta_by_default_and_stays_there_on_average(
    kit: SimpleNamespace,
) -> None:
    model = Heston(theta=[0.04, 0.09], kappa=[1.0, 4.0], xi=[0.2, 0.5])
    np.testing.assert_array_equal(model.v0, model.theta)
    variance = model.simulate(np.random.default_rng(1), 252, n_paths=2000).state["variance"]
    mean, se = kit.mean_and_se(variance[:, -1])
    kit.assert_within(mean, [0.04, 0.09], se, "E[v_T] from v0 = theta")


def test_the_shocks_are_independent_normals_with_the_documented_correlations(
    kit: SimpleNamespace,
) -> None:
    # Recover the scheme's normals from prices and variances: W (price) and B (variance)
    # must be standard normal, corr(W_i, B_i) = rho_i and corr(W_i, W_j) = corr[i, j].
    mu, kappa, theta, xi, rho = 0.05, 3.0, 0.09, 0.3, np.array([-0.7, 0.3])
    corr = np.array([[1.0, 0.5], [0.5, 1.0]])
    model = Heston(mu, kappa, theta, xi, rho, corr=corr, dt=1 / 52)
    sim = model.simulate(np.random.default_rng(2), 104, n_paths=1000)
    v = sim.state["variance"]
    assert np.all(v > 0)  # far from 0: no truncation, so the recovery below is exact
    dt = model.dt
    now, after = v[:, :-1], v[:, 1:]
    r = kit.log_returns(sim.prices)
    w = (r - (mu - now / 2) * dt) / np.sqrt(now * dt)
    b = (after - now - kappa * (theta - now) * dt) / (xi * np.sqrt(now * dt))
    w, b = w.reshape(-1, 2), b.reshape(-1, 2)
    m = w.shape[0]
    for name, z in (("W", w), ("B", b)):
        kit.assert_within(z.mean(axis=0), 0.0, 1 / np.sqrt(m), f"mean of {name}")
        kit.assert_within(z.var(axis=0), 1.0, np.sqrt(2 / m), f"variance of {name}")
    own = np.array([np.corrcoef(w[:, i], b[:, i])[0, 1] for i in range(2)])
    kit.assert_within(own, rho, (1 - rho**2) / np.sqrt(m), "corr(W_i, B_i)")
    cross = np.corrcoef(w[:, 0], w[:, 1])[0, 1]
    kit.assert_within(cross, 0.5, (1 - 0.25) / np.sqrt(m), "corr(W_0, W_1)")


def test_full_truncation_keeps_the_reported_variance_non_negative() -> None:
    # Feller's condition badly violated: the raw Euler variance goes negative, v+ does not.
    model = Heston(kappa=0.5, theta=0.01, xi=1.0, v0=0.01, n_assets=3)
    sim = model.simulate(np.random.default_rng(3), 252, n_paths=200)
    variance = sim.state["variance"]
    assert variance.min() == 0.0  # truncated at times
    assert np.all(np.isfinite(sim.prices)) and np.all(sim.prices > 0)
    # While v+ = 0 the price moves by its drift alone.
    zero = variance[:, :-1] == 0.0
    r = np.diff(np.log(sim.prices), axis=1)
    np.testing.assert_allclose(r[zero], 0.05 * model.dt, rtol=1e-9)
