"""The kits of sekai.testing for vector envs: they pass sekai's backends and catch wrong ones.

The kits run here from test files written outside the project (pytest's
``pytester``), as a third party would run them.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.spaces import Discrete, MultiDiscrete
from sekai.testing import VecEnvContract, assert_native_matches
from sekai.vector import SyncVecEnv
from sekai.vector._contract_envs import CountingEnv, CountingEnvFn, CountingNativeVecEnv

pytest_plugins = ("pytester",)

KIT_TESTS = sorted(name for name in dir(VecEnvContract) if name.startswith("test_"))


class NoAutoreset(SyncVecEnv[Any, Any]):
    """Wrong on purpose: never resets finished sub-envs (whatever ``autoreset`` says)."""

    def __init__(self, env_fns: Any, **kwargs: Any) -> None:
        kwargs["autoreset"] = False
        super().__init__(env_fns, **kwargs)


class SameSeedEverywhere(SyncVecEnv[Any, Any]):
    """Wrong on purpose: gives an int seed to every sub-env as it is."""

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        if isinstance(seed, int):
            seed = [seed] * self.num_envs
        return super().reset(seed=seed, options=options)


class FixedSeedForNone(SyncVecEnv[Any, Any]):
    """Wrong on purpose: reseeds with 0 where the seed is None (instead of continuing)."""

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        if seed is None:
            seed = [0] * self.num_envs
        elif isinstance(seed, list):
            seed = [0 if s is None else s for s in seed]
        return super().reset(seed=seed, options=options)


class LeavesSubEnvsOpen(SyncVecEnv[Any, Any]):
    """Wrong on purpose: close() marks the vector env closed but never closes a sub-env."""

    def close(self) -> None:
        for env in self.envs:
            env.close = lambda: None  # type: ignore[method-assign]
        super().close()


class Float64Steps(SyncVecEnv[Any, Any]):
    """Wrong on purpose: step observations in float64 (the space says float32)."""

    def step(self, actions: Any) -> Any:
        result = super().step(actions)
        return dataclasses.replace(result, observations=result.observations.astype(np.float64))


class OwnWording(SyncVecEnv[Any, Any]):
    """Honest: checks the batch of actions itself, in words of its own."""

    def step(self, actions: Any) -> Any:
        try:
            shape = np.shape(actions)
        except ValueError:
            shape = None
        if shape != (self.num_envs,):
            raise ValueError(
                f"OwnWording.step: the actions must have shape ({self.num_envs},), got {actions!r}"
            )
        return super().step(actions)


def _run_kit(pytester: pytest.Pytester, backend: str) -> dict[str, str]:
    """Run VecEnvContract on ``backend`` from a file outside the project: test -> outcome."""
    sys.modules["sekai_vector_tests_kit"] = sys.modules[__name__]
    pytester.makepyfile(
        test_backend=textwrap.dedent(
            f"""
            from sekai.testing import VecEnvContract
            from sekai.vector import SyncVecEnv
            from sekai_vector_tests_kit import (
                FixedSeedForNone,
                Float64Steps,
                LeavesSubEnvsOpen,
                NoAutoreset,
                OwnWording,
                SameSeedEverywhere,
            )

            class TestBackend(VecEnvContract):
                supports_partial_batches = True

                def make_vec_env(self, env_fns, **kwargs):
                    return {backend}(env_fns, **kwargs)
            """
        )
    )
    reprec = pytester.inline_run("-p", "no:cacheprovider")
    outcomes: dict[str, str] = {}
    for report in reprec.getreports("pytest_runtest_logreport"):
        if report.when == "call" or report.outcome != "passed":
            name = report.nodeid.rsplit("::", 1)[1].split("[", 1)[0]
            if outcomes.get(name) != "failed":
                outcomes[name] = report.outcome
    return outcomes


def test_sync_vec_env_passes_the_kit_from_outside_the_project(pytester: pytest.Pytester) -> None:
    outcomes = _run_kit(pytester, "SyncVecEnv")
    assert sorted(outcomes) == KIT_TESTS
    assert set(outcomes.values()) == {"passed"}


def test_a_backend_without_autoreset_fails_the_kit(pytester: pytest.Pytester) -> None:
    outcomes = _run_kit(pytester, "NoAutoreset")
    failed = {name for name, outcome in outcomes.items() if outcome == "failed"}
    # get_set_attr_and_call reads a total that autoreset would have cleared.
    assert failed == {"test_autoreset_same_step", "test_truncation", "test_get_set_attr_and_call"}


def test_a_backend_with_wrong_seeding_fails_the_kit(pytester: pytest.Pytester) -> None:
    outcomes = _run_kit(pytester, "SameSeedEverywhere")
    failed = {name for name, outcome in outcomes.items() if outcome == "failed"}
    # reset() after reset(seed=s) continues make_seed_sequence(s, n)[i]'s stream, not s's.
    assert failed == {
        "test_int_seed_derives_one_seed_per_sub_env",
        "test_seed_none_continues_the_streams",
    }


def _failed(pytester: pytest.Pytester, backend: str) -> set[str]:
    return {name for name, outcome in _run_kit(pytester, backend).items() if outcome == "failed"}


def test_a_backend_that_reseeds_instead_of_continuing_fails_the_kit(
    pytester: pytest.Pytester,
) -> None:
    assert _failed(pytester, "FixedSeedForNone") == {
        "test_list_of_seeds",
        "test_seed_none_continues_the_streams",
    }


def test_a_backend_that_leaves_its_sub_envs_open_fails_the_kit(
    pytester: pytest.Pytester,
) -> None:
    assert _failed(pytester, "LeavesSubEnvsOpen") == {"test_close_closes_every_sub_env_once"}


def test_a_backend_with_float64_step_observations_fails_the_kit(
    pytester: pytest.Pytester,
) -> None:
    # Every test that checks a step's result against batch_observation_space.
    assert _failed(pytester, "Float64Steps") == {
        "test_step_result",
        "test_autoreset_same_step",
        "test_without_autoreset_finished_sub_envs_freeze",
    }


def test_a_backend_with_its_own_wording_for_a_bad_batch_passes_the_kit(
    pytester: pytest.Pytester,
) -> None:
    outcomes = _run_kit(pytester, "OwnWording")
    assert outcomes["test_bad_action_batch_raises_before_any_sub_env_moves"] == "passed"
    assert set(outcomes.values()) == {"passed"}


def test_a_backend_that_is_not_a_vec_env_is_named() -> None:
    class TestWrong(VecEnvContract):
        def make_vec_env(self, env_fns: Any, **kwargs: Any) -> Any:
            return [fn() for fn in env_fns]

    kit = TestWrong()
    kit._built = []
    with pytest.raises(AssertionError, match=r"must return a sekai\.vector\.VecEnv"):
        kit.build()


def test_the_native_reference_env_is_built_only_from_the_kit_factories() -> None:
    with pytest.raises(TypeError, match="CountingEnvFn"):
        CountingNativeVecEnv.from_env_fns([CountingEnv])
    with pytest.raises(TypeError, match="share truncate_after"):
        CountingNativeVecEnv.from_env_fns([CountingEnvFn(3, 1), CountingEnvFn(3, 2)])


# -- assert_native_matches --------------------------------------------------------------


def _single(lengths: list[int]) -> Any:
    """A factory of reference envs whose k-th env has episode length lengths[k % n]."""
    built = iter(range(10**6))

    def make() -> CountingEnv:
        return CountingEnv(lengths[next(built) % len(lengths)], random_start=True)

    return make


class Defective(CountingNativeVecEnv):
    """The native reference env with one wrong value at (step, sub-env, field)."""

    def __init__(self, *args: Any, defect: tuple[int, int, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.defect = defect
        self.steps = 0

    def _step(self, actions: Any) -> Any:
        rewards, terminated, truncated, infos = super()._step(actions)
        self.steps += 1
        step, env, field = self.defect
        if self.steps == step:
            if field == "reward":
                rewards = rewards.copy()
                rewards[env] += 0.25
            elif field == "terminated":
                terminated = terminated.copy()
                terminated[env] = not terminated[env]
            elif field == "info":
                infos = {"t": infos["t"] + (np.arange(self.num_envs) == env)}
        return rewards, terminated, truncated, infos


@settings(max_examples=25, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 6), min_size=1, max_size=4),
    seed=st.integers(0, 2**31),
    n_steps=st.integers(0, 12),
)
def test_the_native_reference_env_matches_its_single_env(
    lengths: list[int], seed: int, n_steps: int
) -> None:
    seeds = [seed + i for i in range(len(lengths))]
    assert_native_matches(
        _single(lengths),
        lambda n: CountingNativeVecEnv(n, lengths, random_start=True),
        seeds=seeds,
        n_steps=n_steps,
    )


@settings(max_examples=25, deadline=None)
@given(data=st.data(), lengths=st.lists(st.integers(1, 6), min_size=1, max_size=4))
def test_the_first_difference_is_named(data: st.DataObject, lengths: list[int]) -> None:
    step = data.draw(st.integers(1, 8), label="step")
    env = data.draw(st.integers(0, len(lengths) - 1), label="sub-env")
    field = data.draw(st.sampled_from(["reward", "terminated", "info"]), label="field")
    with pytest.raises(AssertionError) as caught:
        assert_native_matches(
            _single(lengths),
            lambda n: Defective(n, lengths, random_start=True, defect=(step, env, field)),
            seeds=list(range(len(lengths))),
            n_steps=8,
        )
    message = str(caught.value)
    assert f"step {step}, sub-env {env}, {field}" in message, message


def test_nan_equals_nan_and_ignored_info_keys_are_left_out() -> None:
    class NanInfo(CountingEnv):
        def step(self, action: int) -> Any:
            result = super().step(action)
            result.info["spread"] = float("nan")
            result.info["clock"] = id(self)
            return result

    class NanInfoNative(CountingNativeVecEnv):
        def _step(self, actions: Any) -> Any:
            rewards, terminated, truncated, infos = super()._step(actions)
            nan = np.full(self.num_envs, np.nan)
            return rewards, terminated, truncated, {**infos, "spread": nan, "clock": -nan}

    assert_native_matches(
        lambda: NanInfo(3),
        lambda n: NanInfoNative(n, [3] * n),
        seeds=[1, 2],
        n_steps=5,
        ignore_info_keys=["clock"],
    )
    with pytest.raises(AssertionError, match=r"step 1, sub-env 0, info\['clock'\]"):
        assert_native_matches(
            lambda: NanInfo(3), lambda n: NanInfoNative(n, [3] * n), seeds=[1, 2], n_steps=5
        )


def test_action_spaces_must_match() -> None:
    class FewerActions(CountingNativeVecEnv):
        """Declares Discrete(2) where the single env has Discrete(3)."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.action_space = Discrete(2)

    with pytest.raises(AssertionError, match=r"action spaces differ: native.*Discrete\(2\)"):
        assert_native_matches(
            lambda: CountingEnv(3), lambda n: FewerActions(n, [3] * n), seeds=[0, 1], n_steps=20
        )


