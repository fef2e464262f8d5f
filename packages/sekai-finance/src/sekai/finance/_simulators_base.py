"""The contract of the price simulators and the bases of their models (private).

`Simulation` and `MarketModel` are public, re-exported by
`sekai.finance.simulators`, whose docstring states the conventions every model
follows. ``_Model`` owns ``simulate``: it checks the arguments once for every
model and drops the path axis of a single path, so a model only writes the
batched ``_simulate``. ``_Diffusion`` builds the per-asset parameters, ``s0``
and ``corr`` of the models driven by correlated normal shocks.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._internal.validation import check_int
from sekai.finance._simulation import (
    Parameter,
    broadcast,
    correlation,
    correlation_factor,
    frozen,
    n_assets_of,
    per_asset,
    time_step,
)

# The underscored names are private to the simulators' modules, which share them.
__all__ = ["F64", "_DT", "MarketModel", "Simulation", "_Batch", "_Diffusion", "_Model"]

F64 = NDArray[np.float64]
# The default step of every model: one trading day, in years.
_DT = 1.0 / 252.0
# What ``_Model._simulate`` returns: prices, mask and state, each with a leading path axis.
_Batch = tuple[F64, NDArray[np.bool_] | None, dict[str, F64]]


@dataclass(frozen=True, eq=False)
class Simulation:
    """The result of `MarketModel.simulate`.

    Attributes:
        prices: float64 prices, ``(n_steps + 1, n_assets)`` for one path or
            ``(n_paths, n_steps + 1, n_assets)`` for a batch; row 0 is ``s0``.
        mask: ``None`` when every asset is always available, else a bool
            array shaped like ``prices``: ``True`` where the asset is listed.
        state: Latent series by name (see `MarketModel.state_spec`),
            each float64 of shape ``prices.shape[:-1] + state_spec()[name]``.
            Counts and regime indices are whole numbers stored as float64.
    """

    prices: F64
    mask: NDArray[np.bool_] | None = None
    state: Mapping[str, F64] = field(default_factory=dict)

    def __post_init__(self) -> None:
        prices = np.asarray(self.prices, dtype=np.float64)
        if prices.ndim not in (2, 3):
            raise ValueError(
                "Simulation.prices must have shape (n_steps + 1, n_assets) or "
                f"(n_paths, n_steps + 1, n_assets), got shape {prices.shape}"
            )
        object.__setattr__(self, "prices", prices)
        if self.mask is not None:
            mask = np.asarray(self.mask)
            if mask.dtype != np.bool_ or mask.shape != prices.shape:
                raise ValueError(
                    f"Simulation.mask must be a bool array of shape {prices.shape}, got a "
                    f"{mask.dtype} array of shape {mask.shape}"
                )
            object.__setattr__(self, "mask", mask)
        for name, series in self.state.items():
            shape = np.shape(series)
            if shape[: prices.ndim - 1] != prices.shape[:-1]:
                raise ValueError(
                    f"Simulation.state[{name!r}] must start with the shape "
                    f"{prices.shape[:-1]} of the prices' paths and times, got shape {shape}"
                )


class MarketModel(ABC):
    """A model of asset prices that simulates paths from a numpy ``Generator``.

    Subclasses implement `dt`, `n_assets` and `simulate`,
    and override `state_spec` when they report latent series. The
    conventions (time grid, shapes, point-in-time state, randomness) are those
    of the `sekai.finance.simulators` docstring; the models of that module
    share them through a private base class that validates the arguments of
    ``simulate``.
    """

    @property
    @abstractmethod
    def dt(self) -> float:
        """Length of one step, in years."""

    @property
    @abstractmethod
    def n_assets(self) -> int:
        """Number of assets (the last axis of the prices)."""

    @abstractmethod
    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """Simulate ``n_steps`` steps of one path, or of ``n_paths`` paths at once.

        Args:
            rng: The source of every random draw.
            n_steps: Number of steps (``>= 0``); the prices have
                ``n_steps + 1`` rows, row 0 being the start.
            n_paths: ``None`` for one path (prices ``(n_steps + 1,
                n_assets)``) or the number of paths of a batch (prices
                ``(n_paths, n_steps + 1, n_assets)``).

        Returns:
            The prices, the availability mask (``None`` when every asset
            always trades) and the latent state series.
        """

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """Names and per-time shapes of the series in `Simulation.state`.

        ``state[name]`` has shape ``(n_steps + 1, *spec[name])`` for one path
        and ``(n_paths, n_steps + 1, *spec[name])`` for a batch. Empty by
        default (no latent state).
        """
        return {}


class _Model(MarketModel):
    """Base of the simulators' models: ``simulate`` checks its arguments and drops the batch axis.

    Subclasses set ``self._dt`` and ``self._n_assets`` and implement
    ``_simulate(rng, n_steps, n_paths)``, which always simulates a batch and
    returns ``(prices, mask, state)`` with a leading path axis.
    """

    _dt: float
    _n_assets: int

    @property
    def dt(self) -> float:
        """Length of one step, in years."""
        return self._dt

    @property
    def n_assets(self) -> int:
        """Number of assets (the last axis of the prices)."""
        return self._n_assets

    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """Simulate ``n_steps`` steps of one path, or of ``n_paths`` paths at once.

        Args:
            rng: The source of every random draw.
            n_steps: Number of steps (``>= 0``); the prices have
                ``n_steps + 1`` rows, row 0 being the start.
            n_paths: ``None`` for one path (prices ``(n_steps + 1,
                n_assets)``) or the number of paths of a batch (prices
                ``(n_paths, n_steps + 1, n_assets)``). One path equals a
                batch of one with the first axis dropped.

        Returns:
            The prices, the availability mask and the latent state series.

        Raises:
            TypeError: ``rng`` is not a ``numpy.random.Generator`` or a count
                is not an int.
            ValueError: ``n_steps < 0`` or ``n_paths < 1``.
        """
        owner = f"{type(self).__name__}.simulate"
        if not isinstance(rng, np.random.Generator):
            raise TypeError(
                f"{owner}: rng must be a numpy.random.Generator (e.g. np.random.default_rng(0)), "
                f"got {rng!r}"
            )
        steps = check_int(n_steps, f"{owner}: n_steps", minimum=0)
        batch = 1 if n_paths is None else check_int(n_paths, f"{owner}: n_paths", minimum=1)
        prices, mask, state = self._simulate(rng, steps, batch)
        if n_paths is None:
            prices = prices[0]
            mask = None if mask is None else mask[0]
            state = {name: series[0] for name, series in state.items()}
        return Simulation(prices, mask, state)

    @abstractmethod
    def _simulate(self, rng: np.random.Generator, n_steps: int, n_paths: int) -> _Batch:
        """Simulate a batch: ``(prices, mask, state)``, each with a leading path axis."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n_assets={self._n_assets}, dt={self._dt!r})"


class _Diffusion(_Model):
    """Shared construction of the per-asset models: parameters, ``s0``, ``corr``, ``n_assets``."""

    s0 = Parameter[F64]("Start prices, ``(n_assets,)``.")
    corr = Parameter[F64]("Correlation matrix of the assets' shocks, ``(n_assets, n_assets)``.")

    def _setup(
        self,
        params: dict[str, F64],
        s0: ArrayLike,
        corr: ArrayLike | None,
        dt: float,
        n_assets: int | None,
    ) -> None:
        owner = type(self).__name__
        self._dt = time_step(dt, owner)
        start = per_asset(s0, f"{owner}: s0", minimum=0.0, min_open=True)
        matrix = correlation(corr, owner)
        n = n_assets_of(owner, {**params, "s0": start}, corr=matrix, n_assets=n_assets)
        self._n_assets = n
        for name, value in params.items():
            self.__dict__["_" + name] = broadcast(value, n)
        self._s0 = broadcast(start, n)
        self._corr = frozen(np.eye(n)) if matrix is None else matrix
        self._factor = correlation_factor(matrix)
