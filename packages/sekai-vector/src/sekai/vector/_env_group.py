"""The worker side of the remote backends: one group of sub-envs, run in a process or an actor.

A [`ProcVecEnv`][sekai.vector.ProcVecEnv] worker process and a
[`RayVecEnv`][sekai.vector.RayVecEnv] actor each own a contiguous group of
sub-envs: a `SubEnvGroup`. It steps them with the per-sub-env rule of every
vector env (`end_episode`: autoreset, or freezing without it), resets them,
reaches their attributes and closes them, and every command's result is what
the worker answers (a `Batch` as a plain tuple for steps and resets). A
sub-env that raises does not stop the others of the group: they take their
step too, and the first failure is raised as a `SubEnvFailure` naming the
sub-env, once all have stepped. `failure_reply` turns whatever a command
raised into the `Reply` a worker sends back.

Observations normally travel in the answer; a ProcVecEnv worker that writes
them into shared memory sets `SubEnvGroup.write_obs` and `SubEnvGroup.obs_block`
(the answer's observations are then ``None``).
"""

from __future__ import annotations

import contextlib
import pickle
from collections.abc import Callable, Sequence
from typing import Any

from sekai.core import Env
from sekai.error import InvalidObservation
from sekai.spaces._layout import copier_for
from sekai.vector._actions import make_action_splitter
from sekai.vector._autoreset import (
    FrozenEnvs,
    check_flags,
    check_infos,
    end_episode,
    flags_all_false,
    infos_all_dicts,
)
from sekai.vector._in_process import build_env, close_all, read_attr, write_attr
from sekai.vector._replies import Batch, Reply, Started, Status, describe_failure, make_reply

__all__ = [
    "AUTORESET",
    "LookupFailure",
    "SubEnvFailure",
    "SubEnvGroup",
    "build_group",
    "failure_reply",
    "started",
]

AUTORESET = "the autoreset of step() (reset() after its episode ended)"
"""What a sub-env was doing when its autoreset raised (a Failure's ``during``)."""

_HIGHEST = pickle.HIGHEST_PROTOCOL
_ERROR = Status.ERROR.value
_ATTRIBUTE_ERROR = Status.ATTRIBUTE_ERROR.value
_INVALID = Status.INVALID_OBSERVATION.value


class SubEnvFailure(Exception):
    """Raised inside a worker to report which sub-env failed (and what the step froze)."""

    def __init__(
        self,
        index: int | None,
        error: BaseException,
        during: str | None = None,
        frozen: tuple[int, ...] = (),
    ) -> None:
        super().__init__(index)
        self.index = index
        self.error = error
        self.during = during
        self.frozen = frozen


class LookupFailure(Exception):
    """A name that get_attr / call / set_attr could not find on a sub-env."""


