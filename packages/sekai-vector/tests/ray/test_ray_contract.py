"""The VecEnv contract (``sekai.testing.VecEnvContract``), run against RayVecEnv.

The kit's vector envs run their sub-envs in one actor each (every actor is a
new Ray worker process, about a second of CPU to start); the tests below the
kit spread sub-envs over several actors, and reach the sub-env objects, which
live in the actors, through ``get_attr`` / ``call``. The rest of the contract
over several actors (seeds, options, truncation, infos, frozen rows) is
compared with SyncVecEnv result for result in ``test_ray_equivalence.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

pytest.importorskip("ray")

from sekai.error import InvalidAction, VecEnvClosed
from sekai.testing import VecEnvContract
from sekai.vector import VecEnv


class TestRayVecEnvContract(VecEnvContract):
    supports_partial_batches = True

    # Seeds and options are checked by the lifecycle every backend shares, before
    # anything reaches an actor (the other backends' kits run these); an actor per
    # parametrised case would cost about a second each.
    test_bad_seeds_raise = None  # type: ignore[assignment]
    test_bad_options_raise = None  # type: ignore[assignment]
    # Bad batches of actions (wrong shapes, floats for Discrete) are refused by that
    # same lifecycle before any actor is reached; the test below checks them on a
    # vector env over two actors, with nothing stepped.
    test_bad_action_batch_raises_before_any_sub_env_moves = None  # type: ignore[assignment]
    test_float_actions_for_a_discrete_space_raise_before_any_sub_env_moves = None  # type: ignore[assignment]
    # Seeded runs and frozen truncated rows: test_ray_equivalence.py compares RayVecEnv
    # with SyncVecEnv (which runs these tests) for any seeds, truncate_after=3, autoreset
    # on and off. These two build the most actors of the kit.
    test_seeded_runs_give_equal_results = None  # type: ignore[assignment]
    test_frozen_truncated_flags_persist = None  # type: ignore[assignment]
    # test_ray_partial.py runs the shared partial-batch tests over two actors.
    test_partial_batches_follow_the_full_batch_trajectories = None  # type: ignore[assignment]
    test_partial_batches_misuse_raises = None  # type: ignore[assignment]
    test_partial_batches_reset_drops_what_is_in_flight = None  # type: ignore[assignment]

    @pytest.fixture(autouse=True)
    def _builder(self, ray_vec: Callable[..., Any]) -> None:
        self.ray_vec = ray_vec

    def make_vec_env(self, env_fns: Sequence[Callable[[], Any]], **kwargs: Any) -> VecEnv[Any, Any]:
        vec: VecEnv[Any, Any] = self.ray_vec(env_fns, num_workers=1, **kwargs)
        return vec


def test_frozen_sub_envs_attributes_and_close_across_actors(
    ray_vec: Any, kit: Any, leaks: Any
) -> None:
    vec = ray_vec(kit.counting_fns((1, 4, 4, 2)), autoreset=False, num_workers=2)
    assert vec.num_workers == 2 and len(vec.actors) == 2
    vec.reset(options=[{"start": float(i)} for i in range(4)])
    for actions in ([0, 1], np.zeros((4, 1), dtype=np.int64), [[0, 1], [2], [0], [0]]):
        with pytest.raises(ValueError, match=r"expected a batch of actions.*\(4,\)"):
            vec.step(actions)
    with pytest.raises(InvalidAction, match="integer actions"):
        vec.step(np.array([0.0, 1.0, 2.0, 0.0]))
    assert vec.get_attr("actions") == [[], [], [], []]  # nothing was stepped

    first = vec.step([2, 0, 1, 1])
    np.testing.assert_array_equal(first.terminated, [True, False, False, False])
    assert vec.frozen.tolist() == [True, False, False, False]
    second = vec.step([1, 0, 1, 1])
    assert vec.frozen.tolist() == [True, False, False, True]  # reported by the second actor
    np.testing.assert_array_equal(second.observations[3], [3, 2, 2])
    for t in (3, 4):  # sub-envs 1 and 2 run on; 0 and 3 repeat their final rows
        again = vec.step([1, 0, 1, 2])
        np.testing.assert_array_equal(again.observations[0], [0, 1, 2])
        np.testing.assert_array_equal(again.observations[3], [3, 2, 2])
        np.testing.assert_array_equal(again.rewards[[0, 3]], [0.0, 0.0])
        assert again.infos[0] == again.infos[3] == {}
        np.testing.assert_array_equal(again.observations[1:3, 1], [t, t])
    assert vec.get_attr("actions") == [[2], [0, 0, 0, 0], [1, 1, 1, 1], [1, 1]]
    with pytest.raises(ValueError, match="read-only"):
        vec.frozen[0] = False

    assert vec.get_attr("length") == [1, 4, 4, 2]
    assert vec.call("_obs")[3].tolist() == [3.0, 2.0, 2.0]
    vec.set_attr("length", 7)
    assert vec.get_attr("length") == [7, 7, 7, 7]
    vec.set_attr("length", [1, 2, 3, 4])  # one value each, across both actors
    assert vec.get_attr("length") == [1, 2, 3, 4]
    with pytest.raises(ValueError, match="one entry per sub-env"):
        vec.set_attr("length", [1, 2])
    with pytest.raises(AttributeError, match="no_such_name"):
        vec.get_attr("no_such_name")
    with pytest.raises(AttributeError, match="no_such_name"):
        vec.set_attr("no_such_name", 1)
    vec.reset()
    assert not vec.frozen.any()
    assert vec.step([0, 1, 2, 0]).terminated.tolist() == [True, False, False, False]

    assert vec.call("close") == [None] * 4  # the sub-envs' own close()
    assert vec.get_attr("closed") == [True] * 4
    handles = vec.actors
    with vec:
        pass
    assert vec.closed
    leaks.assert_dead(handles)
    with pytest.raises(VecEnvClosed):
        vec.call("close")
    vec.close()  # twice is harmless


def test_self_resetting_sub_env_is_not_frozen_nor_reset_twice(ray_vec: Any, kit: Any) -> None:
    fns = [lambda: kit.SelfResettingEnv(kit.CountingEnv(1)), lambda: kit.CountingEnv(5)]
    vec = ray_vec(fns, autoreset=False, num_workers=1)
    vec.reset()
    result = vec.step([1, 1])
    assert result.terminated[0]
    assert vec.get_attr("reset_calls") == [2, 1]  # its own reset only
    np.testing.assert_array_equal(result.infos[0]["final_observation"], [0, 1, 1])
    again = vec.step([2, 1])
    np.testing.assert_array_equal(again.observations[0], [0, 0, 0])
    assert vec.get_attr("actions")[0] == [1, 2]  # stepped: not frozen


def test_final_observation_and_info_survive_envs_reusing_their_buffers(
    ray_vec: Any, kit: Any
) -> None:
    vec = ray_vec([kit.BufferEnv, lambda: kit.BufferEnv(3)], num_workers=1)
    kit.check_buffer_finals(vec)
