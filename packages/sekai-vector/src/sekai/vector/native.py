"""NativeVecEnv: the base of vector envs that simulate every sub-env at once."""

from __future__ import annotations

import numbers
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, ClassVar, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai.core import ActType, InfoDict, ObsType
from sekai.error import InvalidArgument, InvalidObservation
from sekai.spaces import Box, Discrete, MultiBinary, MultiDiscrete, Space
from sekai.utils.seeding import SeededRNG, SeedType, np_random
from sekai.vector._actions import make_action_checker
from sekai.vector._arguments import GENERATOR_SEED_ERROR, check_num_envs
from sekai.vector._autoreset import FINAL_INFO, FINAL_OBSERVATION, RESET_INFO, rewards_array
from sekai.vector._info_arrays import info_dicts, snapshot_info_arrays
from sekai.vector._lifecycle import HookedVecEnv
from sekai.vector._obs_batch import make_batch_check
from sekai.vector._rows import copy_batch, get_row, put_rows, stack_values, take_rows
from sekai.vector.results import VecResetResult, VecStepResult, deferred_step_result

__all__ = [  # noqa: RUF022 (grouped by topic)
    "InfoArrays",
    "NativeVecEnv",
    "shared",
    # sekai 0.2's helpers of this module, kept under their names
    "GENERATOR_SEED_ERROR",
    "split_infos",
    "take_index",
]

# sekai 0.2 code also imports SeedType from this module.


def split_infos(infos: Mapping[str, Any], n: int) -> list[InfoDict]:
    """One info dict per sub-env from info arrays with a leading axis of ``n`` entries.

    One-dimensional numeric arrays give Python scalars, other arrays their
    rows (sekai 0.2's helper of this module).

    Raises:
        ValueError: An array's leading axis does not have ``n`` entries.
    """
    return info_dicts(infos, n)


def take_index(space: Space[Any] | None, batch: Any, index: int) -> Any:
    """Sub-env ``index``'s entry of a ``batch`` of elements of ``space`` (a view for arrays).

    ``space`` is the space of one sub-env's element (``None`` reads dicts,
    tuples and arrays leaf by leaf); a registered space type needs it, as
    only its ``iterate`` knows how to read its rows (sekai 0.2's helper of
    this module).
    """
    return get_row(batch, index, space)


InfoArrays = Mapping[str, Any]
"""Infos of a native vector env: each key maps to an array with a leading ``num_envs`` axis."""

_F = TypeVar("_F", bound=Callable[..., Any])

_SHARED_MARK = "__sekai_shared__"


class _SharedProperty(property):
    """A property whose value is the same for every sub-env (see `shared`)."""

    __sekai_shared__ = True


def shared(member: _F) -> _F:
    """Mark a method or property of a `NativeVecEnv` as shared by every sub-env.

    `NativeVecEnv.get_attr` and `NativeVecEnv.call` split an
    array result whose leading axis has ``num_envs`` entries into one entry
    per sub-env. A value marked ``shared`` is instead given whole to every
    sub-env, which matters when its leading axis only happens to have
    ``num_envs`` entries (a schedule of ``n_steps`` rows with
    ``n_steps == num_envs``, ...).

    Works on methods and on property getters, either below ``@property``
    (``@property`` then ``@shared``) or above it.

    Examples:
        >>> class Market(NativeVecEnv):  # doctest: +SKIP
        ...     @shared
        ...     def schedule(self) -> np.ndarray: ...
        ...
        ...     @property
        ...     @shared
        ...     def tick_sizes(self) -> np.ndarray: ...
    """
    candidate: object = member
    if isinstance(candidate, property):
        marked: Any = _SharedProperty(
            candidate.fget, candidate.fset, candidate.fdel, candidate.__doc__
        )
        return marked  # type: ignore[no-any-return]
    target = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
    setattr(target, _SHARED_MARK, True)
    return member


_NUMERIC_ACTION_SPACES = (Box, Discrete, MultiDiscrete, MultiBinary)

