"""GARCH(1,1): the variance recursion, the unconditional variance, standardised shocks."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from sekai.finance.simulators import GARCH


def innovations(model: GARCH, prices: np.ndarray, variance: np.ndarray) -> np.ndarray:
    """eps_t = r_t - mu dt + h_t / 2, from the prices and the reported variance."""
    r = np.diff(np.log(prices), axis=-2)
    return r - model.mu * model.dt + variance[..., :-1, :] / 2


def test_variance_follows_the_garch_recursion() -> None:
    model = GARCH([1e-6, 2e-5], [0.08, 0.2], [0.9, 0.5], mu=[0.1, -0.1])
    sim = model.simulate(np.random.default_rng(0), 300, n_paths=4)
    h = sim.state["variance"]
    eps = innovations(model, sim.prices, h)
    np.testing.assert_allclose(
        h[:, 1:], model.omega + model.alpha * eps**2 + model.beta * h[:, :-1], rtol=1e-9
    )
    np.testing.assert_array_equal(h[:, 0], np.broadcast_to(model.unconditional_variance, (4, 2)))


def test_unconditional_variance_property() -> None:
    model = GARCH(2e-6, [0.05, 0.1], 0.85)
    np.testing.assert_allclose(model.unconditional_variance, [2e-6 / 0.1, 2e-6 / 0.05])
    assert model.state_spec() == {"variance": (2,)}


@pytest.mark.parametrize(
    ("omega", "alpha", "beta"), [(1e-6, 0.08, 0.9), (5e-5, 0.2, 0.5), (1e-5, 0.0, 0.0)]
)
def test_innovations_have_the_unconditional_variance(
    kit: SimpleNamespace, omega: float, alpha: float, beta: float
) -> None:
    # E[eps_t^2] = omega / (1 - alpha - beta) at every t (the start is the unconditional
    # variance). Paths are independent; within a path squares are dependent, so the
    # standard error comes from the spread of the per-path averages.
    model = GARCH(omega, alpha, beta)
    sim = model.simulate(np.random.default_rng(1), 500, n_paths=2000)
    eps = innovations(model, sim.prices, sim.state["variance"])[..., 0]
    mean, se = kit.mean_and_se((eps**2).mean(axis=1))
    kit.assert_within(mean, omega / (1 - alpha - beta), se, "E[eps^2]")
    h = sim.state["variance"][:, :, 0]
    if alpha == 0.0:  # no feedback: h is the constant omega / (1 - beta)
        np.testing.assert_allclose(h, omega / (1 - beta), rtol=1e-12)
    else:
        mean_h, se_h = kit.mean_and_se(h.mean(axis=1))
        kit.assert_within(mean_h, omega / (1 - alpha - beta), se_h, "E[h_t]")


def test_standardised_shocks_are_correlated_normals(kit: SimpleNamespace) -> None:
    model = GARCH(1e-5, 0.1, 0.8, corr=kit.CORR3)
    sim = model.simulate(np.random.default_rng(2), 200, n_paths=300)
    h = sim.state["variance"]
    z = (innovations(model, sim.prices, h) / np.sqrt(h[:, :-1])).reshape(-1, 3)
    m = z.shape[0]
    kit.assert_within(z.mean(axis=0), 0.0, 1 / np.sqrt(m), "mean of z")
    kit.assert_within(z.var(axis=0), 1.0, np.sqrt(2 / m), "variance of z")
    upper = np.triu_indices(3, 1)
    expected = kit.CORR3[upper]
    kit.assert_within(np.corrcoef(z.T)[upper], expected, (1 - expected**2) / np.sqrt(m), "corr")


def test_alpha_plus_beta_must_be_below_one() -> None:
    with pytest.raises(
        ValueError, match=r"alpha \+ beta must be < 1 .* alpha=0.5 and beta=0.5 \(asset 1\)"
    ):
        GARCH(alpha=[0.1, 0.5], beta=[0.8, 0.5])
