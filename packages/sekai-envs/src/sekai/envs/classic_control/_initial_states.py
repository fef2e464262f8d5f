"""Initial states drawn ahead from each sub-env's generator (private).

The native classic-control vector envs reset sub-envs inside ``step``. Each
reset draws the sub-env's initial state from its own generator, as the single
env does, so the trajectories match ``SyncVecEnv``'s. One ``rng.uniform``
call per resetting sub-env costs about a microsecond, as much as the rest of
a step at 1024 sub-envs; `InitialStates` draws them ahead instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["InitialStates"]

_VALUES_AHEAD = 1 << 19  # numbers drawn ahead over all sub-envs (4 MB)


class InitialStates:
    """Uniform draws of ``width`` numbers per reset, taken ahead a block at a time.

    ``rng.uniform(low, high, size=(k, width))`` consumes a stream exactly as
    ``k`` calls of ``rng.uniform(low, high, size=width)`` do (and, for
    ``width == 1``, as ``k`` calls of ``rng.uniform(low, high)``): row ``j``
    of a block is the draw the single env makes at its ``j``-th next reset.
    Taking the next row of many sub-envs is then one fancy index.

    A generator with a block is ahead of its true position by the rows not
    taken yet. `settle` puts it back (it restores the state saved
    before the block and replays the rows taken) before anything else draws
    from it: a reset with other bounds, a caller reading the vector env's
    ``rngs``, a step that draws, or a re-seed that replaces it (an adopted
    generator is handed back at its true position). When one generator
    serves several sub-envs, their draws interleave, so none draws ahead;
    nor does any while `pause` is in force.

    Args:
        count: Number of sub-envs.
        width: Numbers drawn per reset.
        low: The default lower bound(s): a float or ``width`` floats.
        high: The default upper bound(s), likewise.
    """

    def __init__(self, count: int, width: int, low: Any, high: Any) -> None:
        self.width = width
        self.low = low
        self.high = high
        block = self.block = max(8, min(128, _VALUES_AHEAD // (count * width)))
        # Sub-env i's block is rows[i * block : (i + 1) * block]; cursor[i] is its next
        # row, and equals ends[i] when the block is used up (or was never drawn).
        self.rows = np.zeros((count * block, width))
        self.ends = np.arange(1, count + 1, dtype=np.intp) * block
        self.cursor = self.ends.copy()
        self.owners: list[np.random.Generator | None] = [None] * count
        self.saved: list[dict[str, Any] | None] = [None] * count
        self.rngs: tuple[np.random.Generator, ...] | None = None  # the generators followed
        self.shared = False  # a generator serves several sub-envs: no drawing ahead
        self.paused = False  # no drawing ahead (the env draws during steps)

    def follow(self, rngs: tuple[np.random.Generator, ...]) -> None:
        """Settle the blocks of generators that ``rngs`` replaced, then follow ``rngs``."""
        self.shared = len({id(rng) for rng in rngs}) < len(rngs)
        for index, owner in enumerate(self.owners):
            if owner is not None and (self.shared or owner is not rngs[index]):
                self.settle(index)
        self.rngs = rngs

    def pause(self) -> None:
        """Settle every generator and stop drawing ahead (until `resume`)."""
        if not self.paused:
            self.settle_all()
            self.paused = True

    def resume(self) -> None:
        """Draw ahead again."""
        self.paused = False

    def _followed(self) -> tuple[np.random.Generator, ...]:
        """The generators followed; `follow` comes first (the vector env's ``_followed_rngs``)."""
        rngs = self.rngs
        if rngs is None:
            raise RuntimeError("initial states: internal error, follow(rngs) was never called")
        return rngs

    def take(self, indices: NDArray[np.intp]) -> NDArray[np.float64]:
        """The next default draw of each sub-env in ``indices``: shape ``(len(indices), width)``."""
        rngs = self._followed()
        if self.shared or self.paused:
            return np.array(
                [rngs[i].uniform(self.low, self.high, size=self.width) for i in indices.tolist()]
            ).reshape(-1, self.width)
        if len(indices) == 1:  # one sub-env (the usual autoreset of a small batch): no fancy index
            return self._take_one(int(indices[0]), rngs)
        cursor = self.cursor[indices]
        empty = cursor == self.ends[indices]
        if np.count_nonzero(empty):
            block = self.block
            refill = indices[empty]
            for index in refill.tolist():
                rng = rngs[index]
                self.saved[index] = rng.bit_generator.state
                start = index * block
                self.rows[start : start + block] = rng.uniform(
                    self.low, self.high, size=(block, self.width)
                )
                self.owners[index] = rng
            cursor[empty] = refill * block
        self.cursor[indices] = cursor + 1
        draws: NDArray[np.float64] = self.rows.take(cursor, axis=0)
        return draws

    def _take_one(self, index: int, rngs: tuple[np.random.Generator, ...]) -> NDArray[np.float64]:
        """`take` for one sub-env, on Python ints: the same rows, the same refills."""
        block = self.block
        row = int(self.cursor[index])
        if row == int(self.ends[index]):
            rng = rngs[index]
            self.saved[index] = dict(rng.bit_generator.state)  # a fresh dict either way
            row = index * block
            self.rows[row : row + block] = rng.uniform(
                self.low, self.high, size=(block, self.width)
            )
            self.owners[index] = rng
        self.cursor[index] = row + 1
        draws: NDArray[np.float64] = self.rows[row : row + 1].copy()
        return draws

    def draw(self, index: int, low: Any, high: Any) -> NDArray[np.float64]:
        """Sub-env ``index``'s next draw with other bounds, from its exact stream position."""
        rngs = self._followed()
        self.settle(index)
        values: NDArray[np.float64] = rngs[index].uniform(low, high, size=self.width)
        return values

    def settle(self, index: int) -> None:
        """Put sub-env ``index``'s generator back where its draws so far left it."""
        owner, saved = self.owners[index], self.saved[index]
        if owner is None or saved is None:
            return
        owner.bit_generator.state = saved
        taken = int(self.cursor[index]) - index * self.block
        if taken:
            owner.uniform(self.low, self.high, size=(taken, self.width))
        self.owners[index] = None
        self.saved[index] = None
        self.cursor[index] = self.ends[index]

    def settle_all(self) -> None:
        """`settle` every sub-env."""
        for index, owner in enumerate(self.owners):
            if owner is not None:
                self.settle(index)
