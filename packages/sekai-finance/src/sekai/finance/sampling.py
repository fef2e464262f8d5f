"""Episode sampling: where each episode starts, and windows of market data.

Two families live here.

**Start samplers** (sekai 0.2's `EpisodeSampler`): an environment
playing a history (a [`MarketData`][sekai.finance.MarketData]) asks its
sampler, at every reset, which of the valid first rows to start at:
`RandomStart` (uniform), `SequentialStart` (one episode after
the other, wrapping around) or `FixedStart`. The environment passes
its own generator, so ``reset(seed=...)`` reproduces the start; each sub-env
of a vector env gets its own ``spawn()``. Envs take ``sampler="random"``,
``"sequential"``, an int or a sampler; `as_sampler` turns any of these
into a sampler, and `sample_start` / `resolve_start` do the row
arithmetic:

* an episode of ``episode_length`` decisions starting at row ``s`` decides at
  rows ``s .. s + episode_length - 1`` and executes each decision at the next
  row, so it needs rows up to ``s + episode_length``;
* its first decision needs ``lookback`` rows of returns before it and must
  come after the data's warmup: ``s >= first_start(lookback, data.warmup)``.

A sampler draws an *offset* among the ``n_starts`` valid first rows; offset
0 is `first_start`. Train / test splits by time are
[`MarketData.split`][sekai.finance.data.MarketData.split] and
[`walk_forward`][sekai.finance.data.MarketData.walk_forward]: give each piece to its
own env.

**Window samplers** (`WindowSampler`): draw a whole episode of log
returns and trading halts at once, synthetic (`RegimeSwitchingSampler`)
or cut from a table (`HistoricalSampler`). They feed
[`PortfolioEnv`][sekai.envs.PortfolioEnv]; ``sekai.envs.samplers`` re-exports them,
with `WindowSampler` under its former name ``EpisodeSampler``.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._internal.validation import check_int, is_int
from sekai.finance._data_time import time_value
from sekai.finance._simulation_paths import stationary_distribution

if TYPE_CHECKING:
    from sekai.finance.data import MarketData, TimeLike

__all__ = [
    "Episode",
    "EpisodeSampler",
    "FixedStart",
    "HistoricalSampler",
    "RandomStart",
    "RegimeSwitchingSampler",
    "SequentialStart",
    "WindowSampler",
    "as_sampler",
    "first_start",
    "resolve_start",
    "sample_start",
    "spawn_samplers",
]


def _check_request(n_starts: int, episode_length: int, owner: str) -> tuple[int, int]:
    n_starts = check_int(n_starts, f"{owner}.sample: n_starts", minimum=1)
    episode_length = check_int(episode_length, f"{owner}.sample: episode_length", minimum=1)
    return n_starts, episode_length


class EpisodeSampler(ABC):
    """Chooses the first row of each episode played on a history.

    Subclasses implement `sample`; `reset` (forget progress) does
    nothing by default and `spawn` (an independent copy for another
    env) deep-copies.
    """

    @abstractmethod
    def sample(self, rng: np.random.Generator, n_starts: int, episode_length: int) -> int:
        """The offset of the next episode's first row among the valid ones.

        Args:
            rng: The environment's generator: any randomness must come from it.
            n_starts: How many first rows are valid (>= 1); the result must lie
                in ``[0, n_starts)``, 0 being the earliest.
            episode_length: Decisions per episode (a sequential sampler strides
                by it).
        """

    def reset(self) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Start over (a no-op for samplers without progress)."""

    def spawn(self) -> EpisodeSampler:
        """An independent copy, for another environment (a deep copy by default)."""
        return copy.deepcopy(self)


class RandomStart(EpisodeSampler):
    """Every valid first row equally likely, drawn from the env's generator."""

    def sample(self, rng: np.random.Generator, n_starts: int, episode_length: int) -> int:
        """A uniform offset in ``[0, n_starts)``."""
        n_starts, _ = _check_request(n_starts, episode_length, "RandomStart")
        return int(rng.integers(n_starts))

    def __repr__(self) -> str:
        return "RandomStart()"


