"""The example plugin found through a real ``sekai.envs`` entry point.

The plugin's source tree is put on ``sys.path`` next to a hand-written
``.dist-info`` directory declaring its entry point, so `importlib.metadata` finds
it exactly as it finds an installed distribution. (The nox ``build`` session also
installs the plugin's wheel next to sekai-core alone.)
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sekai.registry import ENTRY_POINT_GROUP, EnvRegistry, _plugins

PLUGIN_SRC = Path(__file__).resolve().parents[4] / "examples" / "sekai-example-plugin" / "src"

pytestmark = pytest.mark.skipif(
    not PLUGIN_SRC.is_dir(), reason="the example plugin's sources are not in this checkout"
)


@pytest.fixture
def installed_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if any(ep.name == "example" for ep in _plugins.list_entry_points(ENTRY_POINT_GROUP)):
        return  # the plugin is really installed in this environment
    dist_info = tmp_path / "sekai_example_plugin_fake-0.1.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: sekai-example-plugin-fake\nVersion: 0.1.0\n"
    )
    (dist_info / "entry_points.txt").write_text(
        "[sekai.envs]\nexample = sekai_example_plugin:register_envs\n"
    )
    monkeypatch.syspath_prepend(str(PLUGIN_SRC))
    monkeypatch.syspath_prepend(str(tmp_path))


@pytest.fixture(autouse=True)
def _unimported_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m.startswith("sekai_example_plugin")]:
        monkeypatch.delitem(sys.modules, name)


def test_example_plugin_env_is_made_through_its_entry_point(installed_plugin: None) -> None:
    names = [ep.name for ep in _plugins.list_entry_points(ENTRY_POINT_GROUP)]
    assert "example" in names
    registry = EnvRegistry(entry_point_group=ENTRY_POINT_GROUP)
    assert "sekai_example_plugin" not in sys.modules  # nothing imported yet
    env = registry.make("example/RandomWalk-v0")
    assert "sekai_example_plugin" in sys.modules
    assert type(env.unwrapped).__name__ == "RandomWalkEnv"
    assert env.spec.id == "example/RandomWalk-v0"
    assert env.spec.max_episode_steps == 200
    env.reset(seed=1)
    steps = 0
    while True:
        steps += 1
        result = env.step(1)
        if result.terminated or result.truncated:
            break
    assert steps == 200
    assert registry.failed_plugins == {}
