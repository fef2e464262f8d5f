"""Market-v0's simulated universes: one path per sub-env, with its features and latent state.

A `PathCursor` keeps each sub-env's simulated prices; Market-v0 also observes
features computed on the path (`sekai.finance.features`, by name) and, for
privileged critics, the model's latent state. `MarketPathCursor` draws all of
it at the sub-env's reset, from the sub-env's own generator, exactly as the
single env always did (simulate, then compute the features over the whole
path: they are causal), and keeps it in arrays with one row per sub-env, so
the batch reads the features through the point-in-time guard like the prices.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance._price_sources import PathCursor, Simulated
from sekai.finance.data import MarketData, PointInTimeBatch
from sekai.finance.features import add_features
from sekai.finance.sampling import EpisodeSampler

__all__ = ["MarketPathCursor"]

F64 = NDArray[np.float64]


class MarketPathCursor(PathCursor):
    """A `PathCursor` whose paths carry Market-v0's features and the model's latent state.

    Args:
        source: The model.
        n: Number of rows (sub-envs).
        lookback: Log returns per observation.
        episode_length: Decisions per episode.
        features: The feature names (computed on each path as it is drawn).

    Attributes:
        state: The latent state series by name, ``(n, n_rows, *shape)`` each
            (empty for a model without state, or before the first draw).
    """

    def __init__(
        self,
        source: Simulated,
        n: int,
        lookback: int,
        episode_length: int,
        features: tuple[str, ...],
    ) -> None:
        super().__init__(source, n, lookback, episode_length)
        self.features = features
        self._tables: dict[str, F64] = {
            # The prices ("close", MarketData's name for them) are read as prices; any other
            # feature gets a table of its own.
            name: np.full(self._panel.shape, np.nan)
            for name in features
            if name != "close"
        }
        self.state: dict[str, F64] = {}

    def _first_row(
        self, index: int, rng: np.random.Generator, start: Any, sampler: EpisodeSampler | None
    ) -> int:
        simulation = self.source.simulate(rng, self.lookback, self.episode_length)
        prices = Simulated.prices(simulation)
        self._panel[index] = prices
        self._data.pop(index, None)
        if self._tables:
            data = add_features(MarketData(prices), self.features)
            for name, table in self._tables.items():
                table[index] = data.field(name)
            if self.n == 1:  # a single env reads its `now` often; a batch seldom does
                self._data[index] = data
        for name, series in simulation.state.items():
            states = self.state.get(name)
            if states is None:
                states = self.state[name] = np.zeros((self.n, *np.shape(series)))
            states[index] = series
        self._stale = True
        return self.lookback

    def settle(self) -> None:
        if self._stale:
            fields = self._tables or None
            self._paths = PointInTimeBatch.of_paths(self._panel, self.rows, fields=fields)
            self._stale = False

    def data_of(self, index: int) -> MarketData:
        data = self._data.get(index)
        if data is None:
            data = add_features(MarketData(self._panel[index]), self.features)
            self._data[index] = data
        return data

    def latent(self, rows: NDArray[np.intp] | None = None) -> dict[str, F64]:
        """Every row's latent state at its current row: ``(n, *shape)`` per name (new arrays)."""
        index = np.arange(self.n)
        current = self.rows if rows is None else rows
        return {name: table[index, current] for name, table in self.state.items()}
