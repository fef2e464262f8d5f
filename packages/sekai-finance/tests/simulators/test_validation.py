"""Constructor checks: each error names the argument, what was expected and what was given."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from sekai.finance.simulators import (
    GARCH,
    GBM,
    CointegratedPair,
    Heston,
    MeanReverting,
    MertonJumpDiffusion,
)

CASES: list[tuple[Callable[[], Any], type[Exception], str]] = [
    (
        lambda: GBM(sigma=-0.1),
        ValueError,
        "GBM: sigma must be a finite real number >= 0.0, got -0.1",
    ),
    (
        lambda: GBM(sigma=[0.1, -0.2]),
        ValueError,
        r"GBM: sigma\[1\] must be a finite real number >= 0.0, got -0.2",
    ),
    (lambda: GBM(mu=float("nan")), ValueError, "GBM: mu must be a finite real number, got nan"),
    (lambda: GBM(mu="0.1"), TypeError, "GBM: mu must be a finite real number, got '0.1'"),
    (lambda: GBM(mu=True), TypeError, "GBM: mu must be a finite real number, got True"),
    (lambda: GBM(s0=0.0), ValueError, "GBM: s0 must be a finite real number > 0.0, got 0.0"),
    (
        lambda: GBM(mu=[[0.1, 0.2]]),
        ValueError,
        r"GBM: mu must be a number or a 1-D array \(one value per asset\), got an array of "
        r"shape \(1, 2\)",
    ),
    (lambda: GBM(mu=[]), ValueError, r"GBM: mu must hold at least one value, got \[\]"),
    (lambda: GBM(dt=0.0), ValueError, "GBM: dt must be a finite real number > 0.0, got 0.0"),
    (lambda: GBM(n_assets=0), ValueError, "GBM: n_assets must be an int >= 1, got 0"),
    (lambda: GBM(n_assets=2.0), TypeError, "GBM: n_assets must be an int >= 1, got 2.0"),
    (
        lambda: GBM(corr=[[1.0, 0.5], [0.3, 1.0]]),
        ValueError,
        r"GBM: corr must be symmetric, got corr\[0, 1\] = 0.5 but corr\[1, 0\] = 0.3",
    ),
    (
        lambda: GBM(corr=[[1.0, 0.9, -0.9], [0.9, 1.0, 0.9], [-0.9, 0.9, 1.0]]),
        ValueError,
        "GBM: corr must be positive semi-definite .* smallest eigenvalue is -0.8",
    ),
    (
        lambda: GBM(corr=[[2.0, 0.0], [0.0, 2.0]]),
        ValueError,
        r"GBM: corr must have ones on its diagonal, got diagonal \[2.0, 2.0\]",
    ),
    (
        lambda: GBM(corr=[[1.0, 0.0, 0.0]]),
        ValueError,
        r"GBM: corr must be a square \(n_assets, n_assets\) matrix, got shape \(1, 3\)",
    ),
    (lambda: GBM(corr=[[1.0, np.inf], [np.inf, 1.0]]), ValueError, "GBM: corr must be finite"),
    (
        lambda: Heston(rho=-1.5),
        ValueError,
        r"Heston: rho must be a finite real number in \[-1.0, 1.0\], got -1.5",
    ),
    (
        lambda: Heston(kappa=-1.0),
        ValueError,
        "Heston: kappa must be a finite real number >= 0.0, got -1.0",
    ),
    (
        lambda: Heston(v0=-0.01),
        ValueError,
        "Heston: v0 must be a finite real number >= 0.0, got -0.01",
    ),
    (
        lambda: Heston(theta=[0.04, 0.09], v0=[0.1, 0.1, 0.1]),
        ValueError,
        "theta has 2 values but v0 has 3 values",
    ),
    (
        lambda: GARCH(omega=0.0),
        ValueError,
        "GARCH: omega must be a finite real number > 0.0, got 0.0",
    ),
    (
        lambda: GARCH(alpha=0.5, beta=0.6),
        ValueError,
        r"GARCH: alpha \+ beta must be < 1 for a stationary variance, got alpha=0.5 and "
        r"beta=0.6 \(asset 0\)",
    ),
    (
        lambda: MertonJumpDiffusion(jump_intensity=-1.0),
        ValueError,
        "MertonJumpDiffusion: jump_intensity must be a finite real number >= 0.0, got -1.0",
    ),
    (
        lambda: MertonJumpDiffusion(jump_std=-0.1),
        ValueError,
        "MertonJumpDiffusion: jump_std must be a finite real number >= 0.0, got -0.1",
    ),
    (
        lambda: MeanReverting(mean=0.0),
        ValueError,
        "MeanReverting: mean must be a finite real number > 0.0, got 0.0",
    ),
    (
        lambda: MeanReverting(theta=-5.0),
        ValueError,
        "MeanReverting: theta must be a finite real number >= 0.0, got -5.0",
    ),
    (
        lambda: CointegratedPair(spread_sigma=-0.1),
        ValueError,
        "CointegratedPair: spread_sigma must be a finite real number >= 0.0, got -0.1",
    ),
    (
        lambda: CointegratedPair(theta=[1.0, 2.0]),
        TypeError,
        r"CointegratedPair: theta must be a finite real number >= 0.0, got \[1.0, 2.0\]",
    ),
    (
        lambda: CointegratedPair(s0=(1.0, 2.0, 3.0)),
        ValueError,
        r"CointegratedPair: s0 must hold two prices, got \(1.0, 2.0, 3.0\)",
    ),
]


@pytest.mark.parametrize(("build", "error", "text"), CASES)
def test_bad_arguments_are_named(
    build: Callable[[], Any], error: type[Exception], text: str
) -> None:
    with pytest.raises(error, match=text):
        build()


def test_a_correlation_within_rounding_of_valid_is_accepted() -> None:
    corr = np.array([[1.0, 0.3], [0.3 + 1e-12, 1.0]])
    model = GBM(corr=corr)
    np.testing.assert_array_equal(model.corr, model.corr.T)
