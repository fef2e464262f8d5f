"""The sekai markets toolkit.

Everything a market environment needs besides the env itself, written once:

- :mod:`sekai.finance.data`: :class:`MarketData`, point-in-time market data;
- :mod:`sekai.finance.sampling`: where each episode starts;
- :mod:`sekai.finance.simulators`: price models that simulate many paths at once;
- :mod:`sekai.finance.lob`: a limit order book and order-flow models;
- :mod:`sekai.finance.costs`, :mod:`sekai.finance.rewards`,
  :mod:`sekai.finance.account`, :mod:`sekai.finance.metrics`: the money side;
- :mod:`sekai.finance.features`, :mod:`sekai.finance.universe`: observations.
"""

from __future__ import annotations

__all__: list[str] = []
