"""The listing kernel draws and returns exactly what the plain loop over rows did.

`_simulation_paths.listing` computes runs of rows at once and steps row by row
only where short rows come often; `reference_listing` below is the loop it
replaced, kept as the slow, obviously correct specification. Every case
compares the listed arrays bit for bit and the generators' states afterwards
(the same draws, in the same order). Digests recorded from the loop pin the
default market's masks, in case the two were ever changed together.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from numpy.typing import NDArray

from sekai.finance import _simulation_paths as paths
from sekai.finance.simulators import GBM, Heston, ListingProcess, MarketModel

F64 = NDArray[np.float64]
Bools = NDArray[np.bool_]


def reference_listing(
    rng: np.random.Generator,
    n_paths: int,
    n_steps: int,
    initial: F64,
    p_list: F64,
    p_delist: F64,
    min_listed: int,
) -> Bools:
    """The listing chain, one row after another, each topped up before the next."""
    n = initial.shape[0]
    u = rng.random((n_paths, n_steps + 1, n))
    listed = np.empty((n_paths, n_steps + 1, n), dtype=np.bool_)
    listed[:, 0] = u[:, 0] < initial
    reference_top_up(rng, listed[:, 0], min_listed)
    for t in range(n_steps):
        now, draw = listed[:, t], u[:, t + 1]
        listed[:, t + 1] = np.where(now, draw >= p_delist, draw < p_list)
        reference_top_up(rng, listed[:, t + 1], min_listed)
    return listed


def reference_top_up(rng: np.random.Generator, row: Bools, minimum: int) -> None:
    """List the unlisted assets with the smallest keys where a path has too few."""
    if minimum == 0:
        return
    counts = np.count_nonzero(row, axis=1)
    short = np.flatnonzero(counts < minimum)
    if short.size == 0:
        return
    keys = rng.random((short.size, row.shape[1]))
    keys[row[short]] = np.inf
    ranks = np.argsort(np.argsort(keys, axis=1), axis=1)
    row[short] |= ranks < (minimum - counts[short])[:, None]


def assert_same_as_reference(
    seed: int,
    n_paths: int,
    n_steps: int,
    initial: F64,
    p_list: F64,
    p_delist: F64,
    min_listed: int,
) -> Bools:
    fast_rng, slow_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    fast = paths.listing(fast_rng, n_paths, n_steps, initial, p_list, p_delist, min_listed)
    slow = reference_listing(slow_rng, n_paths, n_steps, initial, p_list, p_delist, min_listed)
    assert fast.dtype == slow.dtype and fast.shape == slow.shape
    np.testing.assert_array_equal(fast, slow)
    assert fast_rng.bit_generator.state == slow_rng.bit_generator.state
    return fast


# Probabilities at and next to the ends of [0, 1], where `<` and `>=` decide.
EDGES = [0.0, 5e-324, 1e-9, 1e-3, 0.5, 1.0 - 1e-9, 1.0 - 2**-53, 1.0]


@st.composite
def probabilities(draw: st.DrawFn, n: int) -> F64:
    """One probability per asset: a shared edge value, or edges mixed with any."""
    kind = draw(st.sampled_from(["edge", "mixed", "small"]))
    if kind == "edge":
        return np.full(n, draw(st.sampled_from(EDGES)))
    value = st.sampled_from(EDGES) | st.floats(0.0, 1.0)
    if kind == "small":
        # Rare moves, as with daily steps: long runs between changes.
        value = st.floats(0.0, 0.02)
    return np.array(draw(st.lists(value, min_size=n, max_size=n)))


@st.composite
def chains(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(1, 12))
    return {
        "n_paths": draw(st.integers(1, 4)),
        "n_steps": draw(st.integers(0, 60)),
        "initial": draw(probabilities(n)),
        "p_list": draw(probabilities(n)),
        "p_delist": draw(probabilities(n)),
        "min_listed": draw(st.integers(0, n)),
    }


@settings(max_examples=400, deadline=None)
@given(chain=chains(), seed=st.integers(0, 2**32 - 1))
def test_listing_equals_the_loop_over_rows(chain: dict[str, Any], seed: int) -> None:
    assert_same_as_reference(seed, **chain)


@pytest.mark.parametrize(
    ("n_paths", "n", "n_steps", "rates", "min_listed"),
    [
        # The default market's chain: top-ups almost never, one scan.
        (1, 10, 271, (0.8, 1 / 252, 0.25 / 252), 1),
        (16, 10, 271, (0.8, 1 / 252, 0.25 / 252), 1),
        # Long runs in windows capped to stay in cache.
        (40, 10, 1000, (0.8, 1 / 252, 0.25 / 252), 1),
        # Many elements per row: stepped row by row.
        (300, 10, 50, (0.5, 0.05, 0.2), 3),
        # Top-ups at every row, often, now and then, and never needed.
        (1, 10, 300, (0.5, 0.1, 0.5), 10),
        (4, 10, 300, (0.5, 0.05, 0.2), 5),
        (2, 10, 600, (0.5, 0.02, 0.02), 3),
        (3, 7, 400, (0.2, 0.3, 0.3), 0),
        # Every step flips every asset, or resets it.
        (2, 5, 100, (0.5, 1.0, 1.0), 2),
        (2, 5, 100, (0.5, 1.0, 0.0), 2),
        (2, 5, 100, (0.5, 0.0, 1.0), 2),
    ],
)
def test_listing_equals_the_loop_over_long_and_wide_chains(
    n_paths: int, n: int, n_steps: int, rates: tuple[float, float, float], min_listed: int
) -> None:
    initial, p_list, p_delist = (np.full(n, p) for p in rates)
    for seed in range(5):
        assert_same_as_reference(seed, n_paths, n_steps, initial, p_list, p_delist, min_listed)


def test_a_top_up_depends_on_the_rows_before_it() -> None:
    # Delist all but one asset per step: the chain tops up again and again,
    # and each top-up changes which assets the next rows can delist.
    n = 6
    listed = assert_same_as_reference(
        3, 2, 200, np.full(n, 0.5), np.full(n, 0.05), np.full(n, 0.6), 3
    )
    assert (listed.sum(axis=-1) >= 3).all()


def one_step_probabilities(model: ListingProcess) -> tuple[F64, F64]:
    """``(p_list, p_delist)``: the exact one-step probabilities of the two-state chain."""
    n = model.n_assets
    up = np.broadcast_to(model.listing_rate, (n,))
    down = np.broadcast_to(model.delisting_rate, (n,))
    total = up + down
    safe = np.where(total > 0, total, 1.0)
    moved = -np.expm1(-safe * model.dt) / safe
    return up * moved, down * moved


def market() -> ListingProcess:
    """Market-v0's default universe, as `sekai.envs.finance.default_market` builds it."""
    corr = np.full((10, 10), 0.3)
    np.fill_diagonal(corr, 1.0)
    prices = GBM(
        np.linspace(0.02, 0.10, 10),
        np.linspace(0.15, 0.40, 10),
        corr=corr,
        dt=1 / 252,
        n_assets=10,
    )
    return ListingProcess(
        prices, initial_listed=0.8, listing_rate=1.0, delisting_rate=0.25, min_listed=1
    )


