"""The ``gymnasium.vector.VectorEnv`` that serves a sekai VecEnv (imported with Gymnasium)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sekai.compat._to_gymnasium import gymnasium_spec
from sekai.compat.gymnasium_spaces import convert_to_gymnasium
from sekai.core import FINAL_INFO, FINAL_OBSERVATION, RESET_INFO

if TYPE_CHECKING:
    from sekai.vector import VecEnv

    _GymVectorEnv = object
else:
    from gymnasium.vector import VectorEnv as _GymVectorEnv

__all__ = ["SekaiGymnasiumVectorEnv"]

_AUTORESET_KEYS = frozenset((FINAL_OBSERVATION, FINAL_INFO, RESET_INFO))


class SekaiGymnasiumVectorEnv(_GymVectorEnv):
    """A ``gymnasium.vector.VectorEnv`` over a sekai VecEnv (see ``to_gymnasium_vector``).

    Attributes:
        sekai_vec_env: The sekai vector environment being served.
    """

    if TYPE_CHECKING:
        # Gymnasium's VectorEnv provides it: one sub-env's info merged into the
        # dict-of-arrays infos, with the "_key" masks.
        def _add_info(
            self, vector_infos: dict[str, Any], env_info: dict[str, Any], env_num: int
        ) -> dict[str, Any]: ...

    def __init__(self, vec_env: VecEnv[Any, Any]) -> None:
        from gymnasium.vector import AutoresetMode
        from gymnasium.vector.utils import batch_space

        if not getattr(vec_env.unwrapped, "autoreset", True):
            raise ValueError(
                "to_gymnasium_vector: the sekai VecEnv must reset its sub-envs automatically "
                f"(autoreset=True) to follow Gymnasium's same-step autoreset, got {vec_env!r} "
                "built with autoreset=False"
            )
        self.sekai_vec_env = vec_env
        self.num_envs: int = vec_env.num_envs
        self.single_observation_space: Any = convert_to_gymnasium(
            vec_env.observation_space, "observation_space"
        )
        self.single_action_space: Any = convert_to_gymnasium(vec_env.action_space, "action_space")
        self.observation_space: Any = batch_space(self.single_observation_space, self.num_envs)
        self.action_space: Any = batch_space(self.single_action_space, self.num_envs)
        metadata = dict(vec_env.metadata)
        metadata["autoreset_mode"] = AutoresetMode.SAME_STEP
        self.metadata = metadata
        self.spec: Any = gymnasium_spec(vec_env.spec, None)
        self.render_mode: str | None = None
        self.closed = False
        self._vec_reset = vec_env.reset
        self._vec_step = vec_env.step

    def reset(
        self,
        *,
        seed: int | list[Any] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every sub-env; return the batched observations and the dict-of-arrays infos.

        ``seed`` and ``options`` go to the sekai VecEnv as they are (an int
        seed derives one independent seed per sub-env, as in every sekai
        backend). Partial resets (``options["reset_mask"]``) belong to the
        next-step and disabled autoreset modes and are refused.
        """
        if options is not None and "reset_mask" in options:
            raise ValueError(
                "to_gymnasium_vector: options['reset_mask'] is for Gymnasium's next-step and "
                "disabled autoreset modes; this env resets finished sub-envs in the same step, "
                f"got options={options!r}"
            )
        result = self._vec_reset(seed=seed, options=options)
        return result.observations, self._vector_infos(result.infos)

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step every sub-env with its action; return Gymnasium's 5-tuple of batches.

        A sub-env that finishes is reset in the same step: its row holds the
        new episode's first observation, ``infos["final_obs"]`` /
        ``infos["final_info"]`` (with the ``"_final_obs"`` / ``"_final_info"``
        masks) hold its terminal observation and info, and its entries of the
        other info keys come from the reset.
        """
        result = self._vec_step(actions)
        return (
            result.observations,
            result.rewards,
            result.terminated,
            result.truncated,
            self._vector_infos(result.infos),
        )

    def _vector_infos(self, env_infos: list[dict[str, Any]]) -> dict[str, Any]:
        infos: dict[str, Any] = {}
        add_info = self._add_info
        for index, info in enumerate(env_infos):
            if not info:
                continue
            if FINAL_OBSERVATION in info:
                final_info = info.get(FINAL_INFO, {})
                infos = add_info(
                    infos, {"final_obs": info[FINAL_OBSERVATION], "final_info": final_info}, index
                )
                # What Gymnasium's same-step mode reports at the top level for a
                # reset sub-env: the reset's info, plus keys that wrappers added
                # after the autoreset (e.g. episode statistics).
                current = dict(info.get(RESET_INFO, {}))
                for key, value in info.items():
                    if key not in _AUTORESET_KEYS and key not in final_info:
                        current[key] = value
                info = current
                if not info:
                    continue
            infos = add_info(infos, info, index)
        return infos

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call ``name`` on every sub-env (or read it, when not callable)."""
        return tuple(self.sekai_vec_env.call(name, *args, **kwargs))

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """Read attribute ``name`` of every sub-env."""
        return tuple(self.sekai_vec_env.get_attr(name))

    def set_attr(self, name: str, values: list[Any] | tuple[Any, ...] | Any) -> None:
        """Set attribute ``name`` of every sub-env (one value each, or one for all)."""
        if isinstance(values, tuple):
            values = list(values)
        self.sekai_vec_env.set_attr(name, values)

    def close_extras(self, **kwargs: Any) -> None:
        """Close the sekai VecEnv."""
        self.sekai_vec_env.close()
