"""TimeAwareObservation: add the elapsed time of the episode to the observation."""

from __future__ import annotations

from typing import Any

import numpy as np

from sekai._internal.validation import check_int
from sekai.core import ActType, Env, ObservationWrapper, ResetResult, TimeLimit, Wrapper
from sekai.spaces import Box, Dict, Space
from sekai.wrappers._checks import warn_if_around_autoreset

__all__ = ["TimeAwareObservation"]


class TimeAwareObservation(ObservationWrapper[Any, ActType, Any]):
    """Adds the number of steps taken in the episode to the observation.

    A time-limited episode is not Markov without it: nothing in the
    observation tells the agent that truncation is near (e.g. the end of a
    trading session).

    - A 1-D Box observation gets the time feature appended as one extra
      element; integer observations are cast to ``float32``, floating ones keep
      their dtype.
    - A Dict observation gets it under ``dict_key`` as a ``float32`` array of
      shape ``(1,)``.

    The feature counts steps since the last reset (0 in the first
    observation). With ``normalize_time=True`` (the default) it is
    ``t / max_episode_steps``, in ``[0, 1]`` (it stays at 1 if an episode runs
    longer); otherwise it is ``t`` itself, in ``[0, inf)``.
    ``max_episode_steps`` defaults to the limit of a
    [`TimeLimit`][sekai.core.TimeLimit] inside this wrapper, else to the env spec's
    ``max_episode_steps``.

    The count is per-episode state: put ``AutoReset`` outside this wrapper (it
    warns when built around one).

    Args:
        env: An environment with a 1-D Box or a Dict observation space.
        max_episode_steps: The episode length used to normalise the time.
        normalize_time: Give ``t / max_episode_steps`` instead of ``t``.
        dict_key: The key of the time feature in a Dict observation.

    Raises:
        TypeError: The observation space is neither a 1-D Box nor a Dict,
            ``max_episode_steps`` is not an int, ``normalize_time`` is not a
            bool or ``dict_key`` is not a str.
        ValueError: ``normalize_time=True`` and no ``max_episode_steps`` is
            given or found, ``max_episode_steps`` < 1, or ``dict_key`` is
            already a key of the Dict.
    """

    def __init__(
        self,
        env: Env[Any, ActType],
        max_episode_steps: int | None = None,
        *,
        normalize_time: bool = True,
        dict_key: str = "time",
    ) -> None:
        owner = "TimeAwareObservation"
        if not isinstance(normalize_time, (bool, np.bool_)):
            raise TypeError(f"{owner}: normalize_time must be a bool, got {normalize_time!r}")
        if not isinstance(dict_key, str):
            raise TypeError(f"{owner}: dict_key must be a str, got {dict_key!r}")
        space = env.observation_space
        limit = (
            _find_limit(env)
            if max_episode_steps is None
            else check_int(max_episode_steps, f"{owner}: max_episode_steps", minimum=1)
        )
        if normalize_time and limit is None:
            raise ValueError(
                f"{owner}: normalize_time=True needs max_episode_steps; none was given and "
                f"{env} has no TimeLimit inside and no spec.max_episode_steps"
            )
        high = 1.0 if normalize_time else float("inf")
        new_space: Space[Any]
        if isinstance(space, Box) and len(space.shape) == 1:
            dtype = space.dtype if space.dtype.kind == "f" else np.dtype(np.float32)
            new_space = Box(
                np.append(space.low.astype(dtype), dtype.type(0)),
                np.append(space.high.astype(dtype), dtype.type(high)),
                dtype=dtype,
            )
            self._dtype = dtype
            self._as_dict = False
        elif isinstance(space, Dict):
            if dict_key in space.spaces:
                raise ValueError(
                    f"{owner}: dict_key {dict_key!r} is already a key of the observation "
                    f"space {space!r}; pick another dict_key"
                )
            new_space = Dict({**space.spaces, dict_key: Box(0.0, high, (1,), np.float32)})
            self._as_dict = True
        else:
            raise TypeError(f"{owner} needs a 1-D Box or a Dict observation space, got {space!r}")
        super().__init__(env)
        warn_if_around_autoreset(owner, env)
        self.max_episode_steps = limit
        self.normalize_time = bool(normalize_time)
        self.dict_key = dict_key
        self.observation_space = new_space
        self._scale = 1.0 / limit if normalize_time and limit is not None else 1.0
        self._elapsed_steps = 0

    @property
    def elapsed_steps(self) -> int:
        """Steps taken since the last reset."""
        return self._elapsed_steps

    def _after_reset(self, result: ResetResult[Any]) -> ResetResult[Any]:
        self._elapsed_steps = -1  # observation() counts the first observation as step 0
        return super()._after_reset(result)

    def observation(self, obs: Any) -> Any:
        """Count the step and add the time feature to one observation."""
        self._elapsed_steps += 1
        t = self._elapsed_steps * self._scale
        if self.normalize_time and t > 1.0:
            t = 1.0
        if self._as_dict:
            return {**obs, self.dict_key: np.array([t], dtype=np.float32)}
        return np.append(np.asarray(obs, dtype=self._dtype), self._dtype.type(t))


def _find_limit(env: Env[Any, Any]) -> int | None:
    layers = iter(env) if isinstance(env, Wrapper) else iter((env,))
    for layer in layers:
        if isinstance(layer, TimeLimit):
            return layer.max_episode_steps
    spec = env.spec
    return None if spec is None else spec.max_episode_steps
