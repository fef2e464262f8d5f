"""to_gymnasium_vector: Gymnasium's vector API, same-step autoreset, over every sekai backend."""

from __future__ import annotations

import functools
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers.vector import ClipReward, DictInfoToList, RecordEpisodeStatistics
from hypothesis import given, settings, strategies as st

import sekai.registry
import sekai.vector
from sekai.compat import from_gymnasium, to_gymnasium, to_gymnasium_vector
from sekai.error import VecEnvClosed

# Gymnasium's CartPole through from_gymnasium, made again from its carried spec
# with a 40-step sekai TimeLimit: a partial of an importable function (so
# ProcVecEnv's workers can unpickle it) that needs no sekai-envs.
_SPEC = from_gymnasium(gymnasium.make("CartPole-v1")).spec
_cartpole = functools.partial(sekai.registry.make, _SPEC, max_episode_steps=40)


def _make_vec(backend: str, n: int = 3) -> Any:
    if backend == "native":
        pytest.importorskip("sekai.envs", reason="needs sekai-envs (a native vector env)")
        return sekai.registry.make_vec(
            "CartPole-v1", num_envs=n, vectorization_mode="native", max_episode_steps=40
        )
    if backend == "proc":
        proc = getattr(sekai.vector, "ProcVecEnv", None)
        if proc is None:
            pytest.skip("ProcVecEnv is not available")
        return proc([_cartpole] * n)
    cls = {"sync": sekai.vector.SyncVecEnv, "async": sekai.vector.AsyncVecEnv}[backend]
    return cls([_cartpole] * n)


BACKENDS = ["sync", "async", "native", "proc"]


def _assert_same(x: Any, y: Any, path: str = "infos") -> None:
    if isinstance(x, dict):
        assert isinstance(y, dict) and set(x) == set(y), f"{path}: {sorted(x)} != {sorted(y)}"
        for key in x:
            _assert_same(x[key], y[key], f"{path}[{key!r}]")
    elif isinstance(x, tuple):
        assert isinstance(y, tuple) and len(x) == len(y), path
        for index, (a, b) in enumerate(zip(x, y, strict=True)):
            _assert_same(a, b, f"{path}[{index}]")
    elif isinstance(x, np.ndarray) and x.dtype == object:
        assert isinstance(y, np.ndarray) and y.dtype == object and x.shape == y.shape, path
        for a, b in zip(x, y, strict=True):
            _assert_same(a, b, path)
    else:
        assert type(x) is type(y), f"{path}: {type(x)} != {type(y)}"
        np.testing.assert_array_equal(x, y, err_msg=path)


def test_matches_gymnasium_sync_vector_env_in_same_step_mode() -> None:
    n = 3
    seeds = [5, 6, 7]
    ours = to_gymnasium_vector(sekai.vector.SyncVecEnv([_cartpole] * n))
    theirs = SyncVectorEnv(
        [lambda: to_gymnasium(_cartpole())] * n, autoreset_mode=AutoresetMode.SAME_STEP
    )
    assert ours.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert ours.observation_space == theirs.observation_space
    assert ours.action_space == theirs.action_space
    assert ours.single_observation_space == theirs.single_observation_space
    assert ours.single_action_space == theirs.single_action_space
    obs_a, info_a = ours.reset(seed=seeds)
    obs_b, info_b = theirs.reset(seed=seeds)
    np.testing.assert_array_equal(obs_a, obs_b)
    _assert_same(info_a, info_b)
    rng = np.random.default_rng(0)
    finals = 0
    for _ in range(150):
        actions = rng.integers(0, 2, n)
        a, b = ours.step(actions), theirs.step(actions)
        for x, y in zip(a[:4], b[:4], strict=True):
            assert x.dtype == y.dtype
            np.testing.assert_array_equal(x, y)
        _assert_same(a[4], b[4])
        finals += int(a[4].get("_final_obs", np.zeros(n, bool)).sum())
    assert finals >= 5  # terminations and 40-step truncations both went through
    ours.close()
    theirs.close()


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 4))
def test_infos_of_every_kind_match_gymnasium(info_env_type: Any, seed: int, n: int) -> None:
    ours = to_gymnasium_vector(sekai.vector.SyncVecEnv([info_env_type] * n))
    theirs = SyncVectorEnv(
        [lambda: to_gymnasium(info_env_type())] * n, autoreset_mode=AutoresetMode.SAME_STEP
    )
    seeds = [seed + index for index in range(n)]
    a, b = ours.reset(seed=seeds), theirs.reset(seed=seeds)
    _assert_same(a, b, "reset")
    rng = np.random.default_rng(seed)
    for _ in range(40):
        actions = rng.integers(0, 3, n)
        _assert_same(ours.step(actions), theirs.step(actions), "step")
    ours.close()
    theirs.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_record_episode_statistics_runs_on_every_backend(backend: str) -> None:
    n = 3
    envs = RecordEpisodeStatistics(to_gymnasium_vector(_make_vec(backend, n)))
    envs.reset(seed=0)
    envs.action_space.seed(0)
    returns = np.zeros(n)
    lengths = np.zeros(n, dtype=int)
    episodes = 0
    for _ in range(200):
        observations, rewards, terminated, truncated, infos = envs.step(envs.action_space.sample())
        assert observations in envs.observation_space
        returns += rewards
        lengths += 1
        done = terminated | truncated
        if done.any():
            np.testing.assert_array_equal(infos["_episode"], done)
            np.testing.assert_array_equal(infos["_final_obs"], done)
            np.testing.assert_allclose(infos["episode"]["r"][done], returns[done])
            np.testing.assert_array_equal(infos["episode"]["l"][done], lengths[done])
            for index in np.flatnonzero(done):
                assert infos["final_obs"][index] in envs.single_observation_space
            episodes += int(done.sum())
            returns[done] = 0
            lengths[done] = 0
        else:
            assert "episode" not in infos
    assert episodes >= 5
    assert len(envs.return_queue) == episodes
    envs.close()


