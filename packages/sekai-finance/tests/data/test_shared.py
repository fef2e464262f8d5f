"""MarketData.share(): one read-only block of shared memory for every process.

Real processes throughout: plain subprocesses that unpickle the data, the
ProcVecEnv workers of sekai-vector (when installed), and a process killed
before it could clean up.
"""

from __future__ import annotations

import gc
import json
import os
import pickle
import select
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sekai.finance._shared import PREFIX
from sekai.finance.data import MarketData

SHM = Path("/dev/shm")
pytestmark = pytest.mark.skipif(not SHM.is_dir(), reason="needs /dev/shm (Linux)")


def segments(pid: int | None = None) -> set[str]:
    """The market-data segments of a process (default: this one)."""
    prefix = f"{PREFIX}{os.getpid() if pid is None else pid}_"
    return {path.name for path in SHM.iterdir() if path.name.startswith(prefix)}


def big(n_steps: int = 20_000, n_assets: int = 50) -> MarketData:
    rng = np.random.default_rng(0)
    prices = 100 * np.exp(rng.normal(0, 0.01, (n_steps, n_assets)).cumsum(axis=0))
    prices[:100, -1] = np.nan  # listed later
    return MarketData(
        prices,
        fields={"volume": rng.integers(0, 1000, (n_steps, n_assets)).astype(float)},
        timestamps=np.arange(n_steps) * 60,
        exogenous={"rate": rng.normal(size=n_steps), "curve": rng.normal(size=(n_steps, 4))},
        warmup=10,
    )


def assert_equal(a: MarketData, b: MarketData) -> None:
    assert a.assets == b.assets and a.warmup == b.warmup and a.price_field == b.price_field
    for name in a.fields:
        np.testing.assert_array_equal(a.field(name), b.field(name))
    for name in a.exogenous:
        np.testing.assert_array_equal(a.exogenous_series(name), b.exogenous_series(name))
    np.testing.assert_array_equal(a.mask, b.mask)
    np.testing.assert_array_equal(a.timestamps, b.timestamps)


def test_share_copies_into_one_read_only_block() -> None:
    data = big()
    before = segments()
    shared = data.share()
    try:
        (name,) = segments() - before
        assert shared.is_shared and not data.is_shared and "shared" in repr(shared)
        assert_equal(shared, data)
        assert shared.share() is shared
        for array in [shared.prices, shared.mask, shared.timestamps, shared.exogenous["curve"]]:
            with pytest.raises(ValueError, match="cannot set WRITEABLE"):
                array.flags.writeable = True  # read-only for the operating system too
        assert (SHM / name).stat().st_size >= data.prices.nbytes * 2 + data.mask.nbytes
    finally:
        shared.close()
    assert segments() == before


def test_shared_data_pickles_as_a_handle() -> None:
    data = big()
    with data.share() as shared:
        blob = pickle.dumps(shared)
        assert len(blob) < 2_000 < data.prices.nbytes
        assert len(pickle.dumps(data)) > 2 * data.prices.nbytes  # unshared: by value
        restored = pickle.loads(blob)
        assert_equal(restored, shared)
        assert np.shares_memory(restored.prices, shared.prices) or restored._block is shared._block
        # pieces of shared data travel as handles too, and stay what they were
        train, test = shared.split(60 * 15_000, history=30)
        for piece in (train, test, shared[100:200], shared.between(6000, 12000)):
            blob = pickle.dumps(piece)
            assert len(blob) < 2_000
            assert_equal(pickle.loads(blob), piece)
        # what is not in the block travels by value: select() copies, new fields are new
        picked = shared.select([0, 7]).with_fields(signal=np.ones((20_000, 2)))
        assert_equal(pickle.loads(pickle.dumps(picked)), picked)
        assert picked.is_shared  # the timestamps and exogenous series still are


def test_close_removes_the_segment_and_stops_pickling() -> None:
    with big(2_000, 3).share() as shared:
        (name,) = segments()
        blob = pickle.dumps(shared[10:20])
        piece = shared[10:20]
    assert segments() == set() and not (SHM / name).exists()
    assert float(shared.prices[5, 0]) > 0  # arrays in hand stay readable
    with pytest.raises(ValueError, match="closed by its owner"):
        pickle.dumps(piece)
    with pytest.raises(FileNotFoundError, match="no longer exists"):
        pickle.loads(blob)
    shared.close()  # twice is fine
    big(100, 1).close()  # not shared: nothing to do


def test_garbage_collection_removes_the_segment() -> None:
    shared = big(2_000, 3).share()
    piece = shared.split(60 * 1_000)[1]
    del shared
    gc.collect()
    assert len(segments()) == 1  # the piece still holds the block
    del piece
    gc.collect()
    assert segments() == set()