class SequentialStart(EpisodeSampler):
    """Episodes one after the other through the data, wrapping around.

    The first episode starts at offset ``start``, each next one ``stride``
    later (default: the episode length, so episodes tile the data without
    overlapping). When the next offset is not valid any more, an epoch ends:
    `epoch` grows by one and episodes start again from ``start``.

    Args:
        start: The offset of the first episode (>= 0).
        stride: Offsets between consecutive episodes (>= 1); None means the
            episode length.

    Attributes:
        start: The ``start`` argument.
        stride: The ``stride`` argument.
        epoch: Completed passes over the data since the last `reset`.
    """

    def __init__(self, start: int = 0, stride: int | None = None) -> None:
        self.start = check_int(start, "SequentialStart: start", minimum=0)
        self.stride = (
            None if stride is None else check_int(stride, "SequentialStart: stride", minimum=1)
        )
        self.epoch = 0
        self._next: int | None = None

    def sample(self, rng: np.random.Generator, n_starts: int, episode_length: int) -> int:
        """The next offset in sequence (``rng`` is not used).

        Raises:
            ValueError: ``start`` itself is not a valid offset.
        """
        n_starts, episode_length = _check_request(n_starts, episode_length, "SequentialStart")
        if self.start >= n_starts:
            raise ValueError(
                f"SequentialStart: start={self.start} is not a valid offset; the data allows "
                f"offsets 0 to {n_starts - 1}"
            )
        offset = self.start if self._next is None else self._next
        if offset >= n_starts:
            self.epoch += 1
            offset = self.start
        self._next = offset + (episode_length if self.stride is None else self.stride)
        return offset

    def reset(self) -> None:
        """Back to the first episode, epoch 0."""
        self.epoch = 0
        self._next = None

    def spawn(self) -> SequentialStart:
        """A new sampler with the same start and stride, at its first episode."""
        return SequentialStart(self.start, self.stride)

    def __repr__(self) -> str:
        return f"SequentialStart(start={self.start}, stride={self.stride}, epoch={self.epoch})"


class FixedStart(EpisodeSampler):
    """Every episode starts at the same offset (a deterministic sampler).

    Args:
        start: The offset (>= 0): 0 is the earliest valid first row.

    Attributes:
        start: The ``start`` argument.
    """

    def __init__(self, start: int) -> None:
        self.start = check_int(start, "FixedStart: start", minimum=0)

    def sample(self, rng: np.random.Generator, n_starts: int, episode_length: int) -> int:
        """``start`` (``rng`` is not used).

        Raises:
            ValueError: ``start`` is not a valid offset for this data.
        """
        n_starts, _ = _check_request(n_starts, episode_length, "FixedStart")
        if self.start >= n_starts:
            raise ValueError(
                f"FixedStart: start={self.start} is not a valid offset; the data allows offsets "
                f"0 to {n_starts - 1}"
            )
        return self.start

    def __repr__(self) -> str:
        return f"FixedStart({self.start})"


def as_sampler(sampler: str | int | EpisodeSampler) -> EpisodeSampler:
    """The start sampler an env's ``sampler=`` argument means.

    ``"random"`` gives `RandomStart`, ``"sequential"``
    `SequentialStart`, an int ``k`` ``FixedStart(k)``; a sampler is
    returned as is (not copied).

    Raises:
        TypeError: Anything else (a window sampler included).
        ValueError: An unknown name, or a negative int.
    """
    if isinstance(sampler, EpisodeSampler):
        return sampler
    if isinstance(sampler, str):
        if sampler == "random":
            return RandomStart()
        if sampler == "sequential":
            return SequentialStart()
        raise ValueError(
            f"sampler must be 'random', 'sequential', an int or an EpisodeSampler, got {sampler!r}"
        )
    if is_int(sampler):
        return FixedStart(check_int(sampler, "sampler", minimum=0, type_error=ValueError))
    hint = (
        " (a WindowSampler draws whole episodes for PortfolioEnv; a start sampler only "
        "chooses where an episode starts)"
        if isinstance(sampler, WindowSampler)
        else ""
    )
    raise TypeError(
        f"sampler must be 'random', 'sequential', an int or an EpisodeSampler, got "
        f"{sampler!r}{hint}"
    )