_Resets = tuple[NDArray[np.intp], Any, Mapping[str, Any]]


def _build_infos(
    count: int,
    arrays: Mapping[str, Any],
    elapsed: NDArray[np.int64] | None,
    cleared: NDArray[np.intp] | None,
    resets: _Resets | None,
) -> list[InfoDict]:
    """A step's info dicts, from the snapshot `NativeVecEnv.step` took.

    Args:
        count: Number of sub-envs.
        arrays: The checked info arrays of `NativeVecEnv._step`.
        elapsed: ``elapsed_steps`` per sub-env, under a time limit.
        cleared: Frozen sub-envs, whose info is empty.
        resets: ``(indices, final observations, reset info arrays)`` of the
            sub-envs that autoreset.
    """
    extra = None if elapsed is None else ("elapsed_steps", elapsed.tolist())
    infos = info_dicts(arrays, count, extra)
    if cleared is not None:
        for i in cleared.tolist():
            infos[i] = {}
    if resets is not None:
        indices, finals, reset_arrays = resets
        reset_infos = info_dicts(reset_arrays, len(indices))
        for i, final, reset_info in zip(indices.tolist(), finals, reset_infos, strict=True):
            info = infos[i]
            infos[i] = {
                **info,
                FINAL_OBSERVATION: final,
                FINAL_INFO: info,
                RESET_INFO: reset_info,
            }
    return infos


