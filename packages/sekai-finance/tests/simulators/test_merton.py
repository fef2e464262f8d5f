"""Merton jump diffusion: jump frequency, jump sizes, moments of log-returns."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from sekai.finance.simulators import MertonJumpDiffusion

MU, SIGMA, LAM, M, S = 0.05, 0.2, 20.0, -0.1, 0.15
DT = 1 / 52


def simulate(
    n_paths: int = 2000, n_steps: int = 104, **kwargs: object
) -> tuple[MertonJumpDiffusion, np.ndarray, np.ndarray]:
    model = MertonJumpDiffusion(MU, SIGMA, LAM, M, S, dt=DT, **kwargs)  # type: ignore[arg-type]
    sim = model.simulate(np.random.default_rng(0), n_steps, n_paths=n_paths)
    return model, np.diff(np.log(sim.prices), axis=1), sim.state["jumps"]


def test_jump_counts_are_poisson_with_the_given_intensity(kit: SimpleNamespace) -> None:
    _, _, jumps = simulate()
    np.testing.assert_array_equal(jumps[:, 0], 0.0)  # no step ends at time 0
    counts = jumps[:, 1:].ravel()
    assert np.array_equal(counts, np.round(counts)) and counts.min() >= 0
    rate = LAM * DT
    m = counts.size
    kit.assert_within(counts.mean(), rate, np.sqrt(rate / m), "jumps per step")
    # Poisson: the variance equals the mean; Var(sample variance) ~ (mu4 - var^2) / m.
    fourth = rate * (1 + 3 * rate)
    kit.assert_within(counts.var(), rate, np.sqrt((fourth - rate**2) / m), "variance of counts")


def test_log_returns_have_the_closed_form_mean_and_variance(kit: SimpleNamespace) -> None:
    _, r, _ = simulate()
    r = r.ravel()  # iid steps: the discretisation is exact
    k = np.exp(M + S**2 / 2) - 1
    mean = (MU - LAM * k - SIGMA**2 / 2) * DT + LAM * DT * M
    var = SIGMA**2 * DT + LAM * DT * (M**2 + S**2)
    m = r.size
    kit.assert_within(r.mean(), mean, np.sqrt(var / m), "mean log return")
    fourth = np.mean((r - r.mean()) ** 4)  # the sample fourth moment (the returns are not normal)
    kit.assert_within(r.var(), var, np.sqrt((fourth - var**2) / m), "variance of log returns")


def test_given_their_count_jumps_add_normal_log_sizes(kit: SimpleNamespace) -> None:
    _, r, jumps = simulate()
    counts = jumps[:, 1:]
    base = (MU - LAM * np.expm1(M + S**2 / 2) - SIGMA**2 / 2) * DT
    for c in (0, 1, 2):
        sample = r[counts == c]
        m = sample.size
        var = SIGMA**2 * DT + c * S**2
        kit.assert_within(sample.mean(), base + c * M, np.sqrt(var / m), f"mean given {c} jumps")
        kit.assert_within(
            sample.var(), var, var * np.sqrt(2 / (m - 1)), f"variance given {c} jumps"
        )


def test_jumps_are_independent_across_assets_and_diffusions_correlated(
    kit: SimpleNamespace,
) -> None:
    model = MertonJumpDiffusion(MU, SIGMA, LAM, M, S, dt=DT, corr=[[1.0, 0.7], [0.7, 1.0]])
    sim = model.simulate(np.random.default_rng(1), 104, n_paths=1000)
    counts = sim.state["jumps"][:, 1:].reshape(-1, 2)
    r = np.diff(np.log(sim.prices), axis=1).reshape(-1, 2)
    m = counts.shape[0]
    kit.assert_within(np.corrcoef(counts.T)[0, 1], 0.0, 1 / np.sqrt(m), "corr of jump counts")
    quiet = (counts == 0).all(axis=1)
    kit.assert_within(
        np.corrcoef(r[quiet].T)[0, 1], 0.7, (1 - 0.49) / np.sqrt(quiet.sum()), "diffusion corr"
    )


def test_no_jumps_without_intensity() -> None:
    model = MertonJumpDiffusion(jump_intensity=0.0, n_assets=2)
    sim = model.simulate(np.random.default_rng(0), 100, n_paths=3)
    np.testing.assert_array_equal(sim.state["jumps"], 0.0)
