"""Registration through the sekai.envs entry point, and cheap imports."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata

import pytest

import sekai.envs
from sekai.envs._registration import register_envs
from sekai.registry import EnvRegistry

_CLASSIC = "sekai.envs.classic_control"
_FINANCE = "sekai.envs.finance"
IDS = {
    "CartPole-v1": (
        f"{_CLASSIC}.cartpole:CartPoleEnv",
        f"{_CLASSIC}.cartpole_vector:CartPoleVecEnv",
    ),
    "MountainCar-v0": (
        f"{_CLASSIC}.mountain_car:MountainCarEnv",
        f"{_CLASSIC}.mountain_car_vector:MountainCarVecEnv",
    ),
    "MountainCarContinuous-v0": (
        f"{_CLASSIC}.continuous_mountain_car:ContinuousMountainCarEnv",
        f"{_CLASSIC}.continuous_mountain_car_vector:ContinuousMountainCarVecEnv",
    ),
    "Pendulum-v1": (
        f"{_CLASSIC}.pendulum:PendulumEnv",
        f"{_CLASSIC}.pendulum_vector:PendulumVecEnv",
    ),
    "Acrobot-v1": (f"{_CLASSIC}.acrobot:AcrobotEnv", f"{_CLASSIC}.acrobot_vector:AcrobotVecEnv"),
    "Portfolio-v0": (
        "sekai.envs.finance.portfolio:PortfolioEnv",
        "sekai.envs.finance.portfolio_vector:PortfolioVecEnv",
    ),
    "Trading-v0": (f"{_FINANCE}.trading:TradingEnv", f"{_FINANCE}.trading_vector:TradingVecEnv"),
    "Market-v0": (f"{_FINANCE}.market_env:MarketEnv", f"{_FINANCE}.market_vector:MarketVecEnv"),
    "MarketMaking-v0": (
        f"{_FINANCE}.market_making:MarketMakingEnv",
        f"{_FINANCE}.market_making_vector:MarketMakingVecEnv",
    ),
    "OptimalExecution-v0": (
        f"{_FINANCE}.optimal_execution:OptimalExecutionEnv",
        f"{_FINANCE}.optimal_execution_vector:OptimalExecutionVecEnv",
    ),
    "LimitOrderBook-v0": (f"{_FINANCE}.lob_env:LimitOrderBookEnv", None),
    "MarketMicrostructure-v0": ("sekai.envs.microstructure:MarketMicrostructureEnv", None),
}


def test_register_envs_fills_the_registry_that_asks() -> None:
    registry = EnvRegistry()
    registry.register_namespace("sekai", register_envs)
    specs = {spec.id: spec for spec in registry.all_specs()}
    assert set(specs) == set(IDS)
    for env_id, (entry_point, vector_entry_point) in IDS.items():
        assert specs[env_id].entry_point == entry_point
        assert specs[env_id].vector_entry_point == vector_entry_point
    assert specs["CartPole-v1"].max_episode_steps == 500
    assert specs["Portfolio-v0"].max_episode_steps is None


def test_the_market_envs_give_each_sub_env_its_own_sampler() -> None:
    registry = EnvRegistry()
    registry.register_namespace("sekai", register_envs)
    specs = {spec.id: spec for spec in registry.all_specs()}
    spawning = {"Portfolio-v0", "Trading-v0", "Market-v0"}
    for env_id, spec in specs.items():
        expected = (
            {"sampler": "sekai.finance.sampling:spawn_samplers"} if env_id in spawning else {}
        )
        assert spec.per_env_kwargs == expected, env_id


@pytest.mark.parametrize("env_id", ["Trading-v0", "Market-v0"])
def test_make_vec_spawns_a_start_sampler_per_sub_env(env_id: str) -> None:
    from sekai.finance.sampling import SequentialStart

    registry = EnvRegistry()
    registry.register_namespace("sekai", register_envs)
    registry.all_specs()  # runs the loader
    parent = SequentialStart(1)
    vec = registry.make_vec(env_id, 3, vectorization_mode="sync", sampler=parent)
    samplers = [spec.kwargs["sampler"] for spec in vec.get_attr("spec")]  # what each got
    assert len({id(s) for s in samplers}) == 3 and all(s is not parent for s in samplers)
    assert all(isinstance(s, SequentialStart) and s.start == 1 for s in samplers)
    vec.close()
    with pytest.raises(TypeError, match=r"spawn\(\).*got 1\.5"):
        registry.make_vec(env_id, 2, vectorization_mode="sync", sampler=1.5)


def test_every_public_name_resolves() -> None:
    for name in sekai.envs.__all__:
        assert getattr(sekai.envs, name) is not None
    with pytest.raises(AttributeError, match="NoSuchEnv"):
        sekai.envs.NoSuchEnv  # noqa: B018


def _run(code: str) -> dict[str, bool]:
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    result: dict[str, bool] = json.loads(output)
    return result


def test_registering_imports_no_environment() -> None:
    probe = (
        "import json, sys\n"
        "import sekai.envs\n"
        "from sekai.registry import EnvRegistry\n"
        "from sekai.envs import register_envs\n"
        "registry = EnvRegistry()\n"
        "registry.register_namespace('sekai', register_envs)\n"
        "registry.all_specs()\n"
        "names = ['sekai.envs.classic_control.cartpole', 'sekai.envs.finance.portfolio',\n"
        "         'sekai.envs.microstructure', 'sekai.vector', 'sekai.spaces']\n"
        "print(json.dumps({name: name in sys.modules for name in names}))\n"
    )
    assert not any(_run(probe).values())


def test_the_installed_entry_point_makes_the_envs() -> None:
    found = [ep for ep in metadata.entry_points(group="sekai.envs") if ep.name == "sekai"]
    if not found:
        pytest.skip("sekai-envs is installed without its entry-point metadata (reinstall it)")
    assert found[0].value == "sekai.envs._registration:register_envs"
    probe = (
        "import json, sys\n"
        "import sekai.registry as registry\n"
        "spec = registry.spec('CartPole-v1')\n"
        "before = 'sekai.envs.classic_control.cartpole' in sys.modules\n"
        "env = registry.make('CartPole-v1')\n"
        "vec = registry.make_vec('Portfolio-v0', 2)\n"
        "print(json.dumps({'before': before, 'single': type(env.unwrapped).__name__ ==\n"
        "    'CartPoleEnv', 'native': type(vec).__name__ == 'PortfolioVecEnv'}))\n"
    )
    assert _run(probe) == {"before": False, "single": True, "native": True}