class NativeVecEnv(HookedVecEnv[ObsType, ActType], SeededRNG):
    """Base class of vector envs that keep every sub-env's state in arrays.

    Where [`SyncVecEnv`][sekai.vector.SyncVecEnv] steps ``num_envs`` Python objects
    one by one, a native vector env holds the state of all of them in arrays
    with a leading ``num_envs`` axis and advances them with one set of array
    operations, often 10-100x faster for simulators that vectorise (most
    market models do). Register one with ``sekai.register(...,
    vector_entry_point=...)`` and [`sekai.registry.make_vec`][sekai.registry.make_vec] uses it.

    A subclass implements four hooks; the public methods own the ordering,
    autoreset, time limit, frozen sub-envs and errors:

    * `_reset_envs` ``(indices, options)``: (re)initialise the sub-envs
      in ``indices`` (an int array), with one options dict (or ``None``) each.
    * `_observe` ``()``: the batch of observations of every sub-env, in
      a new array (or dict / tuple of new arrays) that the env does not
      modify later.
    * `_step` ``(actions)``: advance every sub-env and return
      ``(rewards, terminated, truncated, infos)``: three arrays of shape
      ``(num_envs,)`` and a mapping from info keys to arrays with a leading
      ``num_envs`` axis.
    * `_reset_infos` ``(indices)`` (optional): info arrays for the
      sub-envs just reset, one row per entry of ``indices``.

    Seeding: each sub-env has its own generator, ``rngs[i]`` (see
    `rngs`), seeded exactly as the sub-envs of the other backends:
    ``reset(seed=int)`` derives one seed per sub-env with
    [`make_seed_sequence`][sekai.utils.seeding.make_seed_sequence] and seeds ``rngs[i]``
    from seed ``i`` as ``Env.reset(seed=...)`` would; a list of ``num_envs``
    seeds gives sub-env ``i`` entry ``i`` (an int re-seeds, a Generator is
    adopted as is, ``None`` continues the stream); ``seed=None`` continues
    every stream; a single Generator raises `TypeError`. Autoreset
    continues the stream of the sub-env it resets. A subclass that draws
    sub-env ``i``'s randomness from ``rngs[i]``, in the order the single env
    draws it, therefore gives the same trajectories as ``SyncVecEnv``,
    ``AsyncVecEnv`` and ``ProcVecEnv`` over the single env for the same
    seed and actions. Randomness drawn during steps costs one call per
    sub-env; a model that allows it draws what an episode needs at its reset
    instead (both in the single env and here). `rng` is a separate
    generator shared by the whole batch, for randomness that belongs to no
    single sub-env (and for subclasses written for sekai 0.2); it follows its
    0.2 rule (an int re-seeds it, a list's ints are combined into one seed)
    and a native env that draws from it matches the other backends in
    distribution only. Options follow the usual rule: one dict for all, or
    a list with one per sub-env.

    Autoreset is same-step, as for every [`VecEnv`][sekai.vector.VecEnv]:
    finished sub-envs are passed to `_reset_envs` (with ``None``
    options) within the step, and their infos carry ``"final_observation"``,
    ``"final_info"`` and ``"reset_info"``. With ``autoreset=False`` a
    finished sub-env is frozen until `reset`: the step reports its final
    observation, reward 0, its final flags and an empty info whatever
    `_step` computes for it. `_step` still advances every
    sub-env; when actions are numeric arrays, a frozen sub-env's row holds its
    last action again, and `frozen` says which sub-envs are frozen, so
    a simulation that must not run past its data (or that should keep a
    finished sub-env's state for `get_attr`) leaves them alone.

    With ``max_episode_steps=n``, a sub-env is truncated on its ``n``-th step
    (unless it terminates on it) and every step's infos carry
    ``"elapsed_steps"``, as ``TimeLimit`` does for each sub-env of a
    ``SyncVecEnv``. `elapsed_steps` counts steps with or without a
    limit.

    The info dicts of a step are built the first time ``result.infos`` is
    read, from a snapshot taken during the step (info arrays and
    ``elapsed_steps`` copied, final observations kept), so reading them
    later, even after further steps, gives the same dicts. Thousands of
    sub-envs then cost no per-env dicts in loops that never read them.

    `get_attr` / `call` read this object: an array result with a
    leading ``num_envs`` axis is split per sub-env, anything else (and
    anything from a member marked `shared`) is repeated for every
    sub-env. `set_attr` only changes attributes that exist.

    Args:
        num_envs: Number of sub-envs (>= 1).
        observation_space: The space of one sub-env's observation.
        action_space: The space of one sub-env's action.
        autoreset: Reset finished sub-envs within the step (else freeze them).
        max_episode_steps: Optional time limit per episode (>= 1).

    Raises:
        TypeError: An argument has the wrong type.
        ValueError: ``num_envs`` or ``max_episode_steps`` is below 1.
    """

    def __init__(
        self,
        num_envs: int,
        observation_space: Space[ObsType],
        action_space: Space[ActType],
        *,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
    ) -> None:
        owner = type(self).__name__
        self.num_envs = check_num_envs(num_envs, owner)
        for name, space in (
            ("observation_space", observation_space),
            ("action_space", action_space),
        ):
            if not isinstance(space, Space):
                raise TypeError(f"{owner}: {name} must be a sekai.spaces.Space, got {space!r}")
        if not isinstance(autoreset, bool):
            raise TypeError(f"{owner}: autoreset must be a bool, got {autoreset!r}")
        self.observation_space = observation_space
        self.action_space = action_space
        self.autoreset = autoreset
        self._limit: int | NDArray[np.int64] | None = self._checked_limit(max_episode_steps)
        # Steps that cannot reach the time limit, so need no check (autoreset only).
        self._unchecked_steps = 0
        # Shapes only: a native env validates the values of its actions itself.
        self._check_actions = make_action_checker(action_space, self.num_envs, integer_dtypes=False)
        self._numeric_actions = isinstance(action_space, _NUMERIC_ACTION_SPACES)
        self._check_batch = make_batch_check(observation_space, self.num_envs)
        # Replaced, never changed in place: a step's infos keep the array of their step.
        self._elapsed: NDArray[np.int64] = np.zeros(self.num_envs, dtype=np.int64)
        self._ones: NDArray[np.int64] = np.ones(self.num_envs, dtype=np.int64)
        self._batch_shape = (self.num_envs,)
        self._frozen: NDArray[np.bool_] = np.zeros(self.num_envs, dtype=bool)
        self._frozen_view: NDArray[np.bool_] = self._frozen.view()
        self._frozen_view.flags.writeable = False
        self._any_frozen = False
        self._final_obs: Any = None
        self._final_terminated: NDArray[np.bool_] = np.zeros(self.num_envs, dtype=bool)
        self._final_truncated: NDArray[np.bool_] = np.zeros(self.num_envs, dtype=bool)
        self._last_actions: Any = None
        self._no_options: list[dict[str, Any] | None] = [None] * self.num_envs
        self._needs_reset = True
        self._closed = False

    # -- hooks ------------------------------------------------------------------------------

    @abstractmethod
    def _reset_envs(
        self, indices: NDArray[np.intp], options: Sequence[dict[str, Any] | None]
    ) -> None:
        """(Re)initialise the sub-envs in ``indices``.

        Args:
            indices: Sorted indices of the sub-envs to reset.
            options: One options dict (or ``None``) per entry of ``indices``.
        """

    @abstractmethod
    def _observe(self) -> Any:
        """The batch of observations of every sub-env, in newly allocated arrays."""

    @abstractmethod
    def _step(self, actions: Any) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], InfoArrays]:
        """Advance every sub-env by one step.

        Args:
            actions: The checked batch of actions (numpy arrays for array
                spaces); frozen sub-envs get their last action again.

        Returns:
            ``(rewards, terminated, truncated, infos)``: arrays of shape
            ``(num_envs,)`` and a mapping of info arrays with a leading
            ``num_envs`` axis (may be empty). `step` copies all of
            them before it returns, so the env may reuse these arrays.
        """

    def _reset_infos(self, indices: NDArray[np.intp]) -> InfoArrays:
        """Info arrays for the sub-envs just reset, one row per entry of ``indices``.

        The default has no infos.
        """
        return {}

    # -- state ------------------------------------------------------------------------------

    @property
    def frozen(self) -> NDArray[np.bool_]:
        """Read-only bool array: which sub-envs are frozen (only with ``autoreset=False``)."""
        return self._frozen_view

    @property
    def max_episode_steps(self) -> int | NDArray[np.int64] | None:
        """The time limit: steps per episode, or ``None`` for no limit.

        Assignable, directly or with `set_attr` (e.g. to lengthen
        episodes during training): an int >= 1 or ``None`` for every sub-env,
        or one int >= 1 per sub-env (a list or array of ``num_envs``, stored as
        an int64 array, read-only: assign a new value rather than writing
        into it). It applies from the next step on: a sub-env that has already
        run the new limit is truncated on its next step.

        Raises:
            TypeError: The new value is not an int, ``None`` or ints per sub-env.
            ValueError: A limit is below 1, or there is not one per sub-env.
        """
        return self._limit

    @max_episode_steps.setter
    def max_episode_steps(self, value: Any) -> None:
        self._limit = self._checked_limit(value)
        self._unchecked_steps = 0

    def _checked_limit(self, value: Any) -> int | NDArray[np.int64] | None:
        owner = type(self).__name__
        expected = f"an int >= 1, None or {self.num_envs} ints >= 1 (one per sub-env)"
        if value is None:
            return None
        if isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{owner}: max_episode_steps must be {expected}, got {value!r}")
        if isinstance(value, numbers.Integral):
            if value < 1:
                raise ValueError(f"{owner}: max_episode_steps must be {expected}, got {value!r}")
            return int(value)
        if isinstance(value, (list, tuple, np.ndarray)):
            array = np.asarray(value)
            if array.dtype.kind not in "iu":
                raise TypeError(f"{owner}: max_episode_steps must be {expected}, got {value!r}")
            if array.shape != (self.num_envs,) or (array.size and array.min() < 1):
                raise ValueError(f"{owner}: max_episode_steps must be {expected}, got {value!r}")
            limits: NDArray[np.int64] = array.astype(np.int64)
            # Read-only: a change goes through the setter, which checks it and
            # tells the step that the limit moved (an edit in place would do neither).
            limits.flags.writeable = False
            return limits
        raise TypeError(f"{owner}: max_episode_steps must be {expected}, got {value!r}")

    @property
    def elapsed_steps(self) -> NDArray[np.int64]:
        """Steps each sub-env has taken in its current episode (a copy)."""
        copy: NDArray[np.int64] = self._elapsed.copy()
        return copy

    # -- seeding ----------------------------------------------------------------------------

    _rngs: tuple[np.random.Generator, ...] | None = None  # see rngs; created on first use

    @property
    def rngs(self) -> tuple[np.random.Generator, ...]:
        """The sub-envs' own generators: ``rngs[i]`` is sub-env ``i``'s random stream.

        A tuple of ``num_envs`` generators, seeded as the sub-envs of every
        other backend are (see the class docstring). Draw everything random
        about sub-env ``i`` from ``rngs[i]``, in the order the single env
        draws it, and the trajectories match those of the other backends
        exactly. Unseeded generators come from OS entropy on first use.
        `reset` with a seed replaces the tuple: read this property
        when drawing rather than keeping an old tuple.
        """
        rngs = self._rngs
        if rngs is None:
            rngs = self._rngs = self._unseeded_rngs()
        return rngs

    def _unseeded_rngs(self) -> tuple[np.random.Generator, ...]:
        children = np.random.SeedSequence().spawn(self.num_envs)  # fresh OS entropy
        return tuple(np.random.Generator(np.random.PCG64(child)) for child in children)

    def _per_env_seeds(self, seed: object) -> list[SeedType]:
        """The per-env seeds of every backend; also seeds the shared `rng` (0.2's rule)."""
        seeds = super()._per_env_seeds(seed)
        # The shared generator keeps the rule of sekai 0.2: an int re-seeds it; a list
        # holding ints is combined into one seed, each other entry contributing a draw
        # from its current stream; a list without ints continues it.
        if isinstance(seed, numbers.Integral):
            self._rng, _ = np_random(int(seed))
        elif any(isinstance(entry, numbers.Integral) for entry in seeds):
            entropy = [
                int(entry) if isinstance(entry, numbers.Integral) else int(self.rng.integers(2**63))
                for entry in seeds
            ]
            self._rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy)))
        return seeds

    def _seed_sub_envs(self, seeds: list[SeedType]) -> None:
        """Apply one seed per sub-env to `rngs`, as ``Env._set_rng`` does for one env."""
        if all(entry is None for entry in seeds):
            return  # every stream continues
        current = self._rngs
        if current is None:
            current = self._unseeded_rngs()
        rngs: list[np.random.Generator] = []
        for i, entry in enumerate(seeds):
            if entry is None:
                rngs.append(current[i])  # continues its stream
            elif isinstance(entry, np.random.Generator):
                rngs.append(entry)  # adopted, as Env._set_rng does
            else:
                rngs.append(np_random(int(entry))[0])  # as Env._set_rng(int) does
        self._rngs = tuple(rngs)

    # -- the env API --------------------------------------------------------------------------

    def _reset_batch(
        self, seeds: list[SeedType], options: list[dict[str, Any] | None]
    ) -> VecResetResult[Any]:
        self._seed_sub_envs(seeds)
        indices = np.arange(self.num_envs, dtype=np.intp)
        self._reset_envs(indices, options)
        self._elapsed = np.zeros(self.num_envs, dtype=np.int64)
        self._unchecked_steps = 0
        self._frozen[:] = False
        self._any_frozen = False
        self._final_obs = None
        self._last_actions = None
        observations = self._observed()
        return VecResetResult(observations, info_dicts(self._reset_infos(indices), self.num_envs))

    def _step_batch(self, actions: Any) -> VecStepResult[Any]:
        """`_step`, the time limit, then autoreset or freezing, on checked actions."""
        n = self.num_envs
        frozen = self._frozen
        any_frozen = self._any_frozen
        if not self.autoreset and self._numeric_actions:
            if any_frozen:
                actions = np.array(actions, copy=True)
                actions[frozen] = self._last_actions[frozen]
            else:
                actions = np.array(actions, copy=True)
            self._last_actions = actions

        raw_rewards, raw_terminated, raw_truncated, info_arrays = self._step(actions)
        if isinstance(raw_rewards, np.ndarray) and raw_rewards.dtype.kind in "fiu":
            rewards = raw_rewards.astype(np.float64)
        elif np.ndim(raw_rewards) == 1:  # a list, or an object or text array: each checked
            rewards = rewards_array(list(raw_rewards))
        else:
            rewards = np.array(raw_rewards, dtype=np.float64)  # the shape check below says
        terminated = np.array(raw_terminated)
        truncated = np.array(raw_truncated)
        if terminated.dtype.kind != "b":
            terminated = self._flags(terminated, "terminated")
        if truncated.dtype.kind != "b":
            truncated = self._flags(truncated, "truncated")
        shape = self._batch_shape
        if rewards.shape != shape or terminated.shape != shape or truncated.shape != shape:
            raise InvalidObservation(
                f"{type(self).__name__}._step must return rewards, terminated and truncated of "
                f"shape ({n},), got shapes {rewards.shape}, {terminated.shape}, {truncated.shape}"
            )
        elapsed = self._elapsed = self._elapsed + (~frozen if any_frozen else self._ones)
        limit = self._limit
        if limit is not None:
            if self._unchecked_steps:
                self._unchecked_steps -= 1
            else:
                at_limit = elapsed >= limit
                if np.count_nonzero(at_limit):
                    truncated |= at_limit & ~terminated
                if self.autoreset:
                    # No sub-env reaches the limit in the next (fewest steps left - 1)
                    # steps: an autoreset only lowers elapsed_steps, and a new limit
                    # or a reset clears this count. (Frozen sub-envs stay at theirs.)
                    self._unchecked_steps = max(0, int((limit - elapsed).min()) - 1)
        observations = self._observed()
        # The info dicts are built only if the caller reads them (see
        # deferred_step_result); everything they need is captured now.
        arrays = snapshot_info_arrays(info_arrays, n) if info_arrays else {}
        elapsed_now = None if limit is None else elapsed  # not changed in place
        dones = terminated | truncated

        if not self.autoreset:
            cleared = None
            if any_frozen:
                observations = take_rows(observations, self._final_obs, frozen)
                rewards[frozen] = 0.0
                terminated[frozen] = self._final_terminated[frozen]
                truncated[frozen] = self._final_truncated[frozen]
                cleared = np.flatnonzero(frozen)
                dones = dones & ~frozen
            if dones.any():
                if self._final_obs is None:
                    self._final_obs = copy_batch(observations)
                else:
                    put_rows(self._final_obs, observations, dones)
                self._final_terminated[dones] = terminated[dones]
                self._final_truncated[dones] = truncated[dones]
                frozen |= dones
                self._any_frozen = True
            build = partial(_build_infos, n, arrays, elapsed_now, cleared, None)
            return deferred_step_result(observations, rewards, terminated, truncated, build)

        resets = None
        if np.count_nonzero(dones):
            indices = dones.nonzero()[0]
            count = len(indices)
            finals: Any
            if isinstance(observations, np.ndarray):
                finals = observations[indices]  # one copy; its rows become the finals
            else:
                finals = [get_row(observations, i) for i in indices.tolist()]
            self._reset_envs(indices, self._no_options[:count])
            elapsed = self._elapsed = elapsed.copy()
            elapsed[indices] = 0
            observations = self._observed()
            resets = (indices, finals, snapshot_info_arrays(self._reset_infos(indices), count))
        build = partial(_build_infos, n, arrays, elapsed_now, None, resets)
        return deferred_step_result(observations, rewards, terminated, truncated, build)

    # A subclass whose _observe always returns a batch of the right layout (the built-in
    # envs, whose tests check it) may skip the check, a fixed cost per step that small
    # batches feel.
    _observe_checked: ClassVar[bool] = True

    def _observed(self) -> Any:
        """`_observe`, checked: one shape comparison per array of the batch."""
        observations = self._observe()
        if self._observe_checked:
            self._check_batch(observations, f"{type(self).__name__}._observe()")
        return observations

    def _flags(self, values: NDArray[Any], name: str) -> NDArray[np.bool_]:
        """Flags that are not bools: 0 and 1 only (the rule of every backend), as bools."""
        if values.dtype.kind in "iuf" and values.shape == (self.num_envs,):
            valid = (values == 0) | (values == 1)
            if valid.all():
                flags: NDArray[np.bool_] = values.astype(np.bool_)
                return flags
            i = int(np.flatnonzero(~valid)[0])
            given = f"{name}[{i}] = {values[i].item()!r}"
        else:
            i, given = -1, f"{name} = {values!r} (dtype {values.dtype})"
        where = f" (sub-env {i})" if i >= 0 else ""
        raise InvalidObservation(
            f"{type(self).__name__}._step returned {given}{where}; a vector env needs True or "
            "False there (bools, or the numbers 0 and 1)"
        )

    def close(self) -> None:
        """Mark the env closed; subclasses that hold resources extend it.

        Raises:
            AsyncCallPending: Another thread is running a call of this
                vector env.
        """
        with self._closing():
            self._closed = True

    # -- attributes ---------------------------------------------------------------------------

    def _is_shared(self, name: str) -> bool:
        for klass in type(self).__mro__:
            if name in klass.__dict__:
                member = klass.__dict__[name]
                if isinstance(member, property) and not isinstance(member, _SharedProperty):
                    member = member.fget
                elif isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                return getattr(member, _SHARED_MARK, False) is True
        return False

    def _per_env(self, value: Any, is_shared: bool) -> list[Any]:
        n = self.num_envs
        if (
            not is_shared
            and isinstance(value, np.ndarray)
            and value.ndim >= 1
            and value.shape[0] == n
        ):
            return list(value.copy())
        return [value] * n

    def get_attr(self, name: str) -> list[Any]:
        """Read ``name`` on this env, split per sub-env (see the class docstring).

        Raises:
            AttributeError: The env has no such attribute.
            VecEnvClosed: The env is closed.
        """
        with self._attribute_call("get_attr"):
            value = getattr(self, name)
            return self._per_env(value, self._is_shared(name))

    def call(self, method: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call ``method`` (or read it, if not callable) and split the result per sub-env.

        Raises:
            AttributeError: The env has no such attribute.
            VecEnvClosed: The env is closed.
        """
        with self._attribute_call("call"):
            value = getattr(self, method)
            if callable(value):
                value = value(*args, **kwargs)
            return self._per_env(value, self._is_shared(method))

    def set_attr(self, name: str, values: list[Any] | Any) -> None:
        """Change an existing attribute; a list of ``num_envs`` values is stored as one array.

        Numbers and equally shaped arrays become a numeric array; values that
        do not stack without changing (ragged arrays, a mix of numbers and
        strings, ...) go into a 1-D object array, each kept as it is, so
        `get_attr` gives them back unchanged.

        Raises:
            AttributeError: The env has no attribute ``name`` (a new attribute
                would have no effect on the simulation).
            InvalidArgument: ``values`` is a list whose length is not
                ``num_envs`` (a ``ValueError``).
            VecEnvClosed: The env is closed.
        """
        with self._attribute_call("set_attr"):
            if not hasattr(self, name):
                raise AttributeError(
                    f"{type(self).__name__} has no attribute {name!r}; set_attr only changes "
                    "existing attributes, since a new one would not affect the simulation"
                )
            if isinstance(values, list):
                if len(values) != self.num_envs:
                    raise InvalidArgument(
                        f"set_attr({name!r}): a list of values must have one entry per "
                        f"sub-env ({self.num_envs}), got {len(values)}: {values!r}"
                    )
                values = stack_values(values)
            setattr(self, name, values)
