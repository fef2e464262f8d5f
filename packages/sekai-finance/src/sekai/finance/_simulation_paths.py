"""The numerical kernels of the price simulators (private).

Each function simulates a batch of ``n_paths`` paths of ``n_steps`` steps and
returns arrays whose first axis is the path and second the time (``n_steps +
1`` rows, row 0 the start). Parameters arrive validated and broadcast to
``(n_assets,)``. All randomness comes from the ``rng`` passed in, drawn in a
fixed order documented in each function, so a seed reproduces the paths.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "block_indices",
    "exp_cumsum",
    "garch",
    "gbm",
    "heston",
    "jumps",
    "listing",
    "markov_chain",
    "ornstein_uhlenbeck",
    "ou_coefficients",
    "shocks",
    "stationary_distribution",
]

F64 = NDArray[np.float64]


def shocks(
    rng: np.random.Generator,
    n_paths: int,
    n_steps: int,
    n_assets: int,
    factor: F64 | None,
    scale: F64 | None = None,
) -> F64:
    """Normal shocks ``(n_paths, n_steps, n_assets)``: ``scale * (factor @ z)``.

    ``z`` is standard normal; ``factor`` (``None``: the identity) correlates
    the assets and ``scale`` (``None``: 1) multiplies each asset's shock, in
    the same pass as the matrix product when there is one.
    """
    z = rng.standard_normal((n_paths, n_steps, n_assets))
    if factor is not None:
        mix = factor.T if scale is None else factor.T * scale
        mixed: F64 = (z.reshape(-1, n_assets) @ mix).reshape(z.shape)
        return mixed
    if scale is not None:
        z *= scale
    return z


def exp_cumsum(start: F64, increments: F64) -> F64:
    """Prices ``start * exp(cumsum(increments))`` with ``start`` itself as row 0.

    ``increments`` is ``(n_paths, n_steps, n)``; ``start`` broadcasts to
    ``(n,)``. Row 0 equals ``start`` exactly.
    """
    n_paths, n_steps, n = increments.shape
    out = np.empty((n_paths, n_steps + 1, n))
    out[:, 0] = 0.0
    np.cumsum(increments, axis=1, out=out[:, 1:])
    np.exp(out, out=out)
    out *= start
    return out


# Elements per array of one chunk of paths in `gbm` (512 KiB of float64):
# small enough to stay in a core's cache between the passes over it.
_CHUNK_ELEMENTS = 1 << 16


def gbm(
    rng: np.random.Generator,
    n_paths: int,
    n_steps: int,
    start: F64,
    drift: F64,
    scale: F64,
    factor: F64 | None,
) -> F64:
    """Exact GBM prices ``(n_paths, n_steps + 1, n)``, log-steps ``drift + scale * (factor z)``.

    The paths are computed in chunks that fit in cache; the normals are drawn
    path after path (path-major), so the result does not depend on the chunk
    size: it is the same as one ``(n_paths, n_steps, n)`` draw.
    """
    n = start.shape[0]
    out = np.empty((n_paths, n_steps + 1, n))
    chunk = max(1, _CHUNK_ELEMENTS // max(1, (n_steps + 1) * n))
    for first in range(0, n_paths, chunk):
        last = min(n_paths, first + chunk)
        increments = shocks(rng, last - first, n_steps, n, factor, scale)
        increments += drift
        out[first:last] = exp_cumsum(start, increments)
    return out


def jumps(
    rng: np.random.Generator, intensity: F64, mean: F64, std: F64, shape: tuple[int, int, int]
) -> tuple[F64, F64]:
    """Compound Poisson log-jumps over each step: ``(sums, counts)``, both of ``shape``.

    ``counts ~ Poisson(intensity)`` per step (``intensity`` already multiplied
    by ``dt``); the sum of ``c`` normal log-jumps ``N(mean, std**2)`` is drawn
    directly as ``N(c * mean, c * std**2)``. Draws: the counts, then one
    normal per step that has at least one jump.
    """
    counts = rng.poisson(np.broadcast_to(intensity, shape)).astype(np.float64)
    sums = np.zeros(shape)
    hit = counts > 0
    n_hit = int(np.count_nonzero(hit))
    if n_hit:
        c = counts[hit]
        z = rng.standard_normal(n_hit)
        sums[hit] = c * np.broadcast_to(mean, shape)[hit] + np.sqrt(c) * (
            np.broadcast_to(std, shape)[hit] * z
        )
    return sums, counts


def heston(
    rng: np.random.Generator,
    n_paths: int,
    n_steps: int,
    dt: float,
    params: dict[str, F64],
    factor: F64 | None,
) -> tuple[F64, F64]:
    """Full-truncation Euler paths of the Heston model: ``(log_increments, variance)``.

    With ``v+ = max(v, 0)``, over each step::

        log S += (mu - v+ / 2) dt + sqrt(v+ dt) W
        v     += kappa (theta - v+) dt + xi sqrt(v+ dt) B

    where the price shocks ``W`` of the assets are correlated by ``factor`` and
    ``B = rho W + sqrt(1 - rho**2) Z`` with ``Z`` independent. Draws: one
    ``(2, n_paths, n_steps, n)`` normal array (``W`` before correlation, then
    ``Z``). Returns the ``(n_paths, n_steps, n)`` log-price increments and the
    ``(n_paths, n_steps + 1, n)`` variance ``v+`` (row 0 is ``v0``).
    """
    mu, kappa, theta, xi, rho, v0 = (
        params[name] for name in ("mu", "kappa", "theta", "xi", "rho", "v0")
    )
    n = mu.shape[0]
    z = rng.standard_normal((2, n_paths, n_steps, n))
    w, b = z[0], z[1]
    if factor is not None:
        w = (w.reshape(-1, n) @ factor.T).reshape(w.shape)
    b *= np.sqrt(1.0 - rho * rho)
    b += rho * w
    # The variance loop runs over time, vectorised over paths and assets, in
    # place; the log-price increments follow in one vectorised pass.
    positive = np.empty((n_paths, n_steps + 1, n))
    current = np.array(np.broadcast_to(v0, (n_paths, n)))
    positive[:, 0] = current
    pull, level, vol = kappa * dt, kappa * theta * dt, xi * np.sqrt(dt)
    root, pulled = np.empty((n_paths, n)), np.empty((n_paths, n))
    for t in range(n_steps):
        now = positive[:, t]
        np.sqrt(now, out=root)
        root *= vol
        root *= b[:, t]
        np.multiply(pull, now, out=pulled)
        current += level
        current -= pulled
        current += root
        np.maximum(current, 0.0, out=positive[:, t + 1])
    used = positive[:, :-1]
    increments = np.sqrt(used)
    increments *= w
    increments *= np.sqrt(dt)
    increments += mu * dt
    np.multiply(used, 0.5 * dt, out=b)
    increments -= b
    return increments, positive


def garch(
    rng: np.random.Generator,
    n_paths: int,
    n_steps: int,
    params: dict[str, F64],
    factor: F64 | None,
) -> tuple[F64, F64]:
    """GARCH(1,1) innovations and conditional variances: ``(eps, variance)``.

    ``eps_t = sqrt(h_t) z_t`` and ``h_{t+1} = omega + alpha eps_t**2 + beta
    h_t``, starting from ``h_0 = h0``. Draws: the ``(n_paths, n_steps, n)``
    normals ``z`` (correlated by ``factor``). Returns ``eps`` of shape
    ``(n_paths, n_steps, n)`` and ``h`` of shape ``(n_paths, n_steps + 1, n)``.
    """
    omega, alpha, beta, h0 = (params[name] for name in ("omega", "alpha", "beta", "h0"))
    n = omega.shape[0]
    z = shocks(rng, n_paths, n_steps, n, factor)
    variance = np.empty((n_paths, n_steps + 1, n))
    variance[:, 0] = h0
    eps = np.empty((n_paths, n_steps, n))
    for t in range(n_steps):
        h = variance[:, t]
        e = np.sqrt(h) * z[:, t]
        eps[:, t] = e
        variance[:, t + 1] = omega + alpha * (e * e) + beta * h
    return eps, variance


def ou_coefficients(theta: F64, sigma: F64, dt: float) -> tuple[F64, F64]:
    """Exact one-step coefficients ``(a, c)`` of an Ornstein-Uhlenbeck process.

    ``x_{t+1} - m = a (x_t - m) + c z`` with ``a = exp(-theta dt)`` and
    ``c = sigma sqrt((1 - a**2) / (2 theta))`` (``sigma sqrt(dt)`` when
    ``theta == 0``, the random-walk limit).
    """
    a = np.exp(-theta * dt)
    safe = np.where(theta > 0, theta, 1.0)
    variance = np.where(theta > 0, -np.expm1(-2.0 * safe * dt) / (2.0 * safe), dt)
    return a, sigma * np.sqrt(variance)


def ornstein_uhlenbeck(start: F64, a: F64, c: F64, z: F64) -> F64:
    """Deviations ``y`` with ``y_0 = start`` and ``y_{t+1} = a y_t + c z_t``.

    ``z`` is ``(n_paths, n_steps, ...)``; the result is ``(n_paths, n_steps + 1, ...)``.
    """
    n_paths, n_steps = z.shape[:2]
    y = np.empty((n_paths, n_steps + 1, *z.shape[2:]))
    y[:, 0] = start
    noise = c * z
    for t in range(n_steps):
        np.multiply(a, y[:, t], out=y[:, t + 1])
        y[:, t + 1] += noise[:, t]
    return y


def stationary_distribution(transition: F64) -> F64:
    """A stationary distribution ``pi`` of a row-stochastic matrix (``pi P = pi``).

    Solved by least squares with the constraint ``sum(pi) = 1``; for a
    reducible chain this is one of its stationary distributions.
    """
    k = transition.shape[0]
    system = np.vstack([transition.T - np.eye(k), np.ones((1, k))])
    target = np.zeros(k + 1)
    target[-1] = 1.0
    solution = np.clip(np.linalg.lstsq(system, target, rcond=None)[0], 0.0, None)
    total = float(solution.sum())
    return solution / total if total > 0 else np.full(k, 1.0 / k)


def markov_chain(
    rng: np.random.Generator, n_paths: int, n_steps: int, initial: F64, transition: F64
) -> NDArray[np.intp]:
    """Paths ``(n_paths, n_steps + 1)`` of a Markov chain on ``0 .. K - 1``.

    Draws: one ``(n_paths, n_steps + 1)`` uniform array; column 0 picks the
    first state from ``initial``, column ``t + 1`` the move from state ``t``.
    """
    u = rng.random((n_paths, n_steps + 1))
    start_cdf = np.cumsum(initial)
    start_cdf[-1] = 1.0
    cdf = np.cumsum(transition, axis=1)
    cdf[:, -1] = 1.0
    states = np.empty((n_paths, n_steps + 1), dtype=np.intp)
    states[:, 0] = np.searchsorted(start_cdf, u[:, 0], side="right")
    for t in range(n_steps):
        states[:, t + 1] = np.count_nonzero(cdf[states[:, t]] <= u[:, t + 1, None], axis=1)
    return states


def block_indices(
    rng: np.random.Generator, n_paths: int, n_steps: int, n_rows: int, block_size: int
) -> NDArray[np.intp]:
    """Row indices ``(n_paths, n_steps)`` of a circular block bootstrap.

    Each path is a sequence of blocks of ``block_size`` consecutive rows
    (wrapping from the last row to the first), the last block cut short.
    Draws: the ``(n_paths, ceil(n_steps / block_size))`` block starts,
    uniform over the ``n_rows`` rows.
    """
    n_blocks = -(-n_steps // block_size)
    starts = rng.integers(0, n_rows, size=(n_paths, n_blocks))
    rows = (starts[:, :, None] + np.arange(block_size)) % n_rows
    return rows.reshape(n_paths, n_blocks * block_size)[:, :n_steps].astype(np.intp)


# Rows from which a scan of the listing chain (`_evolve`) pays for its fixed
# cost over stepping row by row.
_SCAN_ROWS = 8
# Elements per row (paths times assets) up to which scans pay at all: above,
# a row's fixed cost is small next to its elements, which a scan passes over
# more times than a step does.
_SCAN_ROW_ELEMENTS = 2048


def listing(
    rng: np.random.Generator,
    n_paths: int,
    n_steps: int,
    initial: F64,
    p_list: F64,
    p_delist: F64,
    min_listed: int,
) -> NDArray[np.bool_]:
    """Which assets are listed: a bool array ``(n_paths, n_steps + 1, n)``.

    Row 0 lists each asset with probability ``initial``; over each step an
    unlisted asset lists with probability ``p_list`` and a listed one delists
    with probability ``p_delist``. Whenever a row would have fewer than
    ``min_listed`` listed assets, unlisted ones chosen uniformly at random are
    listed to make up the difference. Draws: one ``(n_paths, n_steps + 1, n)``
    uniform array, then, for each row that falls short, one uniform per asset
    of each short path.

    Runs of rows are computed at once (`_evolve`) up to the first that falls
    short, which is topped up before the rows after it, so the draws and the
    result are those of a loop over the rows. Where short rows come every few
    rows, or a row has many elements, the rows are stepped one by one.
    """
    n = initial.shape[0]
    u = rng.random((n_paths, n_steps + 1, n))
    listed = np.empty((n_paths, n_steps + 1, n), dtype=np.bool_)
    listed[:, 0] = u[:, 0] < initial
    _top_up(rng, listed[:, 0], min_listed)
    scan = n_paths * n <= _SCAN_ROW_ELEMENTS
    # The longest scan whose arrays stay in cache.
    longest = min(n_steps, max(_SCAN_ROWS, _CHUNK_ELEMENTS // max(1, n_paths * n)))
    codes = _reset_codes(longest if scan else 0)
    ones = np.ones(n)
    # `window` guesses the rows before the next short one: the gap between
    # the last two short rows, doubled after each scan that finds none.
    t, since, window = 0, 0, n_steps
    while t < n_steps:
        if window < _SCAN_ROWS or not scan:
            draw = u[:, t + 1]
            listed[:, t + 1] = np.where(listed[:, t], draw >= p_delist, draw < p_list)
            t, since = t + 1, since + 1
            if _top_up(rng, listed[:, t], min_listed):
                window, since = since, 0
            else:
                window += 1
            continue
        end = min(n_steps, t + min(window, longest))
        draws = u[:, t + 1 : end + 1]
        rows = _evolve(listed[:, t], draws >= p_delist, draws < p_list, codes)
        first = _first_short(rows, min_listed, ones)
        if first < 0:
            listed[:, t + 1 : end + 1] = rows
            t, since, window = end, since + end - t, 2 * window
            continue
        listed[:, t + 1 : t + first + 2] = rows[:, : first + 1]
        t, since = t + first + 1, since + first + 1
        _top_up(rng, listed[:, t], min_listed)
        window, since = since, 0
    return listed


def _reset_codes(n_steps: int) -> NDArray[np.int32]:
    """The column ``2 * (t + 1)`` for the steps ``t < n_steps`` of a scan (`_evolve`).

    int32, not int64: the running maximum over the codes is a scan's costliest
    pass. Scans are at most ``_CHUNK_ELEMENTS`` rows long, so the codes fit.
    """
    return (2 * np.arange(1, n_steps + 1, dtype=np.int32))[:, None]


def _evolve(
    start: NDArray[np.bool_],
    stay: NDArray[np.bool_],
    enter: NDArray[np.bool_],
    codes: NDArray[np.int32],
) -> NDArray[np.bool_]:
    """The rows after ``start`` of the listing chain without top-ups, with no loop over rows.

    Row ``t + 1`` is ``stay[t]`` where row ``t`` is listed and ``enter[t]``
    where it is not (``stay`` and ``enter`` are ``(n_paths, steps, n)``,
    ``start`` is ``(n_paths, n)``). Where the two agree, the step resets the
    asset to that value whatever it was; where they differ, it keeps the
    asset's value (``enter`` false) or flips it (``enter`` true). So a row is
    the value of the latest reset (``start`` before any) flipped by the
    parity of the flips since: a running xor and a running maximum over the
    rows. ``codes`` is `_reset_codes` of at least ``steps`` steps.
    """
    reset = stay == enter
    parity = np.logical_xor.accumulate(enter > stay, axis=1)
    # A reset at step t is coded 2 * (t + 1) plus its value xor the parity so
    # far, other steps 0: the running maximum carries the latest reset (or
    # `start`, coded 0 or 1) forward, and its low bit xor the parity now is
    # the row.
    code = codes[: reset.shape[1]] + (enter ^ parity)
    code *= reset
    np.maximum(code[:, 0], start, out=code[:, 0])
    np.maximum.accumulate(code, axis=1, out=code)
    code &= 1
    rows: NDArray[np.bool_] = np.not_equal(code, parity)
    return rows


def _first_short(rows: NDArray[np.bool_], minimum: int, ones: F64) -> int:
    """The first row where some path has fewer than ``minimum`` listed, or -1 if none.

    ``ones`` is ``np.ones(n_assets)``: a product with it counts each row's
    listed assets (exactly) faster than a reduction over the short last axis.
    """
    if minimum == 0:
        return -1
    short = rows @ ones < minimum
    if not short.any():
        return -1
    return int(short.any(axis=0).argmax())


def _top_up(rng: np.random.Generator, row: NDArray[np.bool_], minimum: int) -> bool:
    """List random unlisted assets (in place) where fewer than ``minimum`` are listed.

    Returns whether any path was short (and so drew).
    """
    if minimum == 0:
        return False
    counts = np.count_nonzero(row, axis=1)
    short = np.flatnonzero(counts < minimum)
    if short.size == 0:
        return False
    keys = rng.random((short.size, row.shape[1]))
    keys[row[short]] = np.inf
    ranks = np.argsort(np.argsort(keys, axis=1), axis=1)
    row[short] |= ranks < (minimum - counts[short])[:, None]
    return True
