"""Behaviour of the backends that run sub-env objects: SyncVecEnv and AsyncVecEnv."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sekai.core import TimeLimit
from sekai.error import InvalidAction, SpaceMismatch
from sekai.spaces import Box, Dict, Discrete, MultiBinary, MultiDiscrete
from sekai.vector import SyncVecEnv
from sekai.vector._actions import make_action_checker, make_action_splitter


class _Boom(Exception):
    pass


def test_constructor_failure_closes_built_envs(env_list_backend: Any, kit: Any) -> None:
    built: list[Any] = []

    def good() -> Any:
        env = kit.CountingEnv()
        built.append(env)
        return env

    def bad() -> Any:
        raise _Boom("cannot build")

    with pytest.raises(_Boom):
        env_list_backend([good, good, bad, good])
    assert len(built) == 2
    assert all(env.closed for env in built)


def test_factory_returning_a_non_env_raises(env_list_backend: Any, kit: Any) -> None:
    first = kit.CountingEnv()
    with pytest.raises(TypeError, match=r"env_fns\[1\] must return a sekai.core.Env"):
        env_list_backend([lambda: first, lambda: "nope"])
    assert first.closed


@pytest.mark.parametrize("env_fns", [[], "abc", [1, 2]])
def test_bad_env_fns(env_list_backend: Any, env_fns: Any) -> None:
    with pytest.raises((TypeError, ValueError)):
        env_list_backend(env_fns)


def test_sync_copy_is_a_bool_without_effect(kit: Any) -> None:
    with SyncVecEnv(kit.counting_fns((3, 3)), copy=False) as vec:
        first = vec.reset().observations
        second = vec.step([1, 1]).observations
        assert first.flags.owndata and not np.shares_memory(first, second)
        np.testing.assert_array_equal(first[:, 1], [0, 0])
    with pytest.raises(TypeError, match="copy must be a bool, got 'yes'"):
        SyncVecEnv(kit.counting_fns((3,)), copy="yes")  # type: ignore[arg-type]


def test_sub_envs_with_different_spaces_raise(env_list_backend: Any, kit: Any) -> None:
    built: list[Any] = []

    def other() -> Any:
        env = kit.CountingEnv()
        env.observation_space = Box(0, 1, (3,), np.float32)
        built.append(env)
        return env

    with pytest.raises(SpaceMismatch, match="sub-env 1"):
        env_list_backend([kit.CountingEnv, other])
    assert built[0].closed


def test_close_closes_every_sub_env_and_reraises_the_first_error(
    env_list_backend: Any, kit: Any
) -> None:
    class Failing(kit.CountingEnv):  # type: ignore[misc]
        def close(self) -> None:
            super().close()
            raise _Boom(self.name)

    vec = env_list_backend(
        [kit.CountingEnv, lambda: Failing(name="first"), lambda: Failing(name="second")]
    )
    with pytest.raises(_Boom, match="first"):
        vec.close()
    assert all(env.closed for env in vec.envs)
    vec.close()  # already closed: nothing raised again


def test_get_attr_call_set_attr_through_wrapper_stacks(env_list_backend: Any, kit: Any) -> None:
    fns = [lambda i=i: kit.Tagged(TimeLimit(kit.CountingEnv(3 + i), 10), f"t{i}") for i in range(3)]
    with env_list_backend(fns) as vec:
        assert vec.get_attr("tag") == ["t0", "t1", "t2"]
        assert vec.get_attr("max_episode_steps") == [10, 10, 10]
        assert vec.get_attr("length") == [3, 4, 5]
        vec.set_attr("length", [7, 8, 9])
        assert [env.unwrapped.length for env in vec.envs] == [7, 8, 9]
        vec.set_attr("tag", "same")
        assert vec.get_attr("tag") == ["same"] * 3
        # call: methods are called, attributes are read.
        vec.reset()
        assert vec.call("tag") == ["same"] * 3
        obs = vec.call("_obs")
        assert [o.tolist() for o in obs] == [[0, 0, 0]] * 3
        with pytest.raises(AttributeError):
            vec.get_attr("missing")
        with pytest.raises(AttributeError):
            vec.set_attr("missing", 1)
        with pytest.raises(ValueError, match="one entry per sub-env"):
            vec.set_attr("tag", ["a", "b"])


def test_set_attr_on_unwrapped_sub_envs(env_list_backend: Any, kit: Any) -> None:
    with env_list_backend(kit.counting_fns((3, 3))) as vec:
        vec.set_attr("length", 1)
        assert vec.get_attr("length") == [1, 1]
        with pytest.raises(AttributeError):
            vec.set_attr("no_such_attribute", 1)


def test_self_resetting_sub_env_is_not_frozen_nor_reset_twice(
    env_list_backend: Any, kit: Any
) -> None:
    fns = [lambda: kit.SelfResettingEnv(kit.CountingEnv(1)), lambda: kit.CountingEnv(5)]
    for autoreset in (True, False):
        with env_list_backend(fns, autoreset=autoreset) as vec:
            vec.reset()
            result = vec.step([1, 1])
            assert result.terminated[0]
            assert vec.envs[0].unwrapped.reset_calls == 2  # its own reset only
            np.testing.assert_array_equal(result.infos[0]["final_observation"], [0, 1, 1])
            again = vec.step([2, 1])
            np.testing.assert_array_equal(again.observations[0], [0, 0, 0])
            assert vec.envs[0].unwrapped.actions == [1, 2]  # stepped: not frozen


def test_dict_observations_and_actions(env_list_backend: Any, kit: Any) -> None:
    with env_list_backend([kit.DictEnv] * 2) as vec:
        assert vec.batch_observation_space == Dict(
            {"pos": Box(-100, 100, (2, 2)), "mode": MultiDiscrete([4, 4])}
        )
        reset = vec.reset()
        assert reset.observations["pos"].shape == (2, 2)
        actions = {"move": np.array([[1.0, 0.0], [0.0, -1.0]]), "mode": np.array([1, 3])}
        result = vec.step(actions)
        np.testing.assert_array_equal(result.observations["pos"], [[1, 0], [0, 0]])  # 1 reset
        np.testing.assert_array_equal(result.observations["mode"], [1, 0])  # env 1 reset
        assert result.observations["mode"].dtype == np.int64
        np.testing.assert_array_equal(result.terminated, [False, True])
        assert result.infos[1]["final_observation"]["mode"] == 3
        np.testing.assert_array_equal(result.infos[1]["final_observation"]["pos"], [0, -1])
        with pytest.raises(ValueError, match=r"\['mode'\].*\(2,\)"):
            vec.step({"move": np.zeros((2, 2)), "mode": np.array([1, 2, 3])})
        with pytest.raises(ValueError, match="keys"):
            vec.step({"move": np.zeros((2, 2))})


def test_sub_env_actions_are_copies(env_list_backend: Any, kit: Any) -> None:
    class Keeper(kit.DictEnv):  # type: ignore[misc]
        kept: list[Any]

        def step(self, action: Any) -> Any:
            self.kept = [*getattr(self, "kept", []), action["move"]]
            return super().step(action)

    with env_list_backend([Keeper] * 2) as vec:
        vec.reset()
        move = np.zeros((2, 2))
        vec.step({"move": move, "mode": np.array([0, 0])})
        move[:] = 5.0
        assert vec.envs[0].kept[0].tolist() == [0.0, 0.0]


def test_discrete_actions_reach_sub_envs_as_ints(env_list_backend: Any, kit: Any) -> None:
    with env_list_backend(kit.counting_fns((3, 3))) as vec:
        vec.reset()
        vec.step(np.array([1, 2]))
        assert [type(env.actions[0]) for env in vec.envs] == [int, int]


def test_discrete_observation_batches_as_int64(env_list_backend: Any, kit: Any) -> None:
    class Flat(kit.CountingEnv):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__(2)
            self.observation_space = Discrete(10)

        def _obs(self) -> Any:
            return self.t

    with env_list_backend([Flat] * 2) as vec:
        assert vec.reset().observations.dtype == np.int64
        np.testing.assert_array_equal(vec.step([0, 0]).observations, [1, 1])


def test_tuple_and_unbatchable_observations(env_list_backend: Any, kit: Any) -> None:
    from sekai.spaces import Sequence, Tuple

    class Pair(kit.CountingEnv):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__(2)
            self.observation_space = Tuple((Discrete(10), Box(-9, 9, (2,))))

        def _obs(self) -> Any:
            return (self.t, np.full(2, self.total, np.float32))

    class Ragged(kit.CountingEnv):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__(2)
            self.observation_space = Sequence(Discrete(10))

        def _obs(self) -> Any:
            return tuple(range(self.t))

    with env_list_backend([Pair] * 2) as vec:
        vec.reset()
        obs = vec.step([1, 2]).observations
        assert isinstance(obs, tuple)
        np.testing.assert_array_equal(obs[0], [1, 1])
        np.testing.assert_array_equal(obs[1], [[1, 1], [2, 2]])
    with env_list_backend([Ragged] * 2) as vec:
        assert vec.reset().observations == ((), ())
        result = vec.step([0, 0])
        assert result.observations == ((0,), (0,))
        with pytest.raises(TypeError):
            _ = vec.batch_observation_space
        final = vec.step([0, 0])
        assert final.observations == ((), ())
        assert final.infos[0]["final_observation"] == (0, 1)


def test_integer_action_spaces_refuse_float_batches() -> None:
    split = make_action_splitter(MultiDiscrete([3, 3]), 2)
    with pytest.raises(InvalidAction, match=r"integer actions for MultiDiscrete.*float32"):
        split(np.zeros((2, 2), np.float32))
    assert [a.tolist() for a in split(np.ones((2, 2), np.int32))] == [[1, 1], [1, 1]]
    binary = make_action_splitter(MultiBinary(2), 2)
    assert [a.tolist() for a in binary(np.ones((2, 2), bool))] == [[True, True]] * 2
    with pytest.raises(InvalidAction, match="MultiBinary"):
        binary(np.ones((2, 2)))
    nested = make_action_splitter(Dict({"side": Discrete(2), "size": Box(0, 1, (1,))}), 2)
    with pytest.raises(InvalidAction, match=r"\['side'\]"):
        nested({"side": np.array([0.0, 1.0]), "size": np.zeros((2, 1))})
    assert nested({"side": [0, 1], "size": np.zeros((2, 1))})[1]["side"] == 1
    # A native env checks only the shape: it validates its action values itself.
    shape_only = make_action_checker(Discrete(3), 2, integer_dtypes=False)
    assert shape_only(np.array([0.5, 1.0])).dtype == np.float64


def test_final_observation_and_info_survive_envs_reusing_their_buffers(
    env_list_backend: Any, kit: Any
) -> None:
    vec = env_list_backend([kit.BufferEnv, lambda: kit.BufferEnv(3)])
    kit.check_buffer_finals(vec)
    vec.close()


def test_frozen_observation_survives_an_env_reusing_its_buffer(
    env_list_backend: Any, kit: Any
) -> None:
    vec = env_list_backend([kit.BufferEnv, lambda: kit.BufferEnv(5)], autoreset=False)
    vec.reset(seed=0)
    vec.step([0, 0])
    vec.step([0, 0])  # sub-env 0 ends and freezes at t = 2
    vec.envs[0].unwrapped.reset()  # rewrites its buffer behind the vector env's back
    result = vec.step([0, 0])
    assert result.observations["t"][:, 0].tolist() == [2.0, 3.0]
    vec.close()
