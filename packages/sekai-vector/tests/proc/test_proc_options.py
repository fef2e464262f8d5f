"""ProcVecEnv arguments: cloudpickle, start methods, workers, shared memory, input checking."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Discrete, Sequence
from sekai.vector import ProcVecEnv


class PidEnv(Env[Any, int]):
    """Reports the process it runs in."""

    def __init__(self, observation_space: Any = None) -> None:
        self.observation_space = observation_space or Box(0, 1, (2,), np.float32)
        self.action_space = Discrete(2)

    def _obs(self) -> Any:
        if isinstance(self.observation_space, Sequence):
            return (0.5, 0.25)
        return np.full(2, 0.5, np.float32)

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        return ResetResult(self._obs(), {})

    def step(self, action: int) -> StepResult[Any]:
        return StepResult(self._obs(), 0.0, False, False, {})

    def pid(self) -> int:
        return os.getpid()

    def ppid(self) -> int:
        return os.getppid()


def test_without_cloudpickle_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cloudpickle", None)
    with pytest.raises(ImportError, match=r"install the sekai-vector\[proc\] distribution") as info:
        ProcVecEnv([PidEnv], context="fork")
    assert "`pip install cloudpickle`" in str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "error", "fragment"),
    [
        ({"num_workers": 0}, ValueError, "num_workers"),
        ({"num_workers": 4}, ValueError, "num_workers"),
        ({"num_workers": 1.5}, TypeError, "num_workers"),
        ({"num_workers": True}, TypeError, "num_workers"),
        ({"close_timeout": -1}, ValueError, "close_timeout"),
        ({"close_timeout": float("nan")}, ValueError, "close_timeout"),
        ({"close_timeout": "5"}, TypeError, "close_timeout"),
        ({"shared_memory": "yes"}, TypeError, "shared_memory"),
        ({"autoreset": 1}, TypeError, "autoreset"),
        ({"context": "teleport"}, ValueError, "context"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], error: type[Exception], fragment: str) -> None:
    kwargs.setdefault("context", "fork")
    with pytest.raises(error, match=fragment) as info:
        ProcVecEnv([PidEnv] * 3, **kwargs)
    assert repr(next(iter(kwargs.values()))) in str(info.value)


@pytest.mark.parametrize("env_fns", [[], "abc", [1, 2], PidEnv])
def test_bad_env_fns(env_fns: Any) -> None:
    with pytest.raises((TypeError, ValueError), match="env_fns"):
        ProcVecEnv(env_fns, context="fork")


@pytest.mark.parametrize(
    ("num_envs", "num_workers", "groups"),
    [(5, 2, [3, 2]), (4, 4, [1, 1, 1, 1]), (3, 1, [3]), (7, 3, [3, 2, 2]), (3, None, [1, 1, 1])],
)
def test_sub_envs_are_split_evenly_and_in_order(
    proc: Any, num_envs: int, num_workers: int | None, groups: list[int]
) -> None:
    vec = proc([PidEnv] * num_envs, num_workers=num_workers)
    assert vec.num_workers == len(groups)
    pids = vec.call("pid")
    sizes = [sum(1 for _ in group) for group in _runs(pids)]
    assert sizes == groups
    assert os.getpid() not in pids


def _runs(values: list[Any]) -> list[list[Any]]:
    runs: list[list[Any]] = []
    for value in values:
        if runs and runs[-1][0] == value:
            runs[-1].append(value)
        else:
            runs.append([value])
    assert len({run[0] for run in runs}) == len(runs)  # each worker's sub-envs are contiguous
    return runs


def test_default_start_method_is_the_forkserver(proc: Any) -> None:
    vec = proc([PidEnv], context=None)
    # Workers are children of the fork server, not of this process.
    assert vec.call("ppid") != [os.getpid()]
    vec.reset()
    np.testing.assert_array_equal(vec.step([1]).observations, [[0.5, 0.5]])


def test_lambdas_and_locally_defined_classes_reach_the_workers(proc: Any) -> None:
    base = 2.0

    class Local(PidEnv):
        def step(self, action: int) -> StepResult[Any]:
            return StepResult(self._obs(), base + action, False, False, {"local": True})

    vec = proc([lambda: Local()] * 2, context=None)  # workers started by the fork server
    vec.reset()
    result = vec.step([0, 1])
    assert result.rewards.tolist() == [2.0, 3.0]
    assert result.infos == [{"local": True}] * 2


@pytest.mark.parametrize(("requested", "used"), [(None, True), (True, True), (False, False)])
def test_shared_memory_choice_for_a_fixed_shape_space(
    proc: Any, requested: bool | None, used: bool
) -> None:
    vec = proc([PidEnv] * 2, shared_memory=requested)
    assert vec.shared_memory is used
    vec.reset()
    np.testing.assert_array_equal(vec.step([0, 1]).observations, np.full((2, 2), 0.5))


def test_shared_memory_for_a_space_without_fixed_shape(proc: Any, leaks: Any) -> None:
    space = Sequence(Box(0, 1, ()))
    vec = proc([lambda: PidEnv(space)] * 2)
    assert vec.shared_memory is False
    assert vec.reset().observations == ((0.5, 0.25), (0.5, 0.25))
    with pytest.raises(ValueError, match=r"shared_memory=True needs .* fixed shapes"):
        proc([lambda: PidEnv(space)] * 2, shared_memory=True)
    vec.close()
    leaks.assert_released()


def test_metadata_and_spaces_come_from_the_sub_envs(proc: Any) -> None:
    def make() -> PidEnv:
        env = PidEnv()
        env.metadata = {"render_modes": ["ansi"]}
        return env

    vec = proc([make] * 2)
    assert vec.metadata == {"render_modes": ["ansi"]}
    assert vec.observation_space == Box(0, 1, (2,), np.float32)
    assert vec.action_space == Discrete(2)
    assert vec.num_envs == 2
    assert repr(vec) == "ProcVecEnv(num_envs=2)"


@pytest.mark.skipif(
    "forkserver" not in multiprocessing.get_all_start_methods(), reason="needs the fork server"
)
def test_an_unguarded_script_gets_a_clear_error(tmp_path: Any) -> None:
    script = tmp_path / "unguarded.py"
    script.write_text(
        "import numpy as np\n"
        "from sekai.core import Env, ResetResult, StepResult\n"
        "from sekai.spaces import Box, Discrete\n"
        "from sekai.vector import ProcVecEnv\n"
        "class E(Env):\n"
        "    observation_space = Box(0, 1, (2,), np.float32)\n"
        "    action_space = Discrete(2)\n"
        "    def reset(self, *, seed=None, options=None):\n"
        "        return ResetResult(np.zeros(2, np.float32), {})\n"
        "    def step(self, action):\n"
        "        return StepResult(np.zeros(2, np.float32), 0.0, False, False, {})\n"
        "ProcVecEnv([E, E])  # no 'if __name__ == \"__main__\":' guard\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode != 0
    assert "must guard its entry point" in done.stderr


@pytest.mark.skipif(
    "forkserver" not in multiprocessing.get_all_start_methods(), reason="needs the fork server"
)
def test_modules_the_user_preloads_are_imported_once_not_per_worker(tmp_path: Any) -> None:
    # The env module is imported by the script only inside main(), so the fork
    # server does not get it through the main module: only the user's preload
    # list brings it there, and then no worker imports it again.
    log = tmp_path / "imports.log"
    (tmp_path / "user_envs.py").write_text(
        "import os\n"
        "import numpy as np\n"
        "from sekai.core import Env, ResetResult, StepResult\n"
        "from sekai.spaces import Box, Discrete\n"
        f"with open({str(log)!r}, 'a') as f:\n"
        "    f.write(f'{os.getpid()}\\n')\n"
        "class E(Env):\n"
        "    observation_space = Box(0, 1, (2,), np.float32)\n"
        "    action_space = Discrete(2)\n"
        "    def pid(self):\n"
        "        return os.getpid()\n"
        "    def reset(self, *, seed=None, options=None):\n"
        "        return ResetResult(np.zeros(2, np.float32), {})\n"
        "    def step(self, action):\n"
        "        return StepResult(np.zeros(2, np.float32), 0.0, False, False, {})\n"
    )
    script = tmp_path / "main.py"
    script.write_text(
        "import multiprocessing\n"
        "from sekai.vector import ProcVecEnv\n"
        "def main():\n"
        "    import user_envs\n"
        "    with ProcVecEnv([user_envs.E, user_envs.E]) as vec:\n"
        "        print(*vec.call('pid'))\n"
        "if __name__ == '__main__':\n"
        "    multiprocessing.set_forkserver_preload(['user_envs'])\n"
        "    main()\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=tmp_path,
    )
    worker_pids = set(done.stdout.split())
    importers = log.read_text().split()
    assert len(worker_pids) == 2
    assert len(importers) == 2  # the script and the fork server
    assert not worker_pids & set(importers)
