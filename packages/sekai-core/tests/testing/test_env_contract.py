"""sekai.testing on a core-only install: EnvContract, and the errors of the import path."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pytest

from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Discrete, Space
from sekai.testing import EnvContract

pytest_plugins = ("pytester",)


class Walk(Env[Any, int]):
    """A seeded one-dimensional walk that follows the Env contract."""

    observation_space = Box(-100.0, 100.0, (1,), np.float32)
    action_space: Space[Any] = Discrete(2)

    def __init__(self, flaw: str | None = None) -> None:
        self.flaw = flaw
        self.x = 0.0
        self.t = 0

    def _obs(self) -> Any:
        value = np.nan if self.flaw == "nan" and self.t == 3 else self.x
        return np.array([value], dtype=np.float32)

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        self._set_rng(None if self.flaw == "ignores-seed" else seed)
        self.x, self.t = float(self.rng.normal()), 0
        return ResetResult(self._obs(), {})

    def step(self, action: int) -> StepResult[Any]:
        self.t += 1
        self.x = float(np.clip(self.x + (1.0 if action else -1.0), -50, 50))
        reward = "1" if self.flaw == "string-reward" else 1.0
        return StepResult(self._obs(), reward, self.t >= 10, False, {})  # type: ignore[arg-type]


class TestWalkFollowsTheContract(EnvContract):
    deterministic = True
    n_steps = 30

    def make_env(self) -> Env[Any, Any]:
        return Walk()


def _run_kit(pytester: pytest.Pytester, flaw: str | None) -> dict[str, tuple[str, str]]:
    """Run EnvContract on Walk(flaw) from a test file outside the project.

    Returns: test name -> (outcome, failure text).
    """
    pytester.makepyfile(
        test_walk=textwrap.dedent(
            f"""
            from sekai.testing import EnvContract
            from sekai_core_tests_walk import Walk

            class TestWalk(EnvContract):
                deterministic = True
                n_steps = 30

                def make_env(self):
                    return Walk({flaw!r})
            """
        )
    )
    # The file runs in this process (inline_run): it imports Walk from this module.
    sys.modules["sekai_core_tests_walk"] = sys.modules[Walk.__module__]
    reprec = pytester.inline_run("-p", "no:cacheprovider")
    outcomes: dict[str, tuple[str, str]] = {}
    for report in reprec.getreports("pytest_runtest_logreport"):
        if report.when == "call" or report.outcome != "passed":
            name = report.nodeid.rsplit("::", 1)[1]
            outcomes[name] = (report.outcome, report.longreprtext)
    return outcomes


def test_a_conforming_env_passes_from_outside_the_project(pytester: pytest.Pytester) -> None:
    outcomes = _run_kit(pytester, None)
    assert len(outcomes) == len([n for n in dir(EnvContract) if n.startswith("test_")])
    assert {outcome for outcome, _ in outcomes.values()} == {"passed"}


@pytest.mark.parametrize(
    ("flaw", "failing", "words"),
    [
        ("nan", {"test_random_rollout", "test_async_methods_agree"}, "NaN"),
        (
            "string-reward",
            {
                "test_random_rollout",
                "test_seeded_trajectory_is_reproducible",
                "test_async_methods_agree",
            },
            "reward",
        ),
        ("ignores-seed", {"test_seeded_reset_is_reproducible"}, "seed"),
    ],
)
def test_a_broken_env_fails_the_tests_of_its_flaw(
    pytester: pytest.Pytester, flaw: str, failing: set[str], words: str
) -> None:
    outcomes = _run_kit(pytester, flaw)
    failed = {name for name, (outcome, _) in outcomes.items() if outcome == "failed"}
    assert failing <= failed
    assert "test_spaces_and_reset" not in failed
    for name in failing:
        assert words in outcomes[name][1], outcomes[name][1]


def test_warnings_fail_only_when_asked() -> None:
    class TestLoose(EnvContract):
        def make_env(self) -> Env[Any, Any]:
            env = Walk()
            env.action_space = Box(-np.inf, np.inf, (1,))  # legal, but warned about
            return env

    kit = TestLoose()
    kit._built = []
    kit._check("spaces")  # a warning alone passes
    TestLoose.warnings_fail = True
    with pytest.raises(pytest.fail.Exception, match="WARNING: action_space"):
        kit._check("spaces")


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_without_pytest_the_import_says_what_to_install() -> None:
    done = _python(
        """
        import sys
        sys.modules["pytest"] = None
        try:
            import sekai.testing
        except ImportError as error:
            print(error)
        """
    )
    assert "sekai.testing needs pytest" in done.stdout, done.stderr
    assert "'testing' extra of the sekai-core distribution" in done.stdout


def test_without_sekai_vector_the_vector_kits_name_the_distribution() -> None:
    done = _python(
        """
        import sys
        sys.modules["sekai.vector"] = None
        from sekai.testing import EnvContract  # the single-env kit needs sekai-core only
        for name in ("VecEnvContract", "assert_native_matches"):
            try:
                __import__("sekai.testing", fromlist=[name]).__getattribute__(name)
            except ImportError as error:
                print(name, error)
        """
    )
    lines = done.stdout.splitlines()
    assert len(lines) == 2, done.stderr
    assert all("needs the sekai-vector distribution" in line for line in lines)
    assert lines[0].startswith("VecEnvContract") and lines[1].startswith("assert_native_matches")
