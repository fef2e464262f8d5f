"""Price simulators: market models that simulate one path or a batch of paths.

A `MarketModel` turns a numpy ``Generator`` into price paths.
Every model here follows the same contract (`MarketModel.simulate`):

- **Time grid.** Row ``t`` of a path is the time ``t * dt`` (``dt`` in years,
  1/252 by default: one trading day). A simulation of ``n_steps`` steps has
  ``n_steps + 1`` rows and row 0 is the start ``s0``, not a draw.
- **Shapes.** ``simulate(rng, n_steps)`` returns one path, prices of shape
  ``(n_steps + 1, n_assets)``; ``simulate(rng, n_steps, n_paths=N)`` returns
  ``N`` paths from one vectorised numpy computation, prices of shape
  ``(N, n_steps + 1, n_assets)``. ``mask`` (availability, from
  `ListingProcess`) has the shape of ``prices``; each ``state`` series
  named by `MarketModel.state_spec` has shape ``prices.shape[:-1] +
  state_spec()[name]``.
- **Point in time.** ``state[name][..., t, ...]`` is known at time ``t``: a
  variance or regime on row ``t`` is the one that drives the move from ``t``
  to ``t + 1``; a jump count on row ``t`` counts the jumps of the step that
  ends at ``t`` (row 0 is 0).
- **Drift.** Where a model has a drift ``mu``, it is the expected rate of
  return per year: ``E[S_{t+1} / S_t | time t] = exp(mu * dt)``.
- **Randomness.** Only the ``rng`` given is used, so the same seed gives the
  same paths. One path is a batch of one: ``simulate(rng, n)`` equals
  ``simulate(rng, n, n_paths=1)`` with the first axis dropped, for
  generators in the same state. Path 0 of a batch of ``N > 1`` is *not* in
  general that path: a batch draws the shocks of all its paths together, in
  an order chosen for speed (for a few models path 0 happens to coincide; do
  not rely on it). The paths of a batch are independent draws.

Models: `GBM` (correlated geometric Brownian motion), `Heston`,
`GARCH`, `MertonJumpDiffusion`, `MeanReverting`,
`CointegratedPair`, `RegimeSwitching`, `BlockBootstrap`
(resampled real returns), and two wrappers: `ListingProcess` (assets
list and delist) and `Randomized` (a new model per simulation: domain
randomisation).
"""

from __future__ import annotations

from sekai.finance._simulators_base import MarketModel, Simulation
from sekai.finance._simulators_bootstrap import BlockBootstrap
from sekai.finance._simulators_diffusion import GARCH, GBM, Heston
from sekai.finance._simulators_jumps import MertonJumpDiffusion
from sekai.finance._simulators_regimes import RegimeSwitching
from sekai.finance._simulators_reverting import CointegratedPair, MeanReverting
from sekai.finance._simulators_wrappers import ListingProcess, Randomized

__all__ = [
    "GARCH",
    "GBM",
    "BlockBootstrap",
    "CointegratedPair",
    "Heston",
    "ListingProcess",
    "MarketModel",
    "MeanReverting",
    "MertonJumpDiffusion",
    "Randomized",
    "RegimeSwitching",
    "Simulation",
]

# The models live in private modules, one per family; they present themselves
# (reprs, pickles, docs) under the module users import them from, as in 0.2,
# so that 0.2's pickles load and new pickles name no private module.
for _cls in (
    BlockBootstrap,
    CointegratedPair,
    GARCH,
    GBM,
    Heston,
    ListingProcess,
    MarketModel,
    MeanReverting,
    MertonJumpDiffusion,
    Randomized,
    RegimeSwitching,
    Simulation,
):
    _cls.__module__ = __name__
del _cls
