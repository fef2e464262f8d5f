"""The contract every simulator shares: shapes, row 0, state, seeding, the path-0 rule."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from sekai.finance import simulators
from sekai.finance.simulators import (
    GARCH,
    GBM,
    Heston,
    ListingProcess,
    MarketModel,
    MertonJumpDiffusion,
    Simulation,
)


def start_prices(model: MarketModel) -> np.ndarray:
    if isinstance(model, simulators.Randomized):
        return np.full(model.n_assets, 100.0)  # the s0 of every GBM the factory draws
    inner = getattr(model, "model", model)
    return np.broadcast_to(np.asarray(inner.s0, dtype=np.float64), (model.n_assets,))


def check_shapes(model: MarketModel, sim: Simulation, lead: tuple[int, ...]) -> None:
    n = model.n_assets
    assert sim.prices.dtype == np.float64
    assert sim.prices.shape == (*lead, n)
    assert np.all(np.isfinite(sim.prices)) and np.all(sim.prices > 0)
    if sim.mask is not None:
        assert sim.mask.dtype == np.bool_ and sim.mask.shape == sim.prices.shape
    spec = model.state_spec()
    assert set(sim.state) == set(spec)
    for name, shape in spec.items():
        assert sim.state[name].dtype == np.float64
        assert sim.state[name].shape == (*lead, *shape), name


@pytest.mark.parametrize("n_steps", [0, 1, 17])
def test_one_path_and_a_batch_have_the_documented_shapes(model: MarketModel, n_steps: int) -> None:
    rng = np.random.default_rng(0)
    check_shapes(model, model.simulate(rng, n_steps), (n_steps + 1,))
    check_shapes(model, model.simulate(rng, n_steps, n_paths=5), (5, n_steps + 1))


def test_row_zero_is_the_start_price(model: MarketModel) -> None:
    batch = model.simulate(np.random.default_rng(1), 10, n_paths=4)
    np.testing.assert_array_equal(
        batch.prices[:, 0], np.broadcast_to(start_prices(model), (4, model.n_assets))
    )
    one = model.simulate(np.random.default_rng(1), 0)
    np.testing.assert_array_equal(one.prices, start_prices(model)[None])


def test_one_path_is_a_batch_of_one(model: MarketModel) -> None:
    one = model.simulate(np.random.default_rng(5), 30)
    batch = model.simulate(np.random.default_rng(5), 30, n_paths=1)
    np.testing.assert_array_equal(one.prices, batch.prices[0])
    if one.mask is None:
        assert batch.mask is None
    else:
        assert batch.mask is not None
        np.testing.assert_array_equal(one.mask, batch.mask[0])
    for name in one.state:
        np.testing.assert_array_equal(one.state[name], batch.state[name][0])


def test_the_paths_of_a_batch_are_distinct_draws(model: MarketModel) -> None:
    prices = model.simulate(np.random.default_rng(5), 30, n_paths=3).prices
    assert not np.array_equal(prices[0], prices[1])
    assert not np.array_equal(prices[1], prices[2])


def test_path_zero_of_a_larger_batch_is_not_the_single_path_in_general() -> None:
    # Documented: only a batch of one is guaranteed to equal the single path.
    model = Heston()
    one = model.simulate(np.random.default_rng(5), 30)
    batch = model.simulate(np.random.default_rng(5), 30, n_paths=3)
    assert not np.array_equal(one.prices, batch.prices[0])


def test_a_seed_reproduces_the_paths(model: MarketModel) -> None:
    a = model.simulate(np.random.default_rng(11), 25, n_paths=3)
    b = model.simulate(np.random.default_rng(11), 25, n_paths=3)
    c = model.simulate(np.random.default_rng(12), 25, n_paths=3)
    np.testing.assert_array_equal(a.prices, b.prices)
    for name in a.state:
        np.testing.assert_array_equal(a.state[name], b.state[name])
    assert not np.array_equal(a.prices, c.prices)


def test_only_the_given_generator_is_used(model: MarketModel) -> None:
    np.random.seed(3)
    expected = np.random.random()
    np.random.seed(3)
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    model.simulate(rng, 10, n_paths=2)
    assert np.random.random() == expected  # the global generator did not move
    assert rng.bit_generator.state != state  # the given one did


def test_successive_calls_continue_the_stream(model: MarketModel) -> None:
    rng = np.random.default_rng(2)
    first = model.simulate(rng, 10, n_paths=2)
    second = model.simulate(rng, 10, n_paths=2)
    assert not np.array_equal(first.prices, second.prices)


@pytest.mark.parametrize(
    ("rng", "n_steps", "n_paths", "error", "text"),
    [
        (None, 5, None, TypeError, "numpy.random.Generator"),
        (0, 5, None, TypeError, "numpy.random.Generator"),
        (np.random.RandomState(0), 5, None, TypeError, "numpy.random.Generator"),
        ("rng", -1, None, ValueError, "n_steps must be an int >= 0, got -1"),
        ("rng", 2.0, None, TypeError, "n_steps must be an int >= 0, got 2.0"),
        ("rng", 5, 0, ValueError, "n_paths must be an int >= 1, got 0"),
        ("rng", 5, True, TypeError, "n_paths must be an int >= 1, got True"),
    ],
)
def test_simulate_checks_its_arguments(
    model: MarketModel, rng: Any, n_steps: Any, n_paths: Any, error: type[Exception], text: str
) -> None:
    if isinstance(rng, str):
        rng = np.random.default_rng(0)
    with pytest.raises(error, match=text.replace("(", r"\(")) as info:
        model.simulate(rng, n_steps, n_paths=n_paths)
    assert type(model).__name__ in str(info.value)


def test_models_pickle(model: MarketModel) -> None:
    copy = pickle.loads(pickle.dumps(model))
    a = model.simulate(np.random.default_rng(4), 12, n_paths=2)
    b = copy.simulate(np.random.default_rng(4), 12, n_paths=2)
    np.testing.assert_array_equal(a.prices, b.prices)


def test_parameters_are_read_only() -> None:
    model = GBM([0.1, 0.2], 0.3)
    np.testing.assert_array_equal(model.sigma, [0.3, 0.3])
    with pytest.raises(AttributeError, match=r"GBM\.sigma is read-only"):
        model.sigma = np.array([0.5, 0.5])  # type: ignore[misc]
    with pytest.raises(ValueError, match="read-only"):
        model.mu[0] = 1.0
    assert model.corr.shape == (2, 2)


def test_simulation_is_a_frozen_dataclass_checking_its_shapes() -> None:
    fields = [f.name for f in dataclasses.fields(Simulation)]
    assert fields == ["prices", "mask", "state"]
    sim = Simulation(np.ones((3, 2)))
    assert sim.mask is None and dict(sim.state) == {}
    with pytest.raises(dataclasses.FrozenInstanceError):
        sim.prices = np.ones((3, 2))  # type: ignore[misc]
    with pytest.raises(ValueError, match=r"mask must be a bool array of shape \(3, 2\)"):
        Simulation(np.ones((3, 2)), np.ones((3, 1), dtype=bool))
    with pytest.raises(ValueError, match=r"state\['v'\] must start with the shape \(3,\)"):
        Simulation(np.ones((3, 2)), state={"v": np.ones((4, 2))})
    with pytest.raises(ValueError, match=r"prices must have shape"):
        Simulation(np.ones(3))


class Constant(MarketModel):
    """A user-written model: constant prices, no state (MarketModel's defaults)."""

    @property
    def dt(self) -> float:
        return 0.5

    @property
    def n_assets(self) -> int:
        return 3

    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        lead = (n_steps + 1,) if n_paths is None else (n_paths, n_steps + 1)
        return Simulation(np.full((*lead, 3), 7.0))


def test_a_user_model_plugs_into_the_wrappers() -> None:
    with pytest.raises(TypeError, match="abstract"):
        MarketModel()  # type: ignore[abstract]
    model = Constant()
    assert model.state_spec() == {}
    listed = ListingProcess(model, min_listed=3).simulate(np.random.default_rng(0), 4, n_paths=2)
    assert listed.mask is not None and listed.mask.all()
    np.testing.assert_array_equal(listed.prices, 7.0)


@pytest.mark.parametrize(
    ("make", "mu", "dt"),
    [
        (lambda mu, dt: GBM(mu, 0.4, dt=dt), 0.3, 1.0),
        (lambda mu, dt: Heston(mu, theta=0.09, xi=0.5, dt=dt), 0.2, 0.25),
        (lambda mu, dt: GARCH(mu=mu, omega=1e-4, alpha=0.1, beta=0.8, dt=dt), 0.5, 1.0),
        (
            lambda mu, dt: MertonJumpDiffusion(
                mu, 0.1, jump_intensity=3.0, jump_mean=-0.1, jump_std=0.15, dt=dt
            ),
            0.1,
            1.0,
        ),
    ],
)
def test_mu_is_the_expected_rate_of_return(
    kit: SimpleNamespace, make: Any, mu: float, dt: float
) -> None:
    # E[S_1 / S_0] = exp(mu dt): the Ito term (and the jump compensation) is in the drift.
    model = make(mu, dt)
    sim = model.simulate(np.random.default_rng(21), 1, n_paths=40_000)
    growth = sim.prices[:, 1, 0] / sim.prices[:, 0, 0]
    mean, se = kit.mean_and_se(growth)
    kit.assert_within(mean, np.exp(mu * dt), se, f"{type(model).__name__} E[S1/S0]")


# The signatures of sekai 0.2 (compat/api-0.2-markets.md), which code written for it calls.
DT = 0.003968253968253968
SIGNATURES_02 = {
    "GBM": "(mu=0.0, sigma=0.2, *, s0=100.0, corr=None, dt=DT, n_assets=None)",
    "Heston": (
        "(mu=0.05, kappa=2.0, theta=0.04, xi=0.3, rho=-0.7, *, v0=None, s0=100.0, corr=None, "
        "dt=DT, n_assets=None)"
    ),
    "GARCH": (
        "(omega=1e-06, alpha=0.08, beta=0.9, *, mu=0.0, s0=100.0, corr=None, dt=DT, n_assets=None)"
    ),
    "MertonJumpDiffusion": (
        "(mu=0.05, sigma=0.2, jump_intensity=1.0, jump_mean=-0.05, jump_std=0.1, *, s0=100.0, "
        "corr=None, dt=DT, n_assets=None)"
    ),
    "MeanReverting": (
        "(theta=5.0, mean=100.0, sigma=0.2, *, s0=100.0, corr=None, dt=DT, n_assets=None)"
    ),
    "CointegratedPair": (
        "(mu=0.05, sigma=0.2, theta=5.0, spread_sigma=0.1, *, s0=(100.0, 100.0), dt=DT)"
    ),
    "RegimeSwitching": "(regimes, transition, *, initial=None)",
    "BlockBootstrap": "(returns, *, block_size=20, s0=100.0, dt=DT)",
    "ListingProcess": (
        "(model, *, initial_listed=0.8, listing_rate=1.0, delisting_rate=0.25, min_listed=1)"
    ),
    "Randomized": "(factory)",
}


def describe(cls: type) -> str:
    parts = []
    star = False
    for p in inspect.signature(cls).parameters.values():
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        if p.default is p.empty:
            parts.append(p.name)
        else:
            default = "DT" if p.default == DT and p.name == "dt" else repr(p.default)
            parts.append(f"{p.name}={default}")
    return f"({', '.join(parts)})"


@pytest.mark.parametrize("name", sorted(SIGNATURES_02))
def test_signatures_match_sekai_0_2(name: str) -> None:
    assert describe(getattr(simulators, name)) == SIGNATURES_02[name]
    assert abs(DT - 1 / 252) < 1e-18


def test_public_names_and_members() -> None:
    assert sorted(simulators.__all__) == sorted([*SIGNATURES_02, "MarketModel", "Simulation"])
    for name in SIGNATURES_02:
        cls = getattr(simulators, name)
        assert cls.__module__ == "sekai.finance.simulators"
        assert issubclass(cls, MarketModel)
        assert list(inspect.signature(cls.simulate).parameters) == [
            "self",
            "rng",
            "n_steps",
            "n_paths",
        ]
    assert MarketModel.__abstractmethods__ == {"dt", "n_assets", "simulate"}
    assert isinstance(simulators.RegimeSwitching.s0, property)
    assert isinstance(simulators.GARCH.unconditional_variance, property)
