"""Typed results of ``reset()`` and ``step()`` for single- and multi-agent envs.

The four result types are frozen, slotted, generic dataclasses. Their ``==``
looks inside numpy arrays (same shape, equal elements) and the dicts, tuples
and lists that hold them, where a dataclass's own ``==`` would raise. They
define ``hash()`` as a frozen dataclass does, from their fields, which
raises ``TypeError`` for the dicts every result holds. They are built
on every step, so their ``__init__`` writes the slots through the slot
descriptors directly instead of going through the frozen ``__setattr__`` guard
the dataclass machinery would use; this halves the construction cost while
keeping the instances immutable (see ``benchmarks/bench_results.py``).

They are not tuples: unpacking one the Gymnasium way (``obs, info =
env.reset()``) or iterating over it raises `sekai.error.ResultNotIterable`,
a ``TypeError`` that names the fields to read instead and the adapter that
gives Gymnasium's (or PettingZoo's) tuples. Type checkers see no
``__iter__`` and flag the unpacking before it runs. At run time the classes
do define ``__iter__`` (the one that refuses), so
``isinstance(result, collections.abc.Iterable)`` is ``True``; code that
tells sequences apart that way must test for the result types first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import FrozenInstanceError, dataclass, fields
from typing import TYPE_CHECKING, Any, Generic, NoReturn, TypeVar

from sekai.core._equality import fields_equal
from sekai.error import ResultNotIterable

__all__ = [
    "FINAL_INFO",
    "FINAL_OBSERVATION",
    "RESET_INFO",
    "AgentID",
    "InfoDict",
    "MAResetResult",
    "MAStepResult",
    "ObsType",
    "ResetResult",
    "StepResult",
]

ObsType = TypeVar("ObsType")
"""Type of an environment's observations."""

AgentID = TypeVar("AgentID")
"""Type of the agent identifiers of a multi-agent environment."""

InfoDict = dict[str, Any]
"""Auxiliary diagnostic information returned with every result."""

# The info keys of a step that ended an episode and reset it within the same
# step (AutoReset, and every VecEnv with autoreset): defined here once, so the
# wrappers, the vector backends and the Gymnasium adapters agree on them.
FINAL_OBSERVATION = "final_observation"
"""Info key of the terminal observation of an episode that was reset within the step."""
FINAL_INFO = "final_info"
"""Info key of the info of the step that ended the episode."""
RESET_INFO = "reset_info"
"""Info key of the info returned by the reset made within the step."""

_Setter = Callable[[Any, Any], None]
# The three helpers below are shared with sekai.vector.results (not public API).


def refuse_set(self: object, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r} of {type(self).__name__}")


def refuse_delete(self: object, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r} of {type(self).__name__}")


def refuse_iteration(result: object, call: str, adapter: str) -> NoReturn:
    """Raise `ResultNotIterable` for ``result``, naming its fields and ``adapter``.

    The ``__iter__`` of every result, single-agent, multi-agent and vector
    (`sekai.vector.results`): one message for all of them.

    Args:
        result: The result someone tried to unpack or iterate over.
        call: The call that returned it, as the message shows it
            (``"env.reset()"``, ``"vec.step(actions)"``); the part before the
            dot names the env in the advice.
        adapter: The `sekai.compat` function giving an env with tuple results.
    """
    name = type(result).__name__
    names = [field.name for field in fields(result)]  # type: ignore[arg-type]
    reads = ", ".join(f"result.{field}" for field in names[:-1]) + f" and result.{names[-1]}"
    env, method = call.split(".", 1)
    raise ResultNotIterable(
        f"{name} is not a tuple and cannot be unpacked or iterated: read its fields by name "
        f"(result = {call}; then {reads}). For an env whose {method} returns "
        f"a tuple, wrap it with sekai.compat.{adapter}({env})"
    )


def slot_writers(cls: type, *names: str) -> tuple[_Setter, ...]:
    """Return the ``__set__`` of each slot descriptor of ``cls``, in ``names`` order.

    A result built on every step writes its fields through these instead of
    the frozen dataclass's per-field ``object.__setattr__`` calls, which cost
    several times more.

    Also replaces the frozen guards of ``cls``: the ones ``dataclass(slots=True)``
    generates refer to the class it discarded, so they raise ``TypeError``
    instead of ``FrozenInstanceError`` on Python < 3.12, which breaks
    ``StepResult[int](...)`` (typing catches only ``AttributeError``).
    """
    type.__setattr__(cls, "__setattr__", refuse_set)
    type.__setattr__(cls, "__delattr__", refuse_delete)
    return tuple(cls.__dict__[name].__set__ for name in names)


