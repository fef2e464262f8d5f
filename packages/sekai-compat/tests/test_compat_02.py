# ruff: noqa: E501 (the listing below keeps one signature per line)
"""sekai 0.2 compatibility of sekai-compat: the adapter classes and functions under their
0.2 names and signatures, and how 0.2 code uses them.

The expected API is sekai 0.2's, written down as data below. A signature is
compatible when it accepts every call 0.2's accepts: same parameter names, order
and defaults; extra parameters only if they cannot be required.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest

from sekai.core import Env, MAResetResult, MAStepResult, MultiAgentEnv, ResetResult, StepResult
from sekai.spaces import Box, Discrete

gymnasium = pytest.importorskip("gymnasium", reason="needs the gymnasium extra")
pettingzoo = pytest.importorskip("pettingzoo", reason="needs the pettingzoo extra")

# -- the listing, encoded: a class is cls(init signature, *members, attrs=..., ...) -------------
#
# Signatures keep the names, the order, the keyword-only marker and the defaults
# (as the listing prints them; types are left out). A member is "name(params)"
# for a method, prefixed with "async ", "classmethod " or "staticmethod ", or
# "property name", "property settable name", "class_attribute name",
# "attribute name".


class Entry(NamedTuple):
    kind: str
    init: str | None = None
    members: tuple[str, ...] = ()
    attrs: str = ""
    fields: str = ""
    supports: str = ""
    abstract: str = ""


def cls(
    init: str,
    *members: str,
    attrs: str = "",
    fields: str = "",
    supports: str = "",
    abstract: str = "",
) -> Entry:
    return Entry("class", init, members, attrs, fields, supports, abstract)


def func(params: str) -> Entry:
    return Entry("function", params)


def constant() -> Entry:
    return Entry("constant")


def module() -> Entry:
    return Entry("module")


Param = tuple[str, str, "str | None"]
_MEMBER = re.compile(r"^(?:(async|classmethod|staticmethod) )?(\w+)\((.*)\)$")


def parse_params(text: str) -> list[Param]:
    """``"a, b=1, *, c=None, **kw"`` -> ``[(name, kind, default text or None), ...]``."""
    params: list[Param] = []
    keyword_only = False
    for part in filter(None, (p.strip() for p in text.split(", "))):
        if part == "*":
            keyword_only = True
        elif part.startswith("**"):
            params.append((part[2:], "varkw", None))
        elif part.startswith("*"):
            params.append((part[1:], "var", None))
            keyword_only = True
        else:
            name, eq, default = part.partition("=")
            params.append((name, "kw" if keyword_only else "pos", default if eq else None))
    return params


def default_text(value: Any) -> str | None:
    """A default as the listing prints it (strings unquoted, classes as ``<class mod.name>``)."""
    if value is inspect.Parameter.empty:
        return None
    if isinstance(value, type):
        return f"<class {value.__module__}.{value.__qualname__}>"
    if isinstance(value, str):
        return value
    return repr(value)


_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def signature_problems(target: Any, expected: str, *, drop_first: bool = False) -> list[str]:
    """Why ``target`` does not accept every call the expected signature accepts.

    Same parameter names, order and defaults; extra parameters are allowed only
    if they cannot be required (keyword-only or with a default, or ``*args``
    / ``**kwargs``).
    """
    wanted = parse_params(expected)
    try:
        params = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError) as error:
        return [f"no signature ({error})"]
    if drop_first and params and params[0].kind in _POSITIONAL:
        params = params[1:]
    problems = []
    by_name = {p.name: p for p in params}
    positional = [p for p in params if p.kind in _POSITIONAL]
    has_var = any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params)
    has_varkw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    wanted_positional = [w for w in wanted if w[1] == "pos"]
    for index, (name, _, default) in enumerate(wanted_positional):
        if index >= len(positional):
            if not has_var:
                problems.append(f"no positional parameter {name!r}")
            continue
        got = positional[index]
        if got.name != name:
            problems.append(f"positional parameter {index} is {got.name!r}, not {name!r}")
        elif default is not None and default_text(got.default) != default:
            problems.append(f"{name} defaults to {default_text(got.default)!r}, not {default!r}")
    for name, kind, default in wanted:
        if kind == "kw":
            got = by_name.get(name)
            if got is None:
                if not has_varkw:
                    problems.append(f"no keyword parameter {name!r}")
            elif got.kind not in (inspect.Parameter.KEYWORD_ONLY, *_POSITIONAL[1:]):
                problems.append(f"{name} cannot be passed by keyword")
            elif default is not None and default_text(got.default) != default:
                problems.append(
                    f"{name} defaults to {default_text(got.default)!r}, not {default!r}"
                )
        elif kind == "var" and not has_var:
            problems.append("no *args")
        elif kind == "varkw" and not has_varkw:
            problems.append("no **kwargs")
    for extra in positional[len(wanted_positional) :]:
        if extra.default is inspect.Parameter.empty:
            problems.append(f"extra required parameter {extra.name!r}")
    names = {w[0] for w in wanted}
    for p in params:
        required = p.default is inspect.Parameter.empty
        if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name not in names and required:
            problems.append(f"extra required keyword parameter {p.name!r}")
    return problems


def member_problems(owner: type, member: str, instance: Callable[[], Any] | None) -> list[str]:
    """Why ``owner`` lacks the member described by ``member`` (see the encoding above)."""
    match = _MEMBER.match(member)
    if match is None:
        kind, _, name = member.rpartition(" ")
        if not hasattr(owner, name):
            return [f"{name}: missing"]
        static = inspect.getattr_static(owner, name)
        if kind.startswith("property"):
            if not hasattr(static, "__get__"):
                return [f"{name}: not a property"]
            if kind.endswith("settable") and isinstance(static, property) and static.fset is None:
                return [f"{name}: property without a setter"]
        return []
    flavour, name, params = match.groups()
    if not hasattr(owner, name):
        return [f"{name}: missing"]
    static = inspect.getattr_static(owner, name)
    value = getattr(owner, name)
    drop_first = flavour in (None, "async")
    if isinstance(static, property):
        # A value that can also be called (e.g. InMemoryTracker.mean_return): check it on
        # an instance.
        if instance is None:
            return [f"{name}: a property; give the class a builder to check it on an instance"]
        value, drop_first = getattr(instance(), name), False
    if not callable(value):
        return [f"{name}: not callable"]
    problems = []
    if flavour == "async" and not inspect.iscoroutinefunction(value):
        problems.append(f"{name}: not async")
    problems += [f"{name}: {p}" for p in signature_problems(value, params, drop_first=drop_first)]
    return problems


def class_problems(owner: type, entry: Entry, instance: Callable[[], Any] | None) -> list[str]:
    problems = []
    if entry.init not in (None, "..."):
        problems += [f"constructor: {p}" for p in signature_problems(owner, entry.init)]
    for member in entry.members:
        problems += member_problems(owner, member, instance)
    if entry.fields:
        names = [f.name for f in dataclasses.fields(owner) if f.init]
        if names != entry.fields.split():
            problems.append(f"dataclass fields {names}, not {entry.fields.split()}")
    for dunder in entry.supports.split():
        if getattr(owner, dunder, None) is None:
            problems.append(f"does not support {dunder}")
    for name in entry.abstract.split():
        if not hasattr(owner, name):
            problems.append(f"no {name}, which subclasses implement")
    if instance is not None and entry.attrs:
        built = instance()
        problems += [
            f"instances have no {a!r}" for a in entry.attrs.split() if not hasattr(built, a)
        ]
    return problems


def check_name(module_name: str, name: str, entry: Entry, instance: Any) -> list[str]:
    module = importlib.import_module(module_name)
    if not hasattr(module, name):
        return ["missing"]
    problems = [] if name in module.__all__ else ["not in __all__"]
    value = getattr(module, name)
    if entry.kind == "class":
        if not isinstance(value, type):
            return [*problems, f"{value!r} is not a class"]
        if entry.attrs and instance is None:
            problems.append(f"no builder to check the instance attributes {entry.attrs}")
        problems += class_problems(value, entry, instance)
    elif entry.kind == "function":
        problems += signature_problems(value, entry.init or "")
    return problems


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
