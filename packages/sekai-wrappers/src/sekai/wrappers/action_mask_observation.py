"""ActionMaskObservation: put the env's current action mask into the observation."""

from __future__ import annotations

from typing import Any

from sekai.core import ActType, Env, ObservationWrapper
from sekai.spaces import Dict
from sekai.utils.masking import action_mask_space, flatten_action_mask, supports_action_mask

__all__ = ["ActionMaskObservation"]


class ActionMaskObservation(ObservationWrapper[dict[str, Any], ActType, Any]):
    """Adds the env's current action mask to every observation.

    For policies that apply the mask themselves (masked logits in PPO,
    RLlib's action-masking models). The mask returned by the env's
    ``action_mask()`` (see `sekai.utils.masking`) after each reset and
    step is flattened to an ``int8`` vector
    ([`sekai.utils.flatten_action_mask`][sekai.utils.masking.flatten_action_mask]) living in
    [`sekai.utils.action_mask_space`][sekai.utils.masking.action_mask_space] of the action space, a
    [`MultiBinary`][sekai.spaces.MultiBinary]. A Dict observation gains the entry
    ``key``; any other observation becomes ``{"observation": obs, key: mask}``.

    Args:
        env: An environment implementing ``action_mask()``.
        key: The key of the mask in the observation dict.

    Raises:
        TypeError: The env has no ``action_mask()``, or its action space has no
            fixed-size mask.
        ValueError: ``key`` is already a key of a Dict observation space, or is
            ``"observation"`` for a non-Dict observation space.
    """

    def __init__(self, env: Env[Any, ActType], *, key: str = "action_mask") -> None:
        owner = "ActionMaskObservation"
        if not supports_action_mask(env):
            raise TypeError(
                f"{owner} needs an env that implements action_mask(), got {env} "
                "(see sekai.utils.masking)"
            )
        if not isinstance(key, str):
            raise TypeError(f"{owner}: key must be a str, got {key!r}")
        mask_space = action_mask_space(env.action_space)
        space = env.observation_space
        if isinstance(space, Dict):
            if key in space.spaces:
                raise ValueError(
                    f"{owner}: key {key!r} is already a key of the observation space {space!r}"
                )
            new_space = Dict({**space.spaces, key: mask_space})
        else:
            if key == "observation":
                raise ValueError(
                    f"{owner}: key 'observation' is taken by the wrapped observation; pick another"
                )
            new_space = Dict({"observation": space, key: mask_space})
        super().__init__(env)
        self.key = key
        self._is_dict = isinstance(space, Dict)
        self.observation_space = new_space

    def observation(self, obs: Any) -> dict[str, Any]:
        """Add the current flattened action mask to one observation."""
        env = self.env
        mask = flatten_action_mask(env.action_space, env.action_mask())  # type: ignore[attr-defined]
        if self._is_dict:
            return {**obs, self.key: mask}
        return {"observation": obs, self.key: mask}
