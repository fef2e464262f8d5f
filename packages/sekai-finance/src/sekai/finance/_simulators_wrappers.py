"""Models over other models: listings and delistings, domain randomisation (private).

`ListingProcess` and `Randomized`, re-exported by `sekai.finance.simulators`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from sekai._internal.validation import check_callable, check_int
from sekai.finance import _simulation_paths as paths
from sekai.finance._simulation import Parameter, broadcast, frozen, n_assets_of, per_asset
from sekai.finance._simulators_base import F64, MarketModel, _Batch, _Model

__all__ = ["ListingProcess", "Randomized"]


class ListingProcess(_Model):
    """Assets that list and delist: availability over the paths of another model.

    Each of the wrapped model's ``n_assets`` columns is a slot. At time 0 a
    slot is listed with probability ``initial_listed``; afterwards an unlisted
    slot lists at rate ``listing_rate`` per year and a listed one delists at
    rate ``delisting_rate`` per year (a two-state Markov process in continuous
    time, whose exact one-step transition probabilities are used, so the
    long-run listed fraction is ``listing_rate / (listing_rate +
    delisting_rate)``). A listing after a delisting is a new asset in the
    slot. Whenever fewer than ``min_listed`` slots would be listed, unlisted
    ones chosen uniformly at random are listed to make up the difference.

    The prices and state are the wrapped model's, unchanged (finite even where
    a slot is unlisted, where they mean nothing); ``mask`` is ``True`` where
    the slot is listed (and the wrapped model's own mask, if any, allows it).
    The wrapped model is simulated first, then the listings.

    Args:
        model: The model of the prices.
        initial_listed: Probability that a slot is listed at time 0, a number
            or one per asset.
        listing_rate: Listings per year of an unlisted slot (``>= 0``).
        delisting_rate: Delistings per year of a listed slot (``>= 0``).
        min_listed: Fewest slots listed at any time, in ``[0, n_assets]``.

    Raises:
        TypeError: ``model`` is not a `MarketModel`.
        ValueError: A rate or probability is out of range, or ``min_listed``
            exceeds the number of assets.
    """

    model = Parameter[MarketModel]("The wrapped model.")
    initial_listed = Parameter[F64]("Probability that a slot is listed at time 0, ``(n_assets,)``.")
    listing_rate = Parameter[F64]("Listings per year of an unlisted slot, ``(n_assets,)``.")
    delisting_rate = Parameter[F64]("Delistings per year of a listed slot, ``(n_assets,)``.")
    min_listed = Parameter[int]("Fewest slots listed at any time.")

    def __init__(
        self,
        model: MarketModel,
        *,
        initial_listed: ArrayLike = 0.8,
        listing_rate: ArrayLike = 1.0,
        delisting_rate: ArrayLike = 0.25,
        min_listed: int = 1,
    ) -> None:
        owner = "ListingProcess"
        if not isinstance(model, MarketModel):
            raise TypeError(f"{owner}: model must be a MarketModel, got {model!r}")
        self._model = model
        self._dt = model.dt
        n = self._n_assets = model.n_assets
        params = {
            "initial_listed": per_asset(
                initial_listed, f"{owner}: initial_listed", minimum=0.0, maximum=1.0
            ),
            "listing_rate": per_asset(listing_rate, f"{owner}: listing_rate", minimum=0.0),
            "delisting_rate": per_asset(delisting_rate, f"{owner}: delisting_rate", minimum=0.0),
        }
        n_assets_of(owner, params, n_assets=n)
        self._initial_listed = broadcast(params["initial_listed"], n)
        self._listing_rate = broadcast(params["listing_rate"], n)
        self._delisting_rate = broadcast(params["delisting_rate"], n)
        self._min_listed = check_int(
            min_listed,
            f"{owner}: min_listed",
            minimum=0,
            maximum=n,
            expected=f"an int in [0, n_assets={n}]",
        )
        total = self._listing_rate + self._delisting_rate
        safe = np.where(total > 0, total, 1.0)
        moved = -np.expm1(-safe * self._dt) / safe
        self._p_list = frozen(self._listing_rate * moved)
        self._p_delist = frozen(self._delisting_rate * moved)

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """The wrapped model's state spec."""
        return self._model.state_spec()

    def _simulate(self, rng: np.random.Generator, n_steps: int, n_paths: int) -> _Batch:
        inner = self._model.simulate(rng, n_steps, n_paths=n_paths)
        listed = paths.listing(
            rng,
            n_paths,
            n_steps,
            self._initial_listed,
            self._p_list,
            self._p_delist,
            self._min_listed,
        )
        if inner.mask is not None:
            listed &= inner.mask
        return inner.prices, listed, dict(inner.state)

    def __repr__(self) -> str:
        return f"ListingProcess({self._model!r}, min_listed={self._min_listed})"


class Randomized(_Model):
    """Domain randomisation: a new model, drawn from the generator, for every simulation.

    Each `simulate` first calls ``factory(rng)`` to draw a model (its
    parameters sampled from ``rng``), then simulates it with the same ``rng``:
    every path of one call comes from the same drawn model, and one seed
    reproduces both the model and its paths.

    The factory is called once at construction, with a generator of its own
    (``np.random.default_rng(0)``; the caller's generators are not touched),
    to learn ``n_assets``, ``dt`` and the state spec; every model it draws
    must agree with them.

    Args:
        factory: ``factory(rng) -> MarketModel``.

    Raises:
        TypeError: ``factory`` is not callable or does not return a
            `MarketModel`.
        ValueError: (from `simulate`) a drawn model's ``n_assets``,
            ``dt`` or state spec differs from the first one's.
    """

    factory = Parameter[Callable[[np.random.Generator], MarketModel]](
        "The function that draws a model from a generator."
    )

    def __init__(self, factory: Callable[[np.random.Generator], MarketModel]) -> None:
        self._factory = check_callable(factory, "Randomized: factory")
        probe = self._draw(np.random.default_rng(0))
        self._n_assets = probe.n_assets
        self._dt = probe.dt
        self._spec = probe.state_spec()

    def _draw(self, rng: np.random.Generator) -> MarketModel:
        model = self._factory(rng)
        if not isinstance(model, MarketModel):
            raise TypeError(f"Randomized: factory must return a MarketModel, got {model!r}")
        return model

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """The state spec of the models the factory draws."""
        return dict(self._spec)

    def _simulate(self, rng: np.random.Generator, n_steps: int, n_paths: int) -> _Batch:
        model = self._draw(rng)
        drawn = (model.n_assets, model.dt, model.state_spec())
        if drawn != (self._n_assets, self._dt, self._spec):
            raise ValueError(
                "Randomized: every model the factory draws must have the n_assets, dt and state "
                f"spec of the first ({self._n_assets}, {self._dt!r}, {self._spec}), got "
                f"{drawn[0]}, {drawn[1]!r}, {drawn[2]} from {model!r}"
            )
        result = model.simulate(rng, n_steps, n_paths=n_paths)
        return result.prices, result.mask, dict(result.state)