def spawn_samplers(sampler: Any, num_envs: int) -> list[Any]:
    """One ``sampler=`` value per sub-env of a vector env: the splitter `make_vec` uses.

    The market envs of ``sekai-envs`` (``Trading-v0``, ``Portfolio-v0``,
    ``Market-v0``) declare ``per_env_kwargs={"sampler":
    "sekai.finance.sampling:spawn_samplers"}``, so that
    `sekai.registry.make_vec` gives each sub-env its own copy of an episode
    sampler and sub-envs never share a sampler's state. A plugin env taking
    ``sampler=`` like them can declare the same.

    Args:
        sampler: A name (``"random"``, ``"sequential"``) or an int start, which
            every sub-env receives unchanged (each builds its own sampler from
            it), ``None`` (likewise), or an object with a ``spawn()`` method
            (a start or window sampler).
        num_envs: The number of sub-envs.

    Returns:
        ``num_envs`` values: ``sampler`` itself each time for a name, an int or
        ``None``, else ``sampler.spawn()`` called ``num_envs`` times, in
        sub-env order.

    Raises:
        TypeError: ``sampler`` is none of these.
    """
    num_envs = check_int(num_envs, "spawn_samplers: num_envs", minimum=1)
    if sampler is None or (isinstance(sampler, (str, int)) and not isinstance(sampler, bool)):
        return [sampler] * num_envs
    if not callable(getattr(sampler, "spawn", None)):
        raise TypeError(
            "make_vec gives every sub-env its own copy of the episode sampler with "
            "sampler.spawn(), so sampler= must be a name ('random', 'sequential'), an int "
            f"start, or an object with a spawn() method; got {sampler!r}"
        )
    return [sampler.spawn() for _ in range(num_envs)]


def first_start(lookback: int, warmup: int = 0) -> int:
    """The earliest row an episode can start at: after the warmup and ``lookback`` rows.

    A first decision at row ``s`` observes the ``lookback`` log returns ending
    at ``s``, which need prices from row ``s - lookback``; rows of the warmup
    are history only. So the answer is ``max(warmup, lookback)``. For a
    [`MarketData`][sekai.finance.MarketData]: ``first_start(lookback,
    data.warmup)``.

    Raises:
        TypeError: A MarketData in the first place (the form of earlier 0.3
            versions, ``first_start(data, lookback)``).
        ValueError: ``lookback`` or ``warmup`` is negative.
    """
    if _is_market_data(lookback):
        raise TypeError(
            "first_start takes (lookback, warmup) as in sekai 0.2, got a MarketData first; "
            "call first_start(lookback, data.warmup)"
        )
    lookback = check_int(lookback, "first_start: lookback", minimum=0)
    warmup = check_int(warmup, "first_start: warmup", minimum=0)
    return max(warmup, lookback)


def _is_market_data(value: object) -> bool:
    from sekai.finance.data import MarketData  # loaded when needed, as in the annotations

    return isinstance(value, MarketData)


