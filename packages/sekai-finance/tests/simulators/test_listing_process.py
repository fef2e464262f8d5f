"""ListingProcess: listings and delistings at their rates, min_listed, prices untouched."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from sekai.finance.simulators import GBM, Heston, ListingProcess

LIST, DELIST, P0, DT = 2.0, 1.0, 0.2, 1 / 12


def listed(n_paths: int = 3000, n_steps: int = 36, **kwargs: object) -> np.ndarray:
    model = ListingProcess(
        GBM(n_assets=4, dt=DT),
        initial_listed=P0,
        listing_rate=LIST,
        delisting_rate=DELIST,
        min_listed=0,
        **kwargs,  # type: ignore[arg-type]
    )
    mask = model.simulate(np.random.default_rng(0), n_steps, n_paths=n_paths).mask
    assert mask is not None
    return mask


def test_listed_fraction_follows_the_two_state_markov_law(kit: SimpleNamespace) -> None:
    # P(listed at t) = pi + (p0 - pi) exp(-(lambda + mu) t), pi = lambda / (lambda + mu);
    # slots and paths are independent, so the count of listed slots is binomial.
    mask = listed()
    pi = LIST / (LIST + DELIST)
    steps = np.array([0, 1, 3, 12, 36])
    law = pi + (P0 - pi) * np.exp(-(LIST + DELIST) * steps * DT)
    m = mask.shape[0] * mask.shape[2]
    freq = mask[:, steps].mean(axis=(0, 2))
    kit.assert_within(freq, law, np.sqrt(law * (1 - law) / m), "listed fraction")


def test_one_step_listing_and_delisting_probabilities(kit: SimpleNamespace) -> None:
    mask = listed(n_paths=500)
    now, after = mask[:, :-1], mask[:, 1:]
    moved = (1 - np.exp(-(LIST + DELIST) * DT)) / (LIST + DELIST)
    for state, rate, name in ((False, LIST, "listing"), (True, DELIST, "delisting")):
        at = now == state
        p = rate * moved
        freq = np.mean(after[at] != state)
        kit.assert_within(freq, p, np.sqrt(p * (1 - p) / at.sum()), f"{name} probability")
    # About rate * dt for small dt: the rates are per year.
    assert abs(LIST * moved - LIST * DT) < 0.15 * LIST * DT


def test_min_listed_is_kept_at_every_time() -> None:
    model = ListingProcess(
        GBM(n_assets=6), initial_listed=0.0, listing_rate=0.0, delisting_rate=50.0, min_listed=3
    )
    mask = model.simulate(np.random.default_rng(1), 100, n_paths=50).mask
    assert mask is not None
    counts = mask.sum(axis=-1)
    assert counts.min() == 3  # topped up, never beyond what is needed with no listings
    assert np.all(counts[:, 0] == 3)
    # Which slots are topped up is random: every slot gets listed somewhere.
    assert np.all(mask.any(axis=(0, 1)))


def test_min_listed_equal_to_n_assets_lists_everything() -> None:
    model = ListingProcess(GBM(n_assets=3), delisting_rate=100.0, min_listed=3)
    mask = model.simulate(np.random.default_rng(2), 30, n_paths=4).mask
    assert mask is not None and mask.all()


def test_zero_rates_keep_the_initial_listing() -> None:
    model = ListingProcess(
        GBM(n_assets=4), initial_listed=[1.0, 0.0, 1.0, 0.0], listing_rate=0.0, delisting_rate=0.0
    )
    mask = model.simulate(np.random.default_rng(3), 20).mask
    assert mask is not None
    np.testing.assert_array_equal(mask, np.tile([True, False, True, False], (21, 1)))


def test_prices_and_state_are_the_wrapped_models() -> None:
    inner = Heston(n_assets=3)
    model = ListingProcess(inner)
    assert (model.n_assets, model.dt, model.state_spec()) == (3, inner.dt, inner.state_spec())
    wrapped = model.simulate(np.random.default_rng(4), 50, n_paths=2)
    plain = inner.simulate(np.random.default_rng(4), 50, n_paths=2)  # simulated first
    np.testing.assert_array_equal(wrapped.prices, plain.prices)
    np.testing.assert_array_equal(wrapped.state["variance"], plain.state["variance"])
    assert model.model is inner


def test_a_wrapped_mask_is_combined() -> None:
    inner = ListingProcess(
        GBM(n_assets=2),
        initial_listed=[1.0, 0.0],
        listing_rate=0.0,
        delisting_rate=0.0,
        min_listed=0,
    )
    outer = ListingProcess(
        inner, initial_listed=1.0, listing_rate=0.0, delisting_rate=0.0, min_listed=0
    )
    mask = outer.simulate(np.random.default_rng(0), 5).mask
    assert mask is not None
    np.testing.assert_array_equal(mask, np.tile([True, False], (6, 1)))


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        ({"min_listed": 4}, ValueError, r"min_listed must be an int in \[0, n_assets=3\], got 4"),
        ({"min_listed": -1}, ValueError, r"min_listed must be an int in \[0, n_assets=3\], got -1"),
        (
            {"initial_listed": 1.5},
            ValueError,
            r"initial_listed must be a finite real number in \[0.0, 1.0\], got 1.5",
        ),
        (
            {"listing_rate": [1.0, -1.0, 1.0]},
            ValueError,
            r"listing_rate\[1\] must be a finite real number >= 0.0, got -1.0",
        ),
        ({"delisting_rate": [1.0, 1.0]}, ValueError, "n_assets=3 but delisting_rate has 2 values"),
    ],
)
def test_bad_arguments_are_named(
    kwargs: dict[str, object], error: type[Exception], text: str
) -> None:
    with pytest.raises(error, match=text):
        ListingProcess(GBM(n_assets=3), **kwargs)  # type: ignore[arg-type]


def test_model_must_be_a_market_model() -> None:
    with pytest.raises(TypeError, match="ListingProcess: model must be a MarketModel, got 'GBM'"):
        ListingProcess("GBM")  # type: ignore[arg-type]
