"""The episode every windowed market env plays: its settings, declared and checked once (private).

Trading-v0, Portfolio-v0 and Market-v0 each play episodes of ``episode_length``
decisions, observed through ``lookback`` rows, on a history or a model, with an
account that starts at ``capital``, trades at a cost and is scored by a reward
function. `EpisodeConfig` holds those settings and checks them; each env's
frozen config extends it with its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_int
from sekai.envs.finance._cost_inputs import CostInputs
from sekai.envs.finance._execution import check_execution, check_opens
from sekai.envs.finance._price_sources import History, Simulated
from sekai.finance.costs import CostModel, as_cost_model
from sekai.finance.data import MarketData
from sekai.finance.rewards import RewardFunction
from sekai.finance.simulators import MarketModel

__all__ = ["EpisodeConfig"]


@dataclass(frozen=True)
class EpisodeConfig:
    """The settings every windowed market env's episodes share (a base of their configs).

    Frozen: ``dataclasses.replace(config, lookback=...)`` builds a new config
    and checks it again, which is how an env's ``lookback`` and
    ``episode_length`` setters change them.

    Attributes:
        owner: The env's name, for messages.
        source: Where the prices come from (a history, a model, or an env's own kind).
        lookback: Rows of history per observation.
        episode_length: Decisions per episode.
        transaction_cost: The ``transaction_cost`` argument, as given.
        reward: The reward function (the config's own copy).
        capital: The account's value at the start of each episode.
        execution: When a decision fills: ``"close"``, ``"next_open"`` or
            ``"next_close"`` (`sekai.envs.finance._execution`).
        cost_model: The cost model built from ``transaction_cost``.
        costs: What the cost model is told (`CostInputs`).
    """

    # How a non-int lookback or episode_length is refused (Portfolio-v0 has always said ValueError).
    _int_error: ClassVar[type[Exception]] = TypeError

    owner: str
    source: Any
    lookback: int
    episode_length: int
    transaction_cost: Any
    reward: RewardFunction
    capital: float
    execution: str = field(default="close", kw_only=True)
    cost_model: CostModel = field(init=False, repr=False)
    costs: CostInputs = field(init=False, repr=False)

    def __post_init__(self) -> None:
        owner, error = self.owner, self._int_error
        lookback = check_int(self.lookback, f"{owner}: lookback", minimum=1, type_error=error)
        length = check_int(
            self.episode_length, f"{owner}: episode_length", minimum=1, type_error=error
        )
        self._derive(lookback=lookback, episode_length=length)
        history = self.history
        if history is not None:
            self.source.check_length(lookback, length, owner)
        if history is not None:
            fields = sorted(history.fields)
            opens = None if "open" in fields else f"the data's fields are {fields or 'none'}"
        elif self.has_prices:
            opens = "a simulated model has closes only"
        else:
            opens = "a window sampler draws returns, without prices"
        self._derive(execution=check_execution(self.execution, owner, opens=opens))
        if self.execution == "next_open" and history is not None:
            check_opens(history.field("open"), owner)
        cost_model = as_cost_model(self.transaction_cost, f"{owner}: transaction_cost")
        self._derive(
            cost_model=cost_model,
            costs=CostInputs(
                cost_model,
                fields=() if history is None else history.fields,
                has_prices=self.has_prices,
                lookback=lookback,
                owner=owner,
            ),
        )

    def _derive(self, **values: Any) -> None:
        """Set fields of this frozen config while it is being built."""
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @property
    def has_prices(self) -> bool:
        """Whether the episodes carry prices (the cost model may be told them)."""
        return True

    @property
    def history(self) -> MarketData | None:
        """The history played, or None."""
        return self.source.data if isinstance(self.source, History) else None

    @property
    def model(self) -> MarketModel | None:
        """The model simulated, or None."""
        return self.source.model if isinstance(self.source, Simulated) else None

    @property
    def row_years(self) -> NDArray[np.float64] | None:
        """Years from each row of the history to the next, when steps last calendar time."""
        return self.source.row_years if isinstance(self.source, History) else None

    @property
    def dated(self) -> bool:
        """Whether the timestamps are dates (a history stamped with datetime64)."""
        history = self.history
        return history is not None and history.timestamps.dtype.kind == "M"
