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

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance._price_sources import PathCursor, Simulated
from sekai.finance.data import MarketData
from sekai.finance.features import add_features
from sekai.finance.simulators import Simulation

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
        # The prices ("close", MarketData's name for them) are read as prices; any other
        # feature gets a table of its own.
        super().__init__(
            source, n, lookback, episode_length, [name for name in features if name != "close"]
        )
        self.features = features
        self.state: dict[str, F64] = {}

    def _took(self, index: int, prices: F64, simulation: Simulation) -> None:
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

    def _path_data(self, index: int) -> MarketData:
        return add_features(MarketData(self._panel[index]), self.features)

    def latent(self, rows: NDArray[np.intp] | None = None) -> dict[str, F64]:
        """Every row's latent state at its current row: ``(n, *shape)`` per name (new arrays)."""
        index = np.arange(self.n)
        current = self.rows if rows is None else rows
        return {name: table[index, current] for name, table in self.state.items()}
