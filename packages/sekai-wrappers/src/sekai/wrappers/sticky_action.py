"""StickyAction: with some probability, the previous action is executed again."""

from __future__ import annotations

from typing import Any

import numpy as np

from sekai._internal.validation import check_probability, check_seed
from sekai.core import ActionWrapper, ActType, Env, ObsType, ResetResult
from sekai.utils.seeding import SeedType
from sekai.wrappers._checks import warn_if_around_autoreset
from sekai.wrappers._copy import copier_for

__all__ = ["StickyAction"]

_SEED = "a non-negative int, a numpy.random.Generator or None"

# Distinguishes the wrapper's stream from the env's one built from the same seed.
_SPAWN_KEY = 0x571C


class StickyAction(ActionWrapper[ObsType, ActType, ActType]):
    """With probability ``repeat_action_probability``, repeats the previous action.

    Models execution that sometimes lags the agent's decision (sticky
    actions, Machado et al., 2018, for Atari; order-routing delay in
    trading). On each step after the first of an episode, the action executed
    is the previously executed one with that probability, else the new one.
    The wrapper keeps a copy of the executed action, so a policy may write
    every action into the same array.

    The wrapper keeps its own random generator, so it never draws from (and
    never perturbs) the env's stream. It is derived from the seed given to
    `reset`: an int, or a Generator's ``SeedSequence`` (the Generator
    itself is not drawn from); a reset without a seed continues the current
    stream (seeded from OS entropy if there is none yet). The same reset seed
    therefore gives the same sticky decisions.

    The previous action is per-episode state: put ``AutoReset`` outside this
    wrapper (it warns when built around one).

    Args:
        env: The environment to wrap.
        repeat_action_probability: Probability of repeating, in ``[0, 1)``.

    Raises:
        TypeError: The probability is not a real number.
        ValueError: The probability is outside ``[0, 1)``.
    """

    def __init__(self, env: Env[ObsType, ActType], repeat_action_probability: float) -> None:
        p = check_probability(
            repeat_action_probability,
            "StickyAction: repeat_action_probability",
            include_one=False,
            expected="a float in [0, 1)",
        )
        super().__init__(env)
        warn_if_around_autoreset("StickyAction", env)
        self.repeat_action_probability = p
        self._sticky_rng: np.random.Generator | None = None
        self._last_action: Any = None
        self._has_last = False
        self._copy = copier_for(env.action_space)

    @property
    def sticky_rng(self) -> np.random.Generator:
        """The wrapper's own generator (not the env's)."""
        if self._sticky_rng is None:
            self._sticky_rng = np.random.default_rng()
        return self._sticky_rng

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Reset the wrapped env, forget the previous action and reseed from ``seed``."""
        self._reseed(seed)
        return self.env.reset(seed=seed, options=options)

    async def async_reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Async form of `reset`."""
        self._reseed(seed)
        return await self.env.async_reset(seed=seed, options=options)

    def action(self, action: ActType) -> ActType:
        """Return the action to execute: the new one, or, sometimes, the previous one."""
        if self._has_last and self.sticky_rng.random() < self.repeat_action_probability:
            return self._last_action  # type: ignore[no-any-return]
        self._last_action = self._copy(action)
        self._has_last = True
        return action

    def _reseed(self, seed: SeedType) -> None:
        self._has_last = False
        self._last_action = None
        if seed is None:
            return
        if isinstance(seed, np.random.Generator):
            parent = _seed_sequence(seed)
            sequence = np.random.SeedSequence(
                parent.entropy,
                spawn_key=(*parent.spawn_key, _SPAWN_KEY),
                pool_size=parent.pool_size,
            )
        else:
            sequence = np.random.SeedSequence(
                check_seed(seed, "StickyAction: seed", expected=_SEED), spawn_key=(_SPAWN_KEY,)
            )
        self._sticky_rng = np.random.default_rng(sequence)


def _seed_sequence(generator: np.random.Generator) -> np.random.SeedSequence:
    bit_generator = generator.bit_generator
    sequence = getattr(bit_generator, "seed_seq", None)
    if sequence is None:  # numpy < 1.25
        sequence = getattr(bit_generator, "_seed_seq", None)
    if not isinstance(sequence, np.random.SeedSequence):
        raise TypeError(
            f"StickyAction: cannot derive a seed from {generator!r}: its bit generator has no "
            "SeedSequence; pass an int seed"
        )
    return sequence
