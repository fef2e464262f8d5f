"""Where the prices of Trading-v0, Portfolio-v0 and Market-v0 come from (private).

An env plays either a **history** (a [`MarketData`][sekai.finance.MarketData]
given as ``prices=`` or ``data=``), cutting one window per episode at a
first decision row chosen by a start sampler (or ``reset(options={"start":
...})``), or a **model** (a [`MarketModel`][sekai.finance.MarketModel]), simulating
a new path of ``lookback + episode_length`` steps at every reset, whose
first decision row is ``lookback``. Either way the draw uses the env's own
generator and nothing else, in the same order in the single env and in the
native vector env (one generator per sub-env), which is what makes their
trajectories identical.

Rows: an episode of ``episode_length`` decisions starting at row ``s``
decides at rows ``s .. s + episode_length - 1`` and observes the
``lookback`` log returns ending at its decision row, so it uses price rows
``s - lookback .. s + episode_length`` (`sekai.finance.sampling`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_real
from sekai.envs.finance._execution import calendar_years
from sekai.envs.finance.market import validate_prices
from sekai.finance.data import MarketData, PointInTime, PointInTimeBatch
from sekai.finance.sampling import (
    EpisodeSampler,
    as_sampler,
    first_start,
    resolve_start,
    sample_start,
)
from sekai.finance.simulators import MarketModel, Simulation

__all__ = [
    "History",
    "HistoryCursor",
    "PathCursor",
    "PriceCursor",
    "Simulated",
    "Source",
    "as_market_data",
    "check_options",
    "cursor_for",
    "listing_span",
    "resolve_source",
]


class History:
    """A history played in windows, each episode's first row chosen by a start sampler.

    Args:
        data: The history.
        sampler: The start sampler (one per env: it may hold progress).
        dt: Years per row.
        calendar: Whether a step lasts the calendar time between its rows
            (dates, no ``dt`` argument) rather than ``dt``.

    Attributes:
        data: The history.
        sampler: The start sampler.
        dt: Years per row (nominal: ``1 / periods_per_year`` or the ``dt`` argument).
        row_years: With ``calendar``, ``(n_rows,)`` years from each row to the
            next (`calendar_years`); else None.
    """

    is_history = True

    def __init__(
        self, data: MarketData, sampler: EpisodeSampler, dt: float, *, calendar: bool = False
    ) -> None:
        self.data = data
        self.sampler = sampler
        self.dt = dt
        self.row_years = calendar_years(data.timestamps) if calendar else None

    @property
    def n_assets(self) -> int:
        """Number of assets (columns of the data)."""
        return self.data.n_assets

    def check_length(self, lookback: int, episode_length: int, owner: str) -> None:
        """Raise ValueError unless the data holds at least one episode."""
        first = first_start(lookback, self.data.warmup)
        needed = first + episode_length + 1
        if self.data.n_steps < needed:
            raise ValueError(
                f"{owner}: an episode of episode_length={episode_length} steps with "
                f"lookback={lookback} needs {needed} rows of data (warmup/lookback {first}, "
                f"then one more row to execute each decision); the data has {self.data.n_steps}"
            )

    def first_row(
        self,
        rng: np.random.Generator,
        start: Any,
        lookback: int,
        episode_length: int,
        sampler: EpisodeSampler | None = None,
    ) -> int:
        """The first decision row: ``start`` if given (a row or a time), else a sample.

        Args:
            rng: The env's generator (used by random samplers only).
            start: The ``"start"`` reset option, or None.
            lookback: Rows of returns the first observation needs.
            episode_length: Decisions per episode.
            sampler: The sampler to use instead of `sampler` (a vector
                env's sub-env copy).
        """
        if start is not None:
            return resolve_start(
                start, data=self.data, episode_length=episode_length, lookback=lookback
            )
        return sample_start(
            self.sampler if sampler is None else sampler,
            rng,
            self.data,
            episode_length=episode_length,
            lookback=lookback,
        )


class Simulated:
    """A model simulated anew at every reset.

    Args:
        model: The market model.

    Attributes:
        model: The market model.
        dt: Years per step (the model's).
    """

    is_history = False

    def __init__(self, model: MarketModel) -> None:
        self.model = model
        self.dt = float(model.dt)

    @property
    def n_assets(self) -> int:
        """Number of assets of the model."""
        return int(self.model.n_assets)

    def simulate(self, rng: np.random.Generator, lookback: int, episode_length: int) -> Simulation:
        """A path of ``lookback + episode_length`` steps; its first decision row is ``lookback``."""
        return self.model.simulate(rng, lookback + episode_length)

    @staticmethod
    def prices(simulation: Simulation) -> NDArray[np.float64]:
        """The simulated prices, NaN where an asset is unlisted."""
        if simulation.mask is None:
            return simulation.prices
        masked: NDArray[np.float64] = np.where(simulation.mask, simulation.prices, np.nan)
        return masked

    @staticmethod
    def as_data(simulation: Simulation) -> MarketData:
        """The simulated path as MarketData: int timestamps, NaN where an asset is unlisted."""
        return MarketData(Simulated.prices(simulation))


Source = History | Simulated


def as_market_data(prices: Any, owner: str, *, complete: bool) -> MarketData:
    """The ``prices=`` argument of an env as MarketData.

    Accepts a MarketData, a pandas Series or DataFrame (rows: times, columns:
    assets; read with `MarketData.from_pandas`) or an array of shape
    ``(n_rows,)`` / ``(n_rows, n_assets)``.
    """
    if isinstance(prices, MarketData):
        return prices
    if hasattr(prices, "to_numpy") and hasattr(prices, "index"):
        return MarketData.from_pandas(prices)
    array = validate_prices(prices, allow_missing=not complete, what=f"{owner}: prices")
    return MarketData(array)


def _check_complete(data: MarketData, owner: str) -> None:
    missing = ~data.mask
    if missing.any():
        row, column = (int(i) for i in np.argwhere(missing)[0])
        raise ValueError(
            f"{owner} needs a price for every asset at every row; the data has none (NaN) at "
            f"row {row} ({data.timestamps[row]}), asset {data.assets[column]!r}. Fill or drop the "
            "missing rows, or use MarketEnv, whose assets may list and delist"
        )


def resolve_source(
    owner: str,
    *,
    prices: Any,
    data: Any,
    model: Any,
    default: Callable[[], MarketModel],
    sampler: Any,
    dt: Any,
    complete: bool,
    n_assets: int | None = None,
) -> Source:
    """The source of an env's prices from its ``prices=`` / ``data=`` / ``model=`` arguments.

    At most one of the three may be given; with none, ``default()`` is the
    model.

    Args:
        owner: The env's name, for error messages.
        prices: The ``prices`` argument (array, pandas object or MarketData).
        data: The ``data`` argument (a MarketData).
        model: The ``model`` argument (a MarketModel).
        default: Builds the model when none of the three is given.
        sampler: The ``sampler`` argument (a history's start sampler; checked, then
            unused, with a model).
        dt: Years per row; None for the data's (``1 / periods_per_year``) or
            the model's.
        complete: Refuse histories with missing prices.
        n_assets: The number of assets the env requires, or None for any.

    Raises:
        TypeError: An argument of the wrong type.
        ValueError: More than one source, a bad ``dt``, missing prices, or the
            wrong number of assets.
    """
    given = [
        name
        for name, value in (("prices", prices), ("data", data), ("model", model))
        if value is not None
    ]
    if len(given) > 1:
        raise ValueError(
            f"{owner}: give at most one of prices=, data= and model=, got {' and '.join(given)}"
        )
    starts = as_sampler(sampler)  # checked even when a model makes it unused
    source: Source
    if prices is not None or data is not None:
        if data is not None and not isinstance(data, MarketData):
            raise TypeError(f"{owner}: data must be a sekai.finance.MarketData, got {data!r}")
        history = data if data is not None else as_market_data(prices, owner, complete=complete)
        if complete:
            _check_complete(history, owner)
        years = (
            1.0 / history.periods_per_year
            if dt is None
            else check_real(dt, f"{owner}: dt", minimum=0.0, min_open=True)
        )
        dated = history.timestamps.dtype.kind == "M"
        source = History(history, starts, years, calendar=dt is None and dated)
    else:
        chosen = default() if model is None else model
        if not isinstance(chosen, MarketModel):
            raise TypeError(f"{owner}: model must be a sekai.finance.MarketModel, got {chosen!r}")
        source = Simulated(chosen)
        if dt is not None:
            years = check_real(dt, f"{owner}: dt", minimum=0.0, min_open=True)
            if years != source.dt:
                raise ValueError(
                    f"{owner}: dt={dt!r} differs from the model's dt={source.dt!r}; build the "
                    "model with the step you want"
                )
    if n_assets is not None and source.n_assets != n_assets:
        what = "data" if source.is_history else "model"
        raise ValueError(f"{owner} needs {n_assets} asset(s), got a {what} with {source.n_assets}")
    return source


def check_options(
    options: Mapping[str, Any] | None, allowed: tuple[str, ...], owner: str
) -> Mapping[str, Any]:
    """The reset options, refusing keys the env does not know.

    Raises:
        TypeError: ``options`` is not a dict.
        ValueError: An unknown key.
    """
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(f"{owner}: reset options must be a dict or None, got {options!r}")
    unknown = sorted(str(key) for key in options if key not in allowed)
    if unknown:
        known = ", ".join(repr(key) for key in allowed) or "none"
        raise ValueError(
            f"{owner}: unknown reset option(s) {', '.join(map(repr, unknown))}; known: {known}"
        )
    return options


class PriceCursor:
    """Where each of ``n`` episodes stands in its prices, read only through the guard.

    The price part of a windowed market kernel (one row per sub-env): a
    history shared by every row, each row at its own decision row
    (`HistoryCursor`), or one simulated path per row (`PathCursor`). The
    kernel reads the market through `now`, a
    [`PointInTimeBatch`][sekai.finance.data.PointInTimeBatch] at the decision
    rows, which serves rows up to each decision row and the next row's price
    for the fill, never a later row. `cursor_for` builds the right one.

    Args:
        n: Number of rows (sub-envs).
        lookback: Log returns per observation.
        episode_length: Decisions per episode.

    Attributes:
        rows: Each row's decision row in its data.
        last_listed: ``(n_assets,)``, the last row at which each asset of a
            history has a price (-1: never). An asset without a price before
            that row is halted, not delisted.
        may_halt: Whether any asset of a history lacks a price between two
            rows where it has one. Never for simulated paths: there a column
            that lists again after a delisting holds a new asset
            ([`ListingProcess`][sekai.finance.ListingProcess]).
    """

    last_listed: NDArray[np.intp]
    may_halt: bool

    def __init__(self, n: int, lookback: int, episode_length: int) -> None:
        self.n = n
        self.lookback = lookback
        self.episode_length = episode_length
        self.rows: NDArray[np.intp] = np.full(n, lookback, dtype=np.intp)
        self._last: NDArray[np.intp] = np.full(n, lookback + episode_length - 1, dtype=np.intp)

    def begin(
        self,
        index: int,
        rng: np.random.Generator,
        start: Any,
        sampler: EpisodeSampler | None = None,
    ) -> None:
        """Start row ``index``'s episode: draw its first decision row, or simulate its path.

        Call `settle` once the rows of one reset are all begun.

        Args:
            index: The row.
            rng: Its generator (the only source of the draw's randomness).
            start: The ``"start"`` reset option (histories), or None.
            sampler: The row's own start sampler (histories; None: the source's).
        """
        row = self._first_row(index, rng, start, sampler)
        self.rows[index] = row
        self._last[index] = row + self.episode_length - 1

    def begin_rows(
        self,
        indices: NDArray[np.intp],
        rngs: Sequence[np.random.Generator],
        options: Sequence[Any],
        owner: str,
        samplers: Sequence[EpisodeSampler] | None = None,
    ) -> None:
        """`begin` the rows ``indices`` from their reset options, then `settle`.

        Args:
            indices: The rows, sorted.
            rngs: One generator per entry of ``indices``.
            options: One reset options dict (or None) per entry of ``indices``:
                ``{"start": t}`` for a history, nothing for a model.
            owner: The env's name, for errors.
            samplers: One start sampler per entry of ``indices`` (histories),
                or None for the source's.

        Raises:
            TypeError, ValueError: A bad option, or a start that leaves no room
                for an episode.
        """
        allowed = ("start",) if isinstance(self, HistoryCursor) else ()
        # Every option is checked before any row begins: a bad one leaves every row as it was.
        starts = [check_options(option, allowed, owner).get("start") for option in options]
        try:
            for position, index in enumerate(indices.tolist()):
                sampler = None if samplers is None else samplers[position]
                self.begin(index, rngs[position], starts[position], sampler)
        finally:
            self.settle()  # the rows drawn before a failure are taken in all the same

    def _first_row(
        self, index: int, rng: np.random.Generator, start: Any, sampler: EpisodeSampler | None
    ) -> int:
        raise NotImplementedError

    def settle(self) -> None:
        """Take in what the last `begin` calls drew (nothing to do for a history)."""

    def now(self) -> PointInTimeBatch:
        """The market as known at every row's current row (what its observation shows)."""
        return self._at_rows(self.rows)

    def deciding(self) -> PointInTimeBatch:
        """The market at every row's decision row, for a step.

        A row whose episode is over (a frozen sub-env, stepped with the others
        but left unchanged) reads at its last decision row instead, so that its
        fill never reads past its episode.
        """
        return self._at_rows(np.minimum(self.rows, self._last))

    def _at_rows(self, rows: NDArray[np.intp]) -> PointInTimeBatch:
        raise NotImplementedError

    def data_of(self, index: int) -> MarketData:
        """The data row ``index`` plays: the history, or its simulated path."""
        raise NotImplementedError

    def at(self, index: int) -> PointInTime:
        """Row ``index``'s market as a single env shows it: a `PointInTime` at its decision row."""
        return self.data_of(index).at(int(self.rows[index]))

    def advance(self, active: NDArray[np.bool_] | None = None) -> None:
        """Move every row (or the ``active`` ones) to its next decision row."""
        if active is None:
            self.rows += 1
        else:
            self.rows += active


class HistoryCursor(PriceCursor):
    """A `PriceCursor` over one history: each row's episode is a window of it."""

    def __init__(self, source: History, n: int, lookback: int, episode_length: int) -> None:
        super().__init__(n, lookback, episode_length)
        self.source = source
        self._data = source.data
        self.last_listed, self.may_halt = listing_span(source.data.mask)

    def _first_row(
        self, index: int, rng: np.random.Generator, start: Any, sampler: EpisodeSampler | None
    ) -> int:
        return self.source.first_row(rng, start, self.lookback, self.episode_length, sampler)

    def _at_rows(self, rows: NDArray[np.intp]) -> PointInTimeBatch:
        return self._data.at_rows(rows)

    def data_of(self, index: int) -> MarketData:
        return self._data


class PathCursor(PriceCursor):
    """A `PriceCursor` over a model: each row's episode is a path simulated at its reset.

    The paths are kept as a panel ``(n, lookback + episode_length + 1,
    n_assets)``, NaN where an asset is unlisted; a path's first decision row
    is ``lookback``. The batch the kernel reads takes in the rows drawn at a
    reset with `PointInTimeBatch.with_paths`, at a cost proportional to their
    number, so sub-envs that reset at different steps stay cheap.

    Args:
        source: The model.
        n: Number of rows (sub-envs).
        lookback: Log returns per observation.
        episode_length: Decisions per episode.
        fields: Names of per-path tables beside the prices (features a
            subclass computes in `_took`); none by default.
    """

    def __init__(
        self,
        source: Simulated,
        n: int,
        lookback: int,
        episode_length: int,
        fields: Sequence[str] = (),
    ) -> None:
        super().__init__(n, lookback, episode_length)
        self.source = source
        self._panel = np.full((n, lookback + episode_length + 1, source.n_assets), np.nan)
        self._tables: dict[str, NDArray[np.float64]] = {
            name: np.full(self._panel.shape, np.nan) for name in fields
        }
        self._paths = PointInTimeBatch.of_paths(self._panel, self.rows, fields=self._tables or None)
        self._drawn: list[int] = []
        self._data: dict[int, MarketData] = {}  # rows' paths as MarketData, built when asked
        # A simulated universe has no halts: in a ListingProcess a column that lists again
        # after a delisting holds a new asset.
        self.last_listed = np.full(source.n_assets, -1, dtype=np.intp)
        self.may_halt = False

    def _first_row(
        self, index: int, rng: np.random.Generator, start: Any, sampler: EpisodeSampler | None
    ) -> int:
        simulation = self.source.simulate(rng, self.lookback, self.episode_length)
        prices = Simulated.prices(simulation)
        self._panel[index] = prices
        self._data.pop(index, None)
        self._took(index, prices, simulation)
        self._drawn.append(index)
        return self.lookback

    def _took(self, index: int, prices: NDArray[np.float64], simulation: Simulation) -> None:
        """Keep what else row ``index``'s new path brings (a subclass's tables); nothing here."""

    def settle(self) -> None:
        if self._drawn:
            drawn = np.unique(np.array(self._drawn, dtype=np.intp))  # the panel has the last draw
            self._drawn = []
            fields = {name: table[drawn] for name, table in self._tables.items()}
            self._paths = self._paths.with_paths(drawn, self._panel[drawn], fields=fields or None)

    def _at_rows(self, rows: NDArray[np.intp]) -> PointInTimeBatch:
        return self._paths.with_rows(rows)

    def data_of(self, index: int) -> MarketData:
        data = self._data.get(index)
        if data is None:
            data = self._data[index] = self._path_data(index)
        return data

    def _path_data(self, index: int) -> MarketData:
        """Row ``index``'s path as MarketData (a subclass adds its tables)."""
        return MarketData(self._panel[index])


def listing_span(listed: NDArray[np.bool_]) -> tuple[NDArray[np.intp], bool]:
    """Each column's last listed row (-1: never), and whether any column has a gap in between.

    Args:
        listed: ``(n_rows, n_assets)`` True where an asset has a price.
    """
    n_rows = listed.shape[0]
    ever = listed.any(axis=0)
    last = np.where(ever, n_rows - 1 - np.argmax(listed[::-1], axis=0), -1).astype(np.intp)
    first = np.argmax(listed, axis=0)
    spans = np.where(ever, last - first + 1, 0)
    gaps = bool((np.count_nonzero(listed, axis=0) < spans).any())
    return last, gaps


def cursor_for(source: Source, n: int, lookback: int, episode_length: int) -> PriceCursor:
    """The `PriceCursor` of ``n`` rows for ``source``."""
    if isinstance(source, History):
        return HistoryCursor(source, n, lookback, episode_length)
    return PathCursor(source, n, lookback, episode_length)
