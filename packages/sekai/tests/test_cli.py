"""The ``sekai`` command: list, check, bench, and its error handling."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sekai._bench import BenchResult, format_table
from sekai._cli import main
from sekai.core import Env, MAResetResult, MAStepResult, MultiAgentEnv, ResetResult, StepResult
from sekai.registry import default_registry
from sekai.spaces import Box, Discrete


class _Broken(Env[Any, Any]):
    """Observations outside the declared space: check_env must report it."""

    def __init__(self) -> None:
        self.observation_space = Box(0.0, 1.0, shape=(2,))
        self.action_space = Discrete(2)

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        self._set_rng(seed)
        return ResetResult(np.full(2, 5.0, dtype=np.float32), {})

    def step(self, action: Any) -> StepResult[Any]:
        return StepResult(np.full(2, 5.0, dtype=np.float32), 0.0, False, False, {})


class _TwoAgents(MultiAgentEnv[Any, Any, str]):
    """Agent "good" is well behaved; agent "bad" observes outside its space."""

    def __init__(self) -> None:
        self.possible_agents = ["good", "bad"]
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: Box(0.0, 1.0, shape=(2,)) for a in self.possible_agents}
        self.action_spaces = {"good": Discrete(2), "bad": Discrete(3)}

    def _observations(self) -> dict[str, Any]:
        return {
            "good": np.full(2, 0.5, dtype=np.float32),
            "bad": np.full(2, 5.0, dtype=np.float32),
        }

    def reset(self, *, seed: Any = None, options: Any = None) -> MAResetResult[Any, str]:
        self._set_rng(seed)
        return MAResetResult(self._observations(), {"good": {}, "bad": {}})

    def step(self, actions: dict[str, Any]) -> MAStepResult[Any, str]:
        assert set(actions) == {"good", "bad"}
        assert actions["good"] in self.action_spaces["good"]
        assert actions["bad"] in self.action_spaces["bad"]
        flags = {"good": False, "bad": False}
        return MAStepResult(
            self._observations(),
            {"good": 0.0, "bad": 0.0},
            flags,
            dict(flags),
            {"good": {}, "bad": {}},
        )


@pytest.fixture
def broken_env_id() -> Iterator[str]:
    env_id = "clitest/Broken-v0"
    default_registry.register(env_id, entry_point=_Broken, max_episode_steps=10)
    yield env_id
    default_registry.deregister(env_id)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == "sekai 0.3.0.dev0"


def test_help_without_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: sekai")
    for command in ("list", "check", "bench"):
        assert command in out


def test_help_lists_every_command_with_one_line_of_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    for command in ("list", "check", "bench"):
        line = next(line for line in lines if line.split()[:1] == [command])
        assert len(line.split()) > 1, f"{command!r} has no help on its line: {line!r}"


# The ids sekai-envs registers (the table of the reference-environments guide).
REFERENCE_IDS = [
    "Acrobot-v1", "CartPole-v1", "LimitOrderBook-v0", "Market-v0", "MarketMaking-v0",
    "MarketMicrostructure-v0", "MountainCar-v0", "MountainCarContinuous-v0",
    "OptimalExecution-v0", "Pendulum-v1", "Portfolio-v0", "Trading-v0",
]  # fmt: skip


def test_reference_ids_are_those_sekai_envs_registers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    registered = sorted(
        spec.id
        for spec in default_registry.all_specs()
        if str(spec.entry_point).startswith("sekai.envs.")
    )
    assert registered == REFERENCE_IDS
    assert all(env_id in out for env_id in REFERENCE_IDS)


@pytest.mark.parametrize("env_id", REFERENCE_IDS)
def test_check_every_reference_env(env_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", env_id, "--steps", "20"]) == 0
    assert "no problems" in capsys.readouterr().out


def test_unknown_command_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["frobnicate"])
    assert exit_info.value.code == 2
    assert "frobnicate" in capsys.readouterr().err


def test_python_dash_m() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "sekai", "--help"], capture_output=True, text=True, check=True
    )
    assert "usage: sekai" in result.stdout


def test_list_shows_reference_envs_grouped_by_namespace(
    capsys: pytest.CaptureFixture[str], broken_env_id: str
) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "CartPole-v1" in out
    assert "Portfolio-v0" in out
    assert "clitest" in out
    assert "Broken-v0" in out


def test_check_clean_env(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "CartPole-v1", "--steps", "20"]) == 0
    assert "no problems" in capsys.readouterr().out


def test_check_reports_problems_and_fails(
    capsys: pytest.CaptureFixture[str], broken_env_id: str
) -> None:
    assert main(["check", broken_env_id, "--steps", "5"]) == 1
    out = capsys.readouterr().out
    assert "ERROR:" in out
    assert "observation" in out


def test_check_multi_agent_env_checks_every_agent(capsys: pytest.CaptureFixture[str]) -> None:
    default_registry.register("clitest/TwoAgents-v0", entry_point=_TwoAgents)
    try:
        assert main(["check", "clitest/TwoAgents-v0", "--steps", "5"]) == 1
    finally:
        default_registry.deregister("clitest/TwoAgents-v0")
    lines = capsys.readouterr().out.splitlines()
    assert lines
    assert all(line.startswith("ERROR: agent 'bad': ") for line in lines if "ERROR" in line)
    assert any("observation" in line for line in lines)
    assert not any("'good'" in line for line in lines)


def test_check_reference_multi_agent_env(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "MarketMicrostructure-v0", "--steps", "50"]) == 0
    assert "no problems" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "NoSuchEnv-v0"],
        ["bench", "NoSuchEnv-v0", "--seconds", "0.1"],
    ],
)
def test_unknown_id_is_one_line_without_traceback(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("sekai: error:")
    assert "NoSuchEnv-v0" in err
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["check", "CartPole-v1", "--steps", "0"], "positive integer"),
        (["bench", "--num-envs", "x"], "positive integer"),
        (["bench", "--seconds", "-1"], "positive number"),
        (["bench", "--modes", "sync,warp"], "comma-separated list"),
        (["check"], "required: ID"),
        (["check", "CartPole-v1", "--stepz", "3"], "unrecognized arguments"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_flag_values_are_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert fragment in err
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("sekai")
    assert "usage:" not in err
    assert "--help" in err


def test_list_reports_a_failed_plugin_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    def broken_loader() -> None:
        raise RuntimeError("boom")

    default_registry.register_namespace("clibroken", broken_loader)
    try:
        assert main(["list"]) == 0
    finally:
        default_registry._failures.pop("namespace loader 'clibroken'", None)
    captured = capsys.readouterr()
    assert "clibroken" in captured.out  # the listing's "failed to load" block
    assert "boom" in captured.out
    warning_lines = [line for line in captured.err.splitlines() if "clibroken" in line]
    assert len(warning_lines) == 1
    assert warning_lines[0].startswith("sekai: warning:")
    assert "RuntimeError: boom" in warning_lines[0]
    assert "Traceback" not in captured.err


def test_bench_prints_a_table_and_writes_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out_file = tmp_path / "bench.json"
    argv = ["bench", "CartPole-v1", "--num-envs", "2", "--modes", "sync,native"]
    assert main([*argv, "--seconds", "0.05", "--json", str(out_file)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["mode", "num_envs", "workers", "steps/s", "vs", "sync"]
    rows = json.loads(out_file.read_text())
    assert [row["mode"] for row in rows] == ["sync", "native"]
    for row in rows:
        assert row["env_id"] == "CartPole-v1"
        assert row["num_envs"] == 2
        assert row["steps"] > 0
        assert row["steps"] % 2 == 0  # whole vector steps of 2 sub-envs
        assert row["steps_per_second"] == pytest.approx(row["steps"] / row["seconds"])


def test_bench_skips_native_for_envs_without_one(
    capsys: pytest.CaptureFixture[str], broken_env_id: str
) -> None:
    assert main(["bench", broken_env_id, "--modes", "native", "--seconds", "0.05"]) == 0
    captured = capsys.readouterr()
    assert "no native vector implementation" in captured.err


def test_format_table_ratios_are_relative_to_sync() -> None:
    results = [
        BenchResult("X-v0", "sync", 4, None, steps=1000, seconds=1.0),
        BenchResult("X-v0", "proc", 4, 2, steps=3000, seconds=1.0),
    ]
    lines = format_table(results).splitlines()
    assert lines[2].split()[-1] == "1.00x"
    assert lines[3].split()[-1] == "3.00x"
    assert lines[3].split()[2] == "2"
