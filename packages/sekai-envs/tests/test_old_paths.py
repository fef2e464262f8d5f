"""Every module path that sekai-envs has offered still imports, and gives the same objects."""

from __future__ import annotations

import importlib
import pickle
import subprocess
import sys
import warnings

import pytest

import sekai.envs
from sekai.envs._old_paths import ENVS_ALIASES

OLD_PATHS = sorted(
    (f"{package}.{child}", target, names)
    for package, children in ENVS_ALIASES.items()
    for child, (target, names) in children.items()
)


@pytest.mark.parametrize(("old", "target", "names"), OLD_PATHS, ids=[p[0] for p in OLD_PATHS])
def test_an_old_path_gives_the_objects_of_its_new_module(
    old: str, target: str, names: tuple[str, ...]
) -> None:
    module = importlib.import_module(old)
    new = importlib.import_module(target)
    for name in names:
        assert getattr(module, name) is getattr(new, name), f"{old}.{name}"
    namespace: dict[str, object] = {}
    exec(f"from {old} import *", namespace)
    assert set(names) <= set(namespace)


def test_the_old_sampler_path_keeps_its_meaning() -> None:
    from sekai.envs.samplers import EpisodeSampler
    from sekai.finance.sampling import WindowSampler

    assert EpisodeSampler is WindowSampler is sekai.envs.EpisodeSampler


def test_the_old_name_of_the_two_agent_game_warns_at_every_read() -> None:
    from sekai.envs import market_making
    from sekai.envs.microstructure import MarketMicrostructureEnv

    for _ in range(2):  # the alias must not cache a name whose read warns
        with pytest.warns(DeprecationWarning, match="MarketMicrostructureEnv"):
            assert market_making.MarketMakingEnv is MarketMicrostructureEnv


def test_an_env_pickled_under_an_old_path_loads() -> None:
    from sekai.envs.finance.portfolio import PortfolioEnv

    # Protocol 0 names a class by newline-ended text, so the module can be swapped: the
    # pickle then reads as one written when the class lived at sekai.envs.portfolio.
    data = pickle.dumps(PortfolioEnv(n_assets=2, episode_length=5, lookback=3), protocol=0)
    old = data.replace(b"sekai.envs.finance.portfolio", b"sekai.envs.portfolio")
    assert old != data
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert type(pickle.loads(old)) is PortfolioEnv


def test_old_paths_import_in_a_fresh_interpreter() -> None:
    probe = "; ".join(f"import {old}" for old, _, _ in OLD_PATHS)
    subprocess.run([sys.executable, "-W", "error", "-c", probe], check=True)