class SubEnvGroup:
    """The sub-envs of one worker and what a worker does with them.

    Args:
        envs: The group's sub-envs, built.
        first: Index (in the vector env) of its first sub-env.
        autoreset: The vector env's autoreset flag.
        cloudpickle: The cloudpickle module (to report failures).
    """

    def __init__(
        self, envs: list[Env[Any, Any]], first: int, autoreset: bool, cloudpickle: Any
    ) -> None:
        self.envs = envs
        self.first = first
        self.count = len(envs)
        self.autoreset = autoreset
        self.cloudpickle = cloudpickle
        self.copy = copier_for(envs[0].observation_space)
        self.frozen = FrozenEnvs(self.count, self.copy)
        self.split = make_action_splitter(envs[0].action_space, self.count)
        # Where observations go instead of the answer: write_obs(obs_block, index, obs).
        self.write_obs: Callable[[Any, int, Any], None] | None = None
        self.obs_block: Any = None
        self.current = 0  # local index of the sub-env being run, for error reports
        self.all_rows = range(self.count)
        self.rows: Sequence[int] = self.all_rows  # local indices of the last command's rows

    # -- commands ------------------------------------------------------------------------

    def step_some(self, payload: tuple[list[int], list[Any]]) -> tuple[Any, ...]:
        """Step some of the sub-envs (partial batches): one action per local index.

        Rewards and flags always come back in the tuple; observations too,
        unless they were written into the shared block.
        """
        indices, actions = payload
        return self.step_rows(indices, actions)

    def step_rows(self, indices: Sequence[int], per_env: list[Any]) -> tuple[Any, ...]:
        """Step the sub-envs ``indices`` with their actions: the Batch fields, as a tuple.

        A sub-env that raises does not stop the others; the first failure is
        raised once every sub-env has stepped (a `SubEnvFailure`).
        """
        envs = self.envs
        frozen = self.frozen
        autoreset = self.autoreset
        first = self.first
        write = self.write_obs
        block = self.obs_block
        self.rows = indices
        observations: list[Any] = []
        rewards: list[float] = []
        terminated: list[bool] = []
        truncated: list[bool] = []
        infos: list[dict[str, Any]] = []
        newly_frozen: list[int] = []
        failure: SubEnvFailure | None = None
        for j, action in zip(indices, per_env, strict=True):
            if frozen.any and frozen.mask[j]:
                # With shared memory, the block's row still holds the final observation.
                observation: Any = frozen.observations[j]
                rewards.append(0.0)
                terminated.append(frozen.terminated[j])
                truncated.append(frozen.truncated[j])
                infos.append({})
            else:
                self.current = j
                during = None
                try:
                    env = envs[j]
                    result = env.step(action)
                    observation, info = result.observation, result.info
                    if result.terminated or result.truncated:
                        during = AUTORESET
                        ending = end_episode(env, result, autoreset, self.copy, first + j)
                        during = None
                        if ending is not None:
                            if ending.frozen:
                                frozen.freeze(j, observation, result.terminated, result.truncated)
                                newly_frozen.append(first + j)
                            observation, info = ending.observation, ending.info
                    if write is not None:
                        write(block, first + j, observation)
                except Exception as error:
                    if failure is None:
                        failure = SubEnvFailure(first + j, error, during)
                    continue
                rewards.append(result.reward)
                terminated.append(result.terminated)
                truncated.append(result.truncated)
                infos.append(info)
            if write is None:
                observations.append(observation)
        if failure is not None:
            failure.frozen = tuple(newly_frozen)
            raise failure
        if not flags_all_false(terminated, truncated):
            check_flags(terminated, truncated, [first + j for j in indices])
        if not infos_all_dicts(infos):
            check_infos(infos, [first + j for j in indices])
        return (
            infos,
            None if write is not None else observations,
            rewards,
            terminated,
            truncated,
            tuple(newly_frozen),
        )

    def reset(self, payload: tuple[list[Any], list[Any]]) -> tuple[Any, ...]:
        """Reset the sub-envs with their seeds and options; the `Batch` as a plain tuple."""
        seeds, options = payload
        write = self.write_obs
        block = self.obs_block
        observations: list[Any] = []
        infos: list[dict[str, Any]] = []
        for j, env in enumerate(self.envs):
            self.current = j
            result = env.reset(seed=seeds[j], options=options[j])
            if write is None:
                observations.append(result.observation)
            else:
                write(block, self.first + j, result.observation)
            infos.append(result.info)
        if not infos_all_dicts(infos):
            check_infos(infos, range(self.first, self.first + self.count))
        self.frozen.clear()
        return tuple(Batch(infos, None if write is not None else observations))

    def call(self, payload: tuple[str, tuple[Any, ...], dict[str, Any]]) -> list[Any]:
        """Call a method on every sub-env (or read the attribute, if not callable)."""
        name, args, kwargs = payload
        results = []
        for j, env in enumerate(self.envs):
            self.current = j
            value = _lookup(env, name)
            results.append(value(*args, **kwargs) if callable(value) else value)
        return results

    def get_attr(self, name: str) -> list[Any]:
        """Read an attribute of every sub-env, through its wrapper stack."""
        results = []
        for j, env in enumerate(self.envs):
            self.current = j
            results.append(_lookup(env, name))
        return results

    def set_attr(self, payload: tuple[str, list[Any]]) -> None:
        """Set an attribute on every sub-env, one value each."""
        name, values = payload
        for j, env in enumerate(self.envs):
            self.current = j
            try:
                write_attr(env, name, values[j])
            except AttributeError as error:
                raise LookupFailure(str(error)) from None

    def close(self, _: object = None) -> None:
        """Close every sub-env; raise the first failure afterwards."""
        first_failure: SubEnvFailure | None = None
        for j, env in enumerate(self.envs):
            try:
                env.close()
            except BaseException as error:
                if first_failure is None:
                    first_failure = SubEnvFailure(self.first + j, error)
        if first_failure is not None:
            raise first_failure

    def blame_unpicklable(self, result: Any) -> int:
        """The sub-env whose part of ``result`` cannot be pickled (else the first one)."""
        if isinstance(result, tuple):  # a Batch: infos, then observations (or None)
            observations = result[1] if result[1] is not None else [None] * len(result[0])
            parts: list[Any] = list(zip(result[0], observations, strict=False))
        elif isinstance(result, list):  # call / get_attr: one value per sub-env
            parts = result
        else:  # pragma: no cover - every reply is one of those
            return self.first
        for k, part in enumerate(parts):
            try:
                self.cloudpickle.dumps(part, _HIGHEST)
            except Exception:
                return self.first + self.rows[k]
        return self.first  # pragma: no cover - the whole failed, no part alone


