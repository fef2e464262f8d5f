"""`VecEnvContract`: the VecEnv contract as a pytest test class (``sekai.testing``).

A backend author subclasses it, names the subclass ``Test...`` and implements
`VecEnvContract.make_vec_env`; pytest then runs every test below
against the backend. The tests build vector envs of the kit's reference
env (`sekai.vector._contract_envs.CountingEnv`), whose observations
reveal step counts, seeds and actions, and check results exactly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from sekai.error import (
    AsyncCallPending,
    InvalidAction,
    NothingInFlight,
    ResetRequired,
    VecEnvClosed,
)
from sekai.spaces import Box, MultiDiscrete
from sekai.utils.seeding import make_seed_sequence
from sekai.vector._contract_envs import (
    OBSERVATION_SPACE,
    CountingEnv,
    close_log_path,
    counting_fns,
)
from sekai.vector.results import VecResetResult, VecStepResult
from sekai.vector.vec_env import VecEnv

__all__ = ["VecEnvContract"]


def _expect(condition: bool, message: str) -> None:
    """Fail with ``message`` unless ``condition`` (an assert that ``python -O`` keeps)."""
    if not condition:
        raise AssertionError(message)


def _equal(actual: Any, expected: Any, what: str) -> None:
    np.testing.assert_array_equal(actual, expected, err_msg=what)


def _single_starts(seeds: Sequence[int | None], random_start: bool = True) -> list[float]:
    """The start each reference env reset with ``seeds[i]`` draws (the expected observations)."""
    return [
        float(CountingEnv(random_start=random_start).reset(seed=seed).observation[0])
        for seed in seeds
    ]


def _continued_starts(seeds: Sequence[int]) -> list[float]:
    """The start each reference env draws from ``reset()`` after ``reset(seed=seeds[i])``."""
    starts = []
    for seed in seeds:
        env = CountingEnv(random_start=True)
        env.reset(seed=seed)
        starts.append(float(env.reset().observation[0]))
    return starts


def _check_batch(vec: VecEnv[Any, Any], result: Any, what: str, rows: int | None = None) -> None:
    """The types, dtypes and shapes of a reset or step result of ``rows`` sub-envs.

    Observations have the dtype of ``batch_observation_space`` and its shape
    (``rows`` rows instead of ``num_envs`` for a partial batch); a step's
    rewards are float64 and its flags bool, of shape ``(rows,)``; infos are a
    list of ``rows`` dicts.
    """
    n = vec.num_envs if rows is None else rows
    space = vec.batch_observation_space
    expected_shape = (n, *space.shape[1:]) if space.shape is not None else None
    observations = result.observations
    _expect(
        isinstance(observations, np.ndarray)
        and observations.dtype == space.dtype
        and observations.shape == expected_shape,
        f"{what}: observations: expected a {space.dtype} array of shape {expected_shape} "
        f"(batch_observation_space {space!r}), got "
        + (
            f"a {observations.dtype} array of shape {observations.shape}"
            if isinstance(observations, np.ndarray)
            else repr(observations)
        ),
    )
    if isinstance(result, VecStepResult):
        for name, dtype in (
            ("rewards", np.float64),
            ("terminated", np.bool_),
            ("truncated", np.bool_),
        ):
            value = getattr(result, name)
            _expect(
                isinstance(value, np.ndarray) and value.dtype == dtype and value.shape == (n,),
                f"{what}: {name}: expected a {np.dtype(dtype)} array of shape ({n},), got "
                + (
                    f"a {value.dtype} array of shape {value.shape}"
                    if isinstance(value, np.ndarray)
                    else repr(value)
                ),
            )
    infos = result.infos
    _expect(
        isinstance(infos, list) and len(infos) == n and all(isinstance(i, dict) for i in infos),
        f"{what}: infos: expected a list of {n} dicts, got {infos!r}",
    )


class VecEnvContract:
    """The contract of every [`VecEnv`][sekai.vector.VecEnv], as tests a backend inherits.

    Subclass it in a test module, name the subclass ``Test<Something>`` (pytest
    collects classes whose name starts with ``Test``; this base's name does
    not, so it is not collected itself) and implement `make_vec_env`:

    ```python
    from sekai.testing import VecEnvContract

    class TestMyVecEnv(VecEnvContract):
        supports_partial_batches = True

        def make_vec_env(self, env_fns, **kwargs):
            return MyVecEnv(env_fns, **kwargs)
    ```

    The tests cover the spaces (single and batched), the results' types,
    dtypes and shapes, fresh observation arrays, options, same-step
    autoreset with ``final_observation`` / ``final_info`` / ``reset_info``,
    truncation, freezing with ``autoreset=False``, seeding (an int derives one
    seed per sub-env with
    [`make_seed_sequence`][sekai.utils.seeding.make_seed_sequence], a list gives one
    each, ``None`` continues the streams, bad seeds and options raise), the
    errors (a step before the first reset, a bad action batch rejected before
    any sub-env moves, a sub-env that raises), ``get_attr`` / ``set_attr``
    / ``call``, the async methods, closing (every sub-env closed exactly
    once; idempotent; every call after it raises
    [`VecEnvClosed`][sekai.error.VecEnvClosed]), and, when
    `supports_partial_batches` is set, ``send`` / ``recv`` with
    ``batch_size``.

    Every vector env the tests build is closed after the test. A test the
    backend cannot run is removed in the subclass by assigning ``None`` to
    its name (``test_async_methods = None``); say why next to it.
    """

    supports_partial_batches: ClassVar[bool] = False
    """Whether `make_vec_env` accepts ``batch_size`` (``send`` / ``recv`` partial batches)."""

    def make_vec_env(self, env_fns: Sequence[Callable[[], Any]], **kwargs: Any) -> VecEnv[Any, Any]:
        """Build the backend under test over ``env_fns``.

        Args:
            env_fns: One factory per sub-env (picklable `CountingEnvFn`
                objects of the kit, which also carry their parameters, so a
                native backend can build its own equivalent).
            **kwargs: ``autoreset`` (always given) and, for partial-batch
                tests, ``batch_size``.
        """
        raise NotImplementedError(
            f"{type(self).__name__} must implement make_vec_env(self, env_fns, **kwargs)"
        )

    # -- building ---------------------------------------------------------------------------

    @pytest.fixture(autouse=True)
    def _close_built_vec_envs(self) -> Iterator[None]:
        self._built: list[VecEnv[Any, Any]] = []
        yield
        for vec in self._built:
            vec.close()

    def build(
        self,
        lengths: Sequence[int] = (3, 4, 5),
        *,
        autoreset: bool = True,
        truncate_after: int | None = None,
        random_start: bool = False,
        fail_at: Sequence[int | None] | None = None,
        close_logs: Path | None = None,
        **kwargs: Any,
    ) -> VecEnv[Any, Any]:
        """A vector env of reference envs with the given episode lengths (closed after the test).

        With ``close_logs`` (a directory), sub-env ``i`` logs each of its
        closes to ``close_log_path(close_logs, i)``.
        """
        fns = counting_fns(
            lengths,
            truncate_after=truncate_after,
            random_start=random_start,
            fail_at=fail_at,
            close_logs=close_logs,
        )
        vec = self.make_vec_env(fns, autoreset=autoreset, **kwargs)
        self._built.append(vec)
        _expect(
            isinstance(vec, VecEnv),
            f"make_vec_env must return a sekai.vector.VecEnv, got {vec!r}",
        )
        return vec

    # -- spaces and results -----------------------------------------------------------------

    def test_spaces(self) -> None:
        """``observation_space`` is one sub-env's; the batch spaces have a leading axis."""
        vec = self.build((3, 4, 5, 6))
        _expect(vec.num_envs == 4, f"num_envs: expected 4, got {vec.num_envs}")
        _expect(
            vec.observation_space == OBSERVATION_SPACE,
            f"observation_space: expected the single-env space {OBSERVATION_SPACE!r}, "
            f"got {vec.observation_space!r}",
        )
        batched = Box(-1e6, 1e6, (4, 3), np.float32)
        _expect(
            vec.batch_observation_space == batched,
            f"batch_observation_space: expected {batched!r}, got {vec.batch_observation_space!r}",
        )
        _expect(
            vec.batch_action_space == MultiDiscrete([3, 3, 3, 3]),
            f"batch_action_space: expected MultiDiscrete([3, 3, 3, 3]), "
            f"got {vec.batch_action_space!r}",
        )

    def test_reset_result(self) -> None:
        """``reset`` returns a VecResetResult; a list of options gives one dict per sub-env."""
        vec = self.build()
        result = vec.reset(options=[{"start": 1.0}, None, {"start": 3.0}])
        _expect(isinstance(result, VecResetResult), f"expected a VecResetResult, got {result!r}")
        _check_batch(vec, result, "reset()")
        _equal(result.observations[:, 0], [1.0, 0.0, 3.0], "the options' starts")
        _expect(
            [info.get("start") for info in result.infos] == [1.0, 0.0, 3.0],
            f"reset infos: expected the starts 1, 0, 3, got {result.infos!r}",
        )
        _equal(result.dones, [False, False, False], "reset dones")
        again = vec.reset(options={"start": 2.0})
        _equal(again.observations[:, 0], [2.0, 2.0, 2.0], "one options dict for every sub-env")

    def test_step_result(self) -> None:
        """Rewards float64 (N,), flags bool (N,), a list of N info dicts; rows in order."""
        vec = self.build()
        vec.reset()
        result = vec.step(np.array([0, 1, 2]))
        _expect(isinstance(result, VecStepResult), f"expected a VecStepResult, got {result!r}")
        _check_batch(vec, result, "step()")
        _equal(result.rewards, [0.5, 1.5, 2.5], "rewards (action + t / 2, in sub-env order)")
        _equal(result.observations, [[0, 1, 0], [0, 1, 1], [0, 1, 2]], "observations")
        _expect(
            [info.get("t") for info in result.infos] == [1, 1, 1],
            f"step infos: expected t=1 each, got {result.infos!r}",
        )
        listed = vec.step([2, 1, 0])  # a list of actions works as well
        _check_batch(vec, listed, "step() with a list of actions")
        _equal(listed.observations[:, 2], [2, 2, 2], "totals after a list of actions")

    def test_observation_batches_are_fresh_arrays(self) -> None:
        """No batch is a view of a buffer that a later call overwrites."""
        vec = self.build()
        first = vec.reset().observations
        kept = first.copy()
        second = vec.step([1, 1, 1]).observations
        third = vec.step([1, 1, 1]).observations
        _expect(not np.shares_memory(first, second), "reset and step batches share memory")
        _expect(not np.shares_memory(second, third), "two step batches share memory")
        _equal(first, kept, "the reset batch changed after later steps")
        _equal(second[:, 1], [1, 1, 1], "the first step batch changed after a later step")

    # -- autoreset and freezing -------------------------------------------------------------

    def test_autoreset_same_step(self) -> None:
        """A finished sub-env is reset in the same step; its terminal data is in its info."""
        vec = self.build((2, 3, 5))
        vec.reset(options={"start": 7.0})
        vec.step([1, 1, 1])
        result = vec.step([2, 2, 2])
        _check_batch(vec, result, "an autoreset step")
        _equal(result.terminated, [True, False, False], "terminated")
        _equal(result.dones, [True, False, False], "dones")
        _equal(result.observations[0], [0.0, 0, 0], "the new episode's first observation")
        info = result.infos[0]
        _expect(
            {"final_observation", "final_info", "reset_info"} <= info.keys(),
            f"autoreset info of sub-env 0: expected final_observation, final_info and "
            f"reset_info, got {info!r}",
        )
        _equal(info["final_observation"], [7.0, 2, 3], "final_observation")
        _expect(info["final_info"] == {"t": 2}, f"final_info: got {info['final_info']!r}")
        _expect(info["reset_info"] == {"start": 0.0}, f"reset_info: got {info['reset_info']!r}")
        _expect(info.get("t") == 2, f"the terminal step's info keys are kept: got {info!r}")
        _expect("final_observation" not in result.infos[1], "sub-env 1 did not finish")
        _expect(result.rewards[0] == 3.0, f"the terminal reward: got {result.rewards[0]}")
        after = vec.step([1, 1, 1])
        _equal(after.observations[0], [0.0, 1, 1], "the new episode continues")
        _expect(not after.dones[0], "the new episode is not done")

    def test_truncation(self) -> None:
        """Truncated sub-envs are reported as truncated (not terminated) and autoreset."""
        vec = self.build((5, 5), truncate_after=2)
        vec.reset()
        vec.step([0, 0])
        result = vec.step([0, 0])
        _equal(result.truncated, [True, True], "truncated")
        _equal(result.terminated, [False, False], "terminated")
        _expect(
            all("final_observation" in info for info in result.infos),
            f"truncated sub-envs autoreset: got {result.infos!r}",
        )

    def test_without_autoreset_finished_sub_envs_freeze(self) -> None:
        """Frozen: final observation, reward 0, final flags, empty info; not stepped."""
        vec = self.build((1, 3), autoreset=False)
        vec.reset()
        first = vec.step([2, 1])
        _equal(first.terminated, [True, False], "terminated")
        _equal(first.observations[0], [0, 1, 2], "the terminal observation")
        _expect(first.infos[0] == {"t": 1}, f"no autoreset keys: got {first.infos[0]!r}")
        for step in (2, 3):
            result = vec.step([1, 1])
            _check_batch(vec, result, f"a step with a frozen sub-env (step {step})")
            _equal(result.observations[0], [0, 1, 2], f"frozen observation at step {step}")
            _expect(result.rewards[0] == 0.0, f"frozen reward: got {result.rewards[0]}")
            _expect(
                bool(result.terminated[0]) and not result.truncated[0],
                "a frozen sub-env keeps its final flags",
            )
            _expect(result.infos[0] == {}, f"frozen info: got {result.infos[0]!r}")
            _equal(result.observations[1], [0, step, step], "the running sub-env")
        _expect(bool(result.dones.all()), "both sub-envs are done")
        _expect(
            vec.get_attr("actions") == [[2], [1, 1, 1]],
            f"a frozen sub-env must not be stepped: actions {vec.get_attr('actions')!r}",
        )
        vec.reset()
        again = vec.step([1, 1])
        _equal(again.observations[0], [0, 1, 1], "reset() unfreezes")

    def test_frozen_truncated_flags_persist(self) -> None:
        """A frozen truncated sub-env stays truncated."""
        vec = self.build((9, 9), autoreset=False, truncate_after=1)
        vec.reset()
        vec.step([0, 0])
        result = vec.step([0, 0])
        _equal(result.truncated, [True, True], "truncated")
        _equal(result.terminated, [False, False], "terminated")

    # -- seeding ----------------------------------------------------------------------------

    def test_int_seed_derives_one_seed_per_sub_env(self) -> None:
        """``reset(seed=s)`` seeds sub-env ``i`` with ``make_seed_sequence(s, n)[i]``."""
        vec = self.build(random_start=True)
        observed = vec.reset(seed=99).observations[:, 0]
        expected = _single_starts(make_seed_sequence(99, 3))
        _equal(observed, np.asarray(expected, np.float32), "starts after reset(seed=99)")
        _expect(len(set(observed.tolist())) == 3, "sub-envs got the same seed")
        again = vec.reset(seed=99).observations[:, 0]
        _equal(again, observed, "reset(seed=99) twice")
        _expect(
            not np.array_equal(vec.reset(seed=100).observations, observed),
            "another seed gives other starts",
        )

    def test_list_of_seeds(self) -> None:
        """A list gives sub-env ``i`` seed ``i`` (``None`` continues its stream)."""
        vec = self.build(random_start=True)
        observed = vec.reset(seed=[1, 2, 3]).observations[:, 0]
        _equal(
            observed,
            np.asarray(_single_starts([1, 2, 3]), np.float32),
            "starts after seed=[1, 2, 3]",
        )
        vec.reset(seed=[1, 2, 3])
        mixed = vec.reset(seed=[1, None, 3]).observations[:, 0]
        _equal(mixed[[0, 2]], observed[[0, 2]], "the seeded entries")
        _equal(
            mixed[1],
            np.float32(_continued_starts([2])[0]),
            "a None entry continues that sub-env's stream: the start of reset() after "
            "reset(seed=2) (not a fixed seed)",
        )

    def test_seed_none_continues_the_streams(self) -> None:
        """``reset()`` without a seed continues every sub-env's stream."""
        vec = self.build(random_start=True)
        a = vec.reset(seed=5).observations
        b = vec.reset().observations
        vec.reset(seed=5)
        c = vec.reset(seed=None).observations
        _expect(not np.array_equal(a, b), "reset() after reset(seed=5) repeated the starts")
        _equal(
            b[:, 0],
            np.asarray(_continued_starts(make_seed_sequence(5, 3)), np.float32),
            "reset() after reset(seed=5): sub-env i continues the stream of its seed "
            "make_seed_sequence(5, 3)[i] (not a fixed seed)",
        )
        _equal(b, c, "reset() continues the stream of reset(seed=5) reproducibly")

    def test_seeded_runs_give_equal_results(self) -> None:
        """Two vector envs with the same seed and actions give equal results."""
        first = self.build(random_start=True)
        second = self.build(random_start=True)
        _expect(first.reset(seed=3) == second.reset(seed=3), "seeded resets differ")
        for k, actions in enumerate(([0, 1, 2], [1, 1, 1], [2, 0, 1], [0, 0, 0])):
            _expect(first.step(actions) == second.step(actions), f"step {k + 1} differs")

    @pytest.mark.parametrize(
        ("seed", "error"),
        [
            ([1, 2], ValueError),
            (np.random.default_rng(0), TypeError),
            ("42", TypeError),
            (-1, ValueError),
            ([1, -1, 2], ValueError),
            ([1, 2.5, 3], TypeError),
        ],
    )
    def test_bad_seeds_raise(self, seed: Any, error: type[Exception]) -> None:
        """Wrong length, a Generator, a string, negative ints, floats: rejected."""
        vec = self.build()
        with pytest.raises(error):
            vec.reset(seed=seed)

    @pytest.mark.parametrize(
        ("options", "error"),
        [([{}, {}], ValueError), (["x", None, None], TypeError), (3, TypeError)],
    )
    def test_bad_options_raise(self, options: Any, error: type[Exception]) -> None:
        """A list of the wrong length, entries or a value that is not a dict: rejected."""
        vec = self.build()
        with pytest.raises(error):
            vec.reset(options=options)

    # -- errors -----------------------------------------------------------------------------

    def test_step_before_reset_raises(self) -> None:
        """``step`` before the first ``reset`` raises ResetRequired."""
        vec = self.build()
        with pytest.raises(ResetRequired):
            vec.step([0, 0, 0])

    @pytest.mark.parametrize(
        "actions",
        [[0, 1], np.zeros((3, 1), dtype=np.int64), np.zeros(4, dtype=np.int64), [[0, 1], [2]]],
        ids=["short-list", "extra-axis", "long-array", "ragged"],
    )
    def test_bad_action_batch_raises_before_any_sub_env_moves(self, actions: Any) -> None:
        """A batch of the wrong shape raises ValueError naming ``(num_envs,)``; nothing moves.

        Any wording does, as long as the message names the expected shape ``(3,)``.
        """
        vec = self.build()
        vec.reset()
        with pytest.raises(ValueError, match=r"\(3,\)"):  # the expected shape, in any words
            vec.step(actions)
        _expect(
            vec.get_attr("actions") == [[], [], []],
            f"no sub-env may move: actions {vec.get_attr('actions')!r}",
        )

    def test_float_actions_for_a_discrete_space_raise_before_any_sub_env_moves(self) -> None:
        """Floats for Discrete actions raise InvalidAction; nothing moves."""
        vec = self.build()
        vec.reset()
        with pytest.raises(InvalidAction):
            vec.step(np.array([0.0, 1.0, 2.0]))
        _expect(
            vec.get_attr("actions") == [[], [], []],
            f"no sub-env may move: actions {vec.get_attr('actions')!r}",
        )
        vec.step(np.array([0, 1, 2], dtype=np.uint8))  # any integer dtype works
        _expect(
            vec.get_attr("actions") == [[0], [1], [2]],
            f"uint8 actions: got {vec.get_attr('actions')!r}",
        )

    def test_a_failing_sub_env_raises_and_reset_recovers(self) -> None:
        """A sub-env's exception reaches the caller (its message kept); ``reset`` recovers."""
        vec = self.build((5, 5, 5), fail_at=[None, 2, None])
        vec.reset(seed=0)
        vec.step([0, 0, 0])
        with pytest.raises(Exception, match="fails on purpose at step 2"):
            vec.step([1, 1, 1])
        vec.reset(seed=0)
        result = vec.step([1, 1, 1])
        _equal(result.observations[:, 1], [1, 1, 1], "after the reset every sub-env steps")

    # -- attributes, async, closing ---------------------------------------------------------

    def test_get_set_attr_and_call(self) -> None:
        """Attributes and methods of each sub-env, through ``get_attr``/``set_attr``/``call``."""
        vec = self.build((3, 4, 5))
        _expect(vec.get_attr("length") == [3, 4, 5], f"get_attr: {vec.get_attr('length')!r}")
        vec.set_attr("length", 7)
        _expect(vec.get_attr("length") == [7, 7, 7], "set_attr with one value for every sub-env")
        vec.set_attr("length", [1, 2, 3])
        _expect(vec.get_attr("length") == [1, 2, 3], "set_attr with one value per sub-env")
        vec.reset()
        result = vec.step([1, 2, 0])
        _equal(result.terminated, [True, False, False], "the new lengths are used")
        totals = vec.call("scaled_total", 10)  # sub-env 0 finished and was reset: total 0
        _expect(
            totals == [0, 20, 0],
            f"call('scaled_total', 10): expected [0, 20, 0], got {totals!r}",
        )
        with pytest.raises(AttributeError, match="no_such_name"):
            vec.get_attr("no_such_name")

    def test_async_methods(self) -> None:
        """``async_reset`` / ``async_step`` give what ``reset`` / ``step`` give."""
        vec = self.build()

        async def run() -> tuple[Any, Any]:
            reset = await vec.async_reset(options={"start": 1.0})
            step = await vec.async_step([1, 1, 1])
            return reset, step

        reset, step = asyncio.run(run())
        _equal(reset.observations[:, 0], [1.0, 1.0, 1.0], "async_reset observations")
        _equal(step.observations[:, 1:], [[1, 1]] * 3, "async_step observations")

    def test_close_is_idempotent_and_later_calls_raise(self) -> None:
        """After ``close`` (or a ``with`` block) every call raises VecEnvClosed."""
        vec = self.build()
        with vec:
            vec.reset()
        _expect(vec.closed, "the with block closed the vector env")
        vec.close()
        vec.close()
        calls: dict[str, Callable[[], Any]] = {
            "step": lambda: vec.step([0, 0, 0]),
            "reset": vec.reset,
            "get_attr": lambda: vec.get_attr("name"),
            "set_attr": lambda: vec.set_attr("name", "closed"),
            "call": lambda: vec.call("scaled_total"),
        }
        for name, call in calls.items():
            try:
                call()
            except VecEnvClosed:
                continue
            except Exception as error:
                raise AssertionError(f"{name}() after close raised {error!r}") from error
            raise AssertionError(f"{name}() after close did not raise VecEnvClosed")

    def test_close_closes_every_sub_env_once(self, tmp_path: Path) -> None:
        """``close`` closes every sub-env exactly once, also when called again."""
        vec = self.build((3, 4, 5), close_logs=tmp_path)
        vec.reset()
        vec.step([0, 1, 2])
        vec.close()
        vec.close()
        for i in range(3):
            log = close_log_path(tmp_path, i)
            closes = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
            _expect(
                len(closes) == 1,
                f"sub-env {i}: expected to be closed once by close(), closed {len(closes)} times",
            )

    # -- partial batches --------------------------------------------------------------------

    def _partial(self, lengths: Sequence[int], batch_size: int, **kwargs: Any) -> VecEnv[Any, Any]:
        if not self.supports_partial_batches:
            pytest.skip("the backend does not support partial batches (supports_partial_batches)")
        vec = self.build(lengths, batch_size=batch_size, **kwargs)
        _expect(vec.batch_size == batch_size, f"batch_size: got {vec.batch_size}")
        return vec

    def test_partial_batches_follow_the_full_batch_trajectories(self) -> None:
        """With ``send``/``recv``, every sub-env's rows are its rows under full batches."""
        lengths = (2, 3, 4, 5)
        steps = 7
        full = self.build(lengths, random_start=True)
        full.reset(seed=11)
        reference: list[list[Any]] = [[] for _ in lengths]
        for k in range(steps):
            result = full.step(np.array([(i + k) % 3 for i in range(len(lengths))]))
            for i in range(len(lengths)):
                reference[i].append(_row(result, i))
        vec = self._partial(lengths, 2, random_start=True)
        vec.reset(seed=11)
        rows: list[list[Any]] = [[] for _ in lengths]
        order = [2, 0, 3, 1]
        vec.send(np.array([i % 3 for i in order]), order)
        while True:
            result = vec.recv()
            ids = result.env_ids
            _expect(
                ids is not None and len(ids) == 2,
                f"recv() must give batch_size=2 rows with env_ids, got env_ids={ids!r}",
            )
            assert ids is not None  # noqa: S101 (for the type checker; checked above)
            _check_batch(vec, result, "recv()", rows=2)
            for k, i in enumerate(ids.tolist()):
                rows[i].append(_row(result, k))
            again = [i for i in ids.tolist() if len(rows[i]) < steps]
            if len(again) < len(ids):
                break
            vec.send(np.array([(i + len(rows[i])) % 3 for i in again]), again)
        for i, got in enumerate(rows):
            _expect(
                got == reference[i][: len(got)],
                f"sub-env {i}: partial-batch rows {got!r} differ from the full-batch rows "
                f"{reference[i][: len(got)]!r}",
            )
        _expect(sum(len(r) for r in rows) >= steps, "the partial-batch loop did not run")

    def test_partial_batches_misuse_raises(self) -> None:
        """``recv`` with too few in flight, ids twice or out of range, ``step`` while in flight."""
        vec = self._partial((3, 3, 3, 3), 2)
        with pytest.raises(ResetRequired):
            vec.send(np.zeros(4, dtype=np.int64))
        vec.reset(seed=0)
        with pytest.raises(NothingInFlight):
            vec.recv()
        vec.send(np.zeros(1, dtype=np.int64), [3])
        with pytest.raises(NothingInFlight):
            vec.recv()
        with pytest.raises(ValueError, match="not received yet"):
            vec.send(np.zeros(1, dtype=np.int64), [3])
        with pytest.raises(ValueError, match="twice"):
            vec.send(np.zeros(2, dtype=np.int64), [0, 0])
        with pytest.raises(ValueError, match=r"\[0, 4\)"):
            vec.send(np.zeros(1, dtype=np.int64), [4])
        with pytest.raises(AsyncCallPending):
            vec.step(np.zeros(4, dtype=np.int64))
        vec.send(np.zeros(3, dtype=np.int64))  # every sub-env not in flight
        received = vec.recv().env_ids.tolist() + vec.recv().env_ids.tolist()  # type: ignore[union-attr]
        _expect(sorted(received) == [0, 1, 2, 3], f"received ids: {received!r}")

    def test_partial_batches_reset_drops_what_is_in_flight(self) -> None:
        """``reset`` forgets the sub-envs in flight; a full step works after it."""
        vec = self._partial((3, 3, 3), 1)
        first = vec.reset(seed=5)
        vec.send(np.zeros(3, dtype=np.int64))
        vec.recv()
        again = vec.reset(seed=5)
        _expect(again == first, "reset(seed=5) after a partial batch differs from the first")
        result = vec.step(np.zeros(3, dtype=np.int64))
        _expect(result.num_envs == 3, f"a full step after reset: got {result.num_envs} rows")

    def test_partial_batches_freeze_finished_sub_envs(self) -> None:
        """Without autoreset, a finished sub-env received again reports its final row."""
        vec = self._partial((1, 2), 1, autoreset=False)
        vec.reset()
        vec.send(np.array([2, 1]))
        finals: dict[int, Any] = {}
        checked: set[int] = set()
        # Which sub-env comes back first is the backend's choice: receive until both
        # were seen frozen (a backend that starves one of them fails after 200 rounds).
        for _ in range(200):
            result = vec.recv()
            i = int(result.env_ids[0])  # type: ignore[index]
            if i in finals:
                checked.add(i)
                _equal(result.observations[0], finals[i], f"sub-env {i}'s frozen observation")
                _expect(result.rewards[0] == 0.0, f"sub-env {i}'s frozen reward")
                _expect(bool(result.terminated[0]), f"sub-env {i} stays terminated")
                _expect(bool(vec.frozen[i]), f"frozen[{i}] is set")
            elif result.terminated[0]:
                finals[i] = result.observations[0].copy()
            if checked == {0, 1}:
                break
            vec.send(np.ones(1, dtype=np.int64))
        _expect(
            checked == {0, 1},
            f"both sub-envs finish and come back frozen within 200 recv() calls: "
            f"finished {sorted(finals)!r}, seen frozen {sorted(checked)!r}",
        )


def _row(result: VecStepResult[Any], k: int) -> tuple[Any, ...]:
    """Row ``k`` of a result as plain comparable values."""
    info = result.infos[k]
    final = info.get("final_observation")
    return (
        result.observations[k].tolist(),
        float(result.rewards[k]),
        bool(result.terminated[k]),
        bool(result.truncated[k]),
        None if final is None else np.asarray(final).tolist(),
        info.get("t"),
    )
