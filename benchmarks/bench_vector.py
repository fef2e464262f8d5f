"""Vector env overhead: sekai's SyncVecEnv and AsyncVecEnv against their baselines.

Measured, in one run:

1. ``SyncVecEnv`` vs Gymnasium's ``SyncVectorEnv`` at 8 envs, on a CartPole
   written here (the same dynamics code behind both APIs), on an env with a
   float32 ``(100, 40)`` observation and on one with a uint8 ``(84, 84, 3)``
   frame. Target: sekai >= 1.2x as fast.
2. ``SyncVecEnv`` vs a plain Python loop over the same 64 sub-envs (step each,
   reset the finished ones, collect the observations). Target: >= 0.85x.
3. ``AsyncVecEnv`` over 64 sync envs vs gathering the same sub-env coroutines
   by hand on the same loop. Target: within 1.3x of the hand-written cost.
4. ``AsyncVecEnv`` over 64 async-native envs that each await 10 ms of I/O.
   Target: a step under 15 ms.

Gymnasium comparisons need ``gymnasium`` (the ``bench`` dependency group);
without it they are skipped. Run ``python benchmarks/bench_vector.py
[--quick]``; results are printed and written to
``benchmarks/results/bench_vector.json``.
"""

from __future__ import annotations

import asyncio
import json
import math
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Discrete
from sekai.vector import AsyncVecEnv, SyncVecEnv

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from _peers import peer_row, print_rows  # noqa: E402 - needs the path above

try:
    import gymnasium as gym
except ImportError:  # the comparisons with Gymnasium are skipped
    gym = None

RESULTS = Path(__file__).parent / "results" / "bench_vector.json"

# -- the environments, one dynamics code behind both APIs ----------------------------------------


class CartPoleDynamics:
    """Gymnasium's CartPole-v1 dynamics (Euler integration), in plain Python."""

    gravity = 9.8
    masscart = 1.0
    masspole = 0.1
    total_mass = masspole + masscart
    length = 0.5
    polemass_length = masspole * length
    force_mag = 10.0
    tau = 0.02
    theta_threshold = 12 * 2 * math.pi / 360
    x_threshold = 2.4
    max_steps = 500

    def __init__(self) -> None:
        self.state = (0.0, 0.0, 0.0, 0.0)
        self.t = 0

    def start(self, rng: np.random.Generator) -> np.ndarray:
        self.state = tuple(rng.uniform(-0.05, 0.05, size=4).tolist())
        self.t = 0
        return np.array(self.state, dtype=np.float32)

    def advance(self, action: Any) -> tuple[np.ndarray, bool, bool]:
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if action == 1 else -self.force_mag
        costheta, sintheta = math.cos(theta), math.sin(theta)
        temp = (force + self.polemass_length * theta_dot**2 * sintheta) / self.total_mass
        thetaacc = (self.gravity * sintheta - costheta * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * costheta**2 / self.total_mass)
        )
        xacc = temp - self.polemass_length * thetaacc * costheta / self.total_mass
        x += self.tau * x_dot
        x_dot += self.tau * xacc
        theta += self.tau * theta_dot
        theta_dot += self.tau * thetaacc
        self.state = (x, x_dot, theta, theta_dot)
        self.t += 1
        terminated = (
            x < -self.x_threshold
            or x > self.x_threshold
            or theta < -self.theta_threshold
            or theta > self.theta_threshold
        )
        return np.array(self.state, dtype=np.float32), terminated, self.t >= self.max_steps


class WideDynamics:
    """A float32 ``(100, 40)`` observation (a window of 100 ticks of 40 features)."""

    shape = (100, 40)
    max_steps = 200

    def __init__(self) -> None:
        self.window = np.zeros(self.shape, dtype=np.float32)
        self.t = 0

    def start(self, rng: np.random.Generator) -> np.ndarray:
        self.window[:] = rng.standard_normal(self.shape, dtype=np.float32)
        self.t = 0
        first: np.ndarray = self.window.copy()
        return first

    def advance(self, action: Any) -> tuple[np.ndarray, bool, bool]:
        self.t += 1
        self.window[self.t % 100, int(action)] += 1.0
        return self.window.copy(), False, self.t >= self.max_steps


