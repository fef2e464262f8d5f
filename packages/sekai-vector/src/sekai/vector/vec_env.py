"""The :class:`VecEnv` base class shared by every vectorisation backend."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Generic

from sekai.core import ActType, ObsType
from sekai.core._async_routing import route_async_methods
from sekai.spaces import Space, batch_space

if TYPE_CHECKING:
    from types import TracebackType

    from sekai.registry import EnvSpec
    from sekai.utils.seeding import SeedType
    from sekai.vector.results import VecResetResult, VecStepResult

__all__ = ["VecEnv"]


class VecEnv(ABC, Generic[ObsType, ActType]):
    """Base class of vectorised environments: ``num_envs`` environments stepped as one.

    ``observation_space`` and ``action_space`` are the spaces of one sub-env;
    :attr:`batch_observation_space` and :attr:`batch_action_space` are the
    spaces of a batch (a leading ``num_envs`` axis, see
    :func:`~sekai.spaces.batch_space`). :meth:`step` and :meth:`reset` return
    :class:`~sekai.vector.VecStepResult` / :class:`~sekai.vector.VecResetResult`
    with float64 rewards, bool flags and a list of per-env info dicts.

    Autoreset (the default): a sub-env whose episode ends is reset inside the
    same :meth:`step`. Its row of the returned batch is then the first
    observation of its new episode, and its info holds the step's info keys
    plus ``"final_observation"`` (the terminal observation), ``"final_info"``
    (the step's info) and ``"reset_info"`` (the reset's info), as the
    ``AutoReset`` wrapper does for a single env.

    Without autoreset, a sub-env that finishes is frozen until the next
    :meth:`reset`: it is not stepped again and its action is ignored; every
    later step reports its final observation, reward 0, its final
    ``terminated`` / ``truncated`` flags (so it stays done) and an empty info.
    A sub-env that resets itself (its info carries ``"final_observation"``,
    e.g. because it is wrapped in ``AutoReset``) keeps running and is not
    frozen.

    Every vector env has :meth:`async_step` / :meth:`async_reset`. By default
    they run :meth:`step` / :meth:`reset`; :class:`~sekai.vector.AsyncVecEnv`
    runs its sub-envs concurrently. As for :class:`~sekai.core.Env`, a subclass
    that overrides ``step`` (or ``reset``) but not its async form gets an async
    method that runs its override, decided once when the class is created.

    A vector env is a context manager that closes itself on exit; using it
    after :meth:`close` raises :class:`~sekai.error.VecEnvClosed`.

    Attributes:
        num_envs: Number of sub-environments.
        observation_space: The space of one sub-env's observation.
        action_space: The space of one sub-env's action.
        metadata: Free-form description (render modes, ...).
        spec: The :class:`~sekai.registry.EnvSpec` of the sub-envs when
            :func:`sekai.registry.make_vec` built this vector env, else ``None``.
    """

    metadata: dict[str, Any] = {}  # noqa: RUF012 - replaced, never mutated, by instances
    spec: EnvSpec | None = None

    num_envs: int
    observation_space: Space[Any]
    action_space: Space[Any]

    _batch_obs_cache: tuple[Space[Any], int, Space[Any]] | None = None
    _batch_act_cache: tuple[Space[Any], int, Space[Any]] | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        route_async_methods(cls)

    # -- spaces -----------------------------------------------------------------

    @property
    def batch_observation_space(self) -> Space[Any]:
        """The space of a batch of observations, with a leading ``num_envs`` axis.

        Computed from :attr:`observation_space` on first use (and again if
        that space is replaced).

        Raises:
            TypeError: The observation space has no fixed shape (e.g. a
                ``Sequence``), so it cannot be batched.
        """
        space, n = self.observation_space, self.num_envs
        cache = self._batch_obs_cache
        if cache is None or cache[0] is not space or cache[1] != n:
            cache = (space, n, batch_space(space, n))
            self._batch_obs_cache = cache
        return cache[2]

    @property
    def batch_action_space(self) -> Space[Any]:
        """The space of a batch of actions, with a leading ``num_envs`` axis.

        Raises:
            TypeError: The action space has no fixed shape, so it cannot be
                batched.
        """
        space, n = self.action_space, self.num_envs
        cache = self._batch_act_cache
        if cache is None or cache[0] is not space or cache[1] != n:
            cache = (space, n, batch_space(space, n))
            self._batch_act_cache = cache
        return cache[2]

    # -- the env API --------------------------------------------------------------

    @abstractmethod
    def step(self, actions: Any) -> VecStepResult[Any]:
        """Step every sub-env with its action from a batch.

        Args:
            actions: A batch of actions: an array of shape
                ``(num_envs, *action_space.shape)`` for array spaces, a dict /
                tuple of such batches for Dict / Tuple spaces, otherwise a
                sequence of ``num_envs`` actions.

        Returns:
            The batched observations, rewards, flags and per-env infos.

        Raises:
            ValueError: The batch has the wrong length or shape (nothing is
                stepped); the message names the expected batch shape. A
                float batch for a Discrete, MultiDiscrete or MultiBinary
                action space raises :class:`~sekai.error.InvalidAction` (a
                ValueError) on the backends that run sub-env objects.
            ResetRequired: :meth:`reset` was never called.
            VecEnvClosed: The vector env is closed.
        """

    @abstractmethod
    def reset(
        self,
        *,
        seed: list[SeedType] | SeedType = None,
        options: list[dict[str, Any] | None] | dict[str, Any] | None = None,
    ) -> VecResetResult[Any]:
        """Reset every sub-env and return the first observations.

        Args:
            seed: An int derives one independent seed per sub-env (with
                :func:`~sekai.utils.seeding.make_seed_sequence`, identical on
                every backend); a list gives each sub-env its own seed (an
                int, a Generator or ``None``); ``None`` continues each
                sub-env's random stream.
            options: One dict given to every sub-env, or a list with one dict
                (or ``None``) per sub-env.

        Raises:
            TypeError: ``seed`` is a single Generator, or of another type.
            ValueError: A list has the wrong length, or an int seed is negative.
            VecEnvClosed: The vector env is closed.
        """

    @abstractmethod
    def close(self) -> None:
        """Close every sub-env and release the backend's resources.

        Every sub-env is closed even when closing another raises; the first
        such error is re-raised once everything is released. Closing twice
        is harmless.
        """

    async def async_step(self, actions: Any) -> VecStepResult[Any]:
        """Async form of :meth:`step`; the default runs :meth:`step`."""
        return self.step(actions)

    async def async_reset(
        self,
        *,
        seed: list[SeedType] | SeedType = None,
        options: list[dict[str, Any] | None] | dict[str, Any] | None = None,
    ) -> VecResetResult[Any]:
        """Async form of :meth:`reset`; the default runs :meth:`reset`."""
        return self.reset(seed=seed, options=options)

    # -- sub-env attributes -----------------------------------------------------------

    def call(self, method: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call ``method`` on every sub-env and return the ``num_envs`` results.

        When the name is not callable, its value is returned instead (so
        ``call`` also reads attributes). Like :meth:`get_attr`, the name is
        looked up through each sub-env's wrapper stack.
        """
        raise NotImplementedError(f"{type(self).__name__} does not implement call()")

    def get_attr(self, name: str) -> list[Any]:
        """Read attribute ``name`` of every sub-env, searching its wrapper stack.

        The outermost layer of each sub-env that defines ``name`` answers (as
        with :meth:`Wrapper.get_attr <sekai.core.Wrapper.get_attr>`).

        Raises:
            AttributeError: A sub-env has no such attribute.
        """
        raise NotImplementedError(f"{type(self).__name__} does not implement get_attr()")

    def set_attr(self, name: str, values: list[Any] | Any) -> None:
        """Set attribute ``name`` on every sub-env.

        Args:
            name: The attribute. It is set on the outermost layer of each
                sub-env's wrapper stack that has it (as with
                :meth:`Wrapper.set_attr <sekai.core.Wrapper.set_attr>`).
            values: A list of ``num_envs`` values (one per sub-env), or any
                other object, given to every sub-env.

        Raises:
            ValueError: ``values`` is a list of the wrong length.
            AttributeError: A sub-env has no such attribute.
        """
        raise NotImplementedError(f"{type(self).__name__} does not implement set_attr()")

    # -- misc ---------------------------------------------------------------------------

    @property
    def unwrapped(self) -> VecEnv[Any, Any]:
        """The innermost vector env under any :class:`~sekai.vector.VecWrapper`."""
        return self

    def __enter__(self) -> VecEnv[ObsType, ActType]:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        spec = self.spec
        name = f"<{spec.id}>" if spec is not None else ""
        return f"{type(self).__name__}{name}(num_envs={getattr(self, 'num_envs', '?')})"
