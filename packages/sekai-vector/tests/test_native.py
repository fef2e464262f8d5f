"""NativeVecEnv specifics: seeding, time limit, frozen sub-envs, attributes, hooks."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sekai.error import ResetRequired
from sekai.utils.seeding import make_seed_sequence, np_random
from sekai.vector import SyncVecEnv


@pytest.fixture
def native(kit: Any) -> Any:
    def make(*args: Any, **kwargs: Any) -> Any:
        return kit.CountingNativeVecEnv(*args, **kwargs)

    return make


# The counting native env draws its random starts from the shared ``rng``, which keeps
# the seeding rule of sekai 0.2 (the next four tests); ``rngs`` is tested further down.


def test_rng_is_lazy_and_int_seed_reseeds(native: Any) -> None:
    vec = native(4, random_start=True)
    assert isinstance(vec.rng, np.random.Generator)
    a = vec.reset(seed=3).observations
    b = vec.reset(seed=3).observations
    np.testing.assert_array_equal(a, b)
    expected = np.random.default_rng(np.random.SeedSequence(3)).random(4)
    np.testing.assert_allclose(a[:, 0], expected.astype(np.float32))


def test_list_of_seeds_is_combined_into_one(native: Any) -> None:
    vec = native(3, random_start=True)
    a = vec.reset(seed=[1, 2, 3]).observations
    b = vec.reset(seed=[1, 2, 3]).observations
    c = vec.reset(seed=[1, 2, 4]).observations
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([1, 2, 3])))
    np.testing.assert_allclose(a[:, 0], rng.random(3).astype(np.float32))


def test_none_entries_draw_from_the_current_stream(native: Any) -> None:
    vec = native(2, random_start=True)
    vec.reset(seed=10)
    a = vec.reset(seed=[5, None]).observations
    vec.reset(seed=10)
    b = vec.reset(seed=[5, None]).observations
    vec.reset(seed=11)
    c = vec.reset(seed=[5, None]).observations
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_all_none_list_continues_like_seed_none(native: Any) -> None:
    vec = native(2, random_start=True)
    vec.reset(seed=1)
    a = vec.reset(seed=[None, None]).observations
    vec.reset(seed=1)
    b = vec.reset().observations
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    ("seed", "error"),
    [
        (np.random.default_rng(0), TypeError),
        ([np.random.default_rng(0), "1"], TypeError),
        ([1], ValueError),
        ([1, -1], ValueError),
        ([1, 2.5], TypeError),
        ("1", TypeError),
    ],
)
def test_bad_native_seeds(native: Any, seed: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        native(2).reset(seed=seed)


def _stream(seed: int) -> Any:
    """The state of the generator ``Env._set_rng(seed)`` creates."""
    return np_random(seed)[0].bit_generator.state


def test_rngs_follow_the_seeding_rule_of_every_backend(native: Any) -> None:
    vec = native(3)
    rngs = vec.rngs
    assert isinstance(rngs, tuple) and len(rngs) == 3 and vec.rngs is rngs  # lazy, then kept
    assert all(isinstance(rng, np.random.Generator) for rng in rngs)
    assert len({id(rng) for rng in rngs}) == 3 and vec.rng not in rngs
    with pytest.raises(AttributeError):
        vec.rngs = rngs

    vec.reset(seed=9)  # one derived seed per sub-env, as SyncVecEnv gives its sub-envs
    for rng, seed in zip(vec.rngs, make_seed_sequence(9, 3), strict=True):
        assert rng.bit_generator.state == _stream(seed)
    seeded = vec.rngs
    vec.reset()
    assert vec.rngs is seeded  # seed=None continues every stream

    adopted = np.random.default_rng(1)
    vec.reset(seed=[None, adopted, 4])
    assert vec.rngs[0] is seeded[0]
    assert vec.rngs[1] is adopted  # adopted as is, like Env._set_rng
    assert vec.rngs[2].bit_generator.state == _stream(4)


def test_a_none_entry_before_any_seed_draws_fresh_entropy(native: Any) -> None:
    a, b = native(2), native(2)
    a.reset(seed=[None, 3])
    b.reset(seed=[None, 3])
    assert a.rngs[0].random() != b.rngs[0].random()
    assert a.rngs[1].random() == b.rngs[1].random()


def _per_env_native(kit: Any, lengths: list[int]) -> Any:
    class PerEnvRandomStart(kit.CountingNativeVecEnv):  # type: ignore[misc]
        """The counting env whose random start comes from each sub-env's own generator."""

        def _reset_envs(self, indices: Any, options: Any) -> None:
            super()._reset_envs(indices, options)
            rngs = self.rngs
            self.start[indices] += [rngs[i].random() for i in indices.tolist()]

    return PerEnvRandomStart(len(lengths), lengths)


