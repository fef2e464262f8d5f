"""A space type defined outside sekai works on every vector backend once registered.

``Point`` samples are a frozen dataclass; ``register_space_type`` teaches
sekai that a batch of points is an ``(n, 2)`` float64 array. ``Walker`` uses
it as both observation and action space and checks that every action it gets
is a ``Pt``, so a backend that forgets the registration fails loudly.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable, Iterator, Sequence as SequenceABC
from dataclasses import dataclass
from typing import Any, Literal

import cloudpickle
import numpy as np
import pytest

from sekai.core import Env, ResetResult, StepResult
from sekai.error import InvalidAction
from sekai.spaces import Box, Dict, Discrete, Space, batch_space, register_space_type
from sekai.vector import (
    AsyncVecEnv,
    ProcVecEnv,
    SyncVecEnv,
    VecEnv,
    VecRecordEpisodeStatistics,
    VecTransformObservation,
)

FORK = "fork" in multiprocessing.get_all_start_methods()
cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers cannot import tests


@dataclass(frozen=True)
class Pt:
    x: float
    y: float


class Point(Space[Pt]):
    """A point of the square ``[-radius, radius]**2``."""

    def __init__(self, radius: float = 100.0) -> None:
        self.radius = float(radius)
        super().__init__()

    def sample(self, mask: Any = None) -> Pt:
        x, y = self.rng.uniform(-self.radius, self.radius, 2)
        return Pt(float(x), float(y))

    def contains(self, x: Any) -> bool:
        return isinstance(x, Pt) and max(abs(x.x), abs(x.y)) <= self.radius

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Point) and other.radius == self.radius

    __hash__ = None

    def __repr__(self) -> str:
        return f"Point({self.radius})"


def _batch_points(space: Point, n: int) -> Space[Any]:
    return Box(-space.radius, space.radius, (n, 2), np.float64)


def _concatenate_points(space: Point, items: SequenceABC[Pt], out: Any) -> Any:
    batch = np.empty((len(items), 2), np.float64) if out is None else out
    batch[:] = [(p.x, p.y) for p in items]
    return batch


def _iterate_points(space: Any, batch: Any) -> Iterator[Pt]:
    return (Pt(float(x), float(y)) for x, y in np.asarray(batch))


register_space_type(
    Point, batch_space=_batch_points, concatenate=_concatenate_points, iterate=_iterate_points
)


class Walker(Env[Pt, Pt]):
    """Starts at ``(start, 0)`` and moves by each action; ends after ``length`` steps."""

    def __init__(self, length: int = 2, start: float = 0.0) -> None:
        self.observation_space = Point(100.0)
        self.action_space = Point(1.0)
        self.length = length
        self.start = start
        self.pos = Pt(start, 0.0)
        self.t = 0

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult[Pt]:
        self._set_rng(seed)
        self.pos, self.t = Pt(self.start, 0.0), 0
        return ResetResult(self.pos, {})

    def step(self, action: Pt) -> StepResult[Pt]:
        if not isinstance(action, Pt):
            raise TypeError(f"Walker expects a Pt action, got {action!r}")
        self.pos = Pt(self.pos.x + action.x, self.pos.y + action.y)
        self.t += 1
        return StepResult(self.pos, action.x, self.t >= self.length, False, {"t": self.t})


class Bare(Space[int]):
    """A space type with no batching registered."""

    def sample(self, mask: Any = None) -> int:
        return 0

    def contains(self, x: Any) -> bool:
        return bool(x == 0)

    def __repr__(self) -> str:
        return "Bare()"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Bare)

    __hash__ = None


class BareEnv(Walker):
    def __init__(self) -> None:
        super().__init__()
        self.observation_space = Bare()  # type: ignore[assignment]


BACKENDS = ["sync", "async", "proc-1", "proc-2"]
LENGTHS = (2, 3, 2)


def _make(backend: str, lengths: SequenceABC[int] = LENGTHS, **kwargs: Any) -> VecEnv[Any, Any]:
    fns = [lambda n=n, i=i: Walker(n, start=10.0 * i) for i, n in enumerate(lengths)]
    if backend == "sync":
        return SyncVecEnv(fns, **kwargs)
    if backend == "async":
        return AsyncVecEnv(fns, **kwargs)
    kwargs.setdefault("context", "fork" if FORK else None)
    return ProcVecEnv(fns, num_workers=int(backend[-1]), **kwargs)


@pytest.fixture(params=BACKENDS)
def space_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _moves(*xs: float) -> np.ndarray[Any, Any]:
    return np.array([[x, 0.5] for x in xs])


def test_observations_batch_and_actions_split_through_the_registration(space_backend: str) -> None:
    with _make(space_backend) as vec:
        assert vec.batch_observation_space == Box(-100.0, 100.0, (3, 2), np.float64)
        assert vec.batch_action_space == batch_space(Point(1.0), 3)
        if isinstance(vec, ProcVecEnv):
            assert vec.shared_memory is False  # shared_memory=None falls back to pickling
        np.testing.assert_array_equal(vec.reset(seed=0).observations, [[0, 0], [10, 0], [20, 0]])
        result = vec.step(_moves(1.0, 0.5, -1.0))
        np.testing.assert_array_equal(result.observations, [[1, 0.5], [10.5, 0.5], [19, 0.5]])
        np.testing.assert_array_equal(result.rewards, [1.0, 0.5, -1.0])
        assert [info["t"] for info in result.infos] == [1, 1, 1]


def test_autoreset_keeps_the_final_observation_as_a_sample(space_backend: str) -> None:
    with _make(space_backend) as vec:
        vec.reset()
        vec.step(_moves(1.0, 1.0, 1.0))
        result = vec.step(_moves(1.0, 1.0, 1.0))
        np.testing.assert_array_equal(result.terminated, [True, False, True])
        np.testing.assert_array_equal(result.observations, [[0, 0], [12, 1], [20, 0]])
        assert result.infos[0]["final_observation"] == Pt(2.0, 1.0)
        assert result.infos[2]["final_observation"] == Pt(22.0, 1.0)
        assert "final_observation" not in result.infos[1]


def test_finished_sub_envs_freeze_without_autoreset(space_backend: str) -> None:
    with _make(space_backend, autoreset=False) as vec:
        vec.reset()
        vec.step(_moves(1.0, 1.0, 1.0))
        vec.step(_moves(1.0, 1.0, 1.0))
        result = vec.step(_moves(1.0, 1.0, 1.0))
        np.testing.assert_array_equal(result.observations, [[2, 1], [13, 1.5], [22, 1]])
        np.testing.assert_array_equal(result.rewards, [0.0, 1.0, 0.0])
        np.testing.assert_array_equal(result.terminated, [True, True, True])
        assert result.infos[0] == {}


def test_wrong_size_batches_of_a_registered_space_raise_invalid_action(space_backend: str) -> None:
    with _make(space_backend) as vec:
        vec.reset()
        with pytest.raises(InvalidAction, match=r"batch of 3 actions .*Point\(1.0\).*got 2"):
            vec.step(_moves(1.0, 1.0))
        np.testing.assert_array_equal(vec.step(_moves(1.0, 1.0, 1.0)).rewards, [1.0] * 3)


@pytest.mark.skipif(not FORK, reason="the registration must reach the workers")
def test_shared_memory_cannot_hold_a_registered_space() -> None:
    with pytest.raises(ValueError, match=r"shared_memory=True needs .* fixed shapes"):
        _make("proc-1", shared_memory=True)


def test_a_dict_with_a_registered_part(space_backend: str) -> None:
    class Tagged(Walker):
        def __init__(self, length: int, start: float) -> None:
            super().__init__(length, start)
            self.observation_space = Dict(pos=Point(100.0), t=Discrete(5))  # type: ignore[assignment]

        def reset(self, **kwargs: Any) -> Any:
            result = super().reset(**kwargs)
            return ResetResult({"pos": result.observation, "t": 0}, {})

        def step(self, action: Pt) -> Any:
            result = super().step(action)
            obs = {"pos": result.observation, "t": self.t}
            return StepResult(obs, result.reward, result.terminated, False, {})

    fns = [lambda: Tagged(2, 0.0), lambda: Tagged(3, 10.0)]
    if space_backend == "sync":
        vec: VecEnv[Any, Any] = SyncVecEnv(fns)
    elif space_backend == "async":
        vec = AsyncVecEnv(fns)
    else:
        workers = int(space_backend[-1])
        vec = ProcVecEnv(fns, num_workers=workers, context="fork" if FORK else None)
    with vec:
        vec.reset()
        vec.step(_moves(1.0, 1.0))
        result = vec.step(_moves(1.0, 1.0))
        np.testing.assert_array_equal(result.observations["pos"], [[0, 0], [12, 1]])
        np.testing.assert_array_equal(result.observations["t"], [0, 2])
        assert result.infos[0]["final_observation"] == {"pos": Pt(2.0, 1.0), "t": 2}


def test_vector_wrappers_see_the_batches_and_the_final_samples(space_backend: str) -> None:
    def double(batch: Any) -> Any:
        assert isinstance(batch, np.ndarray) and batch.shape[1:] == (2,)
        return 2.0 * batch

    with _make(space_backend) as vec:
        wrapped = VecTransformObservation(
            VecRecordEpisodeStatistics(vec), double, Box(-200.0, 200.0, (2,), np.float64)
        )
        np.testing.assert_array_equal(wrapped.reset().observations, [[0, 0], [20, 0], [40, 0]])
        wrapped.step(_moves(1.0, 1.0, 1.0))
        result = wrapped.step(_moves(1.0, 1.0, 1.0))
        np.testing.assert_array_equal(result.observations, [[0, 0], [24, 2], [40, 0]])
        np.testing.assert_array_equal(result.infos[0]["final_observation"], [4.0, 2.0])
        episode = result.infos[0]["episode"]
        assert (episode.episode_length, episode.episode_return) == (2, pytest.approx(2.0))


@pytest.mark.parametrize("backend_name", ["sync", "async", "proc-1"])
def test_an_unregistered_space_type_is_refused_at_construction(backend_name: str) -> None:
    fns = [BareEnv, BareEnv]
    build: Callable[[], VecEnv[Any, Any]] = {
        "sync": lambda: SyncVecEnv(fns),
        "async": lambda: AsyncVecEnv(fns),
        "proc-1": lambda: ProcVecEnv(fns, context="fork" if FORK else None, shared_memory=False),
    }[backend_name]
    with pytest.raises(TypeError, match=r"cannot be batched: Bare\(\).*register_space_type"):
        build()


# -- InvalidAction for batches of the wrong size, on every backend -------------------------------


BAD_BATCHES = [[0, 1], np.zeros((4,), np.int64), np.zeros((3, 1), np.int64), [[0, 1]] * 3]


@pytest.mark.parametrize("actions", BAD_BATCHES)
def test_wrong_size_action_batches_raise_invalid_action(make_vec: Any, actions: Any) -> None:
    vec = make_vec()  # three counting sub-envs on sync, async and native
    vec.reset()
    with pytest.raises(InvalidAction, match=r"shape \(3,\)"):
        vec.step(actions)
    vec.step(np.zeros(3, np.int64))


@pytest.mark.parametrize("actions", BAD_BATCHES)
@pytest.mark.parametrize("workers", [1, 3])
def test_wrong_size_action_batches_raise_invalid_action_on_proc(
    kit: Any, actions: Any, workers: int
) -> None:
    cloudpickle.register_pickle_by_value(sys.modules[kit.CountingEnv.__module__])
    fns = kit.counting_fns((3, 4, 5))
    context = "fork" if FORK else None
    with ProcVecEnv(fns, num_workers=workers, context=context) as vec:
        vec.reset()
        with pytest.raises(InvalidAction, match=r"shape \(3,\)"):
            vec.step(actions)
        vec.step(np.zeros(3, np.int64))


@pytest.mark.parametrize("vectorization", ["sync", "async", "proc", "native"])
@pytest.mark.parametrize("actions", BAD_BATCHES)
def test_wrong_size_cartpole_batches_raise_invalid_action(
    vectorization: Literal["sync", "async", "proc", "native"], actions: Any
) -> None:
    pytest.importorskip("sekai.envs")  # registers CartPole; absent when sekai-vector runs alone
    from sekai.registry import make_vec

    kwargs: dict[str, Any] = {"context": "fork"} if vectorization == "proc" and FORK else {}
    with make_vec("CartPole-v1", 3, vectorization_mode=vectorization, vector_kwargs=kwargs) as vec:
        vec.reset(seed=0)
        with pytest.raises(InvalidAction, match=r"shape \(3,\)"):
            vec.step(actions)
        vec.step(np.zeros(3, np.int64))
