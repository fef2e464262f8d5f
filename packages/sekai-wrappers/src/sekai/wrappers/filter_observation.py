"""FilterObservation: keep some keys of a Dict observation."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sekai.core import ActType, Env, ObservationWrapper
from sekai.spaces import Dict

__all__ = ["FilterObservation"]


class FilterObservation(ObservationWrapper[dict[str, Any], ActType, dict[str, Any]]):
    """Keeps only the given keys of a [`Dict`][sekai.spaces.Dict] observation.

    The new observation space is a ``Dict`` of those keys' sub-spaces, in the
    order the keys are given, and so are the observations (new dicts; the
    env's are not modified).

    Args:
        env: An environment with a ``Dict`` observation space.
        keys: The keys to keep (at least one, no duplicates).

    Raises:
        TypeError: The observation space is not a ``Dict``, or ``keys`` is a
            string, not iterable, or holds a non-string.
        ValueError: ``keys`` is empty, repeats a key, or names a key the space
            does not have.
    """

    def __init__(self, env: Env[dict[str, Any], ActType], keys: Iterable[str]) -> None:
        space = env.observation_space
        if not isinstance(space, Dict):
            raise TypeError(f"FilterObservation needs a Dict observation space, got {space!r}")
        if isinstance(keys, str):
            raise TypeError(f"FilterObservation: keys must be a list of keys, got the str {keys!r}")
        try:
            wanted = list(keys)
        except TypeError as error:
            raise TypeError(
                f"FilterObservation: keys must be an iterable of keys, got {keys!r}"
            ) from error
        if not wanted:
            raise ValueError("FilterObservation: keys must name at least one key, got none")
        for key in wanted:
            if not isinstance(key, str):
                raise TypeError(f"FilterObservation: keys must be strings, got {key!r}")
        if len(set(wanted)) != len(wanted):
            raise ValueError(f"FilterObservation: keys must not repeat, got {wanted!r}")
        missing = [key for key in wanted if key not in space.spaces]
        if missing:
            raise ValueError(
                f"FilterObservation: keys {missing!r} are not in the observation space, "
                f"whose keys are {list(space.spaces)!r}"
            )
        super().__init__(env)
        self.keys: tuple[str, ...] = tuple(wanted)
        self.observation_space = Dict({key: space.spaces[key] for key in wanted})

    def observation(self, obs: dict[str, Any]) -> dict[str, Any]:
        """Return a new dict with the kept keys only."""
        return {key: obs[key] for key in self.keys}