@pytest.mark.parametrize(
    "seeds",
    [
        [lambda: 17],
        [lambda: 17, lambda: None],
        [lambda: 2, lambda: [5, None, np.random.default_rng(8)]],
    ],
    ids=["int", "int-then-none", "list"],
)
def test_drawing_from_rngs_gives_the_trajectories_of_sync_vec_env(
    kit: Any, seeds: list[Any]
) -> None:
    lengths = [2, 3, 1]

    def play(vec: Any) -> list[Any]:
        trace: list[Any] = []
        for make_seed in seeds:
            result = vec.reset(seed=make_seed())
            trace.append((result.observations, [info["start"] for info in result.infos]))
            for step in range(7):  # every sub-env autoresets at least twice
                r = vec.step(np.array([step % 3, 1, 2]))
                finals = [info.get("final_observation") for info in r.infos]
                trace.append((r.observations, r.rewards, r.terminated, finals))
        vec.close()
        return trace

    sync = play(SyncVecEnv(kit.counting_fns(lengths, random_start=True)))
    native = play(_per_env_native(kit, lengths))
    assert len(sync) == len(native)
    for a, b in zip(sync, native, strict=True):
        for x, y in zip(a, b, strict=True):
            if isinstance(x, list):  # starts, or final observations (None: not done)
                assert [v is None for v in x] == [w is None for w in y]
                for v, w in zip(x, y, strict=True):
                    np.testing.assert_array_equal(v, w)
            else:
                np.testing.assert_array_equal(x, y)


def test_options_reach_reset_envs_per_index(native: Any) -> None:
    vec = native(3)
    result = vec.reset(options=[{"start": 1.0}, None, {"start": 2.0}])
    np.testing.assert_array_equal(result.observations[:, 0], [1.0, 0.0, 2.0])
    assert [info["start"] for info in result.infos] == [1.0, 0.0, 2.0]


def test_autoreset_resets_only_finished_indices_without_options(native: Any) -> None:
    vec = native(3, [1, 2, 1])
    vec.reset(options={"start": 4.0})
    result = vec.step([1, 1, 1])
    assert vec.reset_indices[-1] == [0, 2]
    np.testing.assert_array_equal(result.observations[:, 0], [0.0, 4.0, 0.0])
    np.testing.assert_array_equal(result.infos[0]["final_observation"], [4.0, 1, 1])
    assert result.infos[0]["reset_info"] == {"start": 0.0}
    assert result.infos[0]["final_info"] == {"t": 1}
    np.testing.assert_array_equal(vec.elapsed_steps, [0, 1, 0])


def test_max_episode_steps_truncates_and_reports_elapsed_steps(native: Any) -> None:
    vec = native(2, [2, 10], max_episode_steps=3)
    vec.reset()
    steps = [vec.step([0, 0]) for _ in range(3)]
    assert [r.infos[1]["elapsed_steps"] for r in steps] == [1, 2, 3]
    np.testing.assert_array_equal(steps[1].terminated, [True, False])
    assert not steps[1].truncated[0]  # terminated on its own: not truncated
    np.testing.assert_array_equal(steps[2].truncated, [False, True])
    assert steps[2].infos[1]["final_info"]["elapsed_steps"] == 3
    assert steps[2].infos[0]["elapsed_steps"] == 1  # sub-env 0 restarted at step 2
    np.testing.assert_array_equal(vec.elapsed_steps, [1, 0])


