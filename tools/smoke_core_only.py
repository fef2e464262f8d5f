"""Smoke test of ``sekai-core`` installed alone from its wheel.

The env-author imports work, no other sekai distribution is importable, and the
example plugin (which depends on sekai-core alone) is found through its entry
point.
"""

from __future__ import annotations

import importlib
import sys
from importlib import metadata


def main() -> None:
    for name in ("sekai.core", "sekai.error", "sekai.spaces", "sekai.registry",
                 "sekai.stats", "sekai.utils"):  # fmt: skip
        importlib.import_module(name)
    for name in ("sekai.wrappers", "sekai.vector", "sekai.envs"):
        try:
            importlib.import_module(name)
        except ImportError:
            continue
        raise AssertionError(f"{name} is importable with only sekai-core installed")
    import sekai

    assert getattr(sekai, "__file__", None) is None, "the meta-package must not be installed"

    names = {ep.name for ep in metadata.entry_points(group="sekai.envs")}
    assert "example" in names, f"example plugin entry point missing: {sorted(names)}"

    # The plugin was never imported by hand: the registry finds it by its namespace.
    from sekai.registry import make, spec

    assert "sekai_example_plugin" not in sys.modules
    env = make("example/RandomWalk-v0", lookback=4)
    assert spec("example/RandomWalk-v0").max_episode_steps == 200
    assert env.spec is not None
    assert env.spec.id == "example/RandomWalk-v0"
    first = env.reset(seed=7)
    assert first.observation.shape == (4,)
    assert first.observation in env.observation_space
    steps = 0
    result = env.step(env.action_space.sample())
    while not result.done:
        result = env.step(env.action_space.sample())
        steps += 1
    steps += 1
    assert steps == 200
    assert result.truncated
    assert result.info["elapsed_steps"] == 200
    again = env.reset(seed=7)
    assert (again.observation == first.observation).all()
    print("core-only smoke test passed (example/RandomWalk-v0 made through its entry point)")


if __name__ == "__main__":
    main()
