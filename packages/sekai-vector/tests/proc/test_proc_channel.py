"""The message framing under ProcVecEnv: whole messages in order, whatever their sizes."""

from __future__ import annotations

import multiprocessing
import threading
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Discrete
from sekai.vector._proc_channel import Channel


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 300_000), min_size=1, max_size=6))
def test_messages_arrive_whole_and_in_order(sizes: list[int]) -> None:
    left, right = multiprocessing.Pipe()
    sender, receiver = Channel(left), Channel(right)
    messages = [bytes([i % 251]) * size for i, size in enumerate(sizes)]

    def send_all() -> None:  # large messages block until the reader drains the pipe
        for message in messages:
            sender.send(message)

    thread = threading.Thread(target=send_all)
    thread.start()
    try:
        received = [receiver.recv() for _ in messages]
    finally:
        thread.join(timeout=10)
    assert received == messages
    assert not receiver.has_message()
    sender.close()
    receiver.close()


def test_messages_read_together_are_kept_in_the_buffer() -> None:
    left, right = multiprocessing.Pipe()
    sender, receiver = Channel(left), Channel(right)
    sender.send(b"first")
    sender.send(b"second")
    assert receiver.recv() == b"first"  # one read took both
    assert receiver.has_message()
    assert receiver.recv() == b"second"
    assert not receiver.has_message()
    sender.close()
    with pytest.raises(EOFError):
        receiver.recv()
    receiver.close()


class BigInfo(Env[Any, Any]):
    observation_space = Box(-1, 1, (2,), np.float32)
    action_space = Discrete(2)

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        return ResetResult(np.zeros(2, np.float32), {"blob": np.arange(300_000)})

    def step(self, action: Any) -> StepResult[Any]:
        return StepResult(np.zeros(2, np.float32), 0.0, False, False, {"blob": np.ones(300_000)})


def test_large_infos_cross_the_pipe(proc: Any) -> None:
    vec = proc([BigInfo] * 3, num_workers=2)
    reset = vec.reset()
    assert all(np.array_equal(info["blob"], np.arange(300_000)) for info in reset.infos)
    result = vec.step([0, 1, 0])
    assert all(info["blob"].sum() == 300_000 for info in result.infos)