class ImageDynamics:
    """A uint8 ``(84, 84, 3)`` frame, as an Atari-style env returns each step (a new array)."""

    shape = (84, 84, 3)
    max_steps = 200

    def __init__(self) -> None:
        self.frame = np.zeros(self.shape, dtype=np.uint8)
        self.t = 0

    def start(self, rng: np.random.Generator) -> np.ndarray:
        self.frame[:] = rng.integers(0, 256, self.shape, dtype=np.uint8)
        self.t = 0
        first: np.ndarray = self.frame.copy()
        return first

    def advance(self, action: Any) -> tuple[np.ndarray, bool, bool]:
        self.t += 1
        self.frame[self.t % 84, int(action)] += 1
        return self.frame.copy(), False, self.t >= self.max_steps


def _limits(dynamics: type[Any]) -> tuple[tuple[int, ...], float, int]:
    if dynamics is CartPoleDynamics:
        return (4,), 3.4e38, 2
    if dynamics is ImageDynamics:
        return ImageDynamics.shape, 255, 18
    return WideDynamics.shape, 3.4e38, 40


def _dtype(dynamics: type[Any]) -> type[np.generic]:
    return np.uint8 if dynamics is ImageDynamics else np.float32


class SekaiEnv(Env[np.ndarray, Any]):
    """The dynamics behind sekai's Env API."""

    def __init__(self, dynamics: type[Any]) -> None:
        shape, bound, actions = _limits(dynamics)
        low = 0 if dynamics is ImageDynamics else -bound
        self.observation_space = Box(low, bound, shape, _dtype(dynamics))
        self.action_space = Discrete(actions)
        self.dynamics = dynamics()

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[np.ndarray]:
        self._set_rng(seed)
        return ResetResult(self.dynamics.start(self.rng), {})

    def step(self, action: Any) -> StepResult[np.ndarray]:
        obs, terminated, truncated = self.dynamics.advance(action)
        return StepResult(obs, 1.0, terminated, truncated, {})


class SleepyEnv(SekaiEnv):
    """Awaits ``delay`` seconds of (simulated) I/O in every async step."""

    delay = 0.010

    async def async_step(self, action: Any) -> StepResult[np.ndarray]:
        await asyncio.sleep(self.delay)
        return self.step(action)


def _gym_env_class() -> Any:
    class GymEnv(gym.Env):  # type: ignore[misc]
        """The same dynamics behind Gymnasium's Env API."""

        def __init__(self, dynamics: type[Any]) -> None:
            shape, bound, actions = _limits(dynamics)
            low = 0 if dynamics is ImageDynamics else -bound
            self.observation_space = gym.spaces.Box(low, bound, shape, _dtype(dynamics))
            self.action_space = gym.spaces.Discrete(actions)
            self.dynamics = dynamics()

        def reset(
            self, *, seed: Any = None, options: Any = None
        ) -> tuple[np.ndarray, dict[str, Any]]:
            super().reset(seed=seed)
            return self.dynamics.start(self.np_random), {}

        def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
            obs, terminated, truncated = self.dynamics.advance(action)
            return obs, 1.0, terminated, truncated, {}

    return GymEnv


# -- timing -------------------------------------------------------------------------------------


def _compare(runs: dict[str, Callable[[], None]], steps: int, repeats: int) -> dict[str, float]:
    """Median CPU microseconds per step of each run over interleaved rounds.

    CPU time of this process (``time.process_time``) rather than wall time, and
    the candidates take turns round after round, so that other work on the
    machine affects every candidate alike and ratios stay meaningful.
    """
    rounds: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            start = time.process_time()
            run()
            rounds[name].append((time.process_time() - start) / steps * 1e6)
    return {name: statistics.median(times) for name, times in rounds.items()}


def _wall_best_of(run: Callable[[], None], steps: int, repeats: int) -> float:
    """Best wall-clock seconds per step over ``repeats`` runs (for I/O-bound runs)."""
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, (time.perf_counter() - start) / steps)
    return best


def _actions(num_envs: int, steps: int, high: int) -> np.ndarray:
    return np.random.default_rng(0).integers(0, high, size=(steps, num_envs))


