"""The ``sekai`` command: list, info, check, bench, --import, progress, error handling."""

from __future__ import annotations

import ast
import io
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import sekai._bench
import sekai._cli
from sekai._bench import BenchResult, format_table
from sekai._cli import main
from sekai.core import Env, MAResetResult, MAStepResult, MultiAgentEnv, ResetResult, StepResult
from sekai.registry import default_registry, spec
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


def test_no_command_prints_help_to_stderr_and_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main([]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("usage: sekai")
    for command in ("list", "info", "check", "bench"):
        assert command in captured.err


def test_no_command_exit_status_of_the_script() -> None:
    result = subprocess.run([sys.executable, "-m", "sekai"], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("usage: sekai")


def test_help_lists_every_command_with_one_line_of_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    for command in ("list", "info", "check", "bench"):
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


def _leaky_trading(data: Any = None, **kwargs: Any) -> Any:
    """Trading-v0 whose first observed return is the next one: the rows after t leak in."""
    from sekai.core import ObservationWrapper
    from sekai.envs import TradingEnv

    class NextReturn(ObservationWrapper[Any, Any, Any]):
        def observation(self, observation: Any) -> Any:
            unwrapped: Any = self.env.unwrapped
            now = unwrapped._kernel.cursor.now()  # the env's private view, execution side
            leaked = np.array(observation, copy=True)
            leaked[0] = np.log(now.execution_price()[0, 0] / now.prices.latest()[0, 0])
            return leaked

    return NextReturn(TradingEnv(data=data, **kwargs))


def _off_by_a_constant(data: Any = None, **kwargs: Any) -> Any:
    """Trading-v0 whose rewards are 0.001 more than the log growth of its equity."""
    from sekai.envs import TradingEnv
    from sekai.wrappers import TransformReward

    return TransformReward(TradingEnv(data=data, **kwargs), lambda reward: reward + 1e-3)


@pytest.mark.parametrize(
    ("entry_point", "word"), [(_leaky_trading, "look-ahead"), (_off_by_a_constant, "equity")]
)
def test_check_runs_the_market_checks_on_a_market_env(
    entry_point: Any, word: str, capsys: pytest.CaptureFixture[str]
) -> None:
    env_id = "clitest/Dishonest-v0"
    default_registry.register(env_id, entry_point=entry_point)
    try:
        assert main(["check", env_id, "--steps", "30"]) == 1
    finally:
        default_registry.deregister(env_id)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ERROR: "), lines
    assert word in lines[0]


def test_check_compares_a_market_env_with_its_native_vector_env(
    capsys: pytest.CaptureFixture[str],
) -> None:
    env_id = "clitest/NativeDiffers-v0"
    default_registry.register(
        env_id,
        entry_point="sekai.envs.finance.trading:TradingEnv",
        # another cost than the single env's default: the same actions earn other rewards
        vector_entry_point=lambda num_envs, **kwargs: _costly_vec(num_envs, **kwargs),
    )
    try:
        assert main(["check", env_id, "--steps", "20"]) == 1
    finally:
        default_registry.deregister(env_id)
    out = capsys.readouterr().out
    assert out.startswith("ERROR: native parity: sub-env 0 of native(data) differs"), out


def _costly_vec(num_envs: int, **kwargs: Any) -> Any:
    from sekai.envs import TradingVecEnv

    return TradingVecEnv(num_envs, transaction_cost=0.05, **kwargs)


class _RaisesInStep(Env[Any, Any]):
    """Takes ``data=`` like a market env, and raises in step."""

    def __init__(self, data: Any = None) -> None:
        self.observation_space = Box(0.0, 1.0, shape=(1,))
        self.action_space = Discrete(2)

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        self._set_rng(seed)
        return ResetResult(np.zeros(1, np.float32), {})

    def step(self, action: Any) -> StepResult[Any]:
        raise RuntimeError("broken on purpose")


def test_check_of_a_data_env_that_raises_in_step_reports_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    env_id = "clitest/RaisesInStep-v0"
    default_registry.register(env_id, entry_point=_RaisesInStep)
    try:
        assert main(["check", env_id, "--steps", "5"]) == 1
    finally:
        default_registry.deregister(env_id)
    out = capsys.readouterr().out
    assert out.startswith("ERROR: ") and "RuntimeError: broken on purpose" in out, out


@pytest.mark.parametrize("env_id", ["LimitOrderBook-v0", "MarketMaking-v0", "OptimalExecution-v0"])
def test_check_runs_the_market_checks_on_a_simulated_market_env(
    env_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """No data to perturb: a note says so, and it is no problem (the exit status is 0)."""
    assert main(["check", env_id, "--steps", "20"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("note: look-ahead not checked: the env simulates its own market")
    assert lines[1] == f"{env_id}: no problems found in 20 steps"


def test_check_compares_a_simulated_market_env_with_its_native_vector_env(
    capsys: pytest.CaptureFixture[str],
) -> None:
    env_id = "clitest/SimulatedNativeDiffers-v0"
    default_registry.register(
        env_id,
        entry_point="sekai.envs.finance.market_making:MarketMakingEnv",
        # another volatility than the single env's default: the same actions play another game
        vector_entry_point=lambda num_envs, **kwargs: _volatile_vec(num_envs, **kwargs),
    )
    try:
        assert main(["check", env_id, "--steps", "20"]) == 1
    finally:
        default_registry.deregister(env_id)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("ERROR: native parity: sub-env 0 of native(data) differs"), lines
    assert lines[1].startswith("note: look-ahead not checked")


def _volatile_vec(num_envs: int, **kwargs: Any) -> Any:
    from sekai.envs.finance.market_making_vector import MarketMakingVecEnv

    return MarketMakingVecEnv(num_envs, sigma=5.0, **kwargs)


def test_check_help_names_the_market_checks(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "checked with sekai.finance.check_market_env" in out
    assert "its info reports timestamp and equity" in out


def test_check_reference_multi_agent_env(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "MarketMicrostructure-v0", "--steps", "50"]) == 0
    assert "no problems" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "NoSuchEnv-v0"],
        ["bench", "NoSuchEnv-v0", "--seconds", "0.1"],
        ["info", "NoSuchEnv-v0"],
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


def _table_rows(out: str) -> list[str]:
    """The rows of `sekai bench`'s table: after its dashes, before the notes."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("---")) + 1
    end = next((i for i, line in enumerate(lines) if line.startswith("When each")), len(lines))
    return lines[start:end]


def test_bench_prints_a_table_and_writes_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out_file = tmp_path / "bench.json"
    argv = ["bench", "CartPole-v1", "--num-envs", "2", "--modes", "sync,native"]
    assert main([*argv, "--seconds", "0.05", "--json", str(out_file)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("CartPole-v1, 2 sub-envs")  # the env and the unit
    assert "sub-env steps per second" in out.splitlines()[0]
    assert out.splitlines()[1].split() == ["mode", "num_envs", "workers", "steps/s", "vs", "sync"]
    rows = json.loads(out_file.read_text())
    assert [row["mode"] for row in rows] == ["sync", "native"]
    for row in rows:
        assert row["env_id"] == "CartPole-v1"
        assert row["num_envs"] == 2
        assert row["steps"] > 0
        assert row["steps"] % 2 == 0  # whole vector steps of 2 sub-envs
        assert row["steps_per_second"] == pytest.approx(row["steps"] / row["seconds"])


def test_bench_keeps_a_row_for_a_skipped_mode_with_the_reason(
    capsys: pytest.CaptureFixture[str], broken_env_id: str, tmp_path: Path
) -> None:
    out_file = tmp_path / "bench.json"
    argv = ["bench", broken_env_id, "--modes", "sync,native", "--num-envs", "2"]
    assert main([*argv, "--seconds", "0.05", "--json", str(out_file)]) == 0
    rows = {line.split()[0]: line for line in _table_rows(capsys.readouterr().out)}
    assert list(rows) == ["sync", "native"]
    assert rows["sync"].split()[-1] == "1.00x"
    assert f"skipped: {broken_env_id} has no native vector implementation" in rows["native"]
    native = json.loads(out_file.read_text())[1]
    assert native["mode"] == "native"
    assert "no native vector implementation" in native["skipped"]
    assert native["steps_per_second"] is None


def test_bench_skips_a_backend_that_is_not_installed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    measure = sekai._bench.measure

    def measure_without_proc(env_id: str, mode: str, **kwargs: Any) -> BenchResult:
        if mode == "proc":
            raise ImportError("ProcVecEnv needs cloudpickle: install 'sekai-vector[proc]'")
        return measure(env_id, mode, **kwargs)

    monkeypatch.setattr(sekai._bench, "measure", measure_without_proc)
    argv = ["bench", "CartPole-v1", "--modes", "proc,sync", "--num-envs", "2"]
    assert main([*argv, "--seconds", "0.05"]) == 0
    rows = _table_rows(capsys.readouterr().out)
    assert [row.split()[0] for row in rows] == ["proc", "sync"]
    assert rows[0].endswith("skipped: ProcVecEnv needs cloudpickle: install 'sekai-vector[proc]'")


def _no_gpu(num_envs: int, **kwargs: Any) -> Any:
    raise RuntimeError("no GPU found")


class _StepFails(Env[Any, Any]):
    """Resets, then fails on its first step."""

    def __init__(self) -> None:
        self.observation_space = Box(0.0, 1.0, shape=(1,))
        self.action_space = Discrete(2)

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        self._set_rng(seed)
        return ResetResult(np.zeros(1, dtype=np.float32), {})

    def step(self, action: Any) -> StepResult[Any]:
        raise RuntimeError("simulator crashed")


@pytest.fixture
def failing_native_id() -> Iterator[str]:
    """CartPole, with a native vector implementation that raises when built."""
    env_id = "clitest/NoGpu-v0"
    entry_point = "sekai.envs.classic_control.cartpole:CartPoleEnv"
    default_registry.register(env_id, entry_point=entry_point, vector_entry_point=_no_gpu)
    yield env_id
    default_registry.deregister(env_id)


def test_bench_keeps_the_other_rows_when_a_mode_fails(
    capsys: pytest.CaptureFixture[str], failing_native_id: str, tmp_path: Path
) -> None:
    out_file = tmp_path / "bench.json"
    argv = ["bench", failing_native_id, "--modes", "native,sync", "--num-envs", "2"]
    assert main([*argv, "--seconds", "0.05", "--json", str(out_file)]) == 1
    captured = capsys.readouterr()
    rows = {line.split()[0]: line for line in _table_rows(captured.out)}
    assert list(rows) == ["native", "sync"]
    assert rows["native"].endswith("failed: RuntimeError: no GPU found")
    assert rows["sync"].split()[-1] == "1.00x"  # measured after the failure
    assert "Traceback" not in captured.err
    assert f"{failing_native_id}: failed on native" in captured.err
    native, sync = json.loads(out_file.read_text())
    assert native["failed"] == "RuntimeError: no GPU found"
    assert native["skipped"] is None
    assert native["steps_per_second"] is None
    assert sync["failed"] is None
    assert sync["steps"] > 0


def test_bench_json_keeps_the_other_rows_when_a_mode_fails(
    capsys: pytest.CaptureFixture[str], failing_native_id: str
) -> None:
    argv = ["bench", failing_native_id, "--modes", "sync,native", "--num-envs", "2"]
    assert main([*argv, "--seconds", "0.05", "--json", "-"]) == 1
    captured = capsys.readouterr()
    sync, native = json.loads(captured.out)  # only JSON on stdout
    assert sync["steps_per_second"] > 0
    assert native["failed"] == "RuntimeError: no GPU found"
    assert captured.err.strip() == f"{failing_native_id}: failed on native (see the table)"


def test_bench_reports_a_mode_that_fails_while_stepping(
    capsys: pytest.CaptureFixture[str],
) -> None:
    env_id = "clitest/StepFails-v0"
    default_registry.register(env_id, entry_point=_StepFails)
    try:
        argv = ["bench", env_id, "--modes", "sync,async,native", "--num-envs", "2"]
        assert main([*argv, "--seconds", "0.05"]) == 1
    finally:
        default_registry.deregister(env_id)
    rows = {line.split()[0]: line for line in _table_rows(capsys.readouterr().out)}
    assert "failed: " in rows["sync"] and "simulator crashed" in rows["sync"]
    assert "failed: " in rows["async"] and "simulator crashed" in rows["async"]
    assert "skipped: " in rows["native"]  # no native implementation: not a failure


def test_bench_exits_zero_when_modes_are_only_skipped(
    capsys: pytest.CaptureFixture[str], broken_env_id: str
) -> None:
    argv = ["bench", broken_env_id, "--modes", "native", "--seconds", "0.05"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "skipped: " in captured.out
    assert captured.err == ""


def test_bench_help_gives_the_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "Exit status: 0 if every mode ran or was skipped" in help_text
    assert "1 if a mode failed" in help_text


def test_format_table_shows_a_failed_mode() -> None:
    results = [
        BenchResult("X-v0", "sync", 4, None, steps=1000, seconds=1.0),
        BenchResult("X-v0", "native", 4, None, 0, 0.0, failed="RuntimeError: boom"),
    ]
    lines = format_table(results).splitlines()
    assert lines[3].split()[3:] == ["-", "-", "failed:", "RuntimeError:", "boom"]


def test_format_table_ratios_are_relative_to_sync() -> None:
    results = [
        BenchResult("X-v0", "sync", 4, None, steps=1000, seconds=1.0),
        BenchResult("X-v0", "proc", 4, 2, steps=3000, seconds=1.0),
    ]
    lines = format_table(results).splitlines()
    assert lines[2].split()[-1] == "1.00x"
    assert lines[3].split()[-1] == "3.00x"
    assert lines[3].split()[2] == "2"


def test_format_table_shows_a_skipped_mode_and_ratios_without_a_sync_baseline() -> None:
    results = [
        BenchResult("X-v0", "sync", 4, None, 0, 0.0, skipped="not installed"),
        BenchResult("X-v0", "native", 4, None, steps=1000, seconds=1.0),
    ]
    lines = format_table(results).splitlines()
    assert lines[2].split()[3:] == ["-", "-", "skipped:", "not", "installed"]
    assert lines[3].split()[-1] == "-"  # no sync result to compare with


# -- --import: envs registered by the user's own code ------------------------------

USER_MODULE = "sekai_cli_user_envs"
USER_ENV = "cliuser/Coin-v0"
USER_SOURCE = f"""
import numpy as np

from sekai.core import Env, ResetResult, StepResult
from sekai.error import InvalidAction
from sekai.registry import register
from sekai.spaces import Box, Discrete


class Coin(Env):
    def __init__(self):
        self.observation_space = Box(0.0, 1.0, shape=(1,))
        self.action_space = Discrete(2)

    def reset(self, *, seed=None, options=None):
        self._set_rng(seed)
        return ResetResult(np.zeros(1, dtype=np.float32), {{}})

    def step(self, action):
        if action not in self.action_space:
            raise InvalidAction(action, self.action_space)
        coin = np.array([self.rng.integers(2)], dtype=np.float32)
        return StepResult(coin, float(action == coin[0]), False, False, {{}})


register({USER_ENV!r}, entry_point=Coin, max_episode_steps=10)
"""


@pytest.fixture
def in_user_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A current directory holding the user's module; sys.path and the registry restored after."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield tmp_path
    sys.modules.pop(USER_MODULE, None)
    if USER_ENV in default_registry:
        default_registry.deregister(USER_ENV)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["list"], USER_ENV),
        (["info", USER_ENV], "observation_space"),
        (["check", USER_ENV, "--steps", "5"], "no problems"),
        (["bench", USER_ENV, "--modes", "sync", "--num-envs", "2", "--seconds", "0.05"], "sync"),
    ],
)
def test_import_option_finds_envs_the_users_module_registers(
    capsys: pytest.CaptureFixture[str], in_user_project: Path, argv: list[str], expected: str
) -> None:
    (in_user_project / f"{USER_MODULE}.py").write_text(USER_SOURCE)
    assert main([*argv, "--import", USER_MODULE]) == 0
    assert expected in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--import", USER_MODULE, "list"], USER_ENV),
        (["--import", USER_MODULE, "check", USER_ENV, "--steps", "5"], "no problems"),
    ],
)
def test_import_option_before_the_command(
    capsys: pytest.CaptureFixture[str], in_user_project: Path, argv: list[str], expected: str
) -> None:
    (in_user_project / f"{USER_MODULE}.py").write_text(USER_SOURCE)
    assert main(argv) == 0
    assert expected in capsys.readouterr().out


def test_import_options_before_and_after_the_command_are_merged(
    capsys: pytest.CaptureFixture[str], in_user_project: Path
) -> None:
    (in_user_project / f"{USER_MODULE}.py").write_text(USER_SOURCE)
    (in_user_project / "sekai_cli_helper.py").write_text("import sekai_cli_user_envs\n")
    try:
        argv = ["--import", "sekai_cli_helper", "info", USER_ENV, "--import", "json"]
        assert main(argv) == 0
        assert "sekai_cli_helper" in sys.modules
        argv = ["--import", "json", "info", USER_ENV, "--import", "sekai_cli_helper"]
        assert main(argv) == 0
    finally:
        sys.modules.pop("sekai_cli_helper", None)
    assert USER_ENV in capsys.readouterr().out


def test_import_option_before_the_command_reports_a_failing_module(
    capsys: pytest.CaptureFixture[str], in_user_project: Path
) -> None:
    assert main(["--import", USER_MODULE, "list"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"sekai: error: --import {USER_MODULE}: importing module")
    assert len(err.strip().splitlines()) == 1


def test_without_import_the_users_env_is_not_found_and_the_error_says_why(
    capsys: pytest.CaptureFixture[str], in_user_project: Path
) -> None:
    (in_user_project / f"{USER_MODULE}.py").write_text(USER_SOURCE)
    assert main(["check", USER_ENV]) == 2
    err = capsys.readouterr().err
    assert USER_ENV in err
    assert "--import MODULE" in err


def test_import_option_is_repeatable(
    capsys: pytest.CaptureFixture[str], in_user_project: Path
) -> None:
    (in_user_project / f"{USER_MODULE}.py").write_text(USER_SOURCE)
    (in_user_project / "sekai_cli_helper.py").write_text("HELPER = 1\n")
    try:
        assert (
            main(["info", USER_ENV, "--import", "sekai_cli_helper", "--import", USER_MODULE]) == 0
        )
        assert "sekai_cli_helper" in sys.modules
    finally:
        sys.modules.pop("sekai_cli_helper", None)


@pytest.mark.parametrize(
    ("source", "error"),
    [
        (None, "ModuleNotFoundError: No module named 'sekai_cli_user_envs'"),
        ("raise RuntimeError('no market data')\n", "RuntimeError: no market data"),
        ("def broken(:\n", "SyntaxError: "),
    ],
)
def test_a_module_that_fails_to_import_is_one_line_naming_it_and_the_error(
    capsys: pytest.CaptureFixture[str], in_user_project: Path, source: str | None, error: str
) -> None:
    if source is not None:
        (in_user_project / f"{USER_MODULE}.py").write_text(source)
    assert main(["check", "CartPole-v1", "--import", USER_MODULE]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"sekai: error: --import {USER_MODULE}: importing module {USER_MODULE!r}")
    assert error in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


# -- info --------------------------------------------------------------------------


def _fields(text: str) -> dict[str, list[str]]:
    """The lines of ``sekai info``: label -> values (continuation lines included)."""
    fields: dict[str, list[str]] = {}
    label = ""
    for line in text.splitlines():
        if not line.startswith(" "):
            label, _, line = line.partition(" ")
        fields.setdefault(label, []).append(line.strip())
    return fields


def test_info_shows_the_spec_and_the_spaces(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", "CartPole-v1"]) == 0
    fields = _fields(capsys.readouterr().out)
    assert fields["id"] == ["CartPole-v1"]
    assert fields["entry_point"] == ["sekai.envs.classic_control.cartpole:CartPoleEnv"]
    assert fields["vector_entry_point"][0].startswith(
        "sekai.envs.classic_control.cartpole_vector:CartPoleVecEnv (native vector"
    )
    assert fields["kwargs"] == ["{}"]
    assert fields["description"] == [
        "A pole hinged on a cart that moves along a frictionless track."
    ]
    assert fields["max_episode_steps"][0].startswith("500 (the time limit")
    assert fields["reward_threshold"] == ["475.0"]
    assert fields["nondeterministic"] == ["False"]
    assert fields["additional_wrappers"] == ["none"]
    assert fields["layers"] == ["TimeLimit > OrderEnforcing > CartPoleEnv"]
    assert fields["agents"] == ["single agent"]
    assert fields["observation_space"][0].startswith("Box(")
    assert fields["action_space"] == ["Discrete(2)"]


def test_info_says_when_there_is_no_native_vector_implementation_or_time_limit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["info", "LimitOrderBook-v0"]) == 0
    fields = _fields(capsys.readouterr().out)
    assert fields["vector_entry_point"] == ["None (no native vector implementation)"]
    assert fields["max_episode_steps"] == ["None (no time limit)"]


def test_info_of_a_multi_agent_env_shows_every_agents_spaces(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["info", "MarketMicrostructure-v0"]) == 0
    fields = _fields(capsys.readouterr().out)
    assert fields["agents"] == ["multi-agent: market_maker, trader"]
    assert [v.split(":")[0] for v in fields["observation_space"]] == ["market_maker", "trader"]
    assert fields["action_space"][1] == "trader: Discrete(3)"


def test_info_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", "CartPole-v1", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    registered = spec("CartPole-v1")
    assert info["id"] == "CartPole-v1"
    assert info["entry_point"] == registered.entry_point
    assert info["vector_entry_point"] == registered.vector_entry_point
    assert info["max_episode_steps"] == 500
    assert info["reward_threshold"] == 475.0
    assert info["nondeterministic"] is False
    assert info["kwargs"] == {}
    assert info["additional_wrappers"] == []
    assert info["multi_agent"] is False
    assert info["agents"] is None
    assert info["layers"] == ["TimeLimit", "OrderEnforcing", "CartPoleEnv"]
    assert info["action_space"] == "Discrete(2)"


def test_info_json_of_a_multi_agent_env(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", "MarketMicrostructure-v0", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["multi_agent"] is True
    assert info["agents"] == ["market_maker", "trader"]
    assert info["action_space"]["trader"] == "Discrete(3)"
    assert set(info["observation_space"]) == {"market_maker", "trader"}


def _fails_to_build() -> Env[Any, Any]:
    raise RuntimeError("needs a market data file")


def test_info_of_an_env_that_cannot_be_made_still_shows_its_spec(
    capsys: pytest.CaptureFixture[str],
) -> None:
    default_registry.register("clitest/NoData-v0", entry_point=_fails_to_build)
    try:
        assert main(["info", "clitest/NoData-v0"]) == 0
        fields = _fields(capsys.readouterr().out)
        assert main(["info", "clitest/NoData-v0", "--json"]) == 0
        info = json.loads(capsys.readouterr().out)
    finally:
        default_registry.deregister("clitest/NoData-v0")
    assert fields["entry_point"][0].endswith("_fails_to_build")
    assert fields["make_error"] == [
        "RuntimeError: needs a market data file (so the spaces are unknown)"
    ]
    assert info["make_error"] == "RuntimeError: needs a market data file"
    assert info["observation_space"] is None


# -- list --------------------------------------------------------------------------


def _two_agents_factory() -> _TwoAgents:
    return _TwoAgents()


@pytest.fixture
def multi_agent_ids() -> Iterator[tuple[str, str]]:
    """A multi-agent env registered by its class, and one by a factory function."""
    by_class, by_factory = "clitest/TwoAgents-v0", "clitest/TwoAgentsFactory-v0"
    default_registry.register(by_class, entry_point=_TwoAgents)
    default_registry.register(by_factory, entry_point=_two_agents_factory)
    yield by_class, by_factory
    default_registry.deregister(by_class)
    default_registry.deregister(by_factory)


def test_list_marks_multi_agent_and_native_vector_envs(
    capsys: pytest.CaptureFixture[str], multi_agent_ids: tuple[str, str]
) -> None:
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["id", "agents", "native", "vector"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:] if len(line.split()) == 3}
    assert rows["CartPole-v1"] == ["single", "yes"]
    assert rows["Market-v0"] == ["single", "yes"]
    assert rows["LimitOrderBook-v0"] == ["single", "no"]
    assert rows["MarketMicrostructure-v0"] == ["multi", "no"]
    by_class, by_factory = multi_agent_ids
    assert rows[by_class] == ["multi", "no"]
    assert rows[by_factory] == ["?", "no"]  # only making it would tell
    legend = "\n".join(lines)
    assert "multi (a MultiAgentEnv" in legend
    assert "native vector: yes if" in legend
    assert "?: the entry point is a factory" in legend


@pytest.fixture
def unimportable_id() -> Iterator[str]:
    """An env whose entry point names a module that does not exist."""
    env_id = "clitest/Unimportable-v0"
    default_registry.register(env_id, entry_point="sekai_cli_no_such_module:Env")
    yield env_id
    default_registry.deregister(env_id)


def test_list_tells_an_entry_point_that_fails_to_import_from_a_factory(
    capsys: pytest.CaptureFixture[str],
    unimportable_id: str,
    multi_agent_ids: tuple[str, str],
) -> None:
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:] if len(line.split()) == 3}
    assert rows[unimportable_id] == ["error", "no"]
    assert rows[multi_agent_ids[1]] == ["?", "no"]
    index = lines.index("error: the entry point failed to import:")
    assert lines[index + 1] == (
        f"  {unimportable_id}: ModuleNotFoundError: No module named 'sekai_cli_no_such_module'"
    )


def test_list_without_factories_has_no_factory_legend(
    capsys: pytest.CaptureFixture[str], unimportable_id: str
) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "?: the entry point is a factory" not in out
    assert "error: the entry point failed to import:" in out


def test_list_json_gives_the_entry_point_error(
    capsys: pytest.CaptureFixture[str], unimportable_id: str
) -> None:
    assert main(["list", "--json"]) == 0
    envs = {env["id"]: env for env in json.loads(capsys.readouterr().out)["envs"]}
    assert envs[unimportable_id]["multi_agent"] is None
    assert envs[unimportable_id]["entry_point_error"] == (
        "ModuleNotFoundError: No module named 'sekai_cli_no_such_module'"
    )
    assert envs["CartPole-v1"]["entry_point_error"] is None


def test_list_json_carries_the_same_marks(
    capsys: pytest.CaptureFixture[str], multi_agent_ids: tuple[str, str]
) -> None:
    assert main(["list", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    envs = {env["id"]: env for env in listing["envs"]}
    assert envs["CartPole-v1"] == {
        "id": "CartPole-v1",
        "namespace": None,
        "multi_agent": False,
        "native_vector": True,
        "entry_point_error": None,
    }
    assert envs["MarketMicrostructure-v0"]["multi_agent"] is True
    assert envs["MarketMicrostructure-v0"]["native_vector"] is False
    by_class, by_factory = multi_agent_ids
    assert envs[by_class]["namespace"] == "clitest"
    assert envs[by_factory]["multi_agent"] is None
    assert listing["failed_to_load"] == default_registry.failed_plugins


# -- bench on a multi-agent env --------------------------------------------------


def test_bench_says_a_multi_agent_env_cannot_be_benchmarked(
    capsys: pytest.CaptureFixture[str], multi_agent_ids: tuple[str, str]
) -> None:
    for env_id in ("MarketMicrostructure-v0", *multi_agent_ids):
        assert main(["bench", env_id, "--seconds", "0.05"]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert captured.err.startswith(f"sekai: error: {env_id} is a multi-agent environment")
        assert "cannot be benchmarked" in captured.err
        assert "env_fns" not in captured.err
        assert len(captured.err.strip().splitlines()) == 1


# -- progress: on a terminal only ------------------------------------------------


class _Terminal(io.StringIO):
    """Standard error as a terminal would be."""

    def isatty(self) -> bool:
        return True


def _on_terminal(monkeypatch: pytest.MonkeyPatch) -> _Terminal:
    """Make standard error a terminal (call it in the test: capsys replaces it at the start)."""
    stream = _Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    return stream


BENCH_QUICK = ["bench", "CartPole-v1", "--modes", "sync,native", "--num-envs", "2"]


def test_bench_shows_progress_on_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    terminal = _on_terminal(monkeypatch)
    assert main([*BENCH_QUICK, "--seconds", "0.05"]) == 0
    shown = terminal.getvalue()
    assert "CartPole-v1 sync x2 (1/2)" in shown
    assert "CartPole-v1 native x2 (2/2)" in shown
    assert "%" in shown  # the bar
    assert "\r" in shown  # drawn in place
    # Only the progress, erased at the end: no line stays above the table
    # (which alone shows the numbers).
    assert "\n" not in shown
    assert shown.endswith("\r\033[K")
    assert capsys.readouterr().out.splitlines()[1].startswith("mode")  # the table is unchanged


def test_bench_shows_no_progress_in_a_pipe(capsys: pytest.CaptureFixture[str]) -> None:
    assert not sys.stderr.isatty()
    assert main([*BENCH_QUICK, "--seconds", "0.05"]) == 0
    assert capsys.readouterr().err == ""


def test_bench_shows_no_progress_with_json_even_on_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    terminal = _on_terminal(monkeypatch)
    assert main([*BENCH_QUICK, "--seconds", "0.05", "--json", "-"]) == 0
    assert terminal.getvalue() == ""
    rows = json.loads(capsys.readouterr().out)  # only JSON on stdout
    assert [row["mode"] for row in rows] == ["sync", "native"]
    out_file = tmp_path / "bench.json"
    assert main([*BENCH_QUICK, "--seconds", "0.05", "--json", str(out_file)]) == 0
    assert terminal.getvalue() == f"wrote {out_file}\n"


def test_bench_erases_the_progress_when_interrupted(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(env_id: str, mode: str, **kwargs: Any) -> BenchResult:
        kwargs["progress"](0.5)
        raise KeyboardInterrupt

    monkeypatch.setattr(sekai._bench, "measure", interrupted)
    terminal = _on_terminal(monkeypatch)
    assert main([*BENCH_QUICK, "--seconds", "0.05"]) == 130
    shown = terminal.getvalue()
    assert "50%" in shown
    assert shown.endswith("\r\033[Ksekai: interrupted\n")


def test_bench_erases_the_progress_when_a_mode_fails(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, failing_native_id: str
) -> None:
    terminal = _on_terminal(monkeypatch)
    argv = ["bench", failing_native_id, "--modes", "sync,native", "--num-envs", "2"]
    assert main([*argv, "--seconds", "0.05"]) == 1
    shown = terminal.getvalue()
    assert shown.endswith(f"\r\033[K{failing_native_id}: failed on native (see the table)\n")
    assert "failed: RuntimeError: no GPU found" in capsys.readouterr().out


def test_check_shows_progress_on_a_terminal_and_not_in_a_pipe(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["check", "MarketMicrostructure-v0", "--steps", "5"]) == 0
    assert capsys.readouterr().err == ""
    terminal = _on_terminal(monkeypatch)
    assert main(["check", "MarketMicrostructure-v0", "--steps", "5"]) == 0
    shown = terminal.getvalue()
    assert "checking MarketMicrostructure-v0, agent 'trader' (2/2" in shown
    assert shown.endswith("\r\033[K")  # erased before the result is printed
    assert "no problems" in capsys.readouterr().out


# -- an env with only a native vector implementation -------------------------------


def test_an_env_with_only_a_native_vector_implementation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    env_id = "clitest/VecOnly-v0"
    vector = "sekai.envs.classic_control.cartpole_vector:CartPoleVecEnv"
    default_registry.register(env_id, entry_point=None, vector_entry_point=vector)
    try:
        argv = ["bench", env_id, "--modes", "sync,native", "--num-envs", "2", "--seconds", "0.05"]
        assert main(argv) == 0
        rows = _table_rows(capsys.readouterr().out)
        assert main(["info", env_id, "--json"]) == 0
        info = json.loads(capsys.readouterr().out)
        assert main(["list", "--json"]) == 0
        listing = json.loads(capsys.readouterr().out)
    finally:
        default_registry.deregister(env_id)
    assert rows[0].endswith(
        f"skipped: {env_id} has only a native vector implementation (no entry_point)"
    )
    assert rows[1].split()[0] == "native" and "skipped" not in rows[1]
    assert info["vector_entry_point"] == vector
    assert "make_vec" in info["make_error"]  # make() cannot build it; the error says what can
    listed = next(env for env in listing["envs"] if env["id"] == env_id)
    assert listed["multi_agent"] is False and listed["native_vector"] is True


# -- public API only ----------------------------------------------------------------


@pytest.mark.parametrize("module", [sekai._bench, sekai._cli])
def test_the_command_uses_only_public_names_of_other_distributions(module: Any) -> None:
    tree = ast.parse(Path(module.__file__).read_text())
    imported = [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    own = {"sekai._bench", "sekai._cli"}  # this distribution's modules
    private = [
        name
        for name in imported
        if name.startswith("sekai.")
        and name not in own
        and any(part.startswith("_") for part in name.split("."))
    ]
    assert private == []


class _Described(Env[np.ndarray, int]):
    """An env with a described constructor.

    Args:
        speed: How fast it goes, e.g. ``2.0`` for twice. More words that are not the first.
        label: Its name, continued
            on a second line.
        size: No default.
    """

    observation_space = Box(0.0, 1.0, (1,))
    action_space = Discrete(2)

    def __init__(self, size: int, speed: float = 1.5, label: str = "x") -> None:
        self.size = size

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[np.ndarray]:
        return ResetResult(np.zeros(1, np.float32), {})

    def step(self, action: int) -> StepResult[np.ndarray]:
        return StepResult(np.zeros(1, np.float32), 0.0, False, False, {})


def test_info_shows_the_description_and_every_constructor_parameter(
    capsys: pytest.CaptureFixture[str],
) -> None:
    default_registry.register("clitest/Described-v0", entry_point=_Described, kwargs={"size": 3})
    try:
        assert main(["info", "clitest/Described-v0"]) == 0
        fields = _fields(capsys.readouterr().out)
        assert fields["description"] == ["An env with a described constructor."]
        assert fields["parameters"] == [
            "size (required), registered 3  No default.",
            "speed=1.5                      How fast it goes, e.g. 2.0 for twice.",
            "label='x'                      Its name, continued on a second line.",
        ]
        assert main(["info", "clitest/Described-v0", "--json"]) == 0
        info = json.loads(capsys.readouterr().out)
        assert info["description"] == "An env with a described constructor."
        assert info["parameters"][0] == {
            "name": "size",
            "default": None,
            "required": True,
            "description": "No default.",
            "registered": 3,
        }
    finally:
        default_registry.deregister("clitest/Described-v0")
    assert main(["info", "Trading-v0"]) == 0
    parameters = _fields(capsys.readouterr().out)["parameters"]
    assert any(line.startswith("execution='close'") and "fills" in line for line in parameters)


def test_a_closed_pipe_ends_the_command_quietly() -> None:
    command = [sys.executable, "-m", "sekai", "list", "--json"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader is gone before the command writes, as after `| head`
    error = process.stderr.read()
    process.stderr.close()
    assert process.wait(timeout=120) == 141  # as a Unix tool killed by SIGPIPE
    assert error == b""  # no traceback, no "Broken pipe" message


def test_bench_says_when_each_backend_pays_off_and_why_one_is_slower_here() -> None:
    results = [
        BenchResult("X-v0", "sync", 4, None, steps=10_000, seconds=1.0),  # 100 us a sub-env step
        BenchResult("X-v0", "async", 4, None, steps=12_000, seconds=1.0),
        BenchResult("X-v0", "proc", 4, 2, steps=5_000, seconds=1.0),
        BenchResult("X-v0", "native", 4, None, steps=80_000, seconds=1.0),
    ]
    lines = sekai._bench.notes(results)
    by_mode = {line.split()[0]: line for line in lines[1:-1]}
    assert list(by_mode) == ["async", "proc", "native"]
    assert "slower" not in by_mode["async"] and "slower" not in by_mode["native"]
    assert "slower than sync here: a sub-env step of X-v0 costs about 100 us" in by_mode["proc"]
    assert lines[-1].startswith("Next: 'sekai bench ID --num-envs 256'")
    assert sekai._bench.title(results, 2.0).startswith(
        "X-v0, 4 sub-envs, about 2 s per backend: sub-env steps per second"
    )


class _Undocumented(_Described):
    pass


def test_info_does_not_describe_an_env_by_a_docstring_it_inherits(
    capsys: pytest.CaptureFixture[str],
) -> None:
    default_registry.register("clitest/Undocumented-v0", entry_point=_Undocumented)
    try:
        assert main(["info", "clitest/Undocumented-v0"]) == 0
        fields = _fields(capsys.readouterr().out)
        assert fields["description"] == ["(no docstring)"]
    finally:
        default_registry.deregister("clitest/Undocumented-v0")
    assert main(["info", "Portfolio-v0"]) == 0
    description = _fields(capsys.readouterr().out)["description"][0]
    assert "`" not in description and description.endswith("cash.")  # markup made plain