@dataclass(frozen=True, slots=True, init=False, eq=False)
class StepResult(Generic[ObsType]):
    """What [`Env.step`][sekai.core.Env.step] returns.

    A named, immutable replacement for the ``(obs, reward, terminated,
    truncated, info)`` tuple: fields are read by name, so they cannot be
    unpacked in the wrong order.

    Not a tuple: unpacking or iterating over it raises
    `sekai.error.ResultNotIterable` (a ``TypeError``), although
    ``isinstance(result, collections.abc.Iterable)`` is ``True`` (its
    ``__iter__`` is the one that refuses).

    Attributes:
        observation: The observation after the action.
        reward: The reward for the action.
        terminated: The episode reached a terminal state of the task.
        truncated: The episode was cut short by a condition outside the task
            (a time limit, running out of data).
        info: Auxiliary diagnostics.
    """

    observation: ObsType
    reward: float
    terminated: bool
    truncated: bool
    info: InfoDict

    def __init__(
        self,
        observation: ObsType,
        reward: float,
        terminated: bool,
        truncated: bool,
        info: InfoDict,
    ) -> None:
        _step_observation(self, observation)
        _step_reward(self, reward)
        _step_terminated(self, terminated)
        _step_truncated(self, truncated)
        _step_info(self, info)

    @property
    def done(self) -> bool:
        """Whether the episode is over: ``terminated or truncated``."""
        return bool(self.terminated or self.truncated)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return fields_equal(
            self, other, ("observation", "reward", "terminated", "truncated", "info")
        )

    def __hash__(self) -> int:
        # The hash of the fields, as a frozen dataclass's; a result holding a
        # dict (every info is one) is therefore unhashable, as in sekai 0.2.
        return hash((self.observation, self.reward, self.terminated, self.truncated, self.info))

    if not TYPE_CHECKING:  # unpacking stays a type error for type checkers

        def __iter__(self) -> NoReturn:
            refuse_iteration(self, "env.step(action)", "to_gymnasium")

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            type(self),
            (self.observation, self.reward, self.terminated, self.truncated, self.info),
        )


(_step_observation, _step_reward, _step_terminated, _step_truncated, _step_info) = slot_writers(
    StepResult, "observation", "reward", "terminated", "truncated", "info"
)


@dataclass(frozen=True, slots=True, init=False, eq=False)
class ResetResult(Generic[ObsType]):
    """What [`Env.reset`][sekai.core.Env.reset] returns.

    Its ``done`` is always ``False``, so a single loop condition covers the
    first observation and every later step:

    ```python
    result = env.reset(seed=0)
    while not result.done:
        result = env.step(policy(result.observation))
    ```

    Not a tuple: unpacking or iterating over it raises
    `sekai.error.ResultNotIterable` (a ``TypeError``), although
    ``isinstance(result, collections.abc.Iterable)`` is ``True`` (its
    ``__iter__`` is the one that refuses).

    Attributes:
        observation: The first observation of the episode.
        info: Auxiliary diagnostics.
    """

    observation: ObsType
    info: InfoDict

    def __init__(self, observation: ObsType, info: InfoDict) -> None:
        _reset_observation(self, observation)
        _reset_info(self, info)

    @property
    def done(self) -> bool:
        """Always ``False``: an episode that was just reset is not over."""
        return False

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return fields_equal(self, other, ("observation", "info"))

    def __hash__(self) -> int:
        return hash((self.observation, self.info))

    if not TYPE_CHECKING:  # unpacking stays a type error for type checkers

        def __iter__(self) -> NoReturn:
            refuse_iteration(self, "env.reset()", "to_gymnasium")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.observation, self.info))


_reset_observation, _reset_info = slot_writers(ResetResult, "observation", "info")


