"""check_market_env: is a market environment honest?

What `sekai.utils.check_env` is to the `Env` contract, this is to a market
env's promises: it never shows the agent a row after the decision time, its
reward is what its account earned, its numbers are finite, a seed replays it,
and its native vector version plays the same game. Problems come back as the
same ``"ERROR: ..."`` / ``"WARNING: ..."`` strings, collected the same way.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sekai._internal.compare import first_difference
from sekai._internal.validation import check_callable, check_int, check_seed
from sekai.finance._market_data import MarketData
from sekai.utils.checker import _ActionSampler, _describe, _Report

__all__ = ["check_market_env"]

_LOOK_AHEAD_CHECKS = 5
# log(equity after / equity before) against the reward: both come from the same numbers by
# different formulas (e.g. log((1 - c)(1 + w r))), and an env may hand out float32 rewards
# (a float32 carries about 7 significant digits).
_REWARD_RTOL = 1e-6
_REWARD_ATOL = 1e-12
# The perturbed continuation: every field of every row after t is multiplied by its own factor
# exp(+-(_LOG_MIN + |N(0, _LOG_SCALE)|)), clipped to +-_LOG_BOUND: at least 5 % away from 1, so
# that neither float32 rounding nor a ratio of two fields of a row (close / open, volume /
# price) can hide the change, and at most a factor e**0.5, so that spreads, volumes and other
# non-price fields stay of their usual size.
_LOG_MIN = 0.05
_LOG_SCALE = 0.1
_LOG_BOUND = 0.5
# Exogenous series: every value after t is moved toward the value at t, to a fraction drawn
# in [_PULL_LOW, _PULL_HIGH] of its distance from it (one fraction per series).
_PULL_LOW, _PULL_HIGH = 0.3, 0.8
# Extra decision times tried, when the look-ahead ones showed no change after t, to tell a
# stale fill or an unused data argument from a run that never held a position there.
_EXTRA_PROBES = 5

# The warning of a run without data (`sekai check` recognises its beginning, "look-ahead not
# checked: data is None", and shows a note instead for the envs that simulate their market).
_LOOK_AHEAD_SKIPPED_WITHOUT_DATA = (
    "look-ahead not checked: data is None, so make_env(None) builds the env on its own "
    "simulator and there are no rows to perturb; pass the MarketData the env plays as data "
    "to check it"
)

Policy = Callable[[Any, np.random.Generator], Any]


@dataclass
class _Frame:
    """One observation of a run, with the step that produced it (none for a reset)."""

    steps: int  # steps taken before this observation
    reset: bool
    observation: Any
    reward: float | None = None
    terminated: bool = False
    truncated: bool = False
    timestamp: Any = None
    equity: float | None = None
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated

    def where(self) -> str:
        if not self.reset:
            return f"step {self.steps}"
        return "reset(seed=...)" if self.steps == 0 else f"the reset after step {self.steps}"


@dataclass
class _Run:
    """The frames and actions of one run, and what stopped it early (if anything)."""

    frames: list[_Frame] = field(default_factory=list)
    actions: list[Any] = field(default_factory=list)
    error: str | None = None


def check_market_env(
    make_env: Callable[[MarketData | None], Any],
    data: MarketData | None = None,
    *,
    n_steps: int = 500,
    seed: int = 0,
    policy: Policy | None = None,
    reward: str | None = "log_equity",
    native: Callable[[MarketData | None], Any] | None = None,
    look_ahead_checks: int = _LOOK_AHEAD_CHECKS,
) -> list[str]:
    """Check that a market env is honest: no look-ahead, sound accounting, reproducible.

    Meant for the test suite of a market environment, as
    [`check_env`][sekai.utils.check_env] is for any env (run that one too:
    this one does not check the spaces). It plays ``n_steps`` steps of
    ``make_env(data)`` from ``reset(seed=seed)`` (resetting when an episode
    ends) and returns every kind of problem found, once each, as a string
    starting with ``"ERROR:"`` or ``"WARNING:"``; an empty list means the env
    passed. It reads the info keys of sekai's market envs: ``timestamp``, the
    time of the row the returned observation was computed at (the decision
    time of the next action), and ``equity``, the account's value.

    What is checked:

    - **look-ahead**, by perturbation: at ``look_ahead_checks`` decision
      times ``t`` (seeded, spread over the run) the rows of ``data`` after
      ``t`` are replaced by another valid continuation, the env is built again
      on that copy and the same actions are replayed from the same seed. Every
      observation of ``t``'s episode up to the one seen at ``t``, with the
      rewards, flags and infos that came with them, must be identical (NaN for
      NaN; info keys that already differ between two runs on the same data,
      such as timings, are left out). The continuation multiplies each field
      of each asset and row (price, open, high, low, volume, ...) by its own
      positive factor, at least 5 % away from 1 (so ratios of two fields of a
      row, such as close / open or volume / price, change too), puts the highs
      and lows back around the new opens and closes, and pulls each exogenous
      series toward its value at ``t`` (``a + c (x - a)``, ``0.3 <= c <= 0.8``:
      a monotone, bounded or one-signed series stays so). State an env carries
      from an earlier episode that saw rows after ``t`` (a running normaliser)
      counts as look-ahead, since the agent at ``t`` is shown it. A difference
      is an error that says "look-ahead", the step and the entry (key path
      and index).
    - **the data reaches the env**: the replays go two steps past ``t``. If
      nothing after ``t`` changes at any decision time, ``make_env`` ignores
      its argument; if the later observations change but the reward and
      equity of the step taken at ``t`` never do (at decision times where that
      step moved the account's value), the env fills at prices the agent had
      already seen (a step earning ``close[t] / close[t - 1]``). Both are
      errors saying "changing the rows after t changed nothing".
    - **reward and equity** (``reward="log_equity"``): every reward equals
      ``log(equity after / equity before)`` within a relative tolerance of
      1e-6 (float32 rewards pass), the equity before being that of the
      previous observation's info (steps where either equity is at or below
      0, a wipe-out, are not compared). ``reward=None`` skips this for envs
      with another reward.
    - **finite numbers**: no NaN or inf in observations, rewards or
      ``info["equity"]``.
    - **reproducibility**: a second env from ``make_env(data)``, replaying
      the same seed and actions, gives the same trajectory (observations,
      rewards, flags, timestamps and equities; NaN equals NaN). The
      look-ahead and native checks need it and are skipped when it fails.
    - **native parity** (``native`` given): ``native(data)`` returns a native
      vector env (e.g. ``lambda data: sekai.make_vec(id, num_envs=1,
      vectorization_mode="native", data=data)``), compared with
      `sekai.testing.assert_native_matches` (this needs ``sekai-vector``):
      reset with ``seed=[seed, seed + 1, ...]`` and stepped ``n_steps`` times
      with random actions seeded with ``seed`` (not ``policy``'s), sub-env
      ``i`` must play exactly what ``make_env(data)`` reset with ``seed + i``
      plays: spaces, rewards, flags, observations with their dtypes, and
      infos. A difference, or an env that raises, is an error naming the
      step, the sub-env and the field. A native env whose sub-envs share one
      random stream matches only with one sub-env.

    With ``data=None``, ``make_env(None)`` builds the env on its own
    simulator: there is no data to perturb, so the look-ahead check is
    skipped with a warning; the other checks run.

    Args:
        make_env: ``make_env(data)`` builds a new single-agent env on ``data``
            (called once per replay; each env is closed after use).
        data: The [`MarketData`][sekai.finance.MarketData] the env plays, or
            None for an env that simulates its prices.
        n_steps: Steps to play (>= 1). Replays play at most as many.
        seed: The seed of the first reset, of the policy and of the
            perturbations (>= 0).
        policy: ``policy(observation, rng) -> action``, with ``rng`` a
            `numpy.random.Generator` seeded from ``seed``; by default random
            actions, sampled from a copy of the action space seeded with
            ``seed`` (under the env's ``action_mask()`` when it has one).
        reward: ``"log_equity"`` (the default reward of sekai's market envs)
            to compare rewards with ``info["equity"]``; None to skip that.
        native: ``native(data)`` builds the native vector env to compare
            with the single env, or None.
        look_ahead_checks: Decision times at which the look-ahead check
            perturbs the data (>= 1); each costs a replay of the run up to it.

    Returns:
        The problems found; empty when the env passed.

    Raises:
        TypeError: An argument of the wrong type (``data`` not a MarketData,
            a factory not callable, ...).
        ValueError: ``n_steps`` or ``look_ahead_checks`` < 1, a negative
            ``seed`` or an unknown ``reward``.
    """
    check_callable(make_env, "check_market_env: make_env")
    if data is not None and not isinstance(data, MarketData):
        raise TypeError(
            "check_market_env: data must be a sekai.finance.MarketData or None, "
            f"got {type(data).__name__}: {data!r}"
        )
    n_steps = check_int(n_steps, "check_market_env: n_steps", minimum=1)
    seed = check_seed(seed, "check_market_env: seed")
    look_ahead_checks = check_int(
        look_ahead_checks, "check_market_env: look_ahead_checks", minimum=1
    )
    if policy is not None:
        check_callable(policy, "check_market_env: policy")
    if native is not None:
        check_callable(native, "check_market_env: native")
    if reward is not None and reward != "log_equity":
        raise ValueError(f"check_market_env: reward must be 'log_equity' or None, got {reward!r}")

    report = _Report(warnings=True)
    base = _play_new(make_env, data, seed, n_steps, policy, None, report)
    if base is None:
        return report.items
    if base.error is not None:
        report.error("raised", f"playing the env: {base.error}")
    _check_finite(base.frames, report)
    if reward == "log_equity":
        _check_equity(base.frames, report)
    unsteady = _check_reproducible(make_env, data, seed, base, report)
    if data is None:
        report.warning("look-ahead-skipped", _LOOK_AHEAD_SKIPPED_WITHOUT_DATA)
    elif unsteady is not None and base.error is None:
        _check_look_ahead(make_env, data, seed, base, unsteady, look_ahead_checks, report)
    if native is not None and unsteady is not None and base.error is None:
        _check_native(native, make_env, data, seed, n_steps, report)
    return report.items


# -- playing ----------------------------------------------------------------------------------


def _build(make: Callable[[MarketData | None], Any], data: MarketData | None, what: str) -> Any:
    """``make(data)``, with the exception described as ``what`` raised ..."""
    try:
        return make(data)
    except Exception as error:
        raise _Failed(f"{what} raised {_describe(error)}") from error


class _Failed(Exception):
    """A factory or an env raised: the message says which call and what."""


def _close(env: Any) -> None:
    try:
        env.close()
    except Exception:  # closing a broken env must not hide what the check found
        return


def _play_new(
    make_env: Callable[[MarketData | None], Any],
    data: MarketData | None,
    seed: int,
    n_steps: int,
    policy: Policy | None,
    actions: list[Any] | None,
    report: _Report,
    what: str = "make_env(data)",
) -> _Run | None:
    """Play a new env; None (and an error in ``report``) if it cannot even be built."""
    try:
        env = _build(make_env, data, what)
    except _Failed as failure:
        report.error(f"raised-{what}", str(failure))
        return None
    try:
        return _play(env, seed, n_steps, policy, actions)
    finally:
        _close(env)


def _play(
    env: Any,
    seed: int,
    n_steps: int,
    policy: Policy | None,
    actions: list[Any] | None = None,
) -> _Run:
    """``n_steps`` steps from ``reset(seed=seed)``: the policy's actions or ``actions`` replayed."""
    run = _Run()
    choose: Callable[[Any], Any] | None = None
    if actions is None:
        choose = _chooser(env, seed, policy)
        actions = run.actions
    try:
        result = env.reset(seed=seed)
        run.frames.append(_reset_frame(0, result))
        for step in range(1, n_steps + 1):
            if choose is not None:
                run.actions.append(_snapshot(choose(run.frames[-1].observation)))
            elif step > len(actions):
                break
            outcome = env.step(actions[step - 1])
            frame = _step_frame(step, outcome)
            run.frames.append(frame)
            if frame.done:
                run.frames.append(_reset_frame(step, env.reset()))
    except Exception as error:
        where = run.frames[-1].where() if run.frames else "reset(seed=...)"
        run.error = f"after {where}, the env raised {_describe(error)}"
    return run


def _chooser(env: Any, seed: int, policy: Policy | None) -> Callable[[Any], Any]:
    if policy is not None:
        rng = np.random.default_rng(seed)
        return lambda observation: policy(observation, rng)
    sampler = _ActionSampler(env, env.action_space, _Report(warnings=False))
    sampler.space.seed(seed)
    return lambda observation: sampler.sample()


def _reset_frame(steps: int, result: Any) -> _Frame:
    info = result.info
    return _Frame(
        steps,
        reset=True,
        observation=_snapshot(result.observation),
        timestamp=info.get("timestamp"),
        equity=_equity(info),
        info=_snapshot(dict(info)),
    )


def _step_frame(steps: int, result: Any) -> _Frame:
    info = result.info
    return _Frame(
        steps,
        reset=False,
        observation=_snapshot(result.observation),
        reward=float(result.reward),
        terminated=bool(result.terminated),
        truncated=bool(result.truncated),
        timestamp=info.get("timestamp"),
        equity=_equity(info),
        info=_snapshot(dict(info)),
    )


def _equity(info: Mapping[str, Any]) -> float | None:
    value = info.get("equity")
    return None if value is None else float(value)


def _snapshot(value: Any) -> Any:
    """A copy that later steps of the env cannot change (envs may reuse their buffers)."""
    if isinstance(value, Mapping):
        return {key: _snapshot(item) for key, item in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(_snapshot(item) for item in value)
    if isinstance(value, np.ndarray):
        return value.copy()
    return value


# -- comparing ----------------------------------------------------------------------------------


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    """``(path, leaf)`` for every leaf of a nested observation (``observation['a'][1]``)."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from _leaves(item, f"{path}[{key!r}]")
    elif isinstance(value, (tuple, list)):
        for index, item in enumerate(value):
            yield from _leaves(item, f"{path}[{index}]")
    else:
        yield path, value


def _entry(path: str, array: np.ndarray[Any, Any], index: tuple[int, ...]) -> str:
    return path if array.ndim == 0 else f"{path}[{', '.join(map(str, index))}]"


def _show(value: Any) -> str:
    """A value as a message shows it: numpy scalars as plain numbers, times as ISO text."""
    if isinstance(value, np.datetime64):
        return str(value)
    if isinstance(value, np.generic):
        return repr(value.item())
    return repr(value)


# How a difference names the two runs it compares.
_RUNS = ("in the first run", "in the second")
_DATA = ("on the original data", "on the changed data")


def _differ(path: str, a: Any, b: Any, labels: tuple[str, str]) -> str:
    return f"{path} is {_show(a)} {labels[0]} and {_show(b)} {labels[1]}"


def _difference(a: Any, b: Any, path: str, labels: tuple[str, str] = _RUNS) -> str | None:
    """Where two nested values first differ (NaN equals NaN), worded for the report; or None."""
    found = first_difference(a, b, path)
    if found is None:
        return None
    where = found.path if found.aspect == "value" else f"the {found.aspect} of {found.path}"
    return _differ(where, found.got, found.expected, labels)


def _frame_difference(
    a: _Frame, b: _Frame, labels: tuple[str, str] = _RUNS, *, info: bool = True
) -> str | None:
    """What differs between two frames, or None (the observation first)."""
    found = _difference(a.observation, b.observation, "observation", labels)
    if found is not None:
        return found
    if a.reset != b.reset:
        return _differ("a reset", a.reset, b.reset, labels)
    if not a.reset:
        for name in ("reward", "terminated", "truncated"):
            what = "the reward" if name == "reward" else name
            found = _difference(getattr(a, name), getattr(b, name), what, labels)
            if found is not None:
                return found
    if info:
        for key in ("timestamp", "equity"):
            found = _difference(getattr(a, key), getattr(b, key), f"info[{key!r}]", labels)
            if found is not None:
                return found
    return None


# -- the checks ---------------------------------------------------------------------------------


def _check_finite(frames: list[_Frame], report: _Report) -> None:
    for frame in frames:
        where = frame.where()
        for path, leaf in _leaves(frame.observation, "observation"):
            values = np.asarray(leaf)
            if values.dtype.kind not in "fc":
                continue
            for kind, bad in (("NaN", np.isnan(values)), ("inf", np.isinf(values))):
                if bool(np.any(bad)):
                    index = tuple(int(i) for i in np.argwhere(bad)[0]) if values.ndim else ()
                    report.error(
                        f"observation-{kind}",
                        f"{where}: the observation holds {kind} at {_entry(path, values, index)}",
                    )
        for what, value in (("the reward", frame.reward), ("info['equity']", frame.equity)):
            if value is not None and not math.isfinite(value):
                kind = "NaN" if math.isnan(value) else "inf"
                report.error(f"{what}-{kind}", f"{where}: {what} is {kind} ({value!r})")


def _check_equity(frames: list[_Frame], report: _Report) -> None:
    if all(frame.equity is None for frame in frames):
        report.error(
            "equity-missing",
            "reward='log_equity' compares each reward with info['equity'], which the env does "
            "not report: report the account's value as info['equity'], or pass reward=None "
            "for an env whose reward is not the log growth of its equity",
        )
        return
    for before, after in itertools.pairwise(frames):
        if after.reset or after.reward is None:
            continue
        if before.equity is None or after.equity is None:
            continue
        if not (before.equity > 0.0 and after.equity > 0.0):
            continue  # a wipe-out (or no account yet): the log is undefined
        if not (math.isfinite(before.equity) and math.isfinite(after.equity)):
            continue  # reported by the finite-numbers check
        expected = math.log(after.equity / before.equity)
        if not math.isclose(after.reward, expected, rel_tol=_REWARD_RTOL, abs_tol=_REWARD_ATOL):
            report.error(
                "equity",
                f"{after.where()}: the reward {after.reward!r} is not the log growth of the "
                f"equity, log({after.equity!r} / {before.equity!r}) = {expected!r} (off by "
                f"{after.reward - expected:.6g}); pass reward=None for an env whose reward is "
                "not log(equity after / equity before)",
            )
            return


def _check_reproducible(
    make_env: Callable[[MarketData | None], Any],
    data: MarketData | None,
    seed: int,
    base: _Run,
    report: _Report,
) -> frozenset[str] | None:
    """Replay the run: None when it differs, else the info keys that differed.

    Those keys (timings and the like) are left out of the look-ahead comparison.
    """
    replay = _play_new(make_env, data, seed, len(base.actions), None, base.actions, report)
    if replay is None:
        return None
    for first, second in zip(base.frames, replay.frames, strict=False):
        found = _frame_difference(first, second)
        if found is not None:
            report.error(
                "reproducible",
                f"not reproducible: a new env from make_env(data), reset with the same seed "
                f"({seed}) and given the same actions, played another trajectory: at "
                f"{first.where()}, {found}",
            )
            return None
    if len(base.frames) != len(replay.frames) or (base.error is None) != (replay.error is None):
        report.error(
            "reproducible",
            f"not reproducible: the same seed ({seed}) and actions gave "
            f"{len(base.frames)} observations ({base.error or 'no error'}) then "
            f"{len(replay.frames)} ({replay.error or 'no error'})",
        )
        return None
    unsteady: set[str] = set()
    for first, second in zip(base.frames, replay.frames, strict=True):
        for key in first.info.keys() | second.info.keys():
            if key in unsteady or key in ("timestamp", "equity"):
                continue
            if (
                key not in first.info
                or key not in second.info
                or _difference(first.info[key], second.info[key], "info") is not None
            ):
                unsteady.add(key)
    return frozenset(unsteady)


@dataclass
class _Point:
    """A decision time of the run the look-ahead check perturbs the data after."""

    index: int  # of the frame whose observation was computed at the time
    row: int  # the data row of that time
    start: int  # the index of the reset frame that began the frame's episode


def _check_look_ahead(
    make_env: Callable[[MarketData | None], Any],
    data: MarketData,
    seed: int,
    base: _Run,
    unsteady: frozenset[str],
    checks: int,
    report: _Report,
) -> None:
    frames = base.frames
    if all(frame.timestamp is None for frame in frames):
        report.warning(
            "look-ahead-skipped",
            "look-ahead not checked: the env reports no info['timestamp'] (the time of the "
            "row each observation was computed at), so the kit cannot tell which rows to "
            "perturb",
        )
        return
    try:
        candidates = _decision_points(frames, data)
    except Exception as error:
        report.warning(
            "look-ahead-skipped",
            f"look-ahead not checked: info['timestamp'] {frames[0].timestamp!r} cannot be "
            f"placed among the data's timestamps ({data.timestamps.dtype}): {_describe(error)}",
        )
        return
    if not candidates:
        report.warning(
            "look-ahead-skipped",
            "look-ahead not checked: no observation of the run was computed before the last "
            "row of the data at a time its episode had not passed yet; play more steps",
        )
        return
    rng = np.random.default_rng(np.random.SeedSequence([seed, 1]))
    chosen = _spread(candidates, checks, rng)
    # Decision times where the account's value moved over the step taken there: if the
    # rows after t never change that step's outcome, the env filled at prices already seen.
    telling = [point for point in candidates if point not in chosen and _moved(frames, point)]
    extra = [telling[int(i)] for i in rng.permutation(len(telling))[:_EXTRA_PROBES]]
    anything, outcome, tried = False, False, 0
    for number, point in enumerate(chosen + extra):
        if number >= len(chosen) and outcome:
            break
        frame = frames[point.index]
        perturbed = _perturb(data, point.row, rng)
        what = f"make_env(data with the rows after {frame.timestamp} changed)"
        steps = min(frame.steps + 2, len(base.actions))
        replay = _play_new(make_env, perturbed, seed, steps, None, base.actions, report, what)
        if replay is None:
            return
        if replay.error is not None and len(replay.frames) <= point.index:
            report.error(
                "look-ahead-raised",
                f"replaying the run on the data with the rows after {frame.timestamp} (row "
                f"{point.row}) changed: {replay.error}",
            )
            return
        if _leaked(frames, replay.frames, point, unsteady, report):
            return
        after = _changed_after(frames, replay, point)
        anything = anything or after is not None
        if _moved(frames, point):
            tried += 1
            outcome = outcome or after == "outcome"
    if not anything:
        report.error(
            "no-effect",
            f"changing the rows after t changed nothing: at {len(chosen)} decision times t, "
            "the data was replaced after t and the same actions replayed, and every "
            "observation, reward and info of the next two steps came out the same; does "
            "make_env use its data argument, or does the env fill at prices already seen?",
        )
    elif tried and not outcome:
        report.error(
            "no-effect",
            f"changing the rows after t changed nothing: at {tried} decision times t where "
            "the account's value moved over the step taken at t, the data was replaced after "
            "t and the same actions replayed, and the reward and equity of that step came out "
            "the same (the env reads the new rows: its later observations changed); does "
            "make_env use its data argument, or does the env fill at prices already seen "
            "(the step from t earning a move the agent saw before acting)?",
        )


def _moved(frames: list[_Frame], point: _Point) -> bool:
    """Whether the step taken at the point moved the account (its equity, else its reward)."""
    index = point.index
    if frames[index].done or index + 1 >= len(frames):
        return False
    before, after = frames[index], frames[index + 1]
    if before.equity is not None and after.equity is not None:
        return before.equity != after.equity
    return after.reward is not None and after.reward != 0.0


def _leaked(
    frames: list[_Frame],
    replayed: list[_Frame],
    point: _Point,
    unsteady: frozenset[str],
    report: _Report,
) -> bool:
    """Report (and say True) when a frame of the point's episode, up to it, changed."""
    frame = frames[point.index]
    if len(replayed) <= point.index or not replayed[point.start].reset:
        return False  # earlier episodes ended elsewhere: the replay is not the same run
    if replayed[point.start].steps != frames[point.start].steps:
        return False
    for original, again in zip(
        frames[point.start : point.index + 1], replayed[point.start : point.index + 1], strict=True
    ):
        found = _frame_difference(original, again, _DATA, info=False)
        if found is None:
            found = _difference(
                _without(original.info, unsteady), _without(again.info, unsteady), "info", _DATA
            )
        if found is not None:
            seen = "" if original.timestamp is None else f" (at {_show(original.timestamp)})"
            report.error(
                "look-ahead",
                f"look-ahead: what the agent saw at {original.where()}{seen} changed when "
                f"only the rows after {_show(frame.timestamp)} (row {point.row}, the time of the "
                f"observation of {frame.where()}) changed: {found}; the env reads data "
                "after the decision time",
            )
            return True
    return False


def _without(info: dict[str, Any], keys: frozenset[str]) -> dict[str, Any]:
    return {key: value for key, value in info.items() if key not in keys}


def _changed_after(frames: list[_Frame], replay: _Run, point: _Point) -> str | None:
    """What the changed rows changed after the point, if anything.

    ``"outcome"``: the reward or equity of the step taken there; ``"later"``: something
    else of the next two steps; None: nothing.
    """
    index = point.index
    ahead = list(zip(frames[index + 1 :], replay.frames[index + 1 :], strict=False))
    if replay.error is not None and len(replay.frames) <= index + 1:
        return "later"  # the new rows made the env raise: it reads them
    if ahead and not frames[index].done:
        first, again = ahead[0]
        if _difference((first.reward, first.equity), (again.reward, again.equity), "") is not None:
            return "outcome"
    for original, again in ahead:
        found = _frame_difference(original, again, _DATA, info=False)
        if found is not None or _difference(original.info, again.info, "info") is not None:
            return "later"
    return None


def _decision_points(frames: list[_Frame], data: MarketData) -> list[_Point]:
    """The observations fit for the look-ahead check.

    A frame qualifies when it has a timestamp, the data has rows after it, and no earlier
    frame of its episode was computed at a later time. Its episode's frames up to it are
    the ones compared (earlier episodes may have seen the rows after it).
    """
    points: list[_Point] = []
    start = 0
    latest: Any = None
    for index, frame in enumerate(frames):
        if frame.reset:
            start, latest = index, None
        time = frame.timestamp
        if time is None:
            continue
        if latest is not None and bool(time < latest):
            continue
        latest = time
        row = data.index_of(time, side="right") - 1
        if 0 <= row < data.n_steps - 1:
            points.append(_Point(index, row, start))
    return points


def _spread(points: list[_Point], checks: int, rng: np.random.Generator) -> list[_Point]:
    """Up to ``checks`` points, one drawn from each of as many equal parts of the run."""
    parts = np.array_split(np.arange(len(points)), min(checks, len(points)))
    return [points[int(rng.choice(part))] for part in parts]


def _perturb(data: MarketData, row: int, rng: np.random.Generator) -> MarketData:
    """``data`` with every row after ``row`` replaced by another valid continuation.

    Each field of each asset and row gets its own positive factor, clearly away from 1
    (so the ratios of two fields of a row change too); NaN stays NaN, 0 stays 0, signs
    stay, and the highs and lows are put back around the new opens and closes. Each
    exogenous series is pulled toward its value at ``row`` (see `_pull`).
    """
    n_after = data.n_steps - row - 1
    shape = (n_after, data.n_assets)
    fields = {}
    for name, table in data.fields.items():
        size = _LOG_MIN + np.abs(rng.normal(0.0, _LOG_SCALE, shape))
        sign = np.where(rng.random(shape) < 0.5, -1.0, 1.0)
        changed = table.copy()
        changed[row + 1 :] *= np.exp(np.clip(sign * size, -_LOG_BOUND, _LOG_BOUND))
        fields[name] = changed
    bar = [fields[name] for name in (data.price_field, "open") if name in fields]
    if "high" in fields:
        high = fields["high"]
        fields["high"] = np.where(np.isnan(high), high, _nanreduce(np.fmax, [high, *bar]))
    if "low" in fields:
        low = fields["low"]
        bounds = [low, *bar, fields["high"]] if "high" in fields else [low, *bar]
        fields["low"] = np.where(np.isnan(low), low, _nanreduce(np.fmin, bounds))
    perturbed = data.with_fields(**fields)
    series = {name: _pull(values, row, rng) for name, values in data.exogenous.items()}
    return perturbed.with_exogenous(**series) if series else perturbed


def _nanreduce(ufunc: Any, tables: list[np.ndarray[Any, Any]]) -> np.ndarray[Any, Any]:
    result = tables[0]
    for table in tables[1:]:
        result = ufunc(result, table)
    return np.asarray(result)


def _pull(values: np.ndarray[Any, Any], row: int, rng: np.random.Generator) -> Any:
    """An exogenous series with every value after ``row`` pulled toward its value at ``row``.

    ``x' = a + c (x - a)``, ``a`` the last known value at or before ``row`` (per column;
    0 when there is none) and ``c`` drawn in [0.3, 0.8]: every value after ``row`` moves
    (unless it equals ``a``), and the new values lie between ``a`` and the old ones, so a
    series that is monotone, bounded or of one sign stays so; NaN stays NaN.
    """
    changed = np.array(values, dtype=np.float64, copy=True)
    columns = changed.reshape(changed.shape[0], -1)
    anchor = np.zeros(columns.shape[1])
    for column in range(columns.shape[1]):
        known = np.flatnonzero(~np.isnan(columns[: row + 1, column]))
        if known.size:
            anchor[column] = columns[known[-1], column]
    pull = rng.uniform(_PULL_LOW, _PULL_HIGH)
    columns[row + 1 :] = anchor + pull * (columns[row + 1 :] - anchor)
    return columns.reshape(changed.shape)


def _check_native(
    native: Callable[[MarketData | None], Any],
    make_env: Callable[[MarketData | None], Any],
    data: MarketData | None,
    seed: int,
    n_steps: int,
    report: _Report,
) -> None:
    """Native parity, by `sekai.testing.assert_native_matches` (the one place of that rule)."""
    try:  # sekai-vector's, imported here: sekai-finance does not depend on it
        from sekai.vector._contract_native import assert_native_matches
    except ImportError as error:
        report.error(
            "native",
            "native parity not checked: it needs the sekai-vector distribution "
            f"(sekai.testing.assert_native_matches), which cannot be imported: {error}",
        )
        return
    try:
        vec = _build(native, data, "native(data)")
    except _Failed as failure:
        report.error("native", str(failure))
        return
    built = [vec]

    def make_native(num_envs: int) -> Any:
        return built.pop() if built else _build(native, data, "native(data)")

    try:
        num_envs = int(vec.num_envs)
        assert_native_matches(
            lambda: make_env(data),
            make_native,
            seeds=[seed + i for i in range(num_envs)],
            n_steps=n_steps,
            actions_seed=seed,
        )
    except AssertionError as error:
        report.error("native", _native_message(str(error)))
    except _Failed as failure:
        report.error("native", f"native parity: {failure}")
    except Exception as error:
        report.error(
            "native",
            "native parity: comparing native(data) with the single envs from make_env(data), "
            f"one of them raised {_describe(error)}",
        )
    finally:
        for unused in built:
            _close(unused)


def _native_message(failure: str) -> str:
    """assert_native_matches' message ("step 3, sub-env 1, reward: ...") as the kit's."""
    failure = failure.removeprefix("assert_native_matches: ")
    found = re.fullmatch(r"(reset \(step 0\)|step \d+), sub-env (\d+), (.*)", failure, re.DOTALL)
    if found is None:
        return f"native parity: native(data) differs from the single env: {failure}"
    when, i, what = found.groups()
    return (
        f"native parity: sub-env {i} of native(data) differs from the single env (reset with "
        f"seed + {i}, both given the same random actions) at {when}: {what}"
    )
