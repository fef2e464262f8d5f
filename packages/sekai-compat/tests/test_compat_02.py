# ruff: noqa: E501 (the listing below keeps one signature per line)
"""sekai 0.2 compatibility of sekai-compat: the adapter classes and functions under their
0.2 names and signatures, and how 0.2 code uses them.

The expected API is sekai 0.2's, written down as data below. A signature is
compatible when it accepts every call 0.2's accepts: same parameter names, order
and defaults; extra parameters only if they cannot be required.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sekai.core import Env, MAResetResult, MAStepResult, MultiAgentEnv, ResetResult, StepResult
from sekai.spaces import Box, Discrete

gymnasium = pytest.importorskip("gymnasium", reason="needs the gymnasium extra")
pettingzoo = pytest.importorskip("pettingzoo", reason="needs the pettingzoo extra")

# The listing harness, shared by every distribution's test (tools/compat02.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))
from compat02 import (  # noqa: E402
    Entry,
    ListedName,
    check_name,
    cls,
    func,
    listed_problems,
    parameters_listing,
)

# -- sekai 0.2's listing for sekai-compat ---------------------------------------------------------

API: dict[str, dict[str, Entry]] = {
    "sekai.compat": {
        "GymnasiumRenderer": cls("", "close()", "render(env)", supports="__enter__ __exit__"),
        "GymnasiumToSekai": cls(
            "env",
            "async async_reset(*, seed=None, options=None)",
            "async async_step(action)",
            "close()",
            "reset(*, seed=None, options=None)",
            "property settable rng",
            "step(action)",
            attrs="action_space gym_env metadata observation_space",
            supports="__enter__ __exit__",
        ),
        "PettingZooToSekai": cls(
            "env",
            "close()",
            "reset(*, seed=None, options=None)",
            "step(actions)",
            attrs="action_spaces agents observation_spaces possible_agents pz_env",
            supports="__enter__ __exit__",
        ),
        "SekaiToGymnasium": cls(
            "env, renderer=None, render_mode=None",
            "class_attribute RENDER_MODES",
            "close()",
            "render()",
            "reset(*, seed=None, options=None)",
            "step(action)",
            attrs="action_masks action_space metadata observation_space render_mode renderer sekai_env",
        ),
        "SekaiToPettingZoo": cls(
            "env",
            "action_space(agent)",
            "close()",
            "observation_space(agent)",
            "render()",
            "reset(seed=None, options=None)",
            "step(actions)",
            attrs="action_spaces agents metadata observation_spaces possible_agents render_mode sekai_env",
        ),
        "from_gymnasium": func("env"),
        "from_pettingzoo": func("env"),
        "space_from_gymnasium": func("space"),
        "space_to_gymnasium": func("space"),
        "to_gymnasium": func("env, renderer=None, render_mode=None"),
        "to_pettingzoo": func("env"),
    },
}

IMPORT_PATHS: dict[str, str] = {
    "sekai.compat": "GymnasiumRenderer GymnasiumToSekai PettingZooToSekai SekaiToGymnasium SekaiToPettingZoo from_gymnasium from_pettingzoo space_from_gymnasium space_to_gymnasium to_gymnasium to_pettingzoo",
}


# -- envs to adapt -------------------------------------------------------------------------------


class Masked(Env[np.ndarray, np.int64]):
    """Discrete(3) actions, of which only 0 and 2 are allowed; episodes of 4 steps."""

    def __init__(self) -> None:
        self.observation_space = Box(0.0, 10.0, (1,), dtype=np.float32)
        self.action_space = Discrete(3)
        self.t = 0

    def action_mask(self) -> np.ndarray:
        return np.array([1, 0, 1], dtype=np.int8)

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[np.ndarray]:
        self._set_rng(seed)
        self.t = 0
        return ResetResult(np.zeros(1, np.float32), {})

    def step(self, action: np.int64) -> StepResult[np.ndarray]:
        self.t += 1
        return StepResult(np.full(1, self.t, np.float32), 1.0, self.t >= 4, False, {})


class Pair(MultiAgentEnv[np.ndarray, np.int64, str]):
    """Two agents, each observing its own counter; episodes of 3 steps."""

    def __init__(self) -> None:
        self.possible_agents = ["left", "right"]
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: Box(0.0, 10.0, (1,), dtype=np.float32) for a in self.agents}
        self.action_spaces = {a: Discrete(2) for a in self.agents}
        self.t = 0

    def _obs(self) -> dict[str, np.ndarray]:
        return {a: np.full(1, self.t, np.float32) for a in self.possible_agents}

    def reset(self, *, seed: Any = None, options: Any = None) -> MAResetResult[np.ndarray, str]:
        self._set_rng(seed)
        self.t = 0
        self.agents = list(self.possible_agents)
        return MAResetResult(self._obs(), {a: {} for a in self.agents})

    def step(self, actions: dict[str, np.int64]) -> MAStepResult[np.ndarray, str]:
        self.t += 1
        done = self.t >= 3
        flags = dict.fromkeys(self.agents, done)
        rewards = {a: float(actions[a]) for a in self.agents}
        result = MAStepResult(
            self._obs(), rewards, flags, dict.fromkeys(flags, False), {a: {} for a in self.agents}
        )
        if done:
            self.agents = []
        return result


def _builders() -> dict[str, Callable[[], Any]]:
    import sekai.compat as compat

    return {
        "GymnasiumRenderer": compat.GymnasiumRenderer,
        "GymnasiumToSekai": lambda: compat.GymnasiumToSekai(gymnasium.make("CartPole-v1")),
        "PettingZooToSekai": lambda: compat.PettingZooToSekai(compat.SekaiToPettingZoo(Pair())),
        "SekaiToGymnasium": lambda: compat.SekaiToGymnasium(Masked()),
        "SekaiToPettingZoo": lambda: compat.SekaiToPettingZoo(Pair()),
    }


BUILDERS = _builders()
CASES = [(module, name) for module, entries in API.items() for name in entries]


# -- the listing ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("module", "name"), CASES, ids=[f"{m}.{n}" for m, n in CASES])
def test_every_name_of_the_listing_is_there_with_a_compatible_signature(
    module: str, name: str
) -> None:
    assert check_name(module, name, API[module][name], BUILDERS.get(name)) == []


# The parameters listing of 0.2 (tools/api-0.2-parameters.md), section of sekai-compat.
PARAMETERS = parameters_listing("sekai.compat")
PARAMETER_CASES = [(module, listed) for module, names in PARAMETERS.items() for listed in names]


def test_the_parameters_listing_has_the_section_of_sekai_compat() -> None:
    assert list(PARAMETERS) == ["sekai.compat"]
    assert len(PARAMETER_CASES) == 11  # the lines of that section


@pytest.mark.parametrize(
    ("module", "listed"), PARAMETER_CASES, ids=[f"{m}.{n.name}" for m, n in PARAMETER_CASES]
)
def test_every_function_and_method_takes_the_0_2_parameters(
    module: str, listed: ListedName
) -> None:
    assert listed_problems(module, listed, BUILDERS.get(listed.name)) == []


@pytest.mark.parametrize("path", sorted(IMPORT_PATHS))
def test_every_import_path_offers_its_names(path: str) -> None:
    module = importlib.import_module(path)
    names = IMPORT_PATHS[path].split()
    assert [name for name in names if not hasattr(module, name)] == []
    # The same objects as the package's (the module is where 0.2 defined them).
    package = ".".join(path.split(".")[:2])
    listed = API.get(package, {})
    exported = importlib.import_module(package)
    assert [
        n for n in names if n in listed and getattr(module, n) is not getattr(exported, n)
    ] == []


# -- the adapters, as 0.2 code uses them -----------------------------------------------------------


def test_the_classes_are_what_the_functions_return() -> None:
    import sekai.compat as compat

    gym_env = compat.to_gymnasium(Masked())
    assert type(gym_env) is compat.SekaiToGymnasium and isinstance(gym_env, gymnasium.Env)
    sekai_env = compat.from_gymnasium(env=gymnasium.make("CartPole-v1"))
    assert type(sekai_env) is compat.GymnasiumToSekai
    par_env = compat.to_pettingzoo(env=Pair())
    assert type(par_env) is compat.SekaiToPettingZoo
    back = compat.from_pettingzoo(env=par_env)
    assert type(back) is compat.PettingZooToSekai and back.pz_env is par_env
    assert compat.space_to_gymnasium(Discrete(3)) == gymnasium.spaces.Discrete(3)
    assert compat.space_from_gymnasium(gymnasium.spaces.Discrete(3)) == Discrete(3)


def test_sekai_to_gymnasium_serves_the_action_mask_for_maskable_policies() -> None:
    import sekai.compat as compat

    env = compat.SekaiToGymnasium(Masked())
    env.reset(seed=0)
    assert env.action_masks().tolist() == [True, False, True]
    assert env.action_masks().dtype == np.bool_
    assert "rgb_array" in compat.SekaiToGymnasium.RENDER_MODES
    unmasked = compat.SekaiToGymnasium(compat.GymnasiumToSekai(gymnasium.make("CartPole-v1")))
    assert not hasattr(unmasked, "action_masks")  # no mask: MaskablePPO must not see one


def test_gymnasium_to_sekai_runs_as_a_sekai_env() -> None:
    import sekai.compat as compat

    env = compat.GymnasiumToSekai(gymnasium.make("CartPole-v1"))
    first = env.reset(seed=0)
    step = env.step(1)
    assert isinstance(first, ResetResult) and isinstance(step, StepResult)
    assert env.gym_env.spec.id == "CartPole-v1" and env.observation_space.shape == (4,)
    env.rng = np.random.default_rng(3)
    assert env.gym_env.unwrapped.np_random is env.rng


def test_gymnasium_renderer_renders_through_sekai_wrappers() -> None:
    import sekai.compat as compat
    from sekai.core import TimeLimit

    env = TimeLimit(compat.from_gymnasium(gymnasium.make("FrozenLake-v1", render_mode="ansi")), 5)
    env.reset(seed=0)
    with compat.GymnasiumRenderer() as renderer:
        frame = renderer.render(env)
    assert isinstance(frame, str) and "F" in frame
    with pytest.raises(TypeError, match="renders Gymnasium envs"):
        compat.GymnasiumRenderer().render(Masked())


def test_pettingzoo_adapters_in_both_directions() -> None:
    import sekai.compat as compat

    par_env = compat.SekaiToPettingZoo(Pair())
    observations, _ = par_env.reset(seed=0)
    assert sorted(observations) == ["left", "right"]
    assert par_env.observation_space("left") is par_env.observation_spaces["left"]
    back = compat.PettingZooToSekai(par_env)
    assert back.possible_agents == ["left", "right"]
    assert back.action_spaces == {"left": Discrete(2), "right": Discrete(2)}
    assert back.observation_spaces["left"] == Box(0.0, 10.0, (1,), dtype=np.float32)
    back.reset(seed=0)
    result = back.step({"left": 1, "right": 0})
    assert result.rewards == {"left": 1.0, "right": 0.0}


def test_the_private_modules_of_0_2_re_export_the_classes() -> None:
    import sekai.compat as compat
    from sekai.compat._gymnasium import GymnasiumRenderer, GymnasiumToSekai, SekaiToGymnasium
    from sekai.compat._pettingzoo import PettingZooToSekai, SekaiToPettingZoo

    assert GymnasiumRenderer is compat.GymnasiumRenderer
    assert GymnasiumToSekai is compat.GymnasiumToSekai
    assert SekaiToGymnasium is compat.SekaiToGymnasium
    assert PettingZooToSekai is compat.PettingZooToSekai
    assert SekaiToPettingZoo is compat.SekaiToPettingZoo