def crowded() -> ListingProcess:
    """Weekly steps that delist most slots: a top-up at most rows."""
    return ListingProcess(
        GBM(n_assets=6, dt=1 / 52),
        initial_listed=0.3,
        listing_rate=5.0,
        delisting_rate=60.0,
        min_listed=3,
    )


def heston() -> ListingProcess:
    """A wrapped model with latent state."""
    return ListingProcess(Heston(n_assets=4), initial_listed=0.5, min_listed=2)


@pytest.mark.parametrize("build", [market, crowded, heston])
@pytest.mark.parametrize("n_paths", [None, 1, 6])
def test_simulate_equals_the_wrapped_model_then_the_loop(build: Any, n_paths: int | None) -> None:
    model: ListingProcess = build()
    inner: MarketModel = model.model
    p_list, p_delist = one_step_probabilities(model)
    initial = np.broadcast_to(model.initial_listed, (model.n_assets,))
    batch = 1 if n_paths is None else n_paths

    def as_returned(array: NDArray[Any]) -> NDArray[Any]:
        # One path is a batch of one with the first axis dropped.
        return array[0] if n_paths is None else array

    for seed in range(3):
        rng, reference_rng = np.random.default_rng(seed), np.random.default_rng(seed)
        result = model.simulate(rng, 271, n_paths=n_paths)
        wrapped = inner.simulate(reference_rng, 271, n_paths=batch)
        mask = reference_listing(
            reference_rng, batch, 271, initial, p_list, p_delist, model.min_listed
        )
        np.testing.assert_array_equal(result.prices, as_returned(wrapped.prices))
        np.testing.assert_array_equal(result.mask, as_returned(mask))
        assert result.state.keys() == wrapped.state.keys()
        for name, series in wrapped.state.items():
            np.testing.assert_array_equal(result.state[name], as_returned(series))
        assert rng.bit_generator.state == reference_rng.bit_generator.state


# sha256 of the masks of seeds 0..19, recorded from the loop over rows.
DIGESTS = {
    ("market", None): "dbf6aa80f9e97f07b4a98a5a4b4ddc7c7d0b8cd51b7be6ca895268bd62890c20",
    ("market", 8): "15ae550fa9951b4ff44609252089a7de512e56e0619a0935f4865a97a5286696",
    ("crowded", 5): "5bce8e4e44ac8cc17bdd31aba81336b337e26f226ca02b56a3393a785bb175d5",
}


@pytest.mark.parametrize(("name", "n_paths"), list(DIGESTS))
def test_masks_match_the_digests_of_the_loop(name: str, n_paths: int | None) -> None:
    model = {"market": market, "crowded": crowded}[name]()
    n_steps = 271 if name == "market" else 200
    digest = hashlib.sha256()
    for seed in range(20):
        mask = model.simulate(np.random.default_rng(seed), n_steps, n_paths=n_paths).mask
        assert mask is not None
        digest.update(np.ascontiguousarray(mask).tobytes())
    assert digest.hexdigest() == DIGESTS[name, n_paths]
