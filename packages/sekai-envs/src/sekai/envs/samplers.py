"""Episode samplers: where the market data of each episode comes from.

The window samplers moved to `sekai.finance.sampling`; this module keeps
their old import path. A market environment does not own its data: at every
reset it asks an `EpisodeSampler` for an `Episode` (log-returns
and trading halts of a window of periods), drawing any randomness from the
environment's own generator, so ``reset(seed=...)`` reproduces the episode.
``sampler.spawn()`` makes an independent copy for another environment.

Here ``EpisodeSampler`` is the base of window samplers, which
`sekai.finance.sampling` calls [`WindowSampler`][sekai.envs.EpisodeSampler]
(there, ``EpisodeSampler`` is sekai 0.2's start sampler).
"""

from __future__ import annotations

from sekai.finance.sampling import (
    Episode,
    HistoricalSampler,
    RegimeSwitchingSampler,
    WindowSampler as EpisodeSampler,
)

__all__ = ["Episode", "EpisodeSampler", "HistoricalSampler", "RegimeSwitchingSampler"]
