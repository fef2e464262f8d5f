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
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sekai._internal.validation import check_callable, check_int, check_seed
from sekai.finance._market_data import MarketData
from sekai.utils.checker import _ActionSampler, _describe, _Report

__all__ = ["check_market_env"]

_LOOK_AHEAD_CHECKS = 5
# log(equity after / equity before) against the reward: both are computed in float64
# from the same numbers, by different formulas (e.g. log((1 - c)(1 + w r))).
_REWARD_RTOL = 1e-9
_REWARD_ATOL = 1e-12
# The perturbed continuation: a random walk of log factors, kept within +-_LOG_BOUND so
# that spreads, volumes and other non-price fields stay of their usual size.
_LOG_STEP = 0.05
_LOG_BOUND = 0.5

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

    - **look-ahead**, by perturbation: at several decision times ``t``
      (seeded, spread over the run) the rows of ``data`` after ``t`` are
      replaced by another valid continuation, the env is built again on that
      copy and the same actions are replayed from the same seed. Every
      observation up to the one seen at ``t`` (with the rewards and flags that
      came with them) must be identical, NaN for NaN. The continuation
      multiplies every field of every asset (prices, opens, highs, lows,
      volumes, ...) by one positive random-walk factor per row and asset, so
      the OHLC order, signs, zeros and missing values stay as they were, and
      shuffles the rows after ``t`` of every exogenous series. Only decision
      times that no earlier observation of the run lies after are used, so
      that nothing before them may legitimately depend on the later rows.
      A difference is an error that says "look-ahead", the step and the
      observation entry (key path and index).
    - **reward and equity** (``reward="log_equity"``): every reward equals
      ``log(equity after / equity before)`` within a relative tolerance of
      1e-9, the equity before being that of the previous observation's info
      (steps where either equity is at or below 0, a wipe-out, are not
      compared). ``reward=None`` skips this for envs with another reward.
    - **finite numbers**: no NaN or inf in observations, rewards or
      ``info["equity"]``.
    - **reproducibility**: a second env from ``make_env(data)``, replaying
      the same seed and actions, gives the same trajectory (observations,
      rewards, flags, timestamps and equities; NaN equals NaN). The
      look-ahead and native checks need it and are skipped when it fails.
    - **native parity** (``native`` given): ``native(data)`` returns a native
      vector env (e.g. ``lambda data: sekai.make_vec(id, num_envs=1,
      vectorization_mode="native", data=data)``). It is reset with one seed
      per sub-env, ``seed=[seed, seed + 1, ...]``, and sub-env ``i`` must play,
      step for step, what the single env plays from ``reset(seed=seed + i)``
      with the same actions: observations (the next episode's first one after
      an autoreset, the final one in ``infos[i]["final_observation"]``),
      rewards and flags, exactly. A native env whose sub-envs share one
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

    Returns:
        The problems found; empty when the env passed.

    Raises:
        TypeError: An argument of the wrong type (``data`` not a MarketData,
            a factory not callable, ...).
        ValueError: ``n_steps`` < 1, a negative ``seed`` or an unknown
            ``reward``.
    """
    check_callable(make_env, "check_market_env: make_env")
    if data is not None and not isinstance(data, MarketData):
        raise TypeError(
            "check_market_env: data must be a sekai.finance.MarketData or None, "
            f"got {type(data).__name__}: {data!r}"
        )
    n_steps = check_int(n_steps, "check_market_env: n_steps", minimum=1)
    seed = check_seed(seed, "check_market_env: seed")
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
    reproducible = _check_reproducible(make_env, data, seed, base, report)
    if data is None:
        report.warning(
            "look-ahead-skipped",
            "look-ahead not checked: data is None, so make_env(None) builds the env on its own "
            "simulator and there are no rows to perturb; pass the MarketData the env plays "
            "as data to check it",
        )
    elif reproducible and base.error is None:
        _check_look_ahead(make_env, data, seed, base, report)
    if native is not None and reproducible and base.error is None:
        _check_native(native, make_env, data, seed, n_steps, policy, base, report)
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
_NATIVE = ("in the native env", "in the single env")


def _differ(path: str, a: Any, b: Any, labels: tuple[str, str]) -> str:
    return f"{path} is {_show(a)} {labels[0]} and {_show(b)} {labels[1]}"


def _difference(a: Any, b: Any, path: str, labels: tuple[str, str] = _RUNS) -> str | None:
    """Where two nested values first differ (NaN equals NaN), or None when they are equal."""
    if isinstance(a, Mapping) or isinstance(b, Mapping):
        if not (isinstance(a, Mapping) and isinstance(b, Mapping)) or a.keys() != b.keys():
            return _differ(f"the keys of {path}", _keys(a), _keys(b), labels)
        for key in a:
            found = _difference(a[key], b[key], f"{path}[{key!r}]", labels)
            if found is not None:
                return found
        return None
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        if not (isinstance(a, (tuple, list)) and isinstance(b, (tuple, list))) or len(a) != len(b):
            return _differ(path, a, b, labels)
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            found = _difference(x, y, f"{path}[{index}]", labels)
            if found is not None:
                return found
        return None
    left, right = np.asarray(a), np.asarray(b)
    if left.shape != right.shape:
        return _differ(f"the shape of {path}", left.shape, right.shape, labels)
    try:
        same = np.asarray(left == right)
        if left.dtype.kind in "fc" and right.dtype.kind in "fc":
            same = same | (np.isnan(left) & np.isnan(right))
    except Exception:  # values numpy cannot compare: compare them as objects
        return None if a == b else _differ(path, a, b, labels)
    if bool(np.all(same)):
        return None
    where = tuple(int(i) for i in np.argwhere(~same)[0]) if left.ndim else ()
    return _differ(_entry(path, left, where), left[where], right[where], labels)


def _keys(value: Any) -> list[Any]:
    return sorted(value.keys(), key=repr) if isinstance(value, Mapping) else [type(value).__name__]


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
) -> bool:
    replay = _play_new(make_env, data, seed, len(base.actions), None, base.actions, report)
    if replay is None:
        return False
    for first, second in zip(base.frames, replay.frames, strict=False):
        found = _frame_difference(first, second)
        if found is not None:
            report.error(
                "reproducible",
                f"not reproducible: a new env from make_env(data), reset with the same seed "
                f"({seed}) and given the same actions, played another trajectory: at "
                f"{first.where()}, {found}",
            )
            return False
    if len(base.frames) != len(replay.frames) or (base.error is None) != (replay.error is None):
        report.error(
            "reproducible",
            f"not reproducible: the same seed ({seed}) and actions gave "
            f"{len(base.frames)} observations ({base.error or 'no error'}) then "
            f"{len(replay.frames)} ({replay.error or 'no error'})",
        )
        return False
    return True


def _check_look_ahead(
    make_env: Callable[[MarketData | None], Any],
    data: MarketData,
    seed: int,
    base: _Run,
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
            "row of the data and after every earlier one; play more steps",
        )
        return
    rng = np.random.default_rng(np.random.SeedSequence([seed, 1]))
    for index, row in _spread(candidates, rng):
        frame = frames[index]
        perturbed = _perturb(data, row, rng)
        what = f"make_env(data with the rows after {frame.timestamp} changed)"
        replay = _play_new(make_env, perturbed, seed, frame.steps, None, base.actions, report, what)
        if replay is None:
            return
        if replay.error is not None:
            report.error(
                "look-ahead-raised",
                f"replaying the run on the data with the rows after {frame.timestamp} (row "
                f"{row}) changed: {replay.error}",
            )
            return
        for original, again in zip(frames[: index + 1], replay.frames, strict=False):
            found = _frame_difference(original, again, _DATA, info=False)
            if found is not None:
                seen = "" if original.timestamp is None else f" (at {_show(original.timestamp)})"
                report.error(
                    "look-ahead",
                    f"look-ahead: what the agent saw at {original.where()}{seen} changed when "
                    f"only the rows after {_show(frame.timestamp)} (row {row}, the time of the "
                    f"observation of {frame.where()}) changed: {found}; the env reads data "
                    "after the decision time",
                )
                return


def _decision_points(frames: list[_Frame], data: MarketData) -> list[tuple[int, int]]:
    """``(frame index, data row)`` of the observations fit for the look-ahead check.

    A frame qualifies when it has a timestamp, the data has rows after it, and no
    earlier frame of the run was computed at a later time (a reset without a
    timestamp counts as the time of the step after it).
    """
    latest: Any = None
    points: list[tuple[int, int]] = []
    for index, frame in enumerate(frames):
        time = frame.timestamp
        if time is None and frame.reset and index + 1 < len(frames):
            time = frames[index + 1].timestamp
        if time is None:
            return points  # an observation at an unknown time: nothing after it is safe
        if latest is None or bool(time > latest):
            latest = time
        if frame.timestamp is None or bool(frame.timestamp < latest):
            continue
        row = data.index_of(frame.timestamp, side="right") - 1
        if 0 <= row < data.n_steps - 1:
            points.append((index, row))
    return points


def _spread(points: list[tuple[int, int]], rng: np.random.Generator) -> list[tuple[int, int]]:
    """Up to `_LOOK_AHEAD_CHECKS` points, one drawn from each of as many equal parts of the run."""
    parts = np.array_split(np.arange(len(points)), min(_LOOK_AHEAD_CHECKS, len(points)))
    return [points[int(rng.choice(part))] for part in parts]


def _perturb(data: MarketData, row: int, rng: np.random.Generator) -> MarketData:
    """``data`` with every row after ``row`` replaced by another valid continuation."""
    n_after = data.n_steps - row - 1
    steps = rng.normal(0.0, _LOG_STEP, (n_after, data.n_assets))
    steps[0] += np.where(rng.random(data.n_assets) < 0.5, -_LOG_STEP, _LOG_STEP)  # never 1
    factor = np.exp(np.clip(np.cumsum(steps, axis=0), -_LOG_BOUND, _LOG_BOUND))
    fields = {}
    for name, table in data.fields.items():
        changed = table.copy()
        changed[row + 1 :] *= factor  # NaN stays NaN, 0 stays 0, the OHLC order is kept
        fields[name] = changed
    perturbed = data.with_fields(**fields)
    series = {}
    for name, values in data.exogenous.items():
        changed = values.copy()
        changed[row + 1 :] = changed[row + 1 :][rng.permutation(n_after)]
        series[name] = changed
    return perturbed.with_exogenous(**series) if series else perturbed


def _check_native(
    native: Callable[[MarketData | None], Any],
    make_env: Callable[[MarketData | None], Any],
    data: MarketData | None,
    seed: int,
    n_steps: int,
    policy: Policy | None,
    base: _Run,
    report: _Report,
) -> None:
    from sekai.spaces.batching import concatenate, iterate

    try:
        vec = _build(native, data, "native(data)")
    except _Failed as failure:
        report.error("native", str(failure))
        return
    try:
        num_envs = int(vec.num_envs)
        singles = [base]
        for i in range(1, num_envs):
            run = _play_new(make_env, data, seed + i, n_steps, policy, None, report)
            if run is None or run.error is not None:
                return
            singles.append(run)
        observation_space, action_space = vec.observation_space, vec.action_space
        batch = vec.reset(seed=[seed + i for i in range(num_envs)])
        cursors = [0] * num_envs
        rows = list(iterate(observation_space, batch.observations))
        for i, run in enumerate(singles):
            found = _difference(rows[i], run.frames[0].observation, "observation", _NATIVE)
            if found is not None:
                report.error("native", _native_message(i, "reset(seed=...)", found))
                return
        for step in range(n_steps):
            actions = concatenate(action_space, [run.actions[step] for run in singles])
            result = vec.step(actions)
            rows = list(iterate(observation_space, result.observations))
            for i, run in enumerate(singles):
                cursors[i] += 1
                frame = run.frames[cursors[i]]
                found = _native_step_difference(result, i, rows[i], frame)
                if found is None and frame.done:
                    cursors[i] += 1  # the single env's reset: the native env's autoreset
                    final = result.infos[i].get("final_observation")
                    path = f"infos[{i}]['final_observation']"
                    found = _difference(final, frame.observation, path, _NATIVE)
                    if found is None:
                        after = run.frames[cursors[i]].observation
                        found = _difference(rows[i], after, "the autoreset observation", _NATIVE)
                if found is not None:
                    report.error("native", _native_message(i, frame.where(), found))
                    return
    except Exception as error:
        report.error("native", f"native parity: the native env raised {_describe(error)}")
    finally:
        _close(vec)


def _native_step_difference(result: Any, i: int, row: Any, frame: _Frame) -> str | None:
    """How sub-env ``i`` of a vector step differs from the single env's step (None: it doesn't)."""
    if not frame.done:  # else the row is the next episode's first observation
        found = _difference(row, frame.observation, "observation", _NATIVE)
        if found is not None:
            return found
    for name, value, single in (
        ("the reward", float(result.rewards[i]), frame.reward),
        ("terminated", bool(result.terminated[i]), frame.terminated),
        ("truncated", bool(result.truncated[i]), frame.truncated),
    ):
        found = _difference(value, single, name, _NATIVE)
        if found is not None:
            return found
    return None


def _native_message(i: int, where: str, found: str) -> str:
    return (
        f"native parity: sub-env {i} of native(data) differs from the single env (reset with "
        f"seed + {i}, given the same actions) at {where}: {found}"
    )
