"""A market simulator served over HTTP on 127.0.0.1, and sekai envs over it.

- :mod:`rest_market.simulator`: the market itself (pure Python and numpy).
- :mod:`rest_market.server`: the aiohttp web service keeping one simulator per
  session, with a simulated heavy-tailed latency, and helpers that run it in a
  background thread or a child process.
- :mod:`rest_market.schema`: the JSON answers of the server, as the msgspec
  types the client decodes them into.
- :mod:`rest_market.env`: :class:`RestMarketEnv` (the market behind the server,
  stepped with an async HTTP client) and :class:`LocalMarketEnv` (the same market
  in process).

Not a distribution: put the ``examples`` directory on ``sys.path`` (see the
README) to import it. This file imports nothing, so that ``python -m
rest_market.server`` runs the server module once, as ``__main__``.
"""