CHILD = textwrap.dedent(
    """
    import json, os, pickle, sys
    import numpy as np
    data = pickle.loads(sys.stdin.buffer.read())
    maps = open(f"/proc/{os.getpid()}/maps").read()
    try:
        data.prices.flags.writeable = True
        writable = True
    except ValueError:
        writable = False
    again = pickle.loads(pickle.dumps(data))  # passing it on: still a handle, same mapping
    print(json.dumps({
        "sum": float(np.nansum(data.prices)),
        "volume": float(data.field("volume").sum()),
        "curve": data.exogenous_series("curve")[:3].tolist(),
        "mapped": sum(name in maps for name in sys.argv[1:]),
        "writable": writable,
        "same_block": again._block is data._block,
        "now": data.at(500).prices.latest.tolist(),
    }))
    """
)


def run_child(payload: bytes, *names: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, *names],
        input=payload,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_another_process_sees_the_same_data_without_a_copy() -> None:
    data = big()
    with data.share() as shared:
        (name,) = segments()
        report = run_child(pickle.dumps(shared[:5_000]), name)
        assert report["mapped"] == 1  # the child mapped the block...
        assert report["writable"] is False  # ...read-only
        assert report["same_block"] is True
        part = data.prices[:5_000]
        assert report["sum"] == pytest.approx(float(np.nansum(part)), rel=1e-12)
        assert report["volume"] == float(data.field("volume")[:5_000].sum())
        assert report["curve"] == data.exogenous_series("curve")[:3].tolist()
        assert report["now"] == data.prices[500].tolist()
        unshared = run_child(pickle.dumps(data[:5_000]), name)  # by value: no mapping
        assert unshared["mapped"] == 0 and unshared["sum"] == report["sum"]
    assert segments() == set()


def test_a_killed_owner_leaves_nothing_behind() -> None:
    if not hasattr(os, "pidfd_open"):
        pytest.skip("needs os.pidfd_open to wait for the resource tracker")
    code = textwrap.dedent(
        """
        import os, signal, sys
        import numpy as np
        from multiprocessing import resource_tracker
        from sekai.finance.data import MarketData
        shared = MarketData(np.ones((1000, 2))).share()
        print(os.getpid(), resource_tracker._resource_tracker._pid, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, timeout=120, check=False
    )
    assert done.returncode == -signal.SIGKILL
    owner, tracker = (int(word) for word in done.stdout.split())
    try:
        handle = os.pidfd_open(tracker)
    except ProcessLookupError:
        handle = None  # the tracker is gone already
    if handle is not None:
        try:
            ready, _, _ = select.select([handle], [], [], 60)  # readable once it exits
            assert ready, "the resource tracker did not exit"
        finally:
            os.close(handle)
    assert segments(owner) == set()


# -- ProcVecEnv workers ----------------------------------------------------------------------


def _vector() -> Any:
    pytest.importorskip("cloudpickle")
    return pytest.importorskip("sekai.vector")


@pytest.mark.parametrize("context", [None, "fork"])
def test_proc_vec_env_workers_share_one_block(context: str | None) -> None:
    vector = _vector()
    import cloudpickle

    from sekai.core import Env, ResetResult, StepResult
    from sekai.spaces import Box, Discrete

    if context == "fork" and "fork" not in __import__("multiprocessing").get_all_start_methods():
        pytest.skip("no fork on this platform")

    class DataEnv(Env[Any, Any]):
        observation_space = Box(-np.inf, np.inf, (50,), np.float64)
        action_space = Discrete(2)

        def __init__(self, data: MarketData) -> None:
            self.data = data
            self.t = data.warmup

        def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
            self.t = self.data.warmup
            return ResetResult(np.nan_to_num(self.data.at(self.t).prices.latest), {})

        def step(self, action: Any) -> StepResult[Any]:
            self.t += 1
            now = self.data.at(self.t)
            return StepResult(np.nan_to_num(now.prices.latest), 0.0, False, False, {})

        def report(self) -> tuple[int, float, int]:
            with open(f"/proc/{os.getpid()}/maps") as maps:
                mapped = sum(self.data._block.name in line for line in maps)
            return os.getpid(), float(np.nansum(self.data.prices)), mapped

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    try:
        data = big()
        expected = float(np.nansum(data.prices))
        with data.share() as shared:
            vec = vector.ProcVecEnv([lambda: DataEnv(shared)] * 4, num_workers=2, context=context)
            try:
                first = vec.reset(seed=0).observations
                np.testing.assert_array_equal(first[0], np.nan_to_num(data.prices[10]))
                vec.step(np.zeros(4, np.int64))
                reports = vec.call("report")
            finally:
                vec.close()
            assert len({pid for pid, _, _ in reports}) == 2  # two worker processes
            assert all(total == expected for _, total, _ in reports)
            assert all(mapped >= 1 for _, _, mapped in reports)  # mapped, not copied
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    assert segments() == set()