def _starts(
    data: MarketData | None,
    n_starts: int | None,
    warmup: int | None,
    *,
    lookback: int,
    episode_length: int,
    what: str,
) -> tuple[int, int]:
    """The first valid start row and the number of valid starts, from ``data`` or given.

    Raises:
        TypeError: Both ``data`` and ``n_starts`` or ``warmup``, or neither
            ``data`` nor ``n_starts``.
        ValueError: The data is too short for one episode, or ``n_starts`` < 1.
    """
    episode_length = check_int(episode_length, f"{what}: episode_length", minimum=1)
    if data is None:
        if n_starts is None:
            raise TypeError(
                f"{what}: give n_starts (and warmup), as sekai 0.2 does, or the data to read "
                "them from"
            )
        first = first_start(lookback, 0 if warmup is None else warmup)
        return first, check_int(n_starts, f"{what}: n_starts", minimum=1)
    if n_starts is not None or warmup is not None:
        raise TypeError(
            f"{what}: n_starts and warmup come from the data; got data and "
            f"n_starts={n_starts!r}, warmup={warmup!r}"
        )
    first = first_start(lookback, data.warmup)
    last = data.n_steps - 1 - episode_length
    if last < first:
        raise ValueError(
            f"{what}: an episode of {episode_length} steps needs {first + episode_length + 1} "
            f"rows (warmup/lookback {first}, then one more row to execute each decision); the "
            f"data has {data.n_steps}"
        )
    return first, last - first + 1


def sample_start(
    sampler: EpisodeSampler,
    rng: np.random.Generator,
    data: MarketData | None = None,
    *,
    n_starts: int | None = None,
    episode_length: int,
    lookback: int = 0,
    warmup: int | None = None,
) -> int:
    """The first decision row of the next episode, as ``sampler`` chooses it.

    There are ``n_starts`` valid first rows from ``first_start(lookback,
    warmup)`` on; the sampler draws an offset among them. Give ``n_starts``
    and ``warmup`` (sekai 0.2's call), or ``data`` to read them from: its
    rows ``first_start(lookback, data.warmup)`` to ``n_steps - 1 -
    episode_length`` are the valid ones.

    Args:
        sampler: The env's start sampler (keep one per env: it may hold
            progress; convert ``sampler=`` arguments once with `as_sampler`).
        rng: The env's generator.
        data: The history the episode is played on, or None.
        n_starts: The number of valid first rows (without ``data``).
        episode_length: Decisions per episode.
        lookback: Rows of returns the first observation needs.
        warmup: Rows of history only before the first start (without
            ``data``; 0 by default).

    Raises:
        TypeError: ``sampler`` is not an EpisodeSampler, or the starts are
            given both ways or neither.
        ValueError: The data is too short for one episode, or the sampler
            returned an offset outside ``[0, n_starts)``.
    """
    if not isinstance(sampler, EpisodeSampler):
        raise TypeError(
            f"sample_start: sampler must be an EpisodeSampler (see as_sampler), got {sampler!r}"
        )
    first, count = _starts(
        data,
        n_starts,
        warmup,
        lookback=lookback,
        episode_length=episode_length,
        what="sample_start",
    )
    offset = sampler.sample(rng, count, episode_length)
    if not is_int(offset) or not 0 <= int(offset) < count:
        raise ValueError(
            f"sample_start: {sampler!r}.sample() must return an int in [0, {count}), got {offset!r}"
        )
    return first + int(offset)


