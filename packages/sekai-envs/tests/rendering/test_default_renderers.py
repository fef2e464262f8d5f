"""Each env names its default renderer in ``metadata["renderer"]``, without importing it."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import pytest

import sekai.envs
import sekai.registry as registry

_CLASSIC = "sekai.envs.classic_control.rendering"
_FINANCE = "sekai.envs.finance.rendering"

# env class (a public name of sekai.envs): its renderer, as a "module:Class" string
RENDERERS = {
    "CartPoleEnv": f"{_CLASSIC}:CartPoleRenderer",
    "MountainCarEnv": f"{_CLASSIC}:MountainCarRenderer",
    "ContinuousMountainCarEnv": f"{_CLASSIC}:MountainCarRenderer",
    "PendulumEnv": f"{_CLASSIC}:PendulumRenderer",
    "AcrobotEnv": f"{_CLASSIC}:AcrobotRenderer",
    "TradingEnv": f"{_FINANCE}:TradingRenderer",
    "PortfolioEnv": f"{_FINANCE}:PortfolioRenderer",
    "MarketEnv": f"{_FINANCE}:MarketRenderer",
    "MarketMakingEnv": f"{_FINANCE}:MarketMakingRenderer",
    "OptimalExecutionEnv": f"{_FINANCE}:OptimalExecutionRenderer",
    "LimitOrderBookEnv": f"{_FINANCE}:LimitOrderBookRenderer",
    "LimitOrderBookMarket": f"{_FINANCE}:LimitOrderBookMarketRenderer",
    "MarketMicrostructureEnv": f"{_FINANCE}:MarketMicrostructureRenderer",
}


@pytest.mark.parametrize("name", sorted(RENDERERS))
def test_each_env_names_its_renderer(name: str) -> None:
    metadata = getattr(sekai.envs, name).metadata
    assert metadata["renderer"] == RENDERERS[name]
    assert metadata["render_modes"] == ["rgb_array"]
    assert metadata["render_fps"] > 0


def test_every_registered_env_of_sekai_envs_is_covered() -> None:
    made = set()
    for spec in registry.all_specs():
        entry_point = spec.entry_point
        if isinstance(entry_point, str) and entry_point.startswith("sekai.envs."):
            env = registry.make(spec.id)
            made.add(type(getattr(env, "unwrapped", env)).__name__)
            env.close()
    assert {"CartPoleEnv", "TradingEnv", "LimitOrderBookEnv"} <= made
    assert "MarketMicrostructureEnv" in made  # the two-agent game
    assert made <= set(RENDERERS)


@pytest.mark.parametrize("name", sorted(RENDERERS))
def test_the_renderers_are_sekai_rendering_renderers(name: str) -> None:
    rendering = pytest.importorskip("sekai.rendering", reason="needs sekai-envs[render]")
    pytest.importorskip("PIL", reason="needs sekai-envs[render]")
    renderer = pkgutil.resolve_name(RENDERERS[name])()  # built with no arguments
    assert isinstance(renderer, rendering.BaseRenderer)


def test_importing_and_making_the_envs_imports_no_drawing_library() -> None:
    probe = (
        "import json, sys\n"
        "import sekai.envs, sekai.registry as registry\n"
        f"names = {sorted(RENDERERS)!r}\n"
        "declared = [getattr(sekai.envs, name).metadata['renderer'] for name in names]\n"
        "for spec in registry.all_specs():\n"
        "    if str(spec.entry_point).startswith('sekai.envs.'):\n"
        "        registry.make(spec.id).close()\n"
        "modules = ['PIL', 'sekai.rendering', 'sekai.envs.classic_control.rendering',\n"
        "           'sekai.envs.finance.rendering']\n"
        "print(json.dumps({'strings': all(isinstance(d, str) for d in declared),\n"
        "                  'imported': [m for m in modules if m in sys.modules]}))\n"
    )
    output = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    assert json.loads(output) == {"strings": True, "imported": []}
