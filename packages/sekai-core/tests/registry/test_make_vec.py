"""make_vec(): modes, defaults, kwargs, wrappers, per-sub-env kwargs and missing backends."""

from __future__ import annotations

import pickle
import sys
import types
from collections.abc import Callable
from typing import Any

import pytest

import sekai.core
import sekai.spaces
from sekai.registry import EnvRegistry, EnvSpec, WrapperSpec


class Env(sekai.core.Env[int, int]):
    """A real sekai env recording the kwargs it was built with."""

    observation_space = sekai.spaces.Discrete(1)
    action_space = sekai.spaces.Discrete(1)

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs

    def reset(self, *, seed: Any = None, options: Any = None) -> sekai.core.ResetResult[int]:
        return sekai.core.ResetResult(0, {})

    def step(self, action: int) -> sekai.core.StepResult[int]:
        return sekai.core.StepResult(0, 0.0, False, False, {})


class NativeVec:
    def __init__(self, num_envs: int, **kwargs: Any) -> None:
        self.num_envs = num_envs
        self.kwargs = kwargs


class Sampler:
    """A stateful object (like an episode sampler) whose spawn() returns numbered children."""

    def __init__(self, name: str = "root") -> None:
        self.name = name
        self.children = 0

    def spawn(self) -> Sampler:
        self.children += 1
        return Sampler(f"{self.name}.{self.children}")


def spawn_each(value: Any, num_envs: int) -> list[Any]:
    """A plugin's per_env_kwargs splitter: ``value.spawn()`` for every sub-env."""
    return [value.spawn() for _ in range(num_envs)]


def _stub(name: str) -> type:
    def __init__(self: Any, env_fns: list[Callable[[], Any]], **kwargs: Any) -> None:
        self.env_fns = list(env_fns)
        self.kwargs = kwargs

    return type(name, (), {"__init__": __init__})