def resolve_start(
    option: int | TimeLike,
    *,
    timestamps: ArrayLike | None = None,
    lookback: int = 0,
    n_starts: int | None = None,
    warmup: int | None = None,
    data: MarketData | None = None,
    episode_length: int | None = None,
) -> int:
    """The first decision row an explicit start asks for (``reset(options={"start": ...})``).

    Give the valid starts as sekai 0.2 does (``timestamps``, ``n_starts`` and
    ``warmup``: rows ``first_start(lookback, warmup)`` on, ``n_starts`` of
    them), or ``data`` and ``episode_length`` to read them from (as
    `sample_start`).

    Args:
        option: A row (an int), or a time-like value (``Time(x)``, a date):
            then the first row stamped at or after it.
        timestamps: The rows' times, to find a time-like ``option`` in
            (without ``data``).
        lookback: Rows of returns the first observation needs.
        n_starts: The number of valid first rows (without ``data``).
        warmup: Rows of history only before the first start (without
            ``data``; 0 by default).
        data: The history, or None.
        episode_length: Decisions per episode (with ``data``).

    Raises:
        TypeError: The starts are given both ways or neither, or a time-like
            ``option`` without ``timestamps`` or ``data``.
        ValueError: The row is not a valid first row (the message gives the
            range), or the data is too short.
    """
    if data is not None and episode_length is None:
        raise TypeError("resolve_start: with data, give episode_length too")
    first, count = _starts(
        data,
        n_starts,
        warmup,
        lookback=lookback,
        episode_length=1 if episode_length is None else episode_length,
        what="resolve_start",
    )
    if data is not None and timestamps is not None:
        raise TypeError("resolve_start: the timestamps come from the data; give one of the two")
    if is_int(option):
        row = int(option)
    elif data is not None:
        row = data.index_of(option, side="left")
    elif timestamps is not None:
        stamps = np.asarray(timestamps)
        key = time_value(stamps, option, "resolve_start")
        row = int(np.searchsorted(stamps, key, side="left"))
    else:
        raise TypeError(
            f"resolve_start: option={option!r} is not a row, so give the timestamps (or the "
            "data) to find it in"
        )
    last = first + count - 1
    if not first <= row <= last:
        length = "" if episode_length is None else f" of {episode_length} steps"
        raise ValueError(
            f"resolve_start: start={option!r} (row {row}) cannot start an episode{length} with "
            f"lookback {lookback}; valid first rows are {first} to {last}"
        )
    return row


# -- window samplers ---------------------------------------------------------------------------

_START = "a non-negative int or None"


@dataclass(frozen=True)
class Episode:
    """The market data of one episode.

    Row ``t`` describes period ``t``: ``log_returns[t, i]`` is the log-return of
    asset ``i`` from time ``t - 1`` to time ``t``, and ``halted[t, i]`` says that
    asset ``i`` cannot be traded at time ``t`` (its price then stays put over the
    next period, so a sampler sets ``log_returns[t + 1, i]`` to 0).

    Attributes:
        log_returns: float64 array of shape ``(n_periods, n_assets)``.
        halted: bool array of the same shape.
    """

    log_returns: NDArray[np.float64]
    halted: NDArray[np.bool_]

    def __post_init__(self) -> None:
        returns = np.asarray(self.log_returns, dtype=np.float64)
        halted = np.asarray(self.halted)
        if returns.ndim != 2:
            raise ValueError(
                f"Episode.log_returns must have shape (n_periods, n_assets), got shape "
                f"{returns.shape}"
            )
        if halted.shape != returns.shape or halted.dtype != np.bool_:
            raise ValueError(
                f"Episode.halted must be a bool array of shape {returns.shape}, got "
                f"{halted.dtype} array of shape {halted.shape}"
            )
        if not bool(np.all(np.isfinite(returns))):
            raise ValueError("Episode.log_returns must be finite")
        object.__setattr__(self, "log_returns", returns)
        object.__setattr__(self, "halted", halted)

    @property
    def n_periods(self) -> int:
        """Number of periods (rows)."""
        return int(self.log_returns.shape[0])

    @property
    def n_assets(self) -> int:
        """Number of assets (columns)."""
        return int(self.log_returns.shape[1])


class WindowSampler(ABC):
    """Draws the market data of whole episodes (windows of log returns and halts).

    The base of `RegimeSwitchingSampler` and `HistoricalSampler`,
    and of the samplers of [`PortfolioEnv`][sekai.envs.PortfolioEnv] (which knows it
    as ``sekai.envs.samplers.EpisodeSampler``, its name before it moved
    here). Subclasses implement `n_assets` and `sample`;
    `spawn` defaults to a deep copy.
    """

    @property
    @abstractmethod
    def n_assets(self) -> int:
        """Number of assets in every episode."""

    @abstractmethod
    def sample(self, rng: np.random.Generator, n_periods: int) -> Episode:
        """Draw one episode of ``n_periods`` periods.

        Args:
            rng: The environment's generator: all randomness must come from it.
            n_periods: Number of rows of the episode.
        """

    def spawn(self) -> WindowSampler:
        """An independent copy, for another environment (a deep copy by default)."""
        return copy.deepcopy(self)


