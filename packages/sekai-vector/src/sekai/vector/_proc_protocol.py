"""The messages a [`ProcVecEnv`][sekai.vector.ProcVecEnv] and its worker processes exchange.

The parent sends each worker one message per command: `HEADER` (the
`Command` and a sequence number) followed by the pickled payload, if
any. The worker answers every command with one pickled
``(seq, status, payload)`` tuple: ``seq`` lets the parent recognise and drop
answers to commands it stopped waiting for (e.g. after Ctrl-C), and
``(status, payload)`` is the `Reply` of every remote worker (see
`sekai.vector._replies`).

Right after start-up, before any command, a worker sends an unsolicited reply
with sequence number 0: `Started` (or the Failure of a factory).

Step and reset answer with a `Batch` whether or not observations
travel through shared memory; the fields the worker wrote into the shared
block are ``None``.

The common step has a fixed-layout binary answer instead: when a worker
wrote everything into the shared block (observations, rewards, flags) and
no sub-env froze, it sends `STEPPED` (a zero byte and the sequence number),
followed by the pickled list of infos only when one of them is not an empty
dict. It stands for that `Batch`. A pickled answer never starts with a zero
byte (pickle protocol 2 and later start with ``0x80``), so the first byte
tells the two apart.
"""

from __future__ import annotations

import struct
from enum import IntEnum

__all__ = ["HEADER", "STEPPED", "STEPPED_TAG", "Command"]

HEADER = struct.Struct("<Bq")
"""Every command message starts with ``(command, seq)``."""

STEPPED_TAG = 0
"""The first byte of a `STEPPED` answer."""

STEPPED = struct.Struct("<Bq")
"""The start of the answer to a step whose results are in the shared block: ``(0, seq)``.

The pickled infos follow when one of them is not an empty dict."""


class Command(IntEnum):
    """What the parent asks a worker to do."""

    STEP = 1  # payload: this worker's slice of the batch of actions
    RESET = 2  # payload: (seeds, options), one entry per sub-env of the worker
    CALL = 3  # payload: (name, args, kwargs)
    GET_ATTR = 4  # payload: name
    SET_ATTR = 5  # payload: (name, one value per sub-env of the worker)
    ATTACH = 6  # payload: (shared block name, BlockLayout)
    PING = 7  # no payload: answered at once (resynchronises after an interrupt)
    CLOSE = 8  # no payload: close the sub-envs, answer, exit
    STEP_IN_BLOCK = 9  # no payload: a step whose actions are in the shared block
    STEP_SOME = 10  # payload: (local sub-env indices, one action each): a partial batch
