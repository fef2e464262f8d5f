"""RegimeSwitching: the regime chain against its transition matrix, returns per regime."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from sekai.finance.simulators import GBM, RegimeSwitching

P = np.array([[0.9, 0.08, 0.02], [0.1, 0.8, 0.1], [0.05, 0.15, 0.8]])
REGIMES = [
    GBM(0.2, 0.1, n_assets=2),
    GBM(0.0, 0.3, n_assets=2),
    GBM(-0.5, 0.8, n_assets=2, corr=[[1.0, 0.9], [0.9, 1.0]]),
]


def stationary(p: np.ndarray) -> np.ndarray:
    """The left eigenvector of p for eigenvalue 1 (by eig, not the model's solver)."""
    values, vectors = np.linalg.eig(p.T)
    v = np.real(vectors[:, np.argmin(np.abs(values - 1))])
    return v / v.sum()


def test_default_initial_is_the_stationary_distribution() -> None:
    model = RegimeSwitching(REGIMES, P)
    pi = stationary(P)
    np.testing.assert_allclose(model.initial, pi, atol=1e-12)
    np.testing.assert_allclose(model.initial @ P, model.initial, atol=1e-12)


def test_regime_frequencies_match_the_stationary_distribution(kit: SimpleNamespace) -> None:
    # From the stationary start the regime's law is pi at every time: across independent
    # paths the frequency at a fixed time is binomial.
    model = RegimeSwitching(REGIMES, P)
    regimes = model.simulate(np.random.default_rng(0), 200, n_paths=6000).state["regime"]
    pi = stationary(P)
    n = regimes.shape[0]
    for t in (0, 50, 200):
        freq = np.array([(regimes[:, t] == k).mean() for k in range(3)])
        kit.assert_within(freq, pi, np.sqrt(pi * (1 - pi) / n), f"regime frequencies at t={t}")


def test_marginal_law_from_a_given_start_is_initial_times_p_to_the_t(kit: SimpleNamespace) -> None:
    model = RegimeSwitching(REGIMES, P, initial=[0.0, 0.0, 1.0])
    regimes = model.simulate(np.random.default_rng(1), 20, n_paths=6000).state["regime"]
    np.testing.assert_array_equal(regimes[:, 0], 2.0)
    n = regimes.shape[0]
    for t in (1, 3, 10, 20):
        law = np.array([0.0, 0.0, 1.0]) @ np.linalg.matrix_power(P, t)
        freq = np.array([(regimes[:, t] == k).mean() for k in range(3)])
        kit.assert_within(freq, law, np.sqrt(law * (1 - law) / n), f"law at t={t}")


def test_transition_frequencies_estimate_the_matrix(kit: SimpleNamespace) -> None:
    model = RegimeSwitching(REGIMES, P)
    regimes = model.simulate(np.random.default_rng(2), 500, n_paths=200).state["regime"].astype(int)
    now, after = regimes[:, :-1].ravel(), regimes[:, 1:].ravel()
    for i in range(3):
        visits = now == i
        freq = np.bincount(after[visits], minlength=3) / visits.sum()
        kit.assert_within(freq, P[i], np.sqrt(P[i] * (1 - P[i]) / visits.sum()), f"row {i}")


def test_each_step_moves_by_the_gbm_of_the_regime_at_its_start(kit: SimpleNamespace) -> None:
    model = RegimeSwitching(REGIMES, P)
    sim = model.simulate(np.random.default_rng(3), 300, n_paths=400)
    regime = sim.state["regime"][:, :-1]
    r = np.diff(np.log(sim.prices), axis=1)
    dt = model.dt
    for k, gbm in enumerate(REGIMES):
        sample = r[regime == k]  # (m, 2)
        m = sample.shape[0]
        var = gbm.sigma**2 * dt
        kit.assert_within(
            sample.mean(axis=0), (gbm.mu - gbm.sigma**2 / 2) * dt, np.sqrt(var / m), f"mean {k}"
        )
        kit.assert_within(sample.var(axis=0), var, var * np.sqrt(2 / m), f"variance {k}")
        rho = gbm.corr[0, 1]
        kit.assert_within(
            np.corrcoef(sample.T)[0, 1], rho, max(1 - rho**2, 1e-3) / np.sqrt(m), f"corr {k}"
        )


def test_s0_is_the_first_regimes() -> None:
    model = RegimeSwitching([GBM(s0=[1.0, 2.0]), GBM(s0=[5.0, 5.0])], [[0.5, 0.5], [0.5, 0.5]])
    np.testing.assert_array_equal(model.s0, [1.0, 2.0])
    np.testing.assert_array_equal(model.simulate(np.random.default_rng(0), 3).prices[0], [1.0, 2.0])
    assert model.state_spec() == {"regime": ()}
    assert model.n_assets == 2


def test_one_regime_is_a_gbm() -> None:
    model = RegimeSwitching([GBM(0.1, 0.2)], [[1.0]])
    regimes = model.simulate(np.random.default_rng(0), 10, n_paths=2).state["regime"]
    np.testing.assert_array_equal(regimes, 0.0)


@pytest.mark.parametrize(
    ("regimes", "transition", "initial", "error", "text"),
    [
        ([], [[1.0]], None, ValueError, "regimes must hold at least one GBM"),
        ([GBM(), "GBM"], np.eye(2), None, TypeError, r"regimes\[1\] must be a GBM, got 'GBM'"),
        ([GBM(), GBM(n_assets=2)], np.eye(2), None, ValueError, r"n_assets and dt of regimes\[0\]"),
        ([GBM(), GBM(dt=0.1)], np.eye(2), None, ValueError, r"n_assets and dt of regimes\[0\]"),
        (
            [GBM(), GBM()],
            [[0.5, 0.4], [0.5, 0.5]],
            None,
            ValueError,
            r"row 0 = \[0.5, 0.4\] summing to 0.9",
        ),
        (
            [GBM(), GBM()],
            np.eye(3),
            None,
            ValueError,
            r"transition must have shape \(2, 2\), got shape \(3, 3\)",
        ),
        ([GBM(), GBM()], [[1.2, -0.2], [0.5, 0.5]], None, ValueError, "non-negative"),
        (
            [GBM(), GBM()],
            np.eye(2),
            [0.5, 0.6],
            ValueError,
            "initial must sum to 1, got a sum of 1.1",
        ),
        ([GBM(), GBM()], np.eye(2), [1.0], ValueError, r"initial must have shape \(2,\)"),
    ],
)
def test_bad_arguments_are_named(
    regimes: list[object], transition: object, initial: object, error: type[Exception], text: str
) -> None:
    with pytest.raises(error, match=text):
        RegimeSwitching(regimes, transition, initial=initial)  # type: ignore[arg-type]
