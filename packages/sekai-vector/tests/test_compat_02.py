# ruff: noqa: E501 (the listing below keeps one signature per line)
"""sekai 0.2 compatibility of sekai-vector: every class, its signature and members, the 0.2
module paths and helpers, and the behaviours 0.2 code relies on.

The expected API is sekai 0.2's, written down as data below. A signature is
compatible when it accepts every call 0.2's accepts: same parameter names, order
and defaults; extra parameters only if they cannot be required.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import multiprocessing
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Dict, Discrete, Tuple

# The listing harness, shared by every distribution's test (tools/compat02.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))
from compat02 import (
    Entry,
    ListedName,
    check_name,
    cls,
    func,
    listed_problems,
    parameters_listing,
)

# -- sekai 0.2's listing for sekai-wrappers --------------------------------------------------------


# -- sekai 0.2's listing for sekai-vector -----------------------------------------------------------

_VEC_RESET = "reset(*, seed=None, options=None)"
_VEC_ASYNC_RESET = "async async_reset(*, seed=None, options=None)"
_ENV_API = (
    "call(method, *args, **kwargs)",
    "close()",
    "get_attr(name)",
    "set_attr(name, values)",
)
_SUPPORTS = "__enter__ __exit__ __len__"

API: dict[str, dict[str, Entry]] = {
    "sekai.vector": {
        "AsyncVecEnv": cls(
            "env_fns, *, autoreset=True",
            _VEC_ASYNC_RESET,
            "async async_step(actions)",
            *_ENV_API,
            _VEC_RESET,
            "step(actions)",
            attrs="action_space autoreset closed envs num_envs observation_space",
            supports=_SUPPORTS,
        ),
        "NativeVecEnv": cls(
            "num_envs, observation_space, action_space, *, autoreset=True, max_episode_steps=None",
            _VEC_ASYNC_RESET,
            # 0.2 named this parameter ``action`` (see ASYNC_STEP_PARAMETER below).
            "async async_step(actions)",
            *_ENV_API,
            "property elapsed_steps",
            "property frozen",
            _VEC_RESET,
            "property rng",
            "step(actions)",
            attrs="action_space autoreset closed max_episode_steps num_envs observation_space",
            supports=_SUPPORTS,
            abstract="_observe _reset_envs _step",
        ),
        "ProcVecEnv": cls(
            "env_fns, *, autoreset=True, context=None, close_timeout=5.0, num_workers=None, shared_memory=None",
            _VEC_ASYNC_RESET,
            "async async_step(actions)",
            *_ENV_API,
            _VEC_RESET,
            "property shared_memory",
            "step(actions)",
            attrs="action_space autoreset close_timeout closed num_envs num_workers observation_space",
            supports=_SUPPORTS,
        ),
        "SyncVecEnv": cls(
            "env_fns, *, autoreset=True, copy=True",
            _VEC_ASYNC_RESET,
            "async async_step(actions)",
            *_ENV_API,
            _VEC_RESET,
            "step(actions)",
            attrs="action_space autoreset closed envs num_envs observation_space",
            supports=_SUPPORTS,
        ),
        "VecActionWrapper": cls(
            "venv",
            "action(actions)",
            "async async_step(actions)",
            "step(actions)",
            attrs="autoreset num_envs venv",
            supports=_SUPPORTS,
            abstract="action",
        ),
        "VecEnv": cls(
            "",
            _VEC_ASYNC_RESET,
            "async async_step(actions)",
            "class_attribute autoreset",
            "property batch_action_space",
            "property batch_observation_space",
            *_ENV_API,
            "class_attribute closed",
            _VEC_RESET,
            "class_attribute spec",
            "step(actions)",
            supports=_SUPPORTS,
            abstract="close reset step",
        ),
        "VecNormalizeObservation": cls(
            "venv, epsilon=1e-08, *, stats=running, halflife=1000.0, clip=None",
            "final_observation(obs)",
            "load_state_dict(state)",
            "property obs_rms",
            "observation(obs)",
            "state_dict()",
            attrs="autoreset epsilon normalizer num_envs observation_space update_running_mean venv",
            supports=_SUPPORTS,
        ),
        "VecNormalizeReward": cls(
            "venv, gamma=0.99, epsilon=1e-08",
            _VEC_ASYNC_RESET,
            "async async_step(actions)",
            _VEC_RESET,
            "step(actions)",
            attrs="autoreset epsilon gamma num_envs return_rms update_running_mean venv",
            supports=_SUPPORTS,
        ),
        "VecObservationWrapper": cls(
            "venv",
            _VEC_ASYNC_RESET,
            "async async_step(actions)",
            "final_observation(obs)",
            "observation(obs)",
            _VEC_RESET,
            "step(actions)",
            attrs="autoreset num_envs venv",
            supports=_SUPPORTS,
            abstract="observation",
        ),
        "VecRecordEpisodeStatistics": cls(
            "venv, tracker=None, deque_size=100",
            _VEC_ASYNC_RESET,
            "async async_step(actions)",
            _VEC_RESET,
            "step(actions)",
            attrs="autoreset num_envs tracker venv",
            supports=_SUPPORTS,
        ),
        "VecResetResult": cls(
            "observations, infos",
            "property dones",
            "attribute infos",
            "attribute observations",
            fields="observations infos",
            supports="__eq__ __hash__",
        ),
        "VecRewardWrapper": cls(
            "venv",
            "async async_step(actions)",
            "reward(rewards)",
            "step(actions)",
            attrs="autoreset num_envs venv",
            supports=_SUPPORTS,
            abstract="reward",
        ),
        "VecStepResult": cls(
            "observations, rewards, terminated, truncated, infos",
            "property dones",
            "attribute infos",
            "attribute observations",
            "attribute rewards",
            "attribute terminated",
            "attribute truncated",
            fields="observations rewards terminated truncated infos",
            supports="__eq__ __hash__",
        ),
        "VecTransformObservation": cls(
            "venv, func, new_observation_space=None",
            "observation(obs)",
            attrs="autoreset func num_envs observation_space venv",
            supports=_SUPPORTS,
        ),
        "VecTransformReward": cls(
            "venv, func",
            "reward(rewards)",
            attrs="autoreset func num_envs venv",
            supports=_SUPPORTS,
        ),
        "VecWrapper": cls(
            "venv",
            "property settable action_space",
            _VEC_ASYNC_RESET,
            "async async_step(actions)",
            *_ENV_API,
            "property settable closed",
            "property settable observation_space",
            _VEC_RESET,
            "property settable spec",
            "step(actions)",
            "property unwrapped",
            attrs="autoreset num_envs venv",
            supports=_SUPPORTS,
        ),
        "shared": func("member"),
        "stack_infos": func("infos"),
    },
}

# sekai 0.2's NativeVecEnv, ProcVecEnv and SyncVecEnv named the parameter of
# ``async_step`` ``action`` (their ``step`` and VecEnv's ``async_step`` say
# ``actions``). Today every vector env says ``actions``, as VecEnv does, and
# takes 0.2's ``action`` as a keyword-only alias.
ASYNC_STEP_PARAMETER = {"NativeVecEnv": "action", "ProcVecEnv": "action", "SyncVecEnv": "action"}

IMPORT_PATHS: dict[str, str] = {
    "sekai.vector": "AsyncVecEnv NativeVecEnv ProcVecEnv SyncVecEnv VecActionWrapper VecEnv VecNormalizeObservation VecNormalizeReward VecObservationWrapper VecRecordEpisodeStatistics VecResetResult VecRewardWrapper VecStepResult VecTransformObservation VecTransformReward VecWrapper shared stack_infos",
    "sekai.vector.async_vec_env": "ActType AsyncVecEnv ObsType SeedType",
    "sekai.vector.native": "ActType GENERATOR_SEED_ERROR NativeVecEnv ObsType SeedType shared split_infos take_index",
    "sekai.vector.proc_vec_env": "ActType ObsType ProcVecEnv SeedType",
    "sekai.vector.result": "ObsType VecResetResult VecStepResult stack_infos",
    "sekai.vector.sync_vec_env": "ActType ObsType SeedType SyncVecEnv",
    "sekai.vector.vec_env": "ActType GENERATOR_SEED_ERROR ObsType SeedType VecEnv build_envs close_envs env_call env_get_attr env_set_attr frozen_step merge_autoreset needs_autoreset",
    "sekai.vector.vec_wrapper": "ActType ObsType SeedType VecActionWrapper VecObservationWrapper VecRewardWrapper VecWrapper WActType WObsType",
    "sekai.vector.wrappers": "ActType ObsType SeedType VecNormalizeObservation VecNormalizeReward VecRecordEpisodeStatistics VecTransformObservation VecTransformReward",
}


# -- envs to build the vector envs from -------------------------------------------------------------

FORK = "fork" in multiprocessing.get_all_start_methods()


class CountEnv(Env[np.ndarray, int]):
    """Observation ``[t]``; terminates after ``length`` steps; reward: the action."""

    def __init__(self, length: int = 2) -> None:
        self.observation_space = Box(0.0, 100.0, (1,), dtype=np.float32)
        self.action_space = Discrete(3)
        self.length = length
        self.t = 0

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[np.ndarray]:
        self._set_rng(seed)
        self.t = 0
        return ResetResult(np.zeros(1, np.float32), {"reset": True})

    def step(self, action: int) -> StepResult[np.ndarray]:
        self.t += 1
        obs = np.full(1, self.t, np.float32)
        return StepResult(obs, float(action), self.t >= self.length, False, {"t": self.t})


def _count_fns(n: int = 2) -> list[Callable[[], CountEnv]]:
    return [CountEnv] * n


def _native() -> Any:
    from sekai.vector import NativeVecEnv

    class Native(NativeVecEnv[np.ndarray, Any]):
        def __init__(self) -> None:
            super().__init__(2, Box(0.0, 100.0, (1,)), Discrete(3), max_episode_steps=5)
            self.t = np.zeros(2)

        def _reset_envs(self, indices: Any, options: Sequence[Any]) -> None:
            self.t[indices] = 0

        def _observe(self) -> Any:
            return self.t[:, None].copy()

        def _step(self, actions: Any) -> Any:
            self.t += 1
            return np.asarray(actions, float), self.t >= 2, np.zeros(2, bool), {}

    return Native()


def _plus_one_class() -> type:
    from sekai.vector import VecActionWrapper

    class PlusOne(VecActionWrapper[Any, Any, Any]):
        """A sekai 0.2 action wrapper: it implements ``action``."""

        def action(self, actions: Any) -> Any:
            return np.asarray(actions) + 1

    return PlusOne


PlusOne = _plus_one_class()

_BUILT: list[Any] = []


def _keep(vec: Any) -> Any:
    _BUILT.append(vec)
    return vec


@pytest.fixture(autouse=True)
def _close_built() -> Any:
    yield
    while _BUILT:
        _BUILT.pop().close()


def _builders() -> dict[str, Callable[[], Any]]:
    import sekai.vector as v

    def sync() -> Any:
        return _keep(v.SyncVecEnv(_count_fns()))

    return {
        "AsyncVecEnv": lambda: _keep(v.AsyncVecEnv(_count_fns())),
        "NativeVecEnv": lambda: _keep(_native()),
        "ProcVecEnv": lambda: _keep(
            v.ProcVecEnv(_count_fns(), context="fork" if FORK else None, num_workers=1)
        ),
        "SyncVecEnv": sync,
        "VecActionWrapper": lambda: PlusOne(sync()),
        "VecNormalizeObservation": lambda: v.VecNormalizeObservation(sync()),
        "VecNormalizeReward": lambda: v.VecNormalizeReward(sync()),
        "VecObservationWrapper": lambda: v.VecTransformObservation(sync(), lambda o: o),
        "VecRecordEpisodeStatistics": lambda: v.VecRecordEpisodeStatistics(sync()),
        "VecRewardWrapper": lambda: v.VecTransformReward(sync(), lambda r: r),
        "VecTransformObservation": lambda: v.VecTransformObservation(sync(), lambda o: o),
        "VecTransformReward": lambda: v.VecTransformReward(sync(), lambda r: r),
        "VecWrapper": lambda: v.VecWrapper(sync()),
    }


BUILDERS = _builders()
CASES = [(module, name) for module, entries in API.items() for name in entries]


# -- the listing ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("module", "name"), CASES, ids=[f"{m}.{n}" for m, n in CASES])
def test_every_name_of_the_listing_is_there_with_a_compatible_signature(
    module: str, name: str
) -> None:
    assert check_name(module, name, API[module][name], BUILDERS.get(name)) == []


# The parameters listing of 0.2 (tools/api-0.2-parameters.md), sections of sekai-vector.
PARAMETERS = parameters_listing("sekai.vector")
PARAMETER_CASES = [(module, listed) for module, names in PARAMETERS.items() for listed in names]


def test_the_parameters_listing_has_every_section_of_sekai_vector() -> None:
    sections = (
        "sekai.vector sekai.vector.async_vec_env sekai.vector.native sekai.vector.proc_vec_env "
        "sekai.vector.result sekai.vector.sync_vec_env sekai.vector.vec_env "
        "sekai.vector.vec_wrapper sekai.vector.wrappers"
    )
    assert sorted(PARAMETERS) == sorted(sections.split())
    assert len(PARAMETER_CASES) == 46  # the lines of those sections


@pytest.mark.parametrize(
    ("module", "listed"), PARAMETER_CASES, ids=[f"{m}.{n.name}" for m, n in PARAMETER_CASES]
)
def test_every_function_and_method_takes_the_0_2_parameters(
    module: str, listed: ListedName
) -> None:
    assert listed_problems(module, listed, BUILDERS.get(listed.name)) == []


@pytest.mark.parametrize("name", sorted(ASYNC_STEP_PARAMETER))
def test_async_step_takes_the_batch_positionally_and_by_either_name(name: str) -> None:
    import sekai.vector

    owner = getattr(sekai.vector, name)
    params = inspect.signature(owner.async_step).parameters
    assert list(params) == ["self", "actions", "action"]
    assert params["action"].kind is inspect.Parameter.KEYWORD_ONLY
    vec = BUILDERS[name]()
    vec.reset(seed=0)
    ones = np.ones(vec.num_envs, dtype=np.int64)
    by_position = asyncio.run(vec.async_step(ones))
    by_02_name = asyncio.run(vec.async_step(action=ones))  # 0.2's keyword
    by_name = asyncio.run(vec.async_step(actions=ones))
    assert [r.rewards.tolist() for r in (by_position, by_02_name, by_name)] == [
        by_position.rewards.tolist()
    ] * 3
    with pytest.raises(TypeError, match=r"give actions, or action .* not both"):
        asyncio.run(vec.async_step(ones, action=ones))
    with pytest.raises(TypeError, match="got neither actions nor action"):
        asyncio.run(vec.async_step())
    wrapped = sekai.vector.VecWrapper(vec)
    assert asyncio.run(wrapped.async_step(action=ones)).rewards.shape == (vec.num_envs,)


@pytest.mark.parametrize("path", sorted(IMPORT_PATHS))
def test_every_import_path_offers_its_names(path: str) -> None:
    module = importlib.import_module(path)
    names = IMPORT_PATHS[path].split()
    assert [name for name in names if not hasattr(module, name)] == []
    exported = importlib.import_module("sekai.vector")
    assert [
        n
        for n in names
        if n in API["sekai.vector"] and getattr(module, n) is not getattr(exported, n)
    ] == []


def test_old_vector_paths_are_thin_re_exports() -> None:
    import sekai.vector
    import sekai.vector.wrappers.base
    from sekai.vector.result import VecResetResult, VecStepResult, stack_infos
    from sekai.vector.vec_wrapper import VecActionWrapper, VecWrapper, WObsType

    assert VecStepResult is sekai.vector.VecStepResult
    assert VecResetResult is sekai.vector.VecResetResult
    assert stack_infos is sekai.vector.stack_infos
    assert VecWrapper is sekai.vector.VecWrapper
    assert VecActionWrapper is sekai.vector.VecActionWrapper
    assert WObsType is sekai.vector.wrappers.base.WObsType
    result = importlib.import_module("sekai.vector.result")
    assert "Thin re-export" in (result.__doc__ or "")
    assert result.__all__ == ["ObsType", "VecResetResult", "VecStepResult", "stack_infos"]
    assert sekai.vector.result is result  # reachable as an attribute too


# -- behaviours --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["AsyncVecEnv", "NativeVecEnv", "ProcVecEnv", "SyncVecEnv"])
def test_len_of_every_vector_env_and_wrapper_is_num_envs(name: str) -> None:
    from sekai.vector import VecNormalizeReward, VecRecordEpisodeStatistics

    vec = BUILDERS[name]()
    assert len(vec) == vec.num_envs == 2
    wrapped = VecRecordEpisodeStatistics(VecNormalizeReward(vec))
    assert len(wrapped) == 2


def test_autoreset_is_a_class_attribute_and_wrappers_read_the_wrapped_envs() -> None:
    from sekai.vector import SyncVecEnv, VecEnv, VecWrapper

    assert VecEnv.autoreset is True
    vec = _keep(SyncVecEnv(_count_fns(), autoreset=False))
    assert vec.autoreset is False
    assert VecWrapper(VecWrapper(vec)).autoreset is False


def test_closed_follows_the_wrapped_env_and_can_be_set() -> None:
    from sekai.vector import SyncVecEnv, VecWrapper

    vec = SyncVecEnv(_count_fns())
    wrapper = VecWrapper(vec)
    assert wrapper.closed is False
    wrapper.close()
    assert wrapper.closed is True
    assert vec.closed is True


def test_a_0_2_vector_env_subclass_sets_closed_itself() -> None:
    from sekai.vector import VecEnv, VecResetResult, VecStepResult

    class Constant(VecEnv[Any, Any]):
        def __init__(self) -> None:
            self.num_envs = 3
            self.observation_space = Box(0.0, 1.0, (1,))
            self.action_space = Discrete(2)

        def reset(self, *, seed: Any = None, options: Any = None) -> VecResetResult[Any]:
            return VecResetResult(np.zeros((3, 1)), [{}] * 3)

        def step(self, actions: Any) -> VecStepResult[Any]:
            flags = np.zeros(3, bool)
            return VecStepResult(np.zeros((3, 1)), np.ones(3), flags, flags, [{}] * 3)

        def close(self) -> None:
            self.closed = True

    with Constant() as vec:
        assert len(vec) == 3
        assert vec.closed is False
        assert vec.autoreset is True
    assert vec.closed is True


def test_action_wrappers_implement_action_or_actions() -> None:
    from sekai.vector import SyncVecEnv, VecActionWrapper

    class Today(VecActionWrapper[Any, Any, Any]):
        def actions(self, actions: Any) -> Any:
            return np.asarray(actions) + 1

    class Neither(VecActionWrapper[Any, Any, Any]):
        pass

    for cls_ in (PlusOne, Today):
        vec = cls_(_keep(SyncVecEnv(_count_fns())))
        vec.reset(seed=0)
        assert vec.step(np.array([0, 1])).rewards.tolist() == [1.0, 2.0]  # reward = the action
        assert vec.action(np.array([1])).tolist() == [2]
        assert vec.actions(np.array([1])).tolist() == [2]
    with pytest.raises(TypeError, match="abstract"):
        Neither(_keep(SyncVecEnv(_count_fns())))  # type: ignore[abstract]


def test_0_2_observation_and_reward_hooks() -> None:
    from sekai.vector import (
        SyncVecEnv,
        VecObservationWrapper,
        VecRewardWrapper,
        VecTransformObservation,
    )

    class Double(VecObservationWrapper[Any, Any, Any]):
        def observation(self, obs: Any) -> Any:
            return obs * 2

    class Negate(VecRewardWrapper[Any, Any]):
        def reward(self, rewards: Any) -> Any:
            return -rewards

    vec = Negate(Double(_keep(SyncVecEnv(_count_fns()))))
    vec.reset(seed=0)
    vec.step(np.array([1, 2]))
    result = vec.step(np.array([1, 2]))  # the episode ends: autoreset
    assert result.rewards.tolist() == [-1.0, -2.0]
    assert [info["final_observation"].tolist() for info in result.infos] == [[4.0], [4.0]]
    plus = VecTransformObservation(_keep(SyncVecEnv(_count_fns())), lambda o: o + 1)
    assert plus.observation(obs=np.zeros(2)).tolist() == [1.0, 1.0]
    assert plus.final_observation(obs=np.zeros(1)).tolist() == [1.0]


def test_results_are_unhashable_as_in_0_2() -> None:
    from sekai.vector import VecResetResult, VecStepResult

    flags = np.zeros(2, bool)
    with pytest.raises(TypeError):
        hash(VecStepResult(np.zeros(2), np.zeros(2), flags, flags, [{}, {}]))
    with pytest.raises(TypeError):
        hash(VecResetResult(np.zeros(2), [{}, {}]))


def test_vec_normalize_observation_keeps_an_observation_normalizer() -> None:
    from sekai.utils.normalization import ObservationNormalizer
    from sekai.vector import SyncVecEnv, VecNormalizeObservation

    vec = VecNormalizeObservation(_keep(SyncVecEnv(_count_fns())), epsilon=1e-6)
    normalizer = vec.normalizer
    assert isinstance(normalizer, ObservationNormalizer)
    assert normalizer.num_envs == 2
    assert normalizer.epsilon == vec.epsilon == 1e-6
    assert vec.obs_rms is normalizer.obs_rms
    vec.reset(seed=0)
    vec.step(np.array([0, 0]))
    assert normalizer.obs_rms.count > 0
    vec.update_running_mean = False
    assert normalizer.update_running_mean is False
    count = normalizer.obs_rms.count
    vec.step(np.array([0, 0]))
    assert normalizer.obs_rms.count == count  # frozen statistics
    assert vec.observation(obs=np.ones((2, 1))).shape == (2, 1)


def test_the_0_2_helpers_of_vec_env() -> None:
    from sekai.core import Wrapper
    from sekai.vector import SyncVecEnv
    from sekai.vector.vec_env import (
        GENERATOR_SEED_ERROR,
        build_envs,
        close_envs,
        env_call,
        env_get_attr,
        env_set_attr,
        frozen_step,
        merge_autoreset,
        needs_autoreset,
    )

    envs = build_envs([lambda: Wrapper(CountEnv(4)), CountEnv])
    assert [type(env) for env in envs] == [Wrapper, CountEnv]
    assert env_get_attr(envs[0], "length") == 4  # through the wrapper stack
    env_set_attr(envs[0], "length", 7)
    assert envs[0].unwrapped.length == 7  # type: ignore[attr-defined]
    # 0.2's form: the arguments as a tuple and a dict.
    assert env_call(envs[1], "reset", (), {"seed": 1}).info == {"reset": True}
    assert env_call(env=envs[1], name="reset", args=[], kwargs={"seed": 1}).info == {"reset": True}
    assert env_call(envs[1], "length") == 2  # not callable: its value
    with pytest.raises(TypeError, match="args must be a tuple or list, got 1"):
        env_call(envs[1], "reset", 1)  # type: ignore[arg-type]
    with pytest.raises(AttributeError):
        env_set_attr(envs[1], "nothing", 1)
    with pytest.raises(TypeError, match=r"must return a sekai\.core\.Env"):
        build_envs([lambda: 3])
    close_envs(envs)

    ended = StepResult(np.ones(1), 1.0, True, False, {"t": 2})
    assert needs_autoreset(ended)
    assert not needs_autoreset(StepResult(np.ones(1), 1.0, False, False, {}))
    assert not needs_autoreset(StepResult(np.ones(1), 1.0, False, True, {"final_observation": 0}))
    # 0.2's forms: the step that ended the episode, and the reset that followed.
    merged = merge_autoreset(ended, ResetResult(np.zeros(1), {"reset": True}))
    assert merged.observation.tolist() == [0.0]  # the new episode's first observation
    assert (merged.reward, merged.terminated, merged.truncated) == (1.0, True, False)
    info = merged.info
    assert info["t"] == 2
    assert info["final_info"] == {"t": 2}
    assert info["reset_info"] == {"reset": True}
    assert info["final_observation"].tolist() == [1.0]
    with pytest.raises(TypeError, match="expected a StepResult and a ResetResult"):
        merge_autoreset({"t": 2}, np.ones(1))  # type: ignore[arg-type]
    frozen = frozen_step(final=ended)
    assert frozen.observation.tolist() == [1.0]
    assert (frozen.reward, frozen.terminated, frozen.truncated, frozen.info) == (
        0.0,
        True,
        False,
        {},
    )
    with pytest.raises(TypeError, match="final must be a StepResult"):
        frozen_step(np.ones(1))

    vec = _keep(SyncVecEnv(_count_fns(3), autoreset=False))
    generator = np.random.default_rng(0)
    expected = GENERATOR_SEED_ERROR.format(num_envs=3, seed=generator)
    with pytest.raises(TypeError) as raised:
        vec.reset(seed=generator)
    assert str(raised.value) == expected
    # A frozen sub-env reports frozen_step's values.
    vec.reset(seed=0)
    vec.step(np.array([1, 1, 1]))
    vec.step(np.array([1, 1, 1]))
    result = vec.step(np.array([2, 2, 2]))
    assert result.rewards.tolist() == [0.0] * 3
    assert result.infos == [frozen.info] * 3


def test_the_0_2_helpers_of_native() -> None:
    from sekai.vector.native import GENERATOR_SEED_ERROR, split_infos, take_index
    from sekai.vector.vec_env import GENERATOR_SEED_ERROR as FROM_VEC_ENV

    assert GENERATOR_SEED_ERROR is FROM_VEC_ENV
    assert split_infos({"t": np.array([1, 2])}, 2) == [{"t": 1}, {"t": 2}]
    assert split_infos(infos={"t": np.array([1, 2])}, n=2) == [{"t": 1}, {"t": 2}]
    batch = {"a": np.arange(6).reshape(3, 2), "b": (np.array([7, 8, 9]),)}
    space = Dict(a=Box(0, 10, (2,), dtype=np.int64), b=Tuple([Discrete(10)]))
    row = take_index(space, batch, 1)  # 0.2's order: the space, the batch, the index
    assert row["a"].tolist() == [2, 3]
    assert row["b"] == (8,)
    assert take_index(space=None, batch=batch, index=2)["a"].tolist() == [4, 5]
    native = _keep(_native())
    with pytest.raises(TypeError, match="cannot be shared by 2 sub-envs"):
        native.reset(seed=np.random.default_rng(0))