def bench_sync_vs_gymnasium(
    dynamics: type[Any], num_envs: int, steps: int, repeats: int
) -> dict[str, Any]:
    high = _limits(dynamics)[2]
    actions = _actions(num_envs, steps, high)
    vectors: dict[str, Any] = {"sekai_us": SyncVecEnv([lambda: SekaiEnv(dynamics)] * num_envs)}
    if gym is not None:
        GymEnv = _gym_env_class()
        modes = {
            "gymnasium_us": gym.vector.AutoresetMode.NEXT_STEP,
            "gymnasium_same_step_us": gym.vector.AutoresetMode.SAME_STEP,
        }
        for key, mode in modes.items():
            vectors[key] = gym.vector.SyncVectorEnv(
                [lambda: GymEnv(dynamics)] * num_envs, autoreset_mode=mode
            )

    def runner(vec: Any) -> Callable[[], None]:
        def run() -> None:
            step = vec.step
            for batch in actions:
                step(batch)

        return run

    for vec in vectors.values():
        vec.reset(seed=0)
    result: dict[str, Any] = {"num_envs": num_envs, "steps": steps}
    result.update(_compare({key: runner(vec) for key, vec in vectors.items()}, steps, repeats))
    for vec in vectors.values():
        vec.close()
    if gym is not None:
        result["speedup"] = result["gymnasium_us"] / result["sekai_us"]
        result["speedup_vs_same_step"] = result["gymnasium_same_step_us"] / result["sekai_us"]
    return result


def bench_sync_vs_loop(num_envs: int, steps: int, repeats: int) -> dict[str, Any]:
    actions = _actions(num_envs, steps, 2)
    action_lists = actions.tolist()
    envs = [SekaiEnv(CartPoleDynamics) for _ in range(num_envs)]
    for i, env in enumerate(envs):
        env.reset(seed=i)

    def run_loop() -> None:
        for batch in action_lists:
            observations = []
            for env, action in zip(envs, batch, strict=True):
                result = env.step(action)
                if result.terminated or result.truncated:
                    observations.append(env.reset().observation)
                else:
                    observations.append(result.observation)

    vec = SyncVecEnv([lambda: SekaiEnv(CartPoleDynamics)] * num_envs)
    vec.reset(seed=0)

    def run_vec() -> None:
        step = vec.step
        for batch in actions:
            step(batch)

    times = _compare({"loop": run_loop, "sekai": run_vec}, steps, repeats)
    loop_us, vec_us = times["loop"], times["sekai"]
    vec.close()
    return {
        "num_envs": num_envs,
        "loop_us": loop_us,
        "sekai_us": vec_us,
        "ratio": loop_us / vec_us,
    }


def bench_async_overhead(num_envs: int, steps: int, repeats: int) -> dict[str, Any]:
    actions = _actions(num_envs, steps, 2)
    vec = AsyncVecEnv([lambda: SekaiEnv(CartPoleDynamics)] * num_envs)
    envs = [SekaiEnv(CartPoleDynamics) for _ in range(num_envs)]
    loop = asyncio.new_event_loop()

    async def by_hand() -> None:
        for batch in actions.tolist():
            results = await asyncio.gather(
                *[env.async_step(a) for env, a in zip(envs, batch, strict=True)]
            )
            finished = [env for env, r in zip(envs, results, strict=True) if r.done]
            if finished:
                await asyncio.gather(*[env.async_reset() for env in finished])

    async def with_vec() -> None:
        step = vec.async_step
        for batch in actions:
            await step(batch)

    async def prepare() -> None:
        await vec.async_reset(seed=0)
        await asyncio.gather(*[env.async_reset(seed=i) for i, env in enumerate(envs)])

    loop.run_until_complete(prepare())
    times = _compare(
        {
            "by_hand": lambda: loop.run_until_complete(by_hand()),
            "sekai": lambda: loop.run_until_complete(with_vec()),
        },
        steps,
        repeats,
    )
    hand_us, vec_us = times["by_hand"], times["sekai"]
    loop.close()
    vec.close()
    return {
        "num_envs": num_envs,
        "by_hand_us": hand_us,
        "sekai_us": vec_us,
        "cost_ratio": vec_us / hand_us,
    }