def failure_reply(
    error: BaseException, group: SubEnvGroup | None, first: int, cloudpickle: Any
) -> Reply:
    """The `Reply` that reports what a command of ``group`` (first sub-env ``first``) raised.

    A `LookupFailure` is the message of a missing name; a `SubEnvFailure`
    names its sub-env, what it was doing and what the step froze; anything
    else is blamed on the sub-env the group was running.
    """
    if isinstance(error, LookupFailure):
        return make_reply(_ATTRIBUTE_ERROR, str(error))
    if isinstance(error, SubEnvFailure):
        cause = error.error
        described = describe_failure(error.index, cause, cloudpickle)
        described = described._replace(during=error.during, frozen=error.frozen)
    else:
        cause = error
        index = first + (group.current if group is not None else 0)
        described = describe_failure(index, cause, cloudpickle)
    status = _INVALID if isinstance(cause, InvalidObservation) else _ERROR
    return make_reply(status, described)


def build_group(env_fns: list[Any], first: int, backend: str) -> list[Env[Any, Any]]:
    """Build a group's sub-envs; a failure closes those built and raises a SubEnvFailure."""
    envs: list[Env[Any, Any]] = []
    try:
        for i, fn in enumerate(env_fns):
            envs.append(build_env(fn, backend, first + i))
    except BaseException as error:
        with contextlib.suppress(Exception):  # the construction error is the one to report
            close_all(envs)
        raise SubEnvFailure(first + len(envs), error) from None
    return envs


def started(envs: list[Env[Any, Any]], first: int) -> Started:
    """A group's `Started` answer: its spaces (the first and those that differ), its metadata."""
    obs0, act0 = envs[0].observation_space, envs[0].action_space
    spaces = [(first, obs0, act0)]
    for j, env in enumerate(envs[1:], start=1):
        if env.observation_space != obs0 or env.action_space != act0:
            spaces.append((first + j, env.observation_space, env.action_space))
    return Started(spaces, dict(envs[0].metadata))


def _lookup(env: Env[Any, Any], name: str) -> Any:
    try:
        return read_attr(env, name)
    except AttributeError as error:
        raise LookupFailure(str(error)) from None