def _positive_int(value: Any, name: str) -> int:
    return check_int(value, name, minimum=1, type_error=ValueError)


def _probability(value: Any, name: str, *, high_open: bool = False) -> float:
    number = float(value)
    if not (0.0 <= number < 1.0 if high_open else 0.0 <= number <= 1.0):
        bound = "[0, 1)" if high_open else "[0, 1]"
        raise ValueError(f"{name} must be a probability in {bound}, got {value!r}")
    return number


def _per_regime(values: ArrayLike, name: str, k: int, n: int) -> NDArray[np.float64]:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim == 1:
        array = np.repeat(array[:, None], n, axis=1)
    if array.shape != (k, n):
        raise ValueError(
            f"{name} must have one value per regime ({k},) or per regime and asset ({k}, {n}), "
            f"got shape {np.asarray(values).shape}"
        )
    if not bool(np.all(np.isfinite(array))):
        raise ValueError(f"{name} must be finite, got {values!r}")
    return array


def _run_lengths(rng: np.random.Generator, stay: float, size: int) -> NDArray[np.int64]:
    """Durations of visits to a state left with probability ``1 - stay`` per period."""
    if stay >= 1.0:
        return np.full(size, np.iinfo(np.int32).max, dtype=np.int64)
    return rng.geometric(1.0 - stay, size=size).astype(np.int64)


def _halted_returns(returns: NDArray[np.float64], halted: NDArray[np.bool_]) -> NDArray[np.float64]:
    """The log returns seen when halted assets do not trade: 0 while halted, the gap at the reopen.

    ``returns`` are the moves of each asset's value, which goes on moving
    while the asset is halted; a halt at period ``t`` freezes the traded price
    from ``t`` to ``t + 1``. The traded log price is the value's at the last
    period it traded, so the period that reopens an asset returns everything
    the halt held back.
    """
    if not halted[:-1].any():
        return returns
    value = np.cumsum(returns, axis=0)
    frozen = np.zeros(halted.shape, dtype=np.bool_)
    frozen[1:] = halted[:-1]
    rows = np.arange(len(returns))[:, None]
    last_traded = np.maximum.accumulate(np.where(frozen, 0, rows), axis=0)
    traded = np.take_along_axis(value, last_traded, axis=0)
    seen = np.empty_like(returns)
    seen[0] = returns[0]
    np.subtract(traded[1:], traded[:-1], out=seen[1:])
    return seen