def bench_async_io(num_envs: int, steps: int, repeats: int) -> dict[str, Any]:
    actions = _actions(num_envs, steps, 2)
    vec = AsyncVecEnv([lambda: SleepyEnv(CartPoleDynamics)] * num_envs)
    vec.reset(seed=0)

    def run() -> None:
        step = vec.step
        for batch in actions:
            step(batch)

    step_ms = _wall_best_of(run, steps, repeats) * 1e3
    vec.close()
    return {"num_envs": num_envs, "io_ms": SleepyEnv.delay * 1e3, "step_ms": step_ms}


def _peer_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The Performance page's side-by-side row: sub-env steps per second of both."""
    r = report["image_obs_8"]
    if "speedup" not in r:
        return []
    rate = r["num_envs"] * 1e6
    return [
        peer_row(
            "SyncVecEnv / Gymnasium SyncVectorEnv, uint8 (84, 84, 3) observations, N=8",
            unit="steps/s",
            sekai=rate / r["sekai_us"],
            peer=rate / r["gymnasium_us"],
            peer_name=f"Gymnasium {report['gymnasium']}",
            goal=">= 1.2",
            note="the same env code behind both APIs",
        )
    ]


def _verdict(ok: bool) -> str:
    return "ok" if ok else "BELOW TARGET"


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    steps, repeats = (100, 5) if quick else (200, 30)
    report: dict[str, Any] = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "gymnasium": None if gym is None else gym.__version__,
    }
    report["cartpole_8"] = bench_sync_vs_gymnasium(CartPoleDynamics, 8, steps, repeats)
    report["wide_obs_8"] = bench_sync_vs_gymnasium(WideDynamics, 8, steps // 2, repeats)
    report["image_obs_8"] = bench_sync_vs_gymnasium(ImageDynamics, 8, steps // 2, repeats)
    report["loop_64"] = bench_sync_vs_loop(64, steps // 2, repeats)
    report["async_overhead_64"] = bench_async_overhead(64, steps // 2, repeats)
    report["async_io_64"] = bench_async_io(64, 20 if quick else 50, 3)
    report["timing"] = "median CPU time per step over interleaved rounds; async_io_64: wall time"

    print(f"python {report['python']}, numpy {report['numpy']}, gymnasium {report['gymnasium']}")
    for key in ("cartpole_8", "wide_obs_8", "image_obs_8"):
        r = report[key]
        line = f"{key:<18} SyncVecEnv {r['sekai_us']:8.1f} us/step"
        if "speedup" in r:
            line += (
                f" | gymnasium SyncVectorEnv {r['gymnasium_us']:8.1f} us/step"
                f" (same-step {r['gymnasium_same_step_us']:.1f})"
                f" | speedup {r['speedup']:.2f}x (>= 1.2x: {_verdict(r['speedup'] >= 1.2)})"
            )
        else:
            line += " | gymnasium not installed: comparison skipped"
        print(line)
    r = report["loop_64"]
    print(
        f"{'loop_64':<18} SyncVecEnv {r['sekai_us']:8.1f} us/step | plain loop "
        f"{r['loop_us']:8.1f} us/step | ratio {r['ratio']:.2f}x "
        f"(>= 0.85x: {_verdict(r['ratio'] >= 0.85)})"
    )
    r = report["async_overhead_64"]
    print(
        f"{'async_overhead_64':<18} AsyncVecEnv {r['sekai_us']:8.1f} us/step | gathered by hand "
        f"{r['by_hand_us']:8.1f} us/step | cost {r['cost_ratio']:.2f}x "
        f"(<= 1.3x: {_verdict(r['cost_ratio'] <= 1.3)})"
    )
    r = report["async_io_64"]
    print(
        f"{'async_io_64':<18} AsyncVecEnv {r['step_ms']:.2f} ms/step with {r['io_ms']:.0f} ms I/O "
        f"per sub-env (< 15 ms: {_verdict(r['step_ms'] < 15)})"
    )
    report["peer_rows"] = _peer_rows(report)
    print_rows(report["peer_rows"])
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
