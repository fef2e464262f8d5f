"""NativeVecEnv's time limit against a plain model, under limits that change between steps.

``NativeVecEnv.step`` skips the comparison with the limit on steps where no
sub-env can reach it (issue 36: a fixed cost small batches feel), and
replaces its elapsed-steps array instead of changing it in place (so a step's
infos keep their own without a copy). Neither may change what a step reports.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

_LIMITS = st.one_of(st.none(), st.integers(1, 8))


def _limit_changes(n: int) -> st.SearchStrategy[Any]:
    per_env = st.lists(st.integers(1, 8), min_size=n, max_size=n)
    return st.one_of(_LIMITS, per_env)


@st.composite
def _scenarios(draw: st.DrawFn) -> tuple[int, list[int], Any, list[Any]]:
    n = draw(st.integers(1, 4))
    lengths = draw(st.lists(st.integers(1, 12), min_size=n, max_size=n))
    limit = draw(_LIMITS)
    ops = draw(
        st.lists(
            st.one_of(
                st.just(("step",)),
                st.just(("step",)),
                st.just(("step",)),
                st.just(("reset",)),
                st.tuples(st.just("limit"), _limit_changes(n)),
            ),
            max_size=60,
        )
    )
    return n, lengths, limit, ops


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(scenario=_scenarios())
def test_truncation_and_elapsed_steps_follow_the_limit_of_each_step(
    kit: Any, scenario: tuple[int, list[int], Any, list[Any]]
) -> None:
    n, lengths, limit, ops = scenario
    vec = kit.CountingNativeVecEnv(n, lengths, max_episode_steps=limit)
    vec.reset()
    elapsed = [0] * n  # the model: steps since each sub-env's reset
    limits: list[int | None] = [limit] * n
    seen: list[tuple[Any, list[int] | None]] = []  # results and the elapsed steps they report
    for op in ops:
        if op[0] == "reset":
            vec.reset()
            elapsed = [0] * n
            continue
        if op[0] == "limit":
            vec.max_episode_steps = op[1]
            limits = list(op[1]) if isinstance(op[1], list) else [op[1]] * n
            continue
        result = vec.step([0] * n)
        elapsed = [e + 1 for e in elapsed]
        terminated = [e == length for e, length in zip(elapsed, lengths, strict=True)]
        truncated = [
            lim is not None and e >= lim and not term
            for e, lim, term in zip(elapsed, limits, terminated, strict=True)
        ]
        assert result.terminated.tolist() == terminated
        assert result.truncated.tolist() == truncated
        reported = None if all(lim is None for lim in limits) else list(elapsed)
        seen.append((result, reported))
        elapsed = [
            0 if t or u else e for e, t, u in zip(elapsed, terminated, truncated, strict=True)
        ]
        np.testing.assert_array_equal(vec.elapsed_steps, elapsed)
    # Read only now: each step's infos still describe that step.
    for result, reported in seen:
        for i, info in enumerate(result.infos):
            source = info.get("final_info", info)
            if reported is None:
                assert "elapsed_steps" not in source
            else:
                assert source["elapsed_steps"] == reported[i]


def test_a_limit_per_sub_env_changes_only_through_assignment(kit: Any) -> None:
    # The step skips checking the limit while no sub-env can reach it; only
    # the setter (which also validates) may change it, so the array it hands
    # out refuses writes instead of being ignored by that count.
    vec = kit.CountingNativeVecEnv(2, [100, 100], max_episode_steps=[50, 50])
    vec.reset()
    vec.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="read-only"):
        vec.max_episode_steps[:] = 2
    vec.max_episode_steps = [2, 50]
    result = vec.step(np.zeros(2, dtype=np.int64))
    assert result.truncated.tolist() == [True, False]