@dataclass(frozen=True, slots=True, init=False, eq=False)
class MAStepResult(Generic[ObsType, AgentID]):
    """What [`MultiAgentEnv.step`][sekai.core.MultiAgentEnv.step] returns.

    Every field is a dict keyed by agent ID.

    Not a tuple: unpacking or iterating over it raises
    `sekai.error.ResultNotIterable` (a ``TypeError``), although
    ``isinstance(result, collections.abc.Iterable)`` is ``True`` (its
    ``__iter__`` is the one that refuses).

    Attributes:
        observations: Each agent's observation.
        rewards: Each agent's reward.
        terminated: Each agent's termination flag.
        truncated: Each agent's truncation flag.
        info: Each agent's diagnostics.
    """

    observations: dict[AgentID, ObsType]
    rewards: dict[AgentID, float]
    terminated: dict[AgentID, bool]
    truncated: dict[AgentID, bool]
    info: dict[AgentID, InfoDict]

    def __init__(
        self,
        observations: dict[AgentID, ObsType],
        rewards: dict[AgentID, float],
        terminated: dict[AgentID, bool],
        truncated: dict[AgentID, bool],
        info: dict[AgentID, InfoDict],
    ) -> None:
        _ma_observations(self, observations)
        _ma_rewards(self, rewards)
        _ma_terminated(self, terminated)
        _ma_truncated(self, truncated)
        _ma_info(self, info)

    def _agents_done(self) -> list[bool]:
        # Every agent named in either flag dict, matched by ID; an agent that
        # is missing from one dict counts as False there.
        terminated, truncated = self.terminated, self.truncated
        agents = dict.fromkeys(terminated)
        agents.update(dict.fromkeys(truncated))
        return [
            bool(terminated.get(agent, False) or truncated.get(agent, False)) for agent in agents
        ]

    @property
    def all_done(self) -> bool:
        """Whether every agent in ``terminated`` or ``truncated`` is done.

        An agent is done when it is terminated or truncated; an agent missing
        from one of the two dicts counts as not terminated (or not truncated)
        there. ``False`` when neither dict names any agent.
        """
        flags = self._agents_done()
        return bool(flags) and all(flags)

    @property
    def any_done(self) -> bool:
        """Whether at least one agent in ``terminated`` or ``truncated`` is done.

        Uses the same matching rule as `all_done`; ``False`` when
        neither dict names any agent.
        """
        return any(self._agents_done())

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return fields_equal(
            self, other, ("observations", "rewards", "terminated", "truncated", "info")
        )

    def __hash__(self) -> int:
        return hash((self.observations, self.rewards, self.terminated, self.truncated, self.info))

    if not TYPE_CHECKING:  # unpacking stays a type error for type checkers

        def __iter__(self) -> NoReturn:
            refuse_iteration(self, "env.step(actions)", "to_pettingzoo")

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            type(self),
            (self.observations, self.rewards, self.terminated, self.truncated, self.info),
        )


(_ma_observations, _ma_rewards, _ma_terminated, _ma_truncated, _ma_info) = slot_writers(
    MAStepResult, "observations", "rewards", "terminated", "truncated", "info"
)


@dataclass(frozen=True, slots=True, init=False, eq=False)
class MAResetResult(Generic[ObsType, AgentID]):
    """What [`MultiAgentEnv.reset`][sekai.core.MultiAgentEnv.reset] returns.

    ``all_done`` and ``any_done`` are always ``False``.

    Not a tuple: unpacking or iterating over it raises
    `sekai.error.ResultNotIterable` (a ``TypeError``), although
    ``isinstance(result, collections.abc.Iterable)`` is ``True`` (its
    ``__iter__`` is the one that refuses).

    Attributes:
        observations: Each agent's first observation.
        info: Each agent's diagnostics.
    """

    observations: dict[AgentID, ObsType]
    info: dict[AgentID, InfoDict]

    def __init__(self, observations: dict[AgentID, ObsType], info: dict[AgentID, InfoDict]) -> None:
        _mar_observations(self, observations)
        _mar_info(self, info)

    @property
    def all_done(self) -> bool:
        """Always ``False``: no agent is done right after a reset."""
        return False

    @property
    def any_done(self) -> bool:
        """Always ``False``: no agent is done right after a reset."""
        return False

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return fields_equal(self, other, ("observations", "info"))

    def __hash__(self) -> int:
        return hash((self.observations, self.info))

    if not TYPE_CHECKING:  # unpacking stays a type error for type checkers

        def __iter__(self) -> NoReturn:
            refuse_iteration(self, "env.reset()", "to_pettingzoo")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.observations, self.info))


_mar_observations, _mar_info = slot_writers(MAResetResult, "observations", "info")