class RegimeSwitchingSampler(WindowSampler):
    """Synthetic log-returns whose drift and volatility follow a hidden Markov chain.

    A regime ``s_t`` (for example calm-bull and volatile-bear) evolves as a
    Markov chain with matrix ``transition``; the first regime is drawn from its
    stationary distribution. Given the regime, the log-returns of period ``t``
    are ``drifts[s_t] + volatilities[s_t] * z_t``, where ``z_t`` is a standard
    normal vector with equicorrelation ``correlation`` between assets. Each
    asset is halted, independently, with probability ``halt_probability`` per
    period and resumes with probability ``resume_probability`` per period;
    every episode starts with all assets tradable. While an asset is halted its
    price does not move; the move it missed is taken at the reopen (the
    period after the halt returns the sum of the halted periods' log returns
    and its own), as a stock reopens at a gap.

    Args:
        n_assets: Number of assets.
        drifts: Mean log-return per period, per regime ``(K,)`` or per regime and
            asset ``(K, n_assets)``.
        volatilities: Standard deviation of the log-return per period, shaped
            like ``drifts``; strictly positive.
        transition: ``(K, K)`` row-stochastic matrix,
            ``transition[i, j] = P(s_{t+1} = j | s_t = i)``.
        correlation: Correlation between the shocks of two assets, in
            ``(-1 / (n_assets - 1), 1)``.
        halt_probability: Probability per period that a tradable asset halts.
        resume_probability: Probability per period that a halted asset resumes
            (> 0).
    """

    def __init__(
        self,
        n_assets: int = 4,
        *,
        drifts: ArrayLike = (0.0006, -0.0008),
        volatilities: ArrayLike = (0.008, 0.02),
        transition: ArrayLike = ((0.98, 0.02), (0.04, 0.96)),
        correlation: float = 0.3,
        halt_probability: float = 0.002,
        resume_probability: float = 0.5,
    ) -> None:
        self._n_assets = _positive_int(n_assets, "n_assets")
        matrix = np.asarray(transition, dtype=np.float64)
        if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or matrix.shape[0] < 1:
            raise ValueError(f"transition must be a square (K, K) matrix, got {transition!r}")
        if bool(np.any(matrix < 0)) or not np.allclose(matrix.sum(axis=1), 1.0, atol=1e-9):
            raise ValueError(
                f"transition must be row-stochastic (non-negative, rows summing to 1), got "
                f"{transition!r}"
            )
        k = matrix.shape[0]
        self.transition = matrix
        self.drifts = _per_regime(drifts, "drifts", k, self._n_assets)
        self.volatilities = _per_regime(volatilities, "volatilities", k, self._n_assets)
        if bool(np.any(self.volatilities <= 0)):
            raise ValueError(f"volatilities must be > 0, got {volatilities!r}")
        self.correlation = float(correlation)
        corr = np.full((self._n_assets, self._n_assets), self.correlation)
        np.fill_diagonal(corr, 1.0)
        try:
            self._chol = np.linalg.cholesky(corr)
        except np.linalg.LinAlgError:
            raise ValueError(
                f"correlation={correlation!r} does not give a valid correlation matrix for "
                f"{self._n_assets} assets; it must lie in (-1/(n_assets - 1), 1)"
            ) from None
        self.halt_probability = _probability(halt_probability, "halt_probability")
        self.resume_probability = _probability(resume_probability, "resume_probability")
        if self.resume_probability == 0.0 and self.halt_probability > 0.0:
            raise ValueError("resume_probability must be > 0 when assets can halt")
        self.stationary = stationary_distribution(matrix)
        # Where the chain goes when it leaves each regime.
        leave = matrix.copy()
        np.fill_diagonal(leave, 0.0)
        sums = leave.sum(axis=1, keepdims=True)
        self._exit = np.divide(leave, sums, out=np.zeros_like(leave), where=sums > 0)
        self._exit_cdf = np.cumsum(self._exit, axis=1)

    @property
    def n_assets(self) -> int:
        """Number of assets."""
        return self._n_assets

    @property
    def n_regimes(self) -> int:
        """Number of regimes ``K``."""
        return int(self.transition.shape[0])

    def sample_regimes(self, rng: np.random.Generator, n_periods: int) -> NDArray[np.intp]:
        """Draw a path of the regime chain (one regime index per period)."""
        regimes = np.empty(n_periods, dtype=np.intp)
        state = int(np.searchsorted(np.cumsum(self.stationary), rng.random(), side="right"))
        state = min(state, self.n_regimes - 1)
        t = 0
        while t < n_periods:
            stay = float(self.transition[state, state])
            length = int(_run_lengths(rng, stay, 1)[0])
            regimes[t : t + length] = state
            t += length
            if t < n_periods:
                state = int(np.searchsorted(self._exit_cdf[state], rng.random(), side="right"))
                state = min(state, self.n_regimes - 1)
        return regimes

    def sample_halts(self, rng: np.random.Generator, n_periods: int) -> NDArray[np.bool_]:
        """Draw the halts of every asset: a ``(n_periods, n_assets)`` bool array."""
        halted = np.zeros((n_periods, self._n_assets), dtype=np.bool_)
        if self.halt_probability == 0.0:
            return halted
        for asset in range(self._n_assets):
            t, is_halted = 0, False
            while t < n_periods:
                stay = (1.0 - self.resume_probability) if is_halted else 1.0 - self.halt_probability
                length = int(_run_lengths(rng, stay, 1)[0])
                if is_halted:
                    halted[t : t + length, asset] = True
                t += length
                is_halted = not is_halted
        return halted

    def sample(self, rng: np.random.Generator, n_periods: int) -> Episode:
        """Draw an episode: regimes, then halts, then the return shocks."""
        n_periods = _positive_int(n_periods, "n_periods")
        regimes = self.sample_regimes(rng, n_periods)
        halted = self.sample_halts(rng, n_periods)
        shocks = rng.standard_normal((n_periods, self._n_assets)) @ self._chol.T
        returns = self.drifts[regimes] + self.volatilities[regimes] * shocks
        return Episode(_halted_returns(returns, halted), halted)

    def spawn(self) -> RegimeSwitchingSampler:
        """A copy with the same parameters (it holds no state of its own)."""
        return copy.copy(self)

    def __repr__(self) -> str:
        return (
            f"RegimeSwitchingSampler(n_assets={self._n_assets}, n_regimes={self.n_regimes}, "
            f"correlation={self.correlation}, halt_probability={self.halt_probability})"
        )