def test_terminating_on_the_limit_step_is_not_truncated(native: Any) -> None:
    vec = native(1, [2], max_episode_steps=2)
    vec.reset()
    vec.step([0])
    result = vec.step([0])
    assert result.terminated[0] and not result.truncated[0]


def test_elapsed_steps_counts_without_a_limit(native: Any) -> None:
    vec = native(2, [5, 5])
    vec.reset()
    result = vec.step([0, 0])
    vec.step([0, 0])
    np.testing.assert_array_equal(vec.elapsed_steps, [2, 2])
    assert "elapsed_steps" not in result.infos[0]


def test_frozen_rows_get_their_last_action_and_are_flagged(native: Any) -> None:
    vec = native(2, [1, 5], autoreset=False)
    vec.reset()
    assert not vec.frozen.any()
    vec.step([2, 0])
    np.testing.assert_array_equal(vec.frozen, [True, False])
    with pytest.raises(ValueError, match="read-only"):
        vec.frozen[0] = False
    result = vec.step([1, 1])
    np.testing.assert_array_equal(vec.step_actions[-1], [2, 1])
    np.testing.assert_array_equal(result.observations[0], [0, 1, 2])  # the final observation
    assert result.infos[0] == {}
    np.testing.assert_array_equal(vec.elapsed_steps, [1, 2])  # frozen sub-envs do not count
    vec.reset()
    assert not vec.frozen.any()


def test_step_before_reset(native: Any) -> None:
    with pytest.raises(ResetRequired):
        native(2).step([0, 0])


def test_get_attr_splits_arrays_with_a_leading_num_envs_axis(native: Any) -> None:
    vec = native(3, [3, 4, 5])
    vec.reset()
    vec.step([1, 2, 0])
    assert vec.get_attr("lengths") == [3, 4, 5]
    assert vec.get_attr("name") == ["native"] * 3
    assert vec.call("totals", scale=10) == [10, 20, 0]
    assert vec.call("name") == ["native"] * 3
    # Shared members are given whole to every sub-env, even with a num_envs-long axis.
    schedules = vec.call("schedule")
    assert len(schedules) == 3
    for schedule in schedules:
        np.testing.assert_array_equal(schedule, [0.0, 1.0, 2.0])
    levels = vec.get_attr("levels")
    assert all(level.shape == (3,) for level in levels)
    # Split results are copies: changing one does not touch the simulation.
    vec.grid = np.zeros((3, 2))
    rows = vec.get_attr("grid")
    assert [row.shape for row in rows] == [(2,)] * 3
    rows[0][...] = 99
    assert not vec.grid.any()
    with pytest.raises(AttributeError):
        vec.get_attr("missing")


def test_set_attr(native: Any) -> None:
    vec = native(3)
    vec.set_attr("lengths", [1, 2, 3])
    assert isinstance(vec.lengths, np.ndarray)
    np.testing.assert_array_equal(vec.lengths, [1, 2, 3])
    vec.set_attr("truncate_after", 4)
    assert vec.truncate_after == 4
    with pytest.raises(AttributeError, match="no attribute 'gravity'"):
        vec.set_attr("gravity", 9.8)
    with pytest.raises(ValueError, match="one entry per sub-env"):
        vec.set_attr("lengths", [1, 2])