@pytest.fixture
def fake_vector(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """A stand-in ``sekai.vector`` module whose VecEnv classes record their arguments."""
    module = types.ModuleType("sekai.vector")
    for name in ("SyncVecEnv", "AsyncVecEnv", "ProcVecEnv"):
        setattr(module, name, _stub(name))
    monkeypatch.setitem(sys.modules, "sekai.vector", module)
    return module


@pytest.fixture
def no_vector(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``import sekai.vector`` fail, as when sekai-vector is not installed."""
    monkeypatch.setitem(sys.modules, "sekai.vector", None)


# -- mode choice --------------------------------------------------------------------


def test_default_is_native_when_the_env_has_one(registry: EnvRegistry) -> None:
    registry.register("Env-v0", Env, vector_entry_point=NativeVec, kwargs={"a": 1})
    vec = registry.make_vec("Env-v0", 4, b=2)
    assert isinstance(vec, NativeVec)
    assert vec.num_envs == 4
    assert vec.kwargs == {"a": 1, "b": 2}


@pytest.mark.parametrize("mode", ["native", "vector_entry_point"])
def test_native_mode_and_its_alias(registry: EnvRegistry, mode: str) -> None:
    registry.register("Env-v0", Env, vector_entry_point=NativeVec)
    vec = registry.make_vec("Env-v0", 3, vectorization_mode=mode)
    assert isinstance(vec, NativeVec)
    assert vec.num_envs == 3


def test_native_is_called_with_num_envs_as_a_keyword(registry: EnvRegistry) -> None:
    def factory(*, num_envs: int, **kwargs: Any) -> NativeVec:
        return NativeVec(num_envs, **kwargs)

    registry.register("Env-v0", Env, vector_entry_point=factory, kwargs={"a": 1})
    vec = registry.make_vec("Env-v0", 5)
    assert (vec.num_envs, vec.kwargs) == (5, {"a": 1})


def test_native_string_entry_point_is_imported(registry: EnvRegistry, env_module: str) -> None:
    registry.register("Env-v0", Env, vector_entry_point=f"{env_module}:NativeVec")
    assert env_module not in sys.modules
    vec = registry.make_vec("Env-v0", 2)
    assert type(vec).__name__ == "NativeVec"


def test_native_gets_the_time_limit(registry: EnvRegistry) -> None:
    registry.register("Env-v0", Env, vector_entry_point=NativeVec, max_episode_steps=100)
    assert registry.make_vec("Env-v0", 2).kwargs == {"max_episode_steps": 100}
    assert registry.make_vec("Env-v0", 2, max_episode_steps=7).kwargs == {"max_episode_steps": 7}
    assert registry.make_vec("Env-v0", 2, max_episode_steps=-1).kwargs == {}
    registry.register("NoLimit-v0", Env, vector_entry_point=NativeVec)
    assert "max_episode_steps" not in registry.make_vec("NoLimit-v0", 2).kwargs


def test_native_gets_vector_kwargs(registry: EnvRegistry) -> None:
    registry.register("Env-v0", Env, vector_entry_point=NativeVec, kwargs={"a": 1})
    vec = registry.make_vec("Env-v0", 2, vector_kwargs={"autoreset": False})
    assert vec.kwargs == {"a": 1, "autoreset": False}
    with pytest.raises(ValueError, match=r"\['a'\]"):
        registry.make_vec("Env-v0", 2, vector_kwargs={"a": 3})


def test_native_receives_a_per_env_kwarg_itself(registry: EnvRegistry) -> None:
    registry.register(
        "Env-v0", Env, vector_entry_point=NativeVec, per_env_kwargs={"sampler": spawn_each}
    )
    sampler = Sampler()
    vec = registry.make_vec("Env-v0", 3, sampler=sampler)
    assert vec.kwargs["sampler"] is sampler
    assert sampler.children == 0


def test_default_is_sync_without_native(registry: EnvRegistry, fake_vector: Any) -> None:
    registry.register("Env-v0", Env)
    vec = registry.make_vec("Env-v0", 2)
    assert type(vec).__name__ == "SyncVecEnv"


def test_default_is_sync_when_wrappers_apply(registry: EnvRegistry, fake_vector: Any) -> None:
    registry.register("Env-v0", Env, vector_entry_point=NativeVec)
    vec = registry.make_vec("Env-v0", 2, wrappers=[lambda env: env])
    assert type(vec).__name__ == "SyncVecEnv"
    registry.register(
        "Wrapped-v0",
        Env,
        vector_entry_point=NativeVec,
        additional_wrappers=(WrapperSpec("W", "pkg.mod:W"),),
    )
    assert type(registry.make_vec("Wrapped-v0", 2)).__name__ == "SyncVecEnv"


def test_native_refuses_wrappers(registry: EnvRegistry) -> None:
    registry.register("Env-v0", Env, vector_entry_point=NativeVec)
    with pytest.raises(ValueError, match=r"wrappers=.*Vec\* wrappers"):
        registry.make_vec("Env-v0", 2, vectorization_mode="native", wrappers=[lambda e: e])
    registry.register(
        "Wrapped-v0",
        Env,
        vector_entry_point=NativeVec,
        additional_wrappers=(WrapperSpec("W", "pkg.mod:W"),),
    )
    with pytest.raises(ValueError, match="additional_wrappers"):
        registry.make_vec("Wrapped-v0", 2, vectorization_mode="native")


def test_native_without_a_vector_entry_point(registry: EnvRegistry) -> None:
    registry.register("Env-v0", Env)
    with pytest.raises(ValueError, match="no native vector implementation"):
        registry.make_vec("Env-v0", 2, vectorization_mode="native")


# -- sync / async / proc ------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "cls"), [("sync", "SyncVecEnv"), ("async", "AsyncVecEnv"), ("proc", "ProcVecEnv")]
)
def test_backends_get_one_env_fn_per_sub_env(
    registry: EnvRegistry, fake_vector: Any, mode: str, cls: str
) -> None:
    registry.register("Env-v0", Env, vector_entry_point=NativeVec, kwargs={"a": 1})
    vec = registry.make_vec(
        "Env-v0", 3, vectorization_mode=mode, vector_kwargs={"autoreset": False}, b=2
    )
    assert type(vec).__name__ == cls
    extra = {"num_workers": vec.kwargs.get("num_workers")} if mode == "proc" else {}
    assert vec.kwargs == {"autoreset": False, **extra}
    assert len(vec.env_fns) == 3
    envs = [fn() for fn in vec.env_fns]
    assert all(isinstance(env.unwrapped, Env) for env in envs)
    assert all(env.kwargs == {"a": 1, "b": 2} for env in envs)
    assert len({id(env) for env in envs}) == 3
    assert all(env.spec.id == "Env-v0" for env in envs)


def test_proc_gets_its_own_kwargs(registry: EnvRegistry, fake_vector: Any) -> None:
    registry.register("Env-v0", Env)
    vec = registry.make_vec(
        "Env-v0",
        4,
        vectorization_mode="proc",
        vector_kwargs={"num_workers": 2, "shared_memory": True},
    )
    assert vec.kwargs == {"num_workers": 2, "shared_memory": True}


@pytest.mark.parametrize(("cpus", "num_envs", "expected"), [(2, 8, 2), (4, 3, 3), (1, 5, 1)])
def test_proc_defaults_num_workers_to_the_usable_cpus(
    registry: EnvRegistry,
    fake_vector: Any,
    monkeypatch: pytest.MonkeyPatch,
    cpus: int,
    num_envs: int,
    expected: int,
) -> None:
    """Without num_workers, proc starts one worker per CPU the process may use, <= num_envs."""
    import os

    registry.register("Env-v0", Env)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cpus)), raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)  # the affinity wins where it exists
    vec = registry.make_vec("Env-v0", num_envs, vectorization_mode="proc")
    assert vec.kwargs == {"num_workers": expected}
    monkeypatch.delattr(os, "sched_getaffinity")  # e.g. macOS, Windows: the CPU count
    monkeypatch.setattr(os, "cpu_count", lambda: cpus)
    vec = registry.make_vec("Env-v0", num_envs, vectorization_mode="proc")
    assert vec.kwargs == {"num_workers": expected}


def test_proc_keeps_a_given_num_workers_and_other_backends_get_none(
    registry: EnvRegistry, fake_vector: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    registry.register("Env-v0", Env)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    for given in (None, 1, 8):
        vec = registry.make_vec(
            "Env-v0", 8, vectorization_mode="proc", vector_kwargs={"num_workers": given}
        )
        assert vec.kwargs == {"num_workers": given}  # None too: ProcVecEnv's own default
    for mode in ("sync", "async"):
        assert registry.make_vec("Env-v0", 8, vectorization_mode=mode).kwargs == {}


def test_sub_env_factories_name_the_modules_they_import(
    registry: EnvRegistry, fake_vector: Any
) -> None:
    # What ProcVecEnv hands a fork server to import once: the modules of the
    # entry point and wrappers, once each (a callable entry point is imported already).
    registry.register(
        "Named-v0",
        "pkg.envs:Env",
        additional_wrappers=(
            WrapperSpec("A", "pkg.wrappers:A"),
            WrapperSpec("B", "pkg.envs:B"),
        ),
    )
    registry.register("Callable-v0", Env)
    named = registry.make_vec("Named-v0", 2, vectorization_mode="proc")
    assert [fn.worker_modules() for fn in named.env_fns] == [("pkg.envs", "pkg.wrappers")] * 2
    plain = registry.make_vec("Callable-v0", 2, vectorization_mode="proc")
    assert [fn.worker_modules() for fn in plain.env_fns] == [(), ()]


def test_wrappers_apply_in_order_to_each_sub_env(registry: EnvRegistry, fake_vector: Any) -> None:
    calls: list[str] = []

    def first(env: Any) -> Any:
        calls.append("first")
        return ("first", env)

    def second(env: Any) -> Any:
        calls.append("second")
        return ("second", env)

    registry.register("Env-v0", Env)
    vec = registry.make_vec("Env-v0", 2, wrappers=[first, second])
    assert calls == []  # nothing built before the vector env calls the env_fns
    outer = vec.env_fns[0]()
    assert outer[0] == "second"
    assert outer[1][0] == "first"
    assert isinstance(outer[1][1].unwrapped, Env)
    assert calls == ["first", "second"]


def test_sub_envs_get_the_time_limit_override(registry: EnvRegistry, fake_vector: Any) -> None:
    captured: list[tuple[Any, int]] = []

    def fake_time_limit(env: Any, limit: int) -> Any:
        captured.append((env, limit))
        return env

    import sekai.registry._make as make_module

    registry.register("Env-v0", Env, max_episode_steps=50)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(make_module, "_time_limit", lambda: fake_time_limit)
        registry.make_vec("Env-v0", 2, max_episode_steps=5).env_fns[0]()
        assert [limit for _, limit in captured] == [5]
        env = registry.make_vec("Env-v0", 2, max_episode_steps=-1).env_fns[0]()
        assert len(captured) == 1  # no limit applied
        assert "max_episode_steps" not in env.kwargs
        assert env.spec.max_episode_steps is None


@pytest.mark.parametrize("mode", ["sync", "async", "proc"])
def test_each_sub_env_gets_its_value_of_a_per_env_kwarg(
    registry: EnvRegistry, fake_vector: Any, mode: str
) -> None:
    registry.register("Env-v0", Env, per_env_kwargs={"sampler": spawn_each})
    sampler = Sampler()
    vec = registry.make_vec("Env-v0", 3, vectorization_mode=mode, sampler=sampler, a=1)
    envs = [fn() for fn in vec.env_fns]
    assert [env.kwargs["sampler"].name for env in envs] == ["root.1", "root.2", "root.3"]
    assert sampler.children == 3
    assert [env.kwargs["a"] for env in envs] == [1, 1, 1]
    assert vec.spec.kwargs["sampler"] is sampler  # the spec records what was given


def test_a_registered_per_env_kwarg_is_split_too(registry: EnvRegistry, fake_vector: Any) -> None:
    sampler = Sampler()
    registry.register(
        "Env-v0", Env, kwargs={"sampler": sampler}, per_env_kwargs={"sampler": spawn_each}
    )
    vec = registry.make_vec("Env-v0", 2)
    assert [fn().kwargs["sampler"].name for fn in vec.env_fns] == ["root.1", "root.2"]
    assert sampler.children == 2


def test_a_per_env_kwarg_not_given_is_left_alone(registry: EnvRegistry, fake_vector: Any) -> None:
    calls = []

    def splitter(value: Any, num_envs: int) -> list[Any]:
        calls.append(value)
        return [value] * num_envs

    registry.register("Env-v0", Env, per_env_kwargs={"sampler": splitter})
    vec = registry.make_vec("Env-v0", 2, a=1)
    assert [fn().kwargs for fn in vec.env_fns] == [{"a": 1}, {"a": 1}]
    assert calls == []


def test_several_per_env_kwargs_each_get_their_splitter(
    registry: EnvRegistry, fake_vector: Any
) -> None:
    registry.register(
        "Env-v0",
        Env,
        kwargs={"seed_base": 10},
        per_env_kwargs={
            "sampler": spawn_each,
            "seed_base": lambda base, n: [base + index for index in range(n)],
        },
    )
    vec = registry.make_vec("Env-v0", 2, vectorization_mode="async", sampler=Sampler())
    kwargs = [fn().kwargs for fn in vec.env_fns]
    assert [k["seed_base"] for k in kwargs] == [10, 11]
    assert [k["sampler"].name for k in kwargs] == ["root.1", "root.2"]


def test_without_per_env_kwargs_every_sub_env_gets_the_same_object(
    registry: EnvRegistry, fake_vector: Any
) -> None:
    # make_vec knows no kwarg by name: an object with spawn() is not spawned
    # unless the spec declares it.
    registry.register("Env-v0", Env)
    sampler = Sampler()
    vec = registry.make_vec("Env-v0", 3, vectorization_mode="sync", sampler=sampler)
    assert all(fn().kwargs["sampler"] is sampler for fn in vec.env_fns)
    assert sampler.children == 0
    vec = registry.make_vec("Env-v0", 2, vectorization_mode="sync", sampler=1.5)
    assert [fn().kwargs["sampler"] for fn in vec.env_fns] == [1.5, 1.5]


def test_a_per_env_splitter_named_by_string_is_imported_and_pickles(
    registry: EnvRegistry, fake_vector: Any, env_module: str
) -> None:
    registry.register(
        "Env-v0",
        f"{env_module}:RecordingEnv",
        per_env_kwargs={"tag": f"{env_module}:numbered"},
    )
    assert env_module not in sys.modules  # registering imports nothing
    vec = registry.make_vec("Env-v0", 3, vectorization_mode="proc", tag="t")
    envs = [pickle.loads(pickle.dumps(fn))() for fn in vec.env_fns]
    assert [env.kwargs["tag"] for env in envs] == ["t.0", "t.1", "t.2"]


@pytest.mark.parametrize(
    ("result", "error", "match"),
    [
        (["a"], ValueError, "must return 2 values.*got 1"),
        ("ab", TypeError, "must return a sequence of 2 values"),
        (None, TypeError, "must return a sequence of 2 values"),
    ],
)
def test_a_splitter_must_return_one_value_per_sub_env(
    registry: EnvRegistry, fake_vector: Any, result: Any, error: type[Exception], match: str
) -> None:
    registry.register("Env-v0", Env, per_env_kwargs={"x": lambda value, n: result})
    with pytest.raises(error, match=match) as info:
        registry.make_vec("Env-v0", 2, vectorization_mode="sync", x=0)
    assert "'x'" in str(info.value) and "'Env-v0'" in str(info.value)


def test_a_splitter_error_reaches_the_caller(registry: EnvRegistry, fake_vector: Any) -> None:
    def refuse(value: Any, num_envs: int) -> list[Any]:
        raise TypeError(f"bad value {value!r}")

    registry.register("Env-v0", Env, per_env_kwargs={"x": refuse})
    with pytest.raises(TypeError, match=r"bad value 1\.5"):
        registry.make_vec("Env-v0", 2, vectorization_mode="proc", x=1.5)


def test_env_fns_pickle_for_process_backends(
    registry: EnvRegistry, fake_vector: Any, env_module: str
) -> None:
    registry.register("Env-v0", f"{env_module}:RecordingEnv", kwargs={"a": 1})
    vec = registry.make_vec("Env-v0", 2, vectorization_mode="proc")
    env = pickle.loads(pickle.dumps(vec.env_fns[1]))()
    assert type(env.unwrapped).__name__ == "RecordingEnv"
    assert env.kwargs == {"a": 1}


def test_the_vector_env_gets_the_spec_used(registry: EnvRegistry, fake_vector: Any) -> None:
    registry.register("Env-v0", Env, max_episode_steps=10, kwargs={"a": 1})
    vec = registry.make_vec("Env-v0", 2, max_episode_steps=3, a=2)
    assert vec.spec.id == "Env-v0"
    assert vec.spec.kwargs == {"a": 2}
    assert vec.spec.max_episode_steps == 3


def test_make_vec_from_an_env_spec(registry: EnvRegistry) -> None:
    spec = EnvSpec("Unregistered-v0", entry_point=Env, vector_entry_point=NativeVec)
    assert registry.make_vec(spec, 2).num_envs == 2


# -- missing sekai-vector -----------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "distribution", "in_sekai"),
    [
        ("sync", "sekai-vector", True),
        ("async", "sekai-vector", True),
        ("proc", "sekai-vector[proc]", True),
        ("ray", "sekai-vector[ray]", False),
    ],
)
def test_missing_sekai_vector_names_the_distribution(
    registry: EnvRegistry, no_vector: None, mode: str, distribution: str, in_sekai: bool
) -> None:
    registry.register("Env-v0", Env)
    with pytest.raises(ImportError) as info:
        registry.make_vec("Env-v0", 2, vectorization_mode=mode)
    message = str(info.value)
    assert f"install the {distribution} distribution" in message
    assert ("or the sekai distribution, which includes it" in message) is in_sekai
    assert "pip install" not in message  # the sekai distributions are not on the index


def test_default_mode_without_sekai_vector(registry: EnvRegistry, no_vector: None) -> None:
    registry.register("Env-v0", Env)
    with pytest.raises(ImportError, match="sekai-vector"):
        registry.make_vec("Env-v0", 2)
    # Native needs no sekai.vector.
    registry.register("Native-v0", Env, vector_entry_point=NativeVec)
    assert isinstance(registry.make_vec("Native-v0", 2), NativeVec)


# -- argument errors ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("num_envs", "error"),
    [(0, ValueError), (-1, ValueError), (1.5, TypeError), (True, TypeError), ("2", TypeError)],
)
def test_invalid_num_envs(registry: EnvRegistry, num_envs: object, error: type[Exception]) -> None:
    registry.register("Env-v0", Env, vector_entry_point=NativeVec)
    with pytest.raises(error, match="num_envs must be an int >= 1") as info:
        registry.make_vec("Env-v0", num_envs)  # type: ignore[arg-type]
    assert repr(num_envs) in str(info.value)


def test_invalid_mode(registry: EnvRegistry) -> None:
    registry.register("Env-v0", Env)
    with pytest.raises(ValueError, match="'threads'"):
        registry.make_vec("Env-v0", 2, vectorization_mode="threads")


def test_invalid_mode_lists_the_public_modes_not_the_alias(registry: EnvRegistry) -> None:
    registry.register("Env-v0", Env, vector_entry_point=NativeVec)
    with pytest.raises(ValueError, match="vectorization_mode must be one of") as info:
        registry.make_vec("Env-v0", 2, vectorization_mode="threads")
    message = str(info.value)
    assert "one of 'native', 'sync', 'async', 'proc', 'ray' or None; got 'threads'" in message
    assert "vector_entry_point" not in message
    # The alias is not offered, but still accepted.
    vec = registry.make_vec("Env-v0", 2, vectorization_mode="vector_entry_point")
    assert isinstance(vec, NativeVec)


@pytest.mark.parametrize("mode", ["native", "sync"])
def test_max_episode_steps_in_vector_kwargs_is_refused(
    registry: EnvRegistry, fake_vector: Any, mode: str
) -> None:
    registry.register("Env-v0", Env, vector_entry_point=NativeVec, max_episode_steps=9)
    with pytest.raises(ValueError, match=r"make_vec\(\.\.\., max_episode_steps=N\)"):
        registry.make_vec(
            "Env-v0", 2, vectorization_mode=mode, vector_kwargs={"max_episode_steps": 5}
        )


@pytest.mark.parametrize("wrappers", [lambda env: env, "abc", 3])
def test_wrappers_must_be_a_sequence(registry: EnvRegistry, wrappers: Any) -> None:
    registry.register("Env-v0", Env, vector_entry_point=NativeVec)
    with pytest.raises(TypeError, match="wrappers must be a sequence") as info:
        registry.make_vec("Env-v0", 2, wrappers=wrappers)
    assert repr(wrappers) in str(info.value)


def test_a_native_entry_point_returning_none_is_named(registry: EnvRegistry) -> None:
    def forgets_to_return(num_envs: int, **kwargs: Any) -> None:
        NativeVec(num_envs, **kwargs)

    registry.register("Env-v0", Env, vector_entry_point=forgets_to_return)
    with pytest.raises(TypeError, match=r"'Env-v0'.*forgets_to_return.*returned None"):
        registry.make_vec("Env-v0", 2)


def test_invalid_wrappers_and_vector_kwargs(registry: EnvRegistry) -> None:
    registry.register("Env-v0", Env)
    with pytest.raises(TypeError, match="wrappers"):
        registry.make_vec("Env-v0", 2, wrappers=[42])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="vector_kwargs"):
        registry.make_vec("Env-v0", 2, vector_kwargs=[("a", 1)])  # type: ignore[arg-type]