class HistoricalSampler(WindowSampler):
    """Episodes cut from a fixed table of log-returns (e.g. historical data).

    Each episode is a window of consecutive rows. Its first row is drawn
    uniformly from the rows where a full window fits, or is ``start`` when
    given, which makes every episode the same: a deterministic sampler, with
    which a native vector env and a SyncVecEnv give identical results.

    Args:
        log_returns: ``(n_rows, n_assets)`` table of log-returns.
        halted: Optional bool table of the same shape (default: never halted).
        start: Fixed first row of every episode, or ``None`` for a uniform
            draw.
    """

    def __init__(
        self,
        log_returns: ArrayLike,
        halted: ArrayLike | None = None,
        *,
        start: int | None = None,
    ) -> None:
        returns = np.array(log_returns, dtype=np.float64)
        flags = np.zeros(returns.shape, dtype=np.bool_) if halted is None else np.array(halted)
        table = Episode(returns, flags)  # validates shapes and values
        returns.flags.writeable = False
        flags.flags.writeable = False
        self._table = table
        self.start = (
            None
            if start is None
            else check_int(start, "start", minimum=0, expected=_START, type_error=ValueError)
        )

    @property
    def n_assets(self) -> int:
        """Number of assets (columns of the table)."""
        return self._table.n_assets

    @property
    def n_rows(self) -> int:
        """Number of rows of the table."""
        return self._table.n_periods

    def sample(self, rng: np.random.Generator, n_periods: int) -> Episode:
        """Cut a window of ``n_periods`` rows.

        Raises:
            ValueError: The table is shorter than ``n_periods`` (plus ``start``).
        """
        n_periods = _positive_int(n_periods, "n_periods")
        last = self.n_rows - n_periods
        if self.start is not None:
            first = self.start
            if first > last:
                raise ValueError(
                    f"HistoricalSampler: a window of {n_periods} rows from start={first} needs "
                    f"{first + n_periods} rows, the table has {self.n_rows}"
                )
        else:
            if last < 0:
                raise ValueError(
                    f"HistoricalSampler: episodes need {n_periods} rows, the table has "
                    f"{self.n_rows}"
                )
            first = int(rng.integers(0, last + 1))
        window = slice(first, first + n_periods)
        return Episode(self._table.log_returns[window], self._table.halted[window])

    def spawn(self) -> HistoricalSampler:
        """A copy sharing the (read-only) table."""
        return copy.copy(self)

    def __repr__(self) -> str:
        return (
            f"HistoricalSampler(n_rows={self.n_rows}, n_assets={self.n_assets}, "
            f"start={self.start!r})"
        )
