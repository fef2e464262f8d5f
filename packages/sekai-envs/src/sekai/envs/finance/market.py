"""Price helpers of the market environments: checks, windows, simulated paths, correlations.

Conveniences for preparing data for [`TradingEnv`][sekai.envs.TradingEnv],
[`PortfolioEnv`][sekai.envs.PortfolioEnv] and
[`MarketEnv`][sekai.envs.MarketEnv], kept at sekai 0.2's import path
(``sekai.envs.finance.market``). The models and the point-in-time data they
build on live in `sekai.finance`: `simulate_gbm` is a shortcut for
[`sekai.finance.GBM`][sekai.finance.GBM], and the envs read histories through
[`sekai.finance.MarketData`][sekai.finance.MarketData].
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._internal.validation import check_int, check_real, is_int
from sekai.finance._renamed import either
from sekai.finance.data import MarketData
from sekai.finance.simulators import GBM

__all__ = ["random_correlation", "sample_window", "simulate_gbm", "validate_prices"]

F64 = NDArray[np.float64]
_DAY = 1.0 / 252.0


def _generator(rng: np.random.Generator | int | None, what: str) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or (isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)):
        return np.random.default_rng(None if rng is None else int(rng))
    raise TypeError(f"{what}: rng must be a numpy Generator, an int seed or None, got {rng!r}")


def validate_prices(
    prices: ArrayLike,
    *,
    ndim: int | None = None,
    min_length: int | None = None,
    n_assets: int | None = None,
    min_rows: int | None = None,
    allow_missing: bool = False,
    what: str = "prices",
) -> F64:
    """Prices as a float64 array, after checking them.

    A 1-D input (an array, a list, a pandas Series) is one asset; a 2-D input
    (a pandas DataFrame included) has one column per asset. The result is a
    new ``(n_rows, n_assets)`` array, or with ``ndim`` (sekai 0.2's argument)
    an array of that many dimensions, the input's.

    Args:
        prices: The prices.
        ndim: The number of dimensions required (1 or 2, kept in the
            result), or None for either (the result is 2-D).
        min_length: The fewest rows accepted (>= 1; 2 by default).
        n_assets: The number of columns required, or None for any.
        min_rows: Another name of ``min_length``.
        allow_missing: Accept NaN (an unavailable asset) as well as prices > 0.
        what: The argument's name in error messages.

    Returns:
        The checked float64 prices.

    Raises:
        TypeError: The values are not real numbers, or both ``min_length``
            and ``min_rows`` are given.
        ValueError: Wrong number of dimensions, columns or rows, or a price
            that is not finite and > 0 (NaN too unless ``allow_missing``).
    """
    fewest = either("validate_prices", "min_length", min_length, "min_rows", min_rows)
    min_rows = check_int(2 if fewest is None else fewest, "validate_prices: min_length", minimum=1)
    if ndim is not None:
        ndim = check_int(ndim, "validate_prices: ndim", minimum=1, maximum=2)
    try:
        array = np.array(prices, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{what} must be an array of real numbers, got {prices!r}") from error
    if ndim is not None and array.ndim != ndim:
        shape = "(n_rows,)" if ndim == 1 else "(n_rows, n_assets)"
        raise ValueError(f"{what} must have shape {shape}, got shape {array.shape}")
    kept_ndim = array.ndim
    if array.ndim == 1:
        array = array[:, None]
    if array.ndim != 2:
        raise ValueError(
            f"{what} must have shape (n_rows,) or (n_rows, n_assets), got shape {array.shape}"
        )
    if n_assets is not None:
        expected = check_int(n_assets, "validate_prices: n_assets", minimum=1)
        if array.shape[1] != expected:
            raise ValueError(
                f"{what} must have {expected} column(s) (one per asset), got {array.shape[1]} "
                f"(shape {array.shape})"
            )
    if array.shape[0] < min_rows:
        raise ValueError(f"{what} must have at least {min_rows} rows, got {array.shape[0]}")
    missing = np.isnan(array)
    bad = ~(np.isfinite(array) & (array > 0.0))
    if allow_missing:
        bad &= ~missing
    if bad.any():
        row, column = (int(i) for i in np.argwhere(bad)[0])
        allowed = "finite and > 0, or NaN where unavailable" if allow_missing else "finite and > 0"
        raise ValueError(
            f"{what} must be {allowed}; got {float(array[row, column])!r} at row {row}, "
            f"column {column}"
        )
    if ndim == 1 and kept_ndim == 1:
        column_of_one: F64 = array[:, 0]
        return column_of_one
    return array


def simulate_gbm(
    rng: np.random.Generator | int | None,
    n_steps: int,
    *,
    mu: ArrayLike = 0.05,
    sigma: ArrayLike = 0.2,
    s0: ArrayLike = 100.0,
    corr: ArrayLike | None = None,
    dt: float = _DAY,
    n_assets: int | None = None,
) -> F64:
    """One path of correlated geometric Brownian motion, ``(n_steps + 1, n_assets)``.

    A shortcut for ``sekai.finance.GBM(mu, sigma, s0=s0, corr=corr, dt=dt,
    n_assets=n_assets).simulate(rng, n_steps).prices``: row 0 is ``s0``, each
    step of ``dt`` years is drawn exactly.

    Args:
        rng: A numpy Generator, an int seed, or None (OS entropy).
        n_steps: Steps to simulate (>= 0).
        mu: Drift per year, a number or one per asset.
        sigma: Volatility per year (>= 0), a number or one per asset.
        s0: Start prices (> 0).
        corr: Correlation matrix of the assets' shocks, or None (independent).
        dt: Years per step (default one trading day, 1/252).
        n_assets: Number of assets (default: from the parameters' shapes).

    Raises:
        TypeError, ValueError: As [`sekai.finance.GBM`][sekai.finance.GBM] and its ``simulate``.
    """
    model = GBM(mu, sigma, s0=s0, corr=corr, dt=dt, n_assets=n_assets)
    return model.simulate(_generator(rng, "simulate_gbm"), n_steps).prices


def random_correlation(
    rng: np.random.Generator | int | None = None,
    n: int | np.random.Generator | None = None,
    strength: float = 1.0,
    *,
    n_factors: int = 1,
    n_assets: int | None = None,
) -> F64:
    """A random correlation matrix from a factor model, always positive definite.

    Each asset loads on ``n_factors`` common factors with loadings ``strength
    * B``, ``B`` standard normal, and has its own variance ``d`` drawn
    uniformly from ``[0.5, 1.5]``; the result is the correlation of
    ``strength**2 B B^T + diag(d)``: symmetric, unit diagonal, every
    eigenvalue > 0. Useful as the ``corr`` of a simulated market
    (``PortfolioEnv(corr=random_correlation(rng, 5))``).

    The arguments are sekai 0.2's, ``(rng, n, strength)``. The order of
    earlier 0.3 versions, ``(n_assets, rng)``, is read when the generator
    comes second or alone: ``random_correlation(5)``,
    ``random_correlation(5, generator)``; with two ints the first is the seed.

    Args:
        rng: A numpy Generator, an int seed, or None (OS entropy).
        n: Size of the matrix (>= 1).
        strength: How much the assets move together (>= 0): 0 gives the
            identity, 1 (the default) factor loadings of unit variance, larger
            values correlations nearer to 1 in size.
        n_factors: Number of common factors (>= 1).
        n_assets: Another name of ``n``.

    Returns:
        A ``(n, n)`` float64 matrix.

    Raises:
        TypeError: ``n`` and ``n_assets`` both given, or no size.
        ValueError: A size or ``n_factors`` below 1, or ``strength`` < 0.
    """
    size = either("random_correlation", "n", n, "n_assets", n_assets)
    seed: Any = rng
    if isinstance(size, np.random.Generator) or (size is None and is_int(rng)):
        size, seed = rng, size  # the earlier order, (n_assets, rng)
    if size is None:
        raise TypeError("random_correlation: give the size n, as in random_correlation(rng, n)")
    count = check_int(
        size,
        "random_correlation: n",
        minimum=1,
        expected="an int >= 1 (the arguments are (rng, n) as in sekai 0.2; n_assets= also names n)",
    )
    k = check_int(n_factors, "random_correlation: n_factors", minimum=1)
    scale = check_real(strength, "random_correlation: strength", minimum=0.0)
    generator = _generator(seed, "random_correlation")
    loadings = generator.standard_normal((count, k))
    if scale != 1.0:
        loadings *= scale
    own = generator.uniform(0.5, 1.5, size=count)
    covariance = loadings @ loadings.T + np.diag(own)
    scales = np.sqrt(np.diag(covariance))
    matrix: F64 = covariance / np.outer(scales, scales)
    matrix = 0.5 * (matrix + matrix.T)
    np.fill_diagonal(matrix, 1.0)
    return matrix


def sample_window(
    rng: np.random.Generator | int | None = None,
    prices: ArrayLike | MarketData | None = None,
    length: int | None = None,
) -> F64:
    """A window of ``length`` consecutive rows of ``prices``, its start drawn uniformly.

    The arguments are sekai 0.2's, ``(rng, prices, length)``; the order of
    earlier 0.3 versions, ``(prices, length, rng)``, is read when the first
    argument is not a generator, a seed or None.

    Args:
        rng: A numpy Generator, an int seed, or None (OS entropy).
        prices: A ``(n_rows,)`` or ``(n_rows, n_assets)`` array of prices, or a
            [`MarketData`][sekai.finance.MarketData] (its price table).
        length: Rows in the window, in ``[1, n_rows]``.

    Returns:
        A new ``(length, n_assets)`` float64 array.

    Raises:
        TypeError: ``prices`` or ``length`` missing.
        ValueError: ``length`` does not fit in the data.
    """
    seed: Any = rng
    if not (rng is None or isinstance(rng, np.random.Generator) or is_int(rng)):
        seed, prices, length = length, rng, prices  # the earlier order, (prices, length, rng)
    if prices is None or length is None:
        raise TypeError(
            "sample_window: give the prices and the window's length, as in "
            f"sample_window(rng, prices, length); got prices={prices!r}, length={length!r}"
        )
    table: Any = prices.prices if isinstance(prices, MarketData) else prices
    array = validate_prices(table, min_rows=1, allow_missing=True, what="sample_window: prices")
    n_rows = array.shape[0]
    rows = check_int(
        length,
        "sample_window: length",
        minimum=1,
        maximum=n_rows,
        expected=f"an int in [1, {n_rows}] (the rows of the prices)",
    )
    start = int(_generator(seed, "sample_window").integers(n_rows - rows + 1))
    window: F64 = array[start : start + rows].copy()
    return window