@settings(max_examples=20, deadline=None)
@given(actions_seed=st.integers(0, 2**31))
def test_actions_are_drawn_from_the_single_env_s_space(actions_seed: int) -> None:
    seen: set[int] = set()

    class Recording(CountingNativeVecEnv):
        """Its batched action space is narrower than its single one (the kit must not use it)."""

        @property
        def batch_action_space(self) -> Any:
            return MultiDiscrete([2] * self.num_envs)

        def _step(self, actions: Any) -> Any:
            seen.update(np.asarray(actions).tolist())
            return super()._step(actions)

    assert_native_matches(
        lambda: CountingEnv(50),
        lambda n: Recording(n, [50] * n),
        seeds=[0, 1, 2],
        n_steps=40,
        actions_seed=actions_seed,
    )
    assert seen == {0, 1, 2}


def test_observation_dtypes_must_match() -> None:
    class Float64Native(CountingNativeVecEnv):
        def _observe(self) -> Any:
            return super()._observe().astype(np.float64)

    with pytest.raises(AssertionError, match=r"reset \(step 0\), sub-env 0, observation"):
        assert_native_matches(
            lambda: CountingEnv(3), lambda n: Float64Native(n, [3] * n), seeds=[0], n_steps=1
        )


@pytest.mark.parametrize(("seeds", "n_steps"), [([], 1), ([0], -1)])
def test_arguments_are_checked(seeds: list[int], n_steps: int) -> None:
    with pytest.raises(ValueError, match="assert_native_matches"):
        assert_native_matches(CountingEnv, CountingNativeVecEnv, seeds=seeds, n_steps=n_steps)


# -- the guide's example ----------------------------------------------------------------

GUIDE = Path(__file__).resolve().parents[3] / "docs" / "pages" / "guides" / "testing.md"


def test_the_guide_s_test_classes_pass_under_pytest(pytester: pytest.Pytester) -> None:
    # docs/tests runs the guide's blocks as a script (which only defines the test
    # classes); here pytest runs them, as the guide tells its readers to.
    if not GUIDE.is_file():
        pytest.skip("the docs are not beside this package (an installed sdist)")
    blocks = re.findall(r"^```python\n(.*?)^```", GUIDE.read_text(encoding="utf-8"), re.M | re.S)
    pytester.makepyfile(test_guide="\n\n".join(blocks))
    reprec = pytester.inline_run("-p", "no:cacheprovider")
    passed, skipped, failed = reprec.listoutcomes()
    assert not failed, [report.longreprtext for report in failed]
    names = {report.nodeid.split("::")[1] for report in passed}
    assert names == {"TestCoinEnv", "TestTimedVecEnv", "test_coin_vec_env_matches_coin_env"}
    assert not skipped
    assert len(passed) > len(KIT_TESTS)