@pytest.mark.parametrize(
    "values",
    [[1, "a", 2.5], [np.zeros(2), np.ones(3), np.zeros(1)], [{"k": 1}, None, [1, 2]]],
    ids=["numbers-and-text", "ragged-arrays", "objects"],
)
def test_set_attr_keeps_values_that_do_not_stack(native: Any, values: list[Any]) -> None:
    # A list of num_envs values is stored as one array; numpy would turn 1
    # into '1' next to a string, or refuse ragged rows.
    vec = native(3)
    vec.set_attr("name", values)
    assert vec.name.shape == (3,)
    got = vec.get_attr("name")
    assert [type(value) for value in got] == [type(value) for value in values]
    for value, expected in zip(got, values, strict=True):
        np.testing.assert_array_equal(value, expected)


def test_shared_works_above_property(kit: Any) -> None:
    from sekai.vector import shared

    class Above(kit.CountingNativeVecEnv):  # type: ignore[misc]
        @shared  # type: ignore[prop-decorator]
        @property
        def table(self) -> Any:
            return np.zeros((self.num_envs, 2))

        @property
        def per_env(self) -> Any:
            return np.zeros((self.num_envs, 2))

    vec = Above(2)
    assert [t.shape for t in vec.get_attr("table")] == [(2, 2), (2, 2)]
    assert [t.shape for t in vec.get_attr("per_env")] == [(2,), (2,)]


def test_bad_step_output_shape_is_reported(kit: Any) -> None:
    class Wrong(kit.CountingNativeVecEnv):  # type: ignore[misc]
        def _step(self, actions: Any) -> Any:
            rewards, terminated, truncated, infos = super()._step(actions)
            return rewards[:1], terminated, truncated, infos

    vec = Wrong(2)
    vec.reset()
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        vec.step([0, 0])


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"num_envs": 0}, ValueError),
        ({"num_envs": 2.0}, TypeError),
        ({"max_episode_steps": 0}, ValueError),
        ({"max_episode_steps": 1.5}, TypeError),
        ({"autoreset": 1}, TypeError),
    ],
)
def test_bad_constructor_arguments(
    kit: Any, kwargs: dict[str, Any], error: type[Exception]
) -> None:
    args = {"num_envs": 2, **kwargs}
    num_envs = args.pop("num_envs")
    with pytest.raises(error):
        kit.CountingNativeVecEnv(num_envs, [3, 3], **args)


def test_info_arrays_of_every_layout_become_per_env_dicts(kit: Any) -> None:
    class Rich(kit.CountingNativeVecEnv):  # type: ignore[misc]
        keys = ("t",)

        def _step(self, actions: Any) -> Any:
            rewards, terminated, truncated, infos = super()._step(actions)
            arrays = {
                "t": infos["t"],
                "pos": np.stack([self.t, self.total], axis=1),
                "name": ["a", "b"],
            }
            return rewards, terminated, truncated, {k: arrays[k] for k in self.keys}

    vec = Rich(2, [5, 5], max_episode_steps=9)
    vec.reset()
    for keys in (("t",), ("t", "pos"), ("t", "pos", "name")):
        vec.keys = keys
        info = vec.step([1, 2]).infos[1]
        assert set(info) == {*keys, "elapsed_steps"}
        if "pos" in info:
            np.testing.assert_array_equal(info["pos"], [info["t"], vec.total[1]])
        if "name" in info:
            assert info["name"] == "b"

    class Short(Rich):
        def _step(self, actions: Any) -> Any:
            rewards, terminated, truncated, _ = super()._step(actions)
            return rewards, terminated, truncated, {"bad": np.zeros(3)}

    short = Short(2)
    short.reset()
    with pytest.raises(ValueError, match="'bad' must have a leading axis of 2"):
        short.step([0, 0])


