"""Randomized: a model drawn from the generator for every simulation."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from sekai.finance.simulators import GBM, Heston, MarketModel, Randomized


def test_simulate_draws_a_model_then_its_paths_from_the_same_generator(
    kit: SimpleNamespace,
) -> None:
    model = Randomized(kit.random_sigma)
    got = model.simulate(np.random.default_rng(9), 20, n_paths=3)
    rng = np.random.default_rng(9)
    drawn = kit.random_sigma(rng)
    expected = drawn.simulate(rng, 20, n_paths=3)
    np.testing.assert_array_equal(got.prices, expected.prices)


def test_every_call_draws_new_parameters(kit: SimpleNamespace) -> None:
    sigmas: list[float] = []

    def factory(rng: np.random.Generator) -> MarketModel:
        sigma = float(rng.uniform(0.05, 1.0))
        sigmas.append(sigma)
        return GBM(0.0, sigma, n_assets=2)

    model = Randomized(factory)
    assert len(sigmas) == 1  # the probe, with a generator of its own
    assert (model.n_assets, model.dt, model.state_spec()) == (2, GBM().dt, {})
    rng = np.random.default_rng(0)
    realised = []
    for _ in range(5):
        prices = model.simulate(rng, 100, n_paths=200).prices
        realised.append(np.diff(np.log(prices), axis=1).std() / np.sqrt(model.dt))
    drawn = np.array(sigmas[1:])
    assert len(set(drawn)) == 5
    # Each call's paths all come from its own model: the realised volatility of the
    # batch matches the sigma drawn for it (se of a normal sample's std: sigma / sqrt(2m)).
    m = 200 * 100 * 2
    kit.assert_within(realised, drawn, drawn / np.sqrt(2 * m), "realised volatility")


def test_probe_does_not_touch_the_callers_generators() -> None:
    rng = np.random.default_rng(1)
    state = rng.bit_generator.state
    Randomized(lambda r: GBM(sigma=r.uniform(0.1, 0.2)))
    assert rng.bit_generator.state == state


def test_state_spec_is_the_drawn_models() -> None:
    model = Randomized(lambda r: Heston(kappa=r.uniform(1, 3), n_assets=2))
    sim = model.simulate(np.random.default_rng(0), 5)
    assert model.state_spec() == {"variance": (2,)}
    assert sim.state["variance"].shape == (6, 2)


def test_a_drawn_model_that_disagrees_is_an_error() -> None:
    model = Randomized(lambda r: GBM(n_assets=int(r.integers(1, 1000))))
    with pytest.raises(
        ValueError, match="Randomized: every model the factory draws must have the n_assets"
    ):
        model.simulate(np.random.default_rng(1), 5)  # seed 0 would redraw the probe's n_assets


def test_factory_must_be_callable_and_return_a_model() -> None:
    with pytest.raises(TypeError, match="Randomized: factory must be callable, got 3"):
        Randomized(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"Randomized: factory must return a MarketModel, got 1\.0"):
        Randomized(lambda r: 1.0)  # type: ignore[arg-type,return-value]
