"""check_env: a conformance check for environment authors.

Run it in a test of your environment::

    from sekai.utils import check_env

    def test_my_env_conforms():
        assert check_env(MyEnv()) == []
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import math
from collections.abc import Callable, Coroutine, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from functools import partial, singledispatch
from typing import TYPE_CHECKING, Any, TypeGuard, TypeVar

import numpy as np

from sekai._internal.compare import first_difference
from sekai._internal.validation import check_int
from sekai.core.env import Env
from sekai.core.results import ResetResult, StepResult
from sekai.core.wrapper import not_an_env_hint
from sekai.utils.masking import flatten_action_mask, supports_action_mask

if TYPE_CHECKING:
    from sekai.spaces import Space

__all__ = ["check_env"]

_T = TypeVar("_T")

_RESET_SEED = 123
_ASYNC_STEPS = 3
_DETERMINISM_STEPS = 50


class _Report:
    """Collects problems, one entry per kind (the first occurrence)."""

    def __init__(self, warnings: bool) -> None:
        self.items: list[str] = []
        self._warnings = warnings
        self._seen: set[str] = set()

    def error(self, key: str, message: str) -> None:
        if key not in self._seen:
            self._seen.add(key)
            self.items.append(f"ERROR: {message}")

    def warning(self, key: str, message: str) -> None:
        if self._warnings and key not in self._seen:
            self._seen.add(key)
            self.items.append(f"WARNING: {message}")

    def has(self, key: str) -> bool:
        return key in self._seen


def check_env(
    env: Env[Any, Any],
    *,
    n_steps: int = 100,
    warn_on_anomaly: bool = True,
    check_obs_space: bool = True,
    check_action_space: bool = True,
    check_reset_seed: bool = True,
    check_determinism: bool = False,
    check_async: bool = True,
) -> list[str]:
    """Check that ``env`` follows the [`Env`][sekai.core.Env] contract.

    Meant for the test suite of an environment: it resets and steps the env
    (``n_steps`` random actions, resetting when an episode ends) and returns
    every kind of problem it saw, once each, as a string starting with
    ``"ERROR:"`` (a contract violation) or ``"WARNING:"`` (legal but likely a
    mistake). An empty list means the env passed. The env is used but not
    closed; the action space's own random stream is not touched (a copy
    samples the actions).

    What is checked:

    - ``observation_space`` and ``action_space`` exist, are
      [`Space`][sekai.spaces.Space] instances, and contain their own samples
      (``check_obs_space`` / ``check_action_space``);
    - ``reset`` takes the keyword arguments ``seed`` and ``options``;
    - ``reset`` returns a [`ResetResult`][sekai.core.ResetResult] and ``step`` a
      [`StepResult`][sekai.core.StepResult], with a dict ``info``;
    - observations are in the observation space (``check_obs_space``) and
      hold no NaN; a warning when an array observation of a Box has another
      dtype than the space (e.g. float64 for a float32 Box: sekai accepts it,
      but Gymnasium's checker rejects the env through ``to_gymnasium``);
    - rewards are finite real numbers; ``terminated``/``truncated`` are
      bools (``bool`` or ``numpy.bool_``);
    - if the env implements ``action_mask()``, the mask fits the action space
      (actions are then sampled with it);
    - a warning when ``step()`` accepts, without raising, an action outside a
      Discrete, MultiDiscrete or MultiBinary action space (raise
      [`InvalidAction`][sekai.error.InvalidAction] instead; Box actions are not probed,
      since clipping them is a common, legitimate choice)
      (``check_action_space``);
    - ``reset(seed=s)`` twice gives the same observation (``check_reset_seed``);
    - the same seed and actions give the same trajectory
      (``check_determinism``, off by default: some simulators are not meant
      to be deterministic);
    - ``async_reset``/``async_step`` return the same results as their sync
      forms for the same seed and actions (``check_async``; skipped when two
      sync replays of the same seed already differ, which the reset-seed and
      determinism checks report when they are on).

    Args:
        env: The environment to check.
        n_steps: Random steps to take, >= 0 (0 checks the spaces and
            ``reset`` only).
        warn_on_anomaly: Include ``"WARNING:"`` entries (integer rewards,
            infinite observation values, unbounded Box action space, ...).
        check_obs_space: Check the observation space and membership of
            observations.
        check_action_space: Check the action space.
        check_reset_seed: Check that seeded resets are reproducible.
        check_determinism: Check that seeded trajectories are reproducible.
        check_async: Check that the async methods agree with the sync ones.

    Returns:
        The problems found; empty when the env conforms.

    Raises:
        TypeError: ``n_steps`` is not an int.
        ValueError: ``n_steps`` is negative.
    """
    n_steps = check_int(n_steps, "check_env: n_steps", minimum=0)
    report = _Report(warn_on_anomaly)
    candidate: object = env
    if not isinstance(candidate, Env):
        report.error(
            "not-env",
            f"check_env expects a sekai.core.Env, got {candidate!r}{not_an_env_hint(candidate)}",
        )
        return report.items
    obs_space = _get_space(env, "observation_space", report)
    act_space = _get_space(env, "action_space", report)
    if obs_space is None or act_space is None:
        return report.items
    if check_obs_space:
        _check_space(obs_space, "observation_space", report)
    if check_action_space:
        _check_space(act_space, "action_space", report)
        if _is_unbounded_box(act_space):
            report.warning(
                "unbounded-actions",
                f"action_space {act_space!r} is an unbounded Box; most policies need bounds",
            )
    _check_reset_signature(env, report)
    actions = _ActionSampler(env, act_space, report)

    if not _rollout(env, obs_space, actions, n_steps, check_obs_space, report):
        return report.items
    if check_action_space and n_steps > 0:
        _check_invalid_action(env, act_space, report)
    if check_reset_seed:
        _check_reset_seed(env, report)
    if check_determinism:
        _check_determinism(env, actions, min(n_steps, _DETERMINISM_STEPS), report)
    if check_async:
        _check_async(env, actions, min(n_steps, _ASYNC_STEPS), report)
    return report.items


def _check_reset_signature(env: Env[Any, Any], report: _Report) -> None:
    try:
        signature = inspect.signature(env.reset)
    except (TypeError, ValueError):  # a callable without an inspectable signature
        return
    parameters = signature.parameters
    if any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
        return
    keyword_kinds = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    missing = [
        name
        for name in ("seed", "options")
        if name not in parameters or parameters[name].kind not in keyword_kinds
    ]
    if missing:
        report.error(
            "reset-signature",
            f"reset{signature} does not take the keyword argument(s) {', '.join(missing)}; "
            "define reset(self, *, seed=None, options=None): wrappers and vector envs "
            "pass both",
        )


# -- spaces -------------------------------------------------------------------


def _get_space(env: Env[Any, Any], name: str, report: _Report) -> Space[Any] | None:
    from sekai.spaces import Space

    try:
        space = getattr(env, name)
    except AttributeError:
        report.error(f"{name}-missing", f"{name} is not defined; set self.{name} in __init__")
        return None
    except Exception as error:
        report.error(f"{name}-raised", f"reading {name} raised {_describe(error)}")
        return None
    if not isinstance(space, Space):
        report.error(f"{name}-type", f"{name} must be a sekai.spaces.Space, got {space!r}")
        return None
    return space


def _check_space(space: Space[Any], name: str, report: _Report) -> None:
    probe = _private_copy(space)
    try:
        probe.seed(0)
        for _ in range(5):
            sample = probe.sample()
            if not _safe_contains(space, sample):
                report.error(
                    f"{name}-sample",
                    f"{name} {space!r} does not contain its own sample {sample!r}",
                )
                return
    except Exception as error:
        report.error(f"{name}-sample", f"{name}.sample() raised {_describe(error)}")


def _private_copy(space: Space[Any]) -> Space[Any]:
    """A copy of ``space``, so the checks never draw from the env's own space's stream."""
    try:
        return copy.deepcopy(space)
    except Exception:  # an exotic space that cannot be copied: use it as is
        return space


def _is_unbounded_box(space: Space[Any]) -> bool:
    from sekai.spaces import Box

    return isinstance(space, Box) and space.dtype.kind == "f" and not space.is_bounded()


def _safe_contains(space: Space[Any], x: Any) -> bool:
    try:
        return bool(space.contains(x))
    except Exception:
        return False


# -- actions ------------------------------------------------------------------


class _ActionSampler:
    """Samples actions from a private, seeded copy of the action space."""

    def __init__(self, env: Env[Any, Any], space: Space[Any], report: _Report) -> None:
        self.env = env
        self.report = report
        self.space = _private_copy(space)
        try:
            self.space.seed(0)
        except Exception as error:
            report.error("action-seed", f"action_space.seed(0) raised {_describe(error)}")
        self.masked = supports_action_mask(env)
        self.original = space

    def sample(self) -> Any:
        if self.masked:
            try:
                mask = self.env.action_mask()  # type: ignore[attr-defined]
                flatten_action_mask(self.original, mask)
                return self.space.sample(mask=mask)
            except Exception as error:
                self.report.error(
                    "action-mask",
                    f"action_mask() does not return a valid mask for {self.original!r}: "
                    f"{_describe(error)}",
                )
                self.masked = False
        return self.space.sample()


# -- results ------------------------------------------------------------------


def _call(report: _Report, what: str, function: Callable[[], _T]) -> tuple[bool, _T | None]:
    try:
        return True, function()
    except Exception as error:
        report.error(f"raised-{what}", f"{what} raised {_describe(error)}")
        return False, None


def _rollout(
    env: Env[Any, Any],
    obs_space: Space[Any],
    actions: _ActionSampler,
    n_steps: int,
    check_obs: bool,
    report: _Report,
) -> bool:
    ok, result = _call(report, "reset(seed=0)", lambda: env.reset(seed=0))
    if not ok or not _check_reset_result(result, obs_space, check_obs, report):
        return False
    for i in range(n_steps):
        action = actions.sample()
        ok, step = _call(report, "step()", partial(env.step, action))
        if not ok or not _check_step_result(step, obs_space, check_obs, report, i + 1):
            return False
        if step.terminated or step.truncated:
            ok, result = _call(report, "reset()", env.reset)
            if not ok or not _check_reset_result(result, obs_space, check_obs, report):
                return False
    return True


def _check_reset_result(
    result: Any, obs_space: Space[Any], check_obs: bool, report: _Report
) -> bool:
    if not isinstance(result, ResetResult):
        report.error(
            "reset-type",
            f"reset() must return a sekai.core.ResetResult, got {type(result).__name__}: "
            f"{result!r}",
        )
        return False
    _check_observation(result.observation, obs_space, check_obs, report, "reset()")
    _check_info(result.info, report, "reset()")
    return True


def _check_step_result(
    result: Any, obs_space: Space[Any], check_obs: bool, report: _Report, step: int
) -> TypeGuard[StepResult[Any]]:
    """Report what is wrong with ``result``; whether it is a StepResult to go on with."""
    where = f"step() #{step}"
    if not isinstance(result, StepResult):
        report.error(
            "step-type",
            f"step() must return a sekai.core.StepResult, got {type(result).__name__}: {result!r}",
        )
        return False
    _check_observation(result.observation, obs_space, check_obs, report, where)
    _check_reward(result.reward, report, where)
    for flag in ("terminated", "truncated"):
        value = getattr(result, flag)
        if not isinstance(value, (bool, np.bool_)):
            report.error(
                f"{flag}-type",
                f"{where}: {flag} must be a bool, got {type(value).__name__} {value!r}",
            )
    _check_info(result.info, report, where)
    return True


def _check_observation(
    observation: Any, space: Space[Any], check_obs: bool, report: _Report, where: str
) -> None:
    if check_obs and not _safe_contains(space, observation):
        report.error(
            "obs-space",
            f"{where}: observation {observation!r} is not in observation_space {space!r}",
        )
    elif check_obs and not report.has("obs-dtype"):
        for found, box in _dtype_mismatches(space, observation):
            report.warning(
                "obs-dtype",
                f"{where}: an observation of {box!r} has dtype {found}, not the space's "
                f"{box.dtype}; return arrays of the space's dtype (Gymnasium's checker "
                "rejects the env through sekai.compat.to_gymnasium otherwise)",
            )
            break
    for leaf in _leaves(observation):
        if (
            isinstance(leaf, (np.ndarray, np.generic, float))
            and np.asarray(leaf).dtype.kind in "fc"
        ):
            values = np.asarray(leaf)
            if np.isnan(values).any():
                report.error("obs-nan", f"{where}: observation contains NaN: {observation!r}")
            elif np.isinf(values).any():
                report.warning("obs-inf", f"{where}: observation contains inf: {observation!r}")


@singledispatch
def _dtype_mismatches(space: Space[Any], observation: Any) -> Iterator[tuple[np.dtype[Any], Any]]:
    """``(dtype, box)`` for each array observation of a Box part whose dtype is not the Box's."""
    return iter(())


def _register_dtype_walkers() -> None:
    from sekai.spaces import Box, Dict, Tuple

    @_dtype_mismatches.register(Box)
    def _box(space: Box, observation: Any) -> Iterator[tuple[np.dtype[Any], Any]]:
        if isinstance(observation, (np.ndarray, np.generic)) and observation.dtype != space.dtype:
            yield observation.dtype, space

    @_dtype_mismatches.register(Dict)
    def _dict(space: Dict, observation: Any) -> Iterator[tuple[np.dtype[Any], Any]]:
        for key, sub in space.spaces.items():
            yield from _dtype_mismatches(sub, observation[key])

    @_dtype_mismatches.register(Tuple)
    def _tuple(space: Tuple, observation: Any) -> Iterator[tuple[np.dtype[Any], Any]]:
        for sub, item in zip(space.spaces, observation, strict=True):
            yield from _dtype_mismatches(sub, item)


_register_dtype_walkers()


def _invalid_action(space: Space[Any]) -> Any:
    """An action just outside a Discrete, MultiDiscrete or MultiBinary space (else None)."""
    from sekai.spaces import Discrete, MultiBinary, MultiDiscrete

    if isinstance(space, Discrete):
        return np.int64(space.start + space.n)
    if isinstance(space, MultiDiscrete):
        return np.asarray(space.start + space.nvec, dtype=space.dtype)
    if isinstance(space, MultiBinary):
        return np.full(space.shape, 2, dtype=np.int8)
    return None


def _check_invalid_action(env: Env[Any, Any], space: Space[Any], report: _Report) -> None:
    action = _invalid_action(space)
    if action is None or _safe_contains(space, action):
        return
    try:
        env.reset(seed=0)
        env.step(action)
    except Exception:
        return  # refused, as it should be
    report.warning(
        "invalid-action",
        f"step() accepted the action {action!r}, which is not in action_space {space!r}; "
        "raise sekai.error.InvalidAction for actions outside the space",
    )


def _check_reward(reward: Any, report: _Report, where: str) -> None:
    if isinstance(reward, (bool, np.bool_)) or not isinstance(
        reward, (int, float, np.integer, np.floating)
    ):
        report.error(
            "reward-type",
            f"{where}: reward must be a real number, got {type(reward).__name__} {reward!r}",
        )
        return
    if not math.isfinite(float(reward)):
        report.error("reward-finite", f"{where}: reward must be finite, got {reward!r}")
    elif isinstance(reward, (int, np.integer)):
        report.warning("reward-int", f"{where}: reward is an integer ({reward!r}); use a float")


def _check_info(info: Any, report: _Report, where: str) -> None:
    if not isinstance(info, dict):
        report.error(
            "info-type", f"{where}: info must be a dict, got {type(info).__name__} {info!r}"
        )


def _leaves(x: Any) -> Iterator[Any]:
    if isinstance(x, Mapping):
        for value in x.values():
            yield from _leaves(value)
    elif isinstance(x, (tuple, list)):
        for value in x:
            yield from _leaves(value)
    else:
        yield x


# -- reproducibility ----------------------------------------------------------


def _equal(a: Any, b: Any) -> bool:
    """Whether two nested values are equal, NaN equal to NaN (the shared comparison)."""
    return first_difference(a, b) is None


def _same_step(a: StepResult[Any], b: StepResult[Any]) -> bool:
    return (
        _equal(a.observation, b.observation)
        and _equal(a.reward, b.reward)
        and bool(a.terminated) == bool(b.terminated)
        and bool(a.truncated) == bool(b.truncated)
    )


def _check_reset_seed(env: Env[Any, Any], report: _Report) -> None:
    ok, first = _call(report, f"reset(seed={_RESET_SEED})", lambda: env.reset(seed=_RESET_SEED))
    ok2, second = _call(report, f"reset(seed={_RESET_SEED})", lambda: env.reset(seed=_RESET_SEED))
    if not (ok and ok2 and isinstance(first, ResetResult) and isinstance(second, ResetResult)):
        return
    if not _equal(first.observation, second.observation):
        report.error(
            "reset-seed",
            f"reset(seed={_RESET_SEED}) is not reproducible: {first.observation!r} then "
            f"{second.observation!r}; call self._set_rng(seed) at the start of reset() and "
            "draw randomness from self.rng",
        )


def _trajectory(
    env: Env[Any, Any], seed: int, planned: list[Any]
) -> tuple[Any, list[StepResult[Any]]]:
    first = env.reset(seed=seed)
    steps = []
    for action in planned:
        step = env.step(action)
        steps.append(step)
        if step.terminated or step.truncated:
            break
    return first.observation, steps


async def _async_trajectory(
    env: Env[Any, Any], seed: int, planned: list[Any]
) -> tuple[Any, list[StepResult[Any]]]:
    first = await env.async_reset(seed=seed)
    if not isinstance(first, ResetResult):
        raise TypeError(f"async_reset() returned {type(first).__name__}, not a ResetResult")
    steps = []
    for action in planned:
        step = await env.async_step(action)
        if not isinstance(step, StepResult):
            raise TypeError(f"async_step() returned {type(step).__name__}, not a StepResult")
        steps.append(step)
        if step.terminated or step.truncated:
            break
    return first.observation, steps


def _same_trajectory(
    a: tuple[Any, list[StepResult[Any]]], b: tuple[Any, list[StepResult[Any]]]
) -> bool:
    return (
        _equal(a[0], b[0])
        and len(a[1]) == len(b[1])
        and all(_same_step(x, y) for x, y in zip(a[1], b[1], strict=True))
    )


def _check_determinism(
    env: Env[Any, Any], actions: _ActionSampler, n: int, report: _Report
) -> None:
    planned = [actions.sample() for _ in range(n)]
    try:
        first = _trajectory(env, _RESET_SEED, planned)
        second = _trajectory(env, _RESET_SEED, planned)
    except Exception as error:
        report.error("raised-determinism", f"replaying a seeded episode raised {_describe(error)}")
        return
    if not _same_trajectory(first, second):
        report.error(
            "determinism",
            f"the same seed ({_RESET_SEED}) and actions gave two different trajectories",
        )


def _check_async(env: Env[Any, Any], actions: _ActionSampler, n: int, report: _Report) -> None:
    planned = [actions.sample() for _ in range(n)]
    try:
        sync = _trajectory(env, _RESET_SEED, planned)
        again = _trajectory(env, _RESET_SEED, planned)
    except Exception as error:
        report.error("raised-async", f"replaying a seeded episode raised {_describe(error)}")
        return
    if not _same_trajectory(sync, again):
        return  # not reproducible from a seed: comparing with the async path says nothing
    try:
        asynchronous = _run(lambda: _async_trajectory(env, _RESET_SEED, planned))
    except Exception as error:
        report.error("raised-async", f"async_reset()/async_step() raised {_describe(error)}")
        return
    if not _same_trajectory(sync, asynchronous):
        report.error(
            "async",
            "async_reset()/async_step() disagree with reset()/step() for the same seed "
            f"({_RESET_SEED}) and actions",
        )


def _run(factory: Callable[[], Coroutine[Any, Any, _T]]) -> _T:
    """Run a coroutine to completion, also from inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(factory())
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(factory())).result()


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"
