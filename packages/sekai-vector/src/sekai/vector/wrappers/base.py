"""Base classes of vector wrappers: layers around a whole [`VecEnv`][sekai.vector.VecEnv]."""

from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING, Any, Generic

import numpy as np
from numpy.typing import NDArray

from sekai.core import ActType, InfoDict, ObsType, WActType, WObsType
from sekai.error import InvalidObservation
from sekai.utils.seeding import SeedType
from sekai.vector._arguments import NOT_GIVEN, actions_argument
from sekai.vector._autoreset import FINAL_OBSERVATION
from sekai.vector._rows import batch_of_one, get_row
from sekai.vector.results import VecResetResult, VecStepResult, step_result_like
from sekai.vector.vec_env import VecEnv

if TYPE_CHECKING:
    from sekai.registry import EnvSpec
    from sekai.spaces import Space

__all__ = ["VecActionWrapper", "VecObservationWrapper", "VecRewardWrapper", "VecWrapper"]

# ActType, ObsType, SeedType, WActType and WObsType are also read from here by
# sekai 0.2's path ``sekai.vector.vec_wrapper`` (see sekai.vector._old_paths).


class VecWrapper(VecEnv[WObsType, WActType], Generic[WObsType, WActType, ObsType, ActType]):
    """A transparent layer around a vector env (`venv`).

    Everything is forwarded unless a subclass overrides it: ``step``,
    ``reset``, their async forms (so wrapping an
    [`AsyncVecEnv`][sekai.vector.AsyncVecEnv] keeps ``await vec.async_step(...)``
    concurrent), ``close``, ``call`` / ``get_attr`` / ``set_attr`` (which
    reach the sub-envs), and reads of public attributes the wrapper does not
    define. ``observation_space`` and ``action_space`` (always the spaces of
    one sub-env) read through to the wrapped vector env until the wrapper
    assigns its own; ``metadata`` and ``spec`` do the same.

    Write a wrapper once for both APIs by overriding the hooks that ``step``,
    ``reset`` and their async forms all run: ``_before_step(actions)``
    (the batch to pass on), ``_after_step(result)`` and
    ``_after_reset(result)`` (what to return). A subclass that overrides
    ``step`` (or ``reset``) itself without its async form gets an async
    method that runs the override (see [`VecEnv`][sekai.vector.VecEnv]). The
    `frozen` sub-envs of the wrapped vector env (autoreset off) are
    visible to the hooks, so a wrapper does not have to infer them.

    Args:
        venv: The vector env to wrap.

    Raises:
        TypeError: ``venv`` is not a [`VecEnv`][sekai.vector.VecEnv].
    """

    def __init__(self, venv: VecEnv[ObsType, ActType]) -> None:
        if not isinstance(venv, VecEnv):
            raise TypeError(
                f"{type(self).__name__} expects a sekai.vector.VecEnv to wrap, got {venv!r}"
            )
        self.venv: VecEnv[ObsType, ActType] = venv
        self.num_envs = venv.num_envs
        self._observation_space: Space[Any] | None = None
        self._action_space: Space[Any] | None = None
        self._metadata: dict[str, Any] | None = None
        self._spec: EnvSpec | None = None

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails on the wrapper itself.
        if name.startswith("_"):
            raise AttributeError(
                f"{type(self).__name__!r} object has no attribute {name!r} "
                "(private attributes are not forwarded to the wrapped vector env)"
            )
        venv = self.__dict__.get("venv")
        if venv is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(venv, name)

    # -- spaces, metadata, spec -------------------------------------------------------

    @property
    def observation_space(self) -> Space[Any]:
        """This wrapper's single-env observation space, else the wrapped env's."""
        if self._observation_space is None:
            return self.venv.observation_space
        return self._observation_space

    @observation_space.setter
    def observation_space(self, space: Space[Any]) -> None:
        self._observation_space = space

    @property
    def action_space(self) -> Space[Any]:
        """This wrapper's single-env action space, else the wrapped env's."""
        if self._action_space is None:
            return self.venv.action_space
        return self._action_space

    @action_space.setter
    def action_space(self, space: Space[Any]) -> None:
        self._action_space = space

    @property
    def metadata(self) -> dict[str, Any]:
        """This wrapper's metadata if assigned, else the wrapped env's."""
        if self._metadata is None:
            return self.venv.metadata
        return self._metadata

    @metadata.setter
    def metadata(self, value: dict[str, Any]) -> None:
        self._metadata = value

    @property
    def spec(self) -> EnvSpec | None:
        """The spec assigned to this wrapper, else the wrapped env's."""
        if self._spec is None:
            return self.venv.spec
        return self._spec

    @spec.setter
    def spec(self, value: EnvSpec | None) -> None:
        self._spec = value

    @property
    def autoreset(self) -> bool:  # type: ignore[override]  # read through, never stored
        """Whether the wrapped vector env resets finished sub-envs within the step."""
        return self.venv.autoreset

    @property
    def closed(self) -> bool:
        """Whether the wrapped vector env is closed."""
        return self.venv.closed

    @closed.setter
    def closed(self, value: bool) -> None:
        self.venv.closed = value

    # -- the env API ------------------------------------------------------------------------
    #
    # step / reset and their async forms run the same three hooks, so a wrapper
    # that overrides only the hooks behaves the same under ``await``.

    def _before_step(self, actions: Any) -> Any:
        """Hook: the batch of actions to pass to the wrapped vector env (default: as given)."""
        return actions

    def _after_step(self, result: VecStepResult[Any]) -> VecStepResult[Any]:
        """Hook: what to return for the wrapped vector env's step result (default: it).

        ``result`` may be a partial batch (from `recv`): its rows are
        the sub-envs ``result.env_ids`` (``None``: every sub-env in order).
        """
        return result

    def _after_reset(self, result: VecResetResult[Any]) -> VecResetResult[Any]:
        """Hook: what to return for the wrapped vector env's reset result (default: it)."""
        return result

    def step(self, actions: Any) -> VecStepResult[Any]:
        """Step the wrapped vector env (through the wrapper's hooks)."""
        return self._after_step(self.venv.step(self._before_step(actions)))

    def reset(
        self,
        *,
        seed: list[SeedType] | SeedType = None,
        options: list[dict[str, Any] | None] | dict[str, Any] | None = None,
    ) -> VecResetResult[Any]:
        """Reset the wrapped vector env (through the wrapper's hook)."""
        return self._after_reset(self.venv.reset(seed=seed, options=options))

    async def async_step(
        self, actions: Any = NOT_GIVEN, *, action: Any = NOT_GIVEN
    ) -> VecStepResult[Any]:
        """Step the wrapped vector env through its async method (and the wrapper's hooks).

        ``action`` is another name of ``actions``, as on `VecEnv.async_step`.
        """
        if action is not NOT_GIVEN or actions is NOT_GIVEN:
            actions = actions_argument(actions, action, "async_step")
        return self._after_step(await self.venv.async_step(self._before_step(actions)))

    async def async_reset(
        self,
        *,
        seed: list[SeedType] | SeedType = None,
        options: list[dict[str, Any] | None] | dict[str, Any] | None = None,
    ) -> VecResetResult[Any]:
        """Reset the wrapped vector env through its async method (and the wrapper's hook)."""
        return self._after_reset(await self.venv.async_reset(seed=seed, options=options))

    @property
    def batch_size(self) -> int:
        """How many sub-envs `recv` hands back: the wrapped vector env's."""
        return self.venv.batch_size

    def send(self, actions: Any, env_ids: Any = None) -> None:
        """Send actions to some sub-envs of the wrapped vector env (through the action hook).

        The hooks see partial batches: a batch with ``len(env_ids)`` rows
        here, and results whose `env_ids`
        say which sub-envs their rows are.
        """
        self.venv.send(self._before_step(actions), env_ids)

    def recv(self) -> VecStepResult[Any]:
        """Receive a (partial) batch from the wrapped vector env (through the step hook)."""
        return self._after_step(self.venv.recv())

    async def async_recv(self) -> VecStepResult[Any]:
        """Async form of `recv`, through the wrapped vector env's ``async_recv``."""
        return self._after_step(await self.venv.async_recv())

    @property
    def frozen(self) -> NDArray[np.bool_]:
        """Which sub-envs of the wrapped vector env are frozen (read-only bool array)."""
        return self.venv.frozen

    def close(self) -> None:
        """Close the wrapped vector env."""
        self.venv.close()

    def call(self, method: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call ``method`` on every sub-env of the wrapped vector env."""
        return self.venv.call(method, *args, **kwargs)

    def get_attr(self, name: str) -> list[Any]:
        """Read ``name`` from every sub-env of the wrapped vector env."""
        return self.venv.get_attr(name)

    def set_attr(self, name: str, values: list[Any] | Any) -> None:
        """Set ``name`` on every sub-env of the wrapped vector env."""
        self.venv.set_attr(name, values)

    @property
    def unwrapped(self) -> VecEnv[Any, Any]:
        """The vector env underneath every wrapper."""
        return self.venv.unwrapped

    def __repr__(self) -> str:
        return f"<{type(self).__name__}{self.venv!r}>"


class VecObservationWrapper(
    VecWrapper[WObsType, ActType, ObsType, ActType], Generic[WObsType, ActType, ObsType]
):
    """A vector wrapper that transforms every batch of observations with `observation`.

    The terminal observations that autoreset stores in
    ``infos[i]["final_observation"]`` are transformed as well, one by one
    with `final_observation`, so a value function bootstrapping from
    them sees what the policy sees. Those infos are copied, not modified.
    Assign ``self.observation_space`` (the single-env space) in ``__init__``
    when the transformation changes it.
    """

    @abstractmethod
    def observation(self, obs: Any) -> Any:
        """Transform a batch of observations (leading ``num_envs`` axis)."""

    def final_observation(self, obs: Any) -> Any:
        """Transform one sub-env's terminal observation (from an autoreset info).

        The default runs `observation` on a batch of one and returns its
        only row. Override it when the transformation does not work on a
        batch of one, or has side effects (updating statistics, ...) that
        terminal observations should not cause.
        """
        # The spaces matter for registered space types, whose batches may be any object.
        batch = self.observation(batch_of_one(obs, self.venv.observation_space))
        return get_row(batch, 0, self.observation_space)

    def _final_infos(self, result: VecStepResult[Any]) -> list[InfoDict] | None:
        """The infos with transformed final observations; ``None`` when no sub-env is done.

        The infos are only read when a sub-env is done, so a native env's
        deferred infos stay deferred on the other steps.
        """
        done = np.logical_or(result.terminated, result.truncated)
        if not done.any():
            return None
        infos = list(result.infos)
        finished = [i for i in np.flatnonzero(done).tolist() if FINAL_OBSERVATION in infos[i]]
        if not finished:
            return infos
        finals = self._final_observations([infos[i][FINAL_OBSERVATION] for i in finished])
        for i, final in zip(finished, finals, strict=True):
            info = dict(infos[i])
            info[FINAL_OBSERVATION] = final
            infos[i] = info
        return infos

    def _final_observations(self, finals: list[Any]) -> list[Any]:
        """Transform the terminal observations of one step, each with `final_observation`.

        A subclass whose transformation treats rows independently may do
        them as one batch here.
        """
        return [self.final_observation(obs) for obs in finals]

    def _after_step(self, result: VecStepResult[Any]) -> VecStepResult[Any]:
        observations = self.observation(result.observations)
        return step_result_like(result, observations, result.rewards, self._final_infos(result))

    def _after_reset(self, result: VecResetResult[Any]) -> VecResetResult[Any]:
        return VecResetResult(self.observation(result.observations), result.infos)


class VecRewardWrapper(VecWrapper[ObsType, ActType, ObsType, ActType], Generic[ObsType, ActType]):
    """A vector wrapper that transforms every batch of rewards with `reward`."""

    @abstractmethod
    def reward(self, rewards: Any) -> Any:
        """Transform a float64 array of rewards, one per row of the batch.

        The result is converted to float64 and must keep the shape of its
        input (else `step` raises [`InvalidObservation`][sekai.error.InvalidObservation],
        a ``ValueError``).
        """

    def _after_step(self, result: VecStepResult[Any]) -> VecStepResult[Any]:
        rewards = np.asarray(self.reward(result.rewards), dtype=np.float64)
        if rewards.shape != result.rewards.shape:
            raise InvalidObservation(
                f"{type(self).__name__}.reward must return one reward per sub-env, shape "
                f"{result.rewards.shape}, got shape {rewards.shape}: {rewards!r}"
            )
        return step_result_like(result, result.observations, rewards)


class VecActionWrapper(
    VecWrapper[ObsType, WActType, ObsType, ActType], Generic[ObsType, WActType, ActType]
):
    """A vector wrapper that transforms every batch of actions with `action`.

    A subclass implements `action` (sekai 0.2's name) or, equivalently,
    `actions`: whichever it defines is the hook, and the other name
    calls it. Assign ``self.action_space`` (the single-env space of the
    actions the wrapper accepts) in ``__init__`` when it differs from the
    wrapped env's.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # A subclass that defines only ``actions`` gets it as ``action`` too (the
        # same function, so the step path has no extra call), which also makes
        # the class concrete. Decided once, when the class is created.
        own = cls.actions
        if own is not VecActionWrapper.actions and cls.action is VecActionWrapper.action:
            cls.action = own  # type: ignore[method-assign]
        super().__init_subclass__(**kwargs)

    @abstractmethod
    def action(self, actions: Any) -> Any:
        """Turn a batch of this wrapper's actions into a batch for the wrapped env."""

    def actions(self, actions: Any) -> Any:
        """The same as `action` (the hook's other name)."""
        return self.action(actions)

    def _before_step(self, actions: Any) -> Any:
        return self.action(actions)