def test_infos_read_later_describe_their_own_step(kit: Any) -> None:
    # A native env builds its info dicts only when they are read, so what
    # they show must be captured during the step, even when the env hands
    # out its live arrays and resets sub-envs afterwards.
    class Live(kit.CountingNativeVecEnv):  # type: ignore[misc]
        def _step(self, actions: Any) -> Any:
            rewards, terminated, truncated, _ = super()._step(actions)
            return rewards, terminated, truncated, {"t": self.t}

    vec = Live(2, [2, 5], max_episode_steps=9)
    vec.reset()
    results = [vec.step([1, 1]) for _ in range(3)]
    assert [r.infos[1]["t"] for r in results] == [1, 2, 3]
    assert [r.infos[1]["elapsed_steps"] for r in results] == [1, 2, 3]
    finished = results[1].infos[0]
    np.testing.assert_array_equal(finished["final_observation"], [0.0, 2, 2])
    assert finished["final_info"] == {"t": 2, "elapsed_steps": 2}
    assert finished["reset_info"] == {"start": 0.0}
    assert results[2].infos[0] == {"t": 1, "elapsed_steps": 1}


def test_deferred_infos_behave_like_a_stored_field(native: Any) -> None:
    import copy
    import pickle
    from dataclasses import FrozenInstanceError, astuple

    vec = native(2, [1, 3], max_episode_steps=5)
    vec.reset()
    result = vec.step([0, 1])
    assert result.num_envs == 2
    infos = result.infos
    assert result.infos is infos
    assert type(infos) is list and all(type(info) is dict for info in infos)
    with pytest.raises(FrozenInstanceError):
        result.infos = []
    with pytest.raises(FrozenInstanceError):
        del result.infos
    assert "elapsed_steps" in repr(result)
    assert astuple(result)[4][1] == infos[1]
    for clone in (pickle.loads(pickle.dumps(result)), copy.deepcopy(result)):
        assert clone.infos[1] == infos[1]
        np.testing.assert_array_equal(
            clone.infos[0]["final_observation"], infos[0]["final_observation"]
        )


def test_bad_reset_info_arrays_are_reported_by_the_step(kit: Any) -> None:
    class Short(kit.CountingNativeVecEnv):  # type: ignore[misc]
        broken = False

        def _reset_infos(self, indices: Any) -> dict[str, Any]:
            size = len(indices) + 1 if self.broken else len(indices)
            return {"start": np.zeros(size)}

    vec = Short(3, [1, 2, 2])
    vec.reset()
    vec.broken = True
    with pytest.raises(ValueError, match="'start' must have a leading axis of 1"):
        vec.step([0, 0, 0])


def test_the_time_limit_can_be_changed_for_all_or_per_sub_env(native: Any) -> None:
    vec = native(2, [100, 100], max_episode_steps=2)
    vec.reset()
    vec.set_attr("max_episode_steps", 3)
    assert vec.get_attr("max_episode_steps") == [3, 3]
    assert [vec.step([0, 0]).truncated.tolist() for _ in range(3)][-1] == [True, True]
    vec.set_attr("max_episode_steps", [1, 4])  # one limit per sub-env
    assert vec.get_attr("max_episode_steps") == [1, 4]
    steps = [vec.step([0, 0]) for _ in range(4)]
    assert [s.truncated.tolist() for s in steps] == [
        [True, False],
        [True, False],
        [True, False],
        [True, True],
    ]
    assert steps[3].infos[1]["final_info"]["elapsed_steps"] == 4
    vec.max_episode_steps = None
    assert not vec.step([0, 0]).truncated.any()
    assert "elapsed_steps" not in vec.step([0, 0]).infos[0]


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (0, ValueError),
        (2.5, TypeError),
        (True, TypeError),
        (np.array([1]), ValueError),
        ([1, 0], ValueError),
        ([1.0, 2.0], TypeError),
        ("3", TypeError),
    ],
)
def test_bad_time_limits_are_refused(native: Any, value: Any, error: type[Exception]) -> None:
    vec = native(2, max_episode_steps=5)
    with pytest.raises(error, match="max_episode_steps must be an int >= 1, None or 2 ints"):
        vec.set_attr("max_episode_steps", value)
    assert vec.max_episode_steps == 5