def test_gymnasium_reward_and_info_wrappers_run() -> None:
    envs = DictInfoToList(ClipReward(to_gymnasium_vector(_make_vec("sync")), 0.0, 0.5))
    envs.reset(seed=1)
    for _ in range(50):
        _, rewards, _, _, infos = envs.step(envs.action_space.sample())
        np.testing.assert_array_equal(rewards, [0.5, 0.5, 0.5])
        assert isinstance(infos, list) and len(infos) == 3
        assert all(info["elapsed_steps"] >= 0 for info in infos if "elapsed_steps" in info)
    envs.close()


def test_infos_are_a_dict_of_arrays_with_masks() -> None:
    envs = to_gymnasium_vector(_make_vec("sync"))
    _, infos = envs.reset(seed=0)
    assert infos == {}
    _, _, _, _, infos = envs.step(np.array([0, 1, 0]))
    np.testing.assert_array_equal(infos["elapsed_steps"], [1, 1, 1])
    np.testing.assert_array_equal(infos["_elapsed_steps"], [True, True, True])
    envs.close()


def test_reset_seed_and_options_pass_through() -> None:
    envs = to_gymnasium_vector(_make_vec("sync"))
    reference = _make_vec("sync")
    first, _ = envs.reset(seed=9)
    np.testing.assert_array_equal(first, reference.reset(seed=9).observations)
    pinned, _ = envs.reset(seed=[1, 2, 3], options={"low": 0.03, "high": 0.03})
    np.testing.assert_allclose(pinned, 0.03)
    envs.close()
    reference.close()


def test_partial_resets_are_refused() -> None:
    envs = to_gymnasium_vector(_make_vec("sync"))
    with pytest.raises(ValueError, match="reset_mask"):
        envs.reset(options={"reset_mask": np.array([True, False, False])})
    envs.close()


def test_non_vec_env_is_refused() -> None:
    with pytest.raises(TypeError, match="expected a sekai VecEnv, got <TimeLimit"):
        to_gymnasium_vector(_cartpole())


def test_vec_env_without_autoreset_is_refused() -> None:
    vec = sekai.vector.SyncVecEnv([_cartpole] * 2, autoreset=False)
    with pytest.raises(ValueError, match="autoreset=False"):
        to_gymnasium_vector(vec)
    vec.close()


def test_attribute_access_reaches_the_sub_envs() -> None:
    envs = to_gymnasium_vector(_make_vec("sync", 2))
    assert envs.get_attr("max_episode_steps") == (40, 40)
    envs.set_attr("metadata", ({"a": 1}, {"b": 2}))
    assert envs.get_attr("metadata") == ({"a": 1}, {"b": 2})
    envs.set_attr("metadata", {"c": 3})
    assert envs.call("metadata") == ({"c": 3}, {"c": 3})
    assert all(isinstance(env, gymnasium.Env) for env in envs.get_attr("gym_env"))
    envs.close()


def test_close_closes_the_sekai_vec_env() -> None:
    vec = _make_vec("sync")
    envs = to_gymnasium_vector(vec)
    envs.reset(seed=0)
    envs.close()
    assert envs.closed
    with pytest.raises(VecEnvClosed):
        vec.step(np.zeros(3, np.int64))


def test_is_a_gymnasium_vector_env() -> None:
    envs = to_gymnasium_vector(_make_vec("sync"))
    assert isinstance(envs, gymnasium.vector.VectorEnv)
    assert envs.num_envs == 3
    assert envs.sekai_vec_env.num_envs == 3
    assert envs.spec is None
    envs.close()


def test_the_spec_of_make_vec_is_carried(reference_envs: None) -> None:
    envs = to_gymnasium_vector(_make_vec("native"))
    assert envs.spec is not None and envs.spec.id == "CartPole-v1"
    assert repr(envs) == "SekaiGymnasiumVectorEnv(CartPole-v1, num_envs=3)"
    envs.close()


@pytest.mark.parametrize("backend", ["sync", "async"])
def test_a_vec_env_with_partial_batches_steps_full_batches(backend: str) -> None:
    cls = {"sync": sekai.vector.SyncVecEnv, "async": sekai.vector.AsyncVecEnv}[backend]
    vec = cls([_cartpole] * 4, batch_size=2)
    env = to_gymnasium_vector(vec)
    observations, _ = env.reset(seed=0)
    assert observations.shape == (4, 4)
    for _ in range(5):
        observations, rewards, _, _, _ = env.step(np.zeros(4, dtype=np.int64))
        assert observations.shape == (4, 4) and rewards.shape == (4,)
    env.close()
