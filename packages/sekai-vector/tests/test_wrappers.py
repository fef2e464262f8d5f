"""Vector wrappers, on every backend."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest

from sekai.core import TimeLimit
from sekai.spaces import Box, Dict, Discrete, MaskedBox, MultiDiscrete
from sekai.stats import EpisodeStats, InMemoryTracker
from sekai.utils.running_stats import ExponentialMovingStats, RunningMeanStd
from sekai.vector import (
    AsyncVecEnv,
    SyncVecEnv,
    VecActionWrapper,
    VecNormalizeObservation,
    VecNormalizeReward,
    VecObservationWrapper,
    VecRecordEpisodeStatistics,
    VecRewardWrapper,
    VecStepResult,
    VecTransformObservation,
    VecTransformReward,
    VecWrapper,
)


class Doubled(VecObservationWrapper[Any, Any, Any]):
    def observation(self, observations: Any) -> Any:
        return observations * 2


class Plus(VecRewardWrapper[Any, Any]):
    def reward(self, rewards: Any) -> Any:
        return rewards + 100


class Flip(VecActionWrapper[Any, Any, Any]):
    def actions(self, actions: Any) -> Any:
        return 2 - np.asarray(actions)


def test_vec_wrapper_is_transparent(make_vec: Any) -> None:
    vec = make_vec()
    wrapped = VecWrapper(vec)
    assert wrapped.num_envs == 3
    assert wrapped.observation_space is vec.observation_space
    assert wrapped.batch_observation_space == vec.batch_observation_space
    assert wrapped.unwrapped is vec
    assert wrapped.autoreset is True  # public attribute reads are forwarded
    with pytest.raises(AttributeError, match="private"):
        _ = wrapped._frozen
    wrapped.reset(options={"start": 1.0})
    result = wrapped.step([1, 1, 1])
    np.testing.assert_array_equal(result.observations[:, 0], [1, 1, 1])
    assert wrapped.get_attr("name") == vec.get_attr("name")
    assert len(wrapped.call("name")) == 3
    wrapped.close()
    assert vec.closed


def test_vec_wrapper_spaces_can_be_assigned(make_vec: Any) -> None:
    vec = make_vec()
    wrapped = VecWrapper(vec)
    wrapped.observation_space = Box(0, 1, (5,))
    assert wrapped.batch_observation_space == Box(0, 1, (3, 5))
    wrapped.action_space = Discrete(5)
    assert wrapped.batch_action_space == MultiDiscrete([5, 5, 5])
    assert vec.observation_space == Box(-1e6, 1e6, (3,), np.float32)
    assert vec.action_space == Discrete(3)
    wrapped.spec = None
    wrapped.metadata = {"a": 1}
    assert wrapped.metadata == {"a": 1}


def test_vec_wrapper_requires_a_vec_env(kit: Any) -> None:
    with pytest.raises(TypeError, match="VecEnv"):
        VecWrapper(kit.CountingEnv())  # type: ignore[arg-type]


def test_observation_wrapper_transforms_final_observations(make_vec: Any) -> None:
    vec = Doubled(make_vec((1, 3, 3)))
    reset = vec.reset(options={"start": 1.0})
    np.testing.assert_array_equal(reset.observations[:, 0], [2, 2, 2])
    result = vec.step([1, 2, 0])
    np.testing.assert_array_equal(result.observations[1], [2, 2, 4])
    np.testing.assert_array_equal(result.observations[0], [0, 0, 0])
    np.testing.assert_array_equal(result.infos[0]["final_observation"], [2, 2, 2])


def test_reward_and_action_wrappers(make_vec: Any) -> None:
    vec = Flip(Plus(make_vec()))
    vec.reset()
    result = vec.step([2, 1, 0])
    np.testing.assert_array_equal(result.observations[:, 2], [0, 1, 2])
    np.testing.assert_array_equal(result.rewards, [100.5, 101.5, 102.5])
    assert result.rewards.dtype == np.float64


def test_wrappers_keep_async_vec_env_concurrent(kit: Any) -> None:
    barrier: dict[str, Any] = {}
    vec = Flip(Plus(Doubled(AsyncVecEnv([lambda: kit.BarrierEnv(barrier, 3)] * 3))))

    async def run() -> VecStepResult[Any]:
        await vec.async_reset()
        return await vec.async_step([2, 2, 2])

    result = asyncio.run(run())  # would time out at the barrier if run sequentially
    np.testing.assert_array_equal(result.observations[:, 1], [2, 2, 2])
    vec.close()


def test_transform_wrappers(make_vec: Any) -> None:
    vec = VecTransformReward(
        VecTransformObservation(make_vec((1, 2, 2)), lambda obs: obs[:, 1:], Box(0, 9, (2,))),
        np.negative,
    )
    assert vec.observation_space == Box(0, 9, (2,))
    vec.reset()
    result = vec.step([1, 1, 1])
    assert result.observations.shape == (3, 2)
    np.testing.assert_array_equal(result.infos[0]["final_observation"], [1, 1])
    np.testing.assert_array_equal(result.rewards, [-1.5, -1.5, -1.5])
    with pytest.raises(TypeError, match="callable"):
        VecTransformReward(vec, 3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="new_observation_space must be a sekai"):
        VecTransformObservation(vec, np.negative, "box")  # type: ignore[arg-type]


def test_reward_transform_must_keep_one_reward_per_sub_env(make_vec: Any) -> None:
    vec = VecTransformReward(make_vec(), np.sum)
    vec.reset()
    with pytest.raises(ValueError, match=r"one reward per sub-env, shape \(3,\), got shape \(\)"):
        vec.step([1, 1, 1])


def test_record_episode_statistics_with_autoreset(make_vec: Any) -> None:
    tracker = InMemoryTracker(None)
    vec = VecRecordEpisodeStatistics(make_vec((2, 3, 9)), tracker=tracker, deque_size=5)
    vec.reset()
    first = vec.step([1, 1, 1])
    assert all("episode" not in info for info in first.infos)
    second = vec.step([2, 0, 0])
    stats = second.infos[0]["episode"]
    assert isinstance(stats, EpisodeStats)
    assert stats.episode_return == pytest.approx(1.5 + 3.0)
    assert stats.episode_length == 2
    assert stats.terminated and not stats.truncated
    assert stats.end_time >= stats.start_time and stats.elapsed_time >= 0
    assert "final_observation" in second.infos[0]
    third = vec.step([0, 0, 0])
    assert third.infos[1]["episode"].episode_length == 3
    fourth = vec.step([1, 0, 0])
    assert "episode" not in fourth.infos[1]
    assert fourth.infos[0]["episode"].episode_return == pytest.approx(0.5 + 2.0)
    assert [s.episode_length for s in tracker.episodes] == [2, 3, 2]
    assert list(vec.length_queue) == [2, 3, 2]
    assert vec.episode_count == 3


def test_record_episode_statistics_without_autoreset_records_once(make_vec: Any) -> None:
    tracker = InMemoryTracker(None)
    vec = VecRecordEpisodeStatistics(make_vec((1, 3), autoreset=False), tracker=tracker)
    result = vec.reset()
    finished = np.zeros(2, dtype=bool)
    steps = 0
    while not finished.all():
        result = vec.step([1, 1])
        finished |= result.dones
        steps += 1
    vec.step([1, 1])
    assert steps == 3
    assert sorted(s.episode_length for s in tracker.episodes) == [1, 3]
    vec.reset()
    vec.step([1, 1])
    assert len(tracker) == 3  # sub-env 0 counts again after reset()


def test_record_episode_statistics_arguments(make_vec: Any) -> None:
    with pytest.raises(ValueError, match="deque_size"):
        VecRecordEpisodeStatistics(make_vec(), deque_size=0)
    with pytest.raises(TypeError, match="tracker"):
        VecRecordEpisodeStatistics(make_vec(), tracker=object())  # type: ignore[arg-type]


def test_normalize_observation_box(make_vec: Any) -> None:
    vec = VecNormalizeObservation(make_vec((2, 9, 9)))
    assert vec.observation_space == Box(-np.inf, np.inf, (3,), np.float64)
    reset = vec.reset(options=[{"start": 1.0}, {"start": 2.0}, {"start": 3.0}])
    assert reset.observations.dtype == np.float64
    rms = vec.obs_rms
    assert isinstance(rms, RunningMeanStd)
    raw = np.array([[1, 0, 0], [2, 0, 0], [3, 0, 0]], dtype=np.float64)
    expected = RunningMeanStd((3,))
    expected.update(raw)
    np.testing.assert_allclose(rms.mean, expected.mean)
    np.testing.assert_allclose(
        reset.observations, (raw - expected.mean) / np.sqrt(expected.var + 1e-8)
    )
    vec.step([1, 1, 1])
    state = vec.state_dict()
    count = rms.count
    result = vec.step([1, 1, 1])  # sub-env 0 ends: its final observation is normalised
    assert rms.count == count + 3  # the final observation did not update the statistics
    final = result.infos[0]["final_observation"]
    # Normalised with the statistics as they were after this step's update.
    np.testing.assert_allclose(final, ([1, 2, 2] - rms.mean) / np.sqrt(rms.var + 1e-8))
    vec.update_running_mean = False
    vec.step([1, 1, 1])
    assert rms.count == count + 3
    vec.load_state_dict(state)
    assert rms.count == count


def test_normalize_observation_ignores_frozen_sub_envs(make_vec: Any) -> None:
    vec = VecNormalizeObservation(make_vec((1, 9), autoreset=False))
    vec.reset()
    rms = vec.obs_rms
    vec.step([0, 0])  # sub-env 0 ends: its terminal observation still counts
    expected = RunningMeanStd((3,))
    expected.update(np.zeros((2, 3)))
    expected.update(np.array([[0, 1, 0], [0, 1, 0]], dtype=np.float64))
    assert rms.count == expected.count
    result = vec.step([2, 2])  # sub-env 0 frozen: only sub-env 1 updates the statistics
    expected.update(np.array([[0, 2, 2]], dtype=np.float64))
    assert rms.count == expected.count
    np.testing.assert_allclose(rms.mean, expected.mean)
    np.testing.assert_allclose(rms.var, expected.var)
    scale = np.sqrt(expected.var + 1e-8)
    np.testing.assert_allclose(result.observations[0], ([0, 1, 0] - expected.mean) / scale)
    vec.reset()  # unfreezes: both sub-envs update again
    assert rms.count == expected.count + 2


def test_normalize_observation_clip_and_ewm(make_vec: Any) -> None:
    vec = VecNormalizeObservation(make_vec(), stats="ewm", halflife=10.0, clip=0.5)
    assert isinstance(vec.obs_rms, ExponentialMovingStats)
    assert vec.obs_rms.halflife == 10.0 * 3  # halflife counts vector steps
    vec.reset(options=[{"start": 0.0}, {"start": 100.0}, {"start": 1.0}])
    result = vec.step([0, 1, 2])
    assert np.abs(result.observations).max() <= 0.5
    with pytest.raises(ValueError, match="stats"):
        VecNormalizeObservation(make_vec(), stats="median")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="clip"):
        VecNormalizeObservation(make_vec(), clip=0.0)


def test_normalize_observation_nested_spaces(env_list_backend: Any, kit: Any) -> None:
    class Nested(kit.CountingEnv):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__(5)
            self.observation_space = Dict(
                {
                    "x": Box(-10, 10, (2,)),
                    "k": Discrete(9),
                    "book": MaskedBox(-10, 10, (1,), max_size=3),
                }
            )

        def _obs(self) -> Any:
            mask = (
                np.array([1, 1, 0], dtype=np.int8) if self.t % 2 else np.array([1, 0, 0], np.int8)
            )
            values = np.zeros((3, 1), dtype=np.float32)
            values[mask.astype(bool)] = self.t + self.start
            return {
                "x": np.full(2, self.t, np.float32),
                "k": self.t,
                "book": {"values": values, "mask": mask},
            }

    with env_list_backend([Nested] * 2) as raw:
        vec = VecNormalizeObservation(raw)
        assert set(vec.obs_rms) == {"x", "k", "book"} and vec.obs_rms["k"] is None
        vec.reset(options=[{"start": 0.0}, {"start": 4.0}])
        result = vec.step([0, 0]).observations
        np.testing.assert_array_equal(result["k"], [1, 1])  # passes through
        assert result["book"]["values"].dtype == np.float64
        np.testing.assert_array_equal(result["book"]["values"][:, 2], [[0.0], [0.0]])  # empty slots
        book = vec.obs_rms["book"]
        # Occupied slots only: reset had one slot each (0, 4), step two each (1, 1, 5, 5).
        assert book.count == pytest.approx(6 + 1e-4)
        state = vec.state_dict()
        vec.load_state_dict(state)
        with pytest.raises(ValueError, match="keys"):
            vec.load_state_dict({"x": state["x"]})


def test_normalize_reward(make_vec: Any) -> None:
    vec = VecNormalizeReward(make_vec((2, 9, 9)), gamma=0.5)
    vec.reset()
    rms = vec.return_rms
    first = vec.step([1, 1, 1])  # rewards 1.5 each
    returns = np.array([1.5, 1.5, 1.5])
    expected = RunningMeanStd(())
    expected.update(returns)
    np.testing.assert_allclose(first.rewards, 1.5 / np.sqrt(expected.var + 1e-8))
    second = vec.step([0, 0, 0])  # rewards 1.0; sub-env 0 finishes
    returns = returns * 0.5 + 1.0
    expected.update(returns)
    np.testing.assert_allclose(rms.var, expected.var)
    np.testing.assert_allclose(second.rewards, 1.0 / np.sqrt(expected.var + 1e-8))
    third = vec.step([0, 0, 0])
    # Sub-env 0's return restarted at 0 after its episode ended.
    returns = returns * 0.5 + np.array([0.5, 1.5, 1.5])
    returns[0] = 0.5
    expected.update(returns)
    np.testing.assert_allclose(rms.var, expected.var)
    assert third.rewards.dtype == np.float64
    state = vec.state_dict()
    vec.update_running_mean = False
    vec.step([0, 0, 0])
    assert rms.count == state["count"]
    with pytest.raises(ValueError, match="gamma"):
        VecNormalizeReward(make_vec(), gamma=1.5)


def test_normalize_reward_ignores_frozen_sub_envs(make_vec: Any) -> None:
    vec = VecNormalizeReward(make_vec((1, 9), autoreset=False))
    vec.reset()
    vec.step([0, 0])
    count = vec.return_rms.count
    vec.step([0, 0])
    assert vec.return_rms.count == count + 1  # only the running sub-env


def test_routing_rule_applies_to_wrappers(kit: Any) -> None:
    class Tenfold(VecWrapper[Any, Any, Any, Any]):
        def step(self, actions: Any) -> VecStepResult[Any]:
            r = self.venv.step(actions)
            return VecStepResult(r.observations, r.rewards * 10, r.terminated, r.truncated, r.infos)

    vec = Tenfold(SyncVecEnv(kit.counting_fns((3,))))
    vec.reset()
    assert asyncio.run(vec.async_step([1])).rewards[0] == 15.0
    vec.close()


WRAPPINGS = {
    "VecWrapper": VecWrapper,
    "VecObservationWrapper": Doubled,
    "VecRewardWrapper": Plus,
    "VecActionWrapper": Flip,
    "VecTransformObservation": lambda v: VecTransformObservation(v, lambda o: o + 1),
    "VecTransformReward": lambda v: VecTransformReward(v, np.sign),
    "VecNormalizeObservation": VecNormalizeObservation,
    "VecNormalizeReward": VecNormalizeReward,
    "VecRecordEpisodeStatistics": VecRecordEpisodeStatistics,
}


@pytest.mark.parametrize("wrapping", list(WRAPPINGS))
def test_wrappers_keep_native_infos_deferred(
    kit: Any, wrapping: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A native env builds its info dicts when they are first read; a wrapper
    # that only changes observations, rewards or actions must not build them
    # on steps where no sub-env finishes, and they must still be right later.
    import sekai.vector.native as native_module

    builds: list[int] = []
    build = native_module._build_infos

    def counted(*args: Any) -> Any:
        builds.append(1)
        return build(*args)

    monkeypatch.setattr(native_module, "_build_infos", counted)
    vec = WRAPPINGS[wrapping](kit.CountingNativeVecEnv(2, [3, 3], max_episode_steps=9))
    vec.reset()
    results = [vec.step([1, 0]) for _ in range(2)]
    assert builds == []
    assert [r.infos for r in results] == [
        [{"t": t, "elapsed_steps": t}, {"t": t, "elapsed_steps": t}] for t in (1, 2)
    ]
    assert results[0].infos is results[0].infos and len(builds) == 2
    done = vec.step([1, 0])  # both sub-envs finish: the infos carry their final observations
    assert all("final_observation" in info for info in done.infos)


@pytest.mark.parametrize("wrapping", list(WRAPPINGS))
def test_wrapped_native_infos_equal_wrapped_sync_infos(kit: Any, wrapping: str) -> None:
    # The same wrapper over the native counting env and over the same dynamics
    # in a SyncVecEnv: the infos agree entry by entry, read after all the steps,
    # with and without autoreset.
    for autoreset in (True, False):
        native = WRAPPINGS[wrapping](
            kit.CountingNativeVecEnv(3, [2, 3, 4], max_episode_steps=3, autoreset=autoreset)
        )
        fns = [lambda n=n: TimeLimit(kit.CountingEnv(n), 3) for n in (2, 3, 4)]
        sync = WRAPPINGS[wrapping](SyncVecEnv(fns, autoreset=autoreset))
        for vec in (native, sync):
            vec.reset(seed=0)
        native_results = [native.step([1, 0, 1]) for _ in range(5)]
        sync_results = [sync.step([1, 0, 1]) for _ in range(5)]
        for a, b in zip(native_results, sync_results, strict=True):
            np.testing.assert_allclose(a.rewards, b.rewards)
            assert len(a.infos) == len(b.infos)
            for x, y in zip(a.infos, b.infos, strict=True):
                assert set(x) == set(y)
                for key in x:
                    if key == "episode":
                        assert x[key].episode_return == y[key].episode_return
                        assert x[key].episode_length == y[key].episode_length
                    elif key == "final_observation":
                        np.testing.assert_allclose(x[key], y[key])
                    else:
                        assert x[key] == y[key], key
        native.close()
        sync.close()


@pytest.mark.parametrize("space", ["box", "dict"])
@pytest.mark.parametrize("clip", [None, 0.5])
def test_normalize_observation_batches_terminal_observations_exactly(
    kit: Any, space: str, clip: float | None
) -> None:
    # VecNormalizeObservation normalises the terminal observations of a step
    # as one batch; each must equal what normalising it alone gives.
    class OneByOne(VecNormalizeObservation):
        def final_observation(self, obs: Any) -> Any:
            return super().final_observation(obs)

    def build(cls: Any) -> Any:
        if space == "box":
            venv: Any = kit.CountingNativeVecEnv(4, [2, 2, 3, 2], random_start=True)
        else:
            venv = SyncVecEnv([kit.DictEnv for _ in range(4)])
        vec = cls(venv, clip=clip)
        vec.reset(seed=3)
        return vec

    batched, single = build(VecNormalizeObservation), build(OneByOne)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(8):
        if space == "box":
            actions: Any = rng.integers(0, 3, size=4)
        else:
            actions = {
                "move": rng.uniform(-1, 1, (4, 2)).astype(np.float32),
                "mode": rng.integers(2, 4, size=4),
            }
        a, b = batched.step(actions), single.step(actions)
        for x, y in zip(a.infos, b.infos, strict=True):
            if "final_observation" in x:
                finished += 1
                fx, fy = x["final_observation"], y["final_observation"]
                if space == "box":
                    np.testing.assert_array_equal(fx, fy)
                else:
                    assert set(fx) == set(fy)
                    for key in fx:
                        np.testing.assert_array_equal(fx[key], fy[key])
    assert finished >= 4


def test_episode_statistics_reach_a_tracker_through_its_hooks(make_vec: Any) -> None:
    class Hooks:  # sekai 0.2's tracker protocol, without record()
        def __init__(self) -> None:
            self.calls: list[tuple[str, object]] = []

        def on_reset(self, env_id: str | None, seed: int | None) -> None:
            self.calls.append(("reset", env_id))

        def on_step(self, *args: object) -> None:
            self.calls.append(("step", None))

        def on_episode_end(self, stats: EpisodeStats) -> None:
            self.calls.append(("end", stats.episode_length))

        def summary(self) -> dict[str, float]:
            return {}

    tracker = Hooks()
    vec = VecRecordEpisodeStatistics(make_vec((1, 3), autoreset=False), tracker=tracker)
    vec.reset()
    assert tracker.calls == [("reset", "0"), ("reset", "1")]
    for _ in range(3):
        vec.step([1, 1])
    # Episodes end at steps 1 and 3; frozen sub-envs start no new episode.
    assert tracker.calls[2:] == [("end", 1), ("end", 3)]
