"""Property tests: random per-asset / scalar parameters broadcast, and every shape follows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.finance.simulators import (
    GARCH,
    GBM,
    Heston,
    MarketModel,
    MeanReverting,
    MertonJumpDiffusion,
)

# Each model's per-asset parameters and a range of valid values for each.
RANGES: dict[type[MarketModel], dict[str, tuple[float, float]]] = {
    GBM: {"mu": (-0.5, 0.5), "sigma": (0.0, 1.0), "s0": (1.0, 500.0)},
    Heston: {
        "mu": (-0.5, 0.5),
        "kappa": (0.0, 5.0),
        "theta": (0.0, 0.2),
        "xi": (0.0, 1.0),
        "rho": (-1.0, 1.0),
        "v0": (0.0, 0.2),
        "s0": (1.0, 500.0),
    },
    GARCH: {"omega": (1e-7, 1e-4), "alpha": (0.0, 0.09), "beta": (0.0, 0.9), "mu": (-0.5, 0.5)},
    MertonJumpDiffusion: {
        "mu": (-0.5, 0.5),
        "sigma": (0.0, 1.0),
        "jump_intensity": (0.0, 50.0),
        "jump_mean": (-0.2, 0.2),
        "jump_std": (0.0, 0.3),
    },
    MeanReverting: {
        "theta": (0.0, 20.0),
        "mean": (1.0, 200.0),
        "sigma": (0.0, 1.0),
        "s0": (1.0, 500.0),
    },
}


@st.composite
def correlation(draw: Callable[..., Any], n: int) -> np.ndarray:
    """A random valid correlation matrix (normalised Gram matrix of random vectors)."""
    values = draw(st.lists(st.floats(-1, 1), min_size=n * n, max_size=n * n))
    a = np.array(values).reshape(n, n) + np.eye(n)
    gram = a @ a.T + 1e-3 * np.eye(n)
    d = np.sqrt(np.diag(gram))
    return gram / np.outer(d, d)


@st.composite
def configured(draw: Callable[..., Any]) -> tuple[type[MarketModel], dict[str, Any], int, bool]:
    cls = draw(st.sampled_from(sorted(RANGES, key=lambda c: c.__name__)))
    n = draw(st.integers(1, 4))
    kwargs: dict[str, Any] = {}
    vector = False
    for name, (low, high) in RANGES[cls].items():
        form = draw(st.sampled_from(["default", "scalar", "vector", "one"]))
        values = st.floats(low, high, allow_nan=False)
        if form == "scalar":
            kwargs[name] = draw(values)
        elif form == "vector":
            kwargs[name] = draw(st.lists(values, min_size=n, max_size=n))
            vector |= n != 1
        elif form == "one":
            kwargs[name] = [draw(values)]
    if draw(st.booleans()):
        kwargs["corr"] = draw(correlation(n))
        vector |= n != 1
    given_n = draw(st.booleans())
    if given_n or not vector:
        kwargs["n_assets"] = n
    return cls, kwargs, n, vector


@settings(max_examples=120, deadline=None)
@given(
    config=configured(),
    n_steps=st.integers(0, 6),
    n_paths=st.none() | st.integers(1, 3),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_parameters_broadcast_and_shapes_follow(
    config: tuple[type[MarketModel], dict[str, Any], int, bool],
    n_steps: int,
    n_paths: int | None,
    seed: int,
) -> None:
    cls, kwargs, n, _ = config
    model = cls(**kwargs)
    assert model.n_assets == n
    for name in RANGES[cls]:
        value = getattr(model, name)
        assert value.shape == (n,)
        given_value = kwargs.get(name)
        if given_value is not None:
            np.testing.assert_array_equal(value, np.broadcast_to(given_value, (n,)))
    sim = model.simulate(np.random.default_rng(seed), n_steps, n_paths=n_paths)
    lead = (n_steps + 1,) if n_paths is None else (n_paths, n_steps + 1)
    assert sim.prices.shape == (*lead, n)
    assert np.all(np.isfinite(sim.prices)) and np.all(sim.prices > 0)
    start = getattr(model, "s0", None)
    np.testing.assert_array_equal(sim.prices[..., 0, :], np.broadcast_to(start, (*lead[:-1], n)))
    assert sim.mask is None
    for name, shape in model.state_spec().items():
        assert sim.state[name].shape == (*lead, *shape)
        assert np.all(np.isfinite(sim.state[name]))


@settings(max_examples=60, deadline=None)
@given(
    cls=st.sampled_from(sorted(RANGES, key=lambda c: c.__name__)),
    sizes=st.lists(st.integers(2, 5), min_size=2, max_size=2, unique=True),
)
def test_parameters_of_different_lengths_are_rejected(
    cls: type[MarketModel], sizes: list[int]
) -> None:
    first, second = list(RANGES[cls])[:2]
    (low1, _), (low2, _) = RANGES[cls][first], RANGES[cls][second]
    kwargs = {first: [low1] * sizes[0], second: [low2] * sizes[1]}
    with pytest.raises(
        ValueError, match=f"{cls.__name__}: the parameters disagree on the number of assets"
    ) as info:
        cls(**kwargs)
    assert f"{first} has {sizes[0]} values" in str(info.value)
    assert f"{second} has {sizes[1]} values" in str(info.value)
