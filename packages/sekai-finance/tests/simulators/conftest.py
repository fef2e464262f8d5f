"""Shared models and statistical helpers of the simulator tests.

``MODELS`` is the canonical list of small models every contract test runs
over. Statistical tests compare an estimate with its closed form within
``K`` standard errors, the standard error derived from the sample size (and,
where observations are dependent, from independent paths only).
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

import numpy as np
import pytest
from numpy.typing import ArrayLike, NDArray

from sekai.finance.simulators import (
    GARCH,
    GBM,
    BlockBootstrap,
    CointegratedPair,
    Heston,
    ListingProcess,
    MarketModel,
    MeanReverting,
    MertonJumpDiffusion,
    Randomized,
    RegimeSwitching,
)

# Tolerance of every statistical check, in standard errors. With a fixed seed
# the tests are deterministic; 5 standard errors make a false alarm under a
# correct implementation very unlikely (p ~ 6e-7 per check for normal
# estimates) while the sample sizes are chosen so that the errors the checks
# look for (a missing Ito term, an Euler instead of an exact step, an
# uncompensated jump) are many standard errors away.
K = 5.0

CORR3 = np.array([[1.0, 0.6, -0.3], [0.6, 1.0, 0.2], [-0.3, 0.2, 1.0]])


def random_sigma(rng: np.random.Generator) -> GBM:
    """A module-level factory (so that Randomized pickles)."""
    return GBM(0.05, float(rng.uniform(0.1, 0.5)), n_assets=2)


MODELS: dict[str, Callable[[], MarketModel]] = {
    "gbm": lambda: GBM([0.05, 0.1, -0.02], [0.2, 0.3, 0.1], s0=[100.0, 50.0, 10.0], corr=CORR3),
    "heston": lambda: Heston(n_assets=2, v0=[0.04, 0.09], corr=[[1.0, 0.5], [0.5, 1.0]]),
    "garch": lambda: GARCH(alpha=[0.05, 0.1], beta=[0.9, 0.85], s0=[20.0, 30.0]),
    "merton": lambda: MertonJumpDiffusion(jump_intensity=20.0, n_assets=2),
    "mean_reverting": lambda: MeanReverting(theta=[2.0, 10.0], mean=[100.0, 50.0], s0=[90.0, 55.0]),
    "cointegrated": lambda: CointegratedPair(s0=(100.0, 80.0)),
    "regimes": lambda: RegimeSwitching(
        [GBM(0.1, 0.1, n_assets=2), GBM(-0.2, 0.4, n_assets=2, corr=[[1.0, 0.8], [0.8, 1.0]])],
        [[0.95, 0.05], [0.1, 0.9]],
    ),
    "bootstrap": lambda: BlockBootstrap(
        np.random.default_rng(7).normal(0.0, 0.01, size=(200, 2)), block_size=5, s0=[10.0, 20.0]
    ),
    "listing": lambda: ListingProcess(Heston(n_assets=4), min_listed=2),
    "randomized": lambda: Randomized(random_sigma),
}


def assert_within(
    estimate: ArrayLike, expected: ArrayLike, se: ArrayLike, what: str, k: float = K
) -> None:
    """Every ``estimate`` lies within ``k`` standard errors ``se`` of ``expected``."""
    estimate, expected, se = (np.asarray(x, dtype=np.float64) for x in (estimate, expected, se))
    assert bool(np.all(se > 0)), f"{what}: the standard errors must be positive, got {se}"
    distance = np.abs(estimate - expected) / se
    assert bool(np.all(distance < k)), (
        f"{what}: estimate {estimate} vs expected {expected} is {distance} standard errors "
        f"away (se {se}, tolerance {k})"
    )


def mean_and_se(per_path: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Mean over the first axis (independent paths) and its standard error."""
    n = per_path.shape[0]
    return per_path.mean(axis=0), per_path.std(axis=0, ddof=1) / np.sqrt(n)


def log_returns(prices: NDArray[np.float64]) -> NDArray[np.float64]:
    """Log-returns along the time axis (the second to last)."""
    return np.diff(np.log(prices), axis=-2)


@pytest.fixture(params=sorted(MODELS))
def model(request: pytest.FixtureRequest) -> MarketModel:
    """Each canonical model in turn."""
    return MODELS[request.param]()


@pytest.fixture
def kit() -> SimpleNamespace:
    """The helpers of this conftest (test modules cannot import it by name)."""
    return SimpleNamespace(
        K=K,
        CORR3=CORR3,
        MODELS=MODELS,
        assert_within=assert_within,
        mean_and_se=mean_and_se,
        log_returns=log_returns,
        random_sigma=random_sigma,
    )
