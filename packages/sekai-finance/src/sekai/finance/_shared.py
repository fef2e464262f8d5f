"""One read-only block of memory shared between processes (private).

[`MarketData.share()`][sekai.finance.data.MarketData.share] copies its
arrays once into a `SharedBlock`; pickling the data then sends a handle
(the block's name and size, and where each array lies in it) instead of the
bytes, and the receiving process maps the same pages.

The block is a POSIX shared-memory segment (``/dev/shm/sekai_data_<pid>_<random>``
on Linux) created with `multiprocessing.shared_memory.SharedMemory`, so the
resource tracker
of the creating process removes it even if that process is killed. Where the
segment is visible as a file (``/dev/shm`` on Linux) every process, the
creator included, maps it read-only once it is filled: writing to an array
over it raises, at the level of the operating system. Elsewhere the creator
keeps its writable mapping, and the arrays are flagged read-only.

Ownership: the process that created a block owns it. The segment's name is
removed when the owner calls `SharedBlock.close` or when the block is
garbage collected (at the latest when the interpreter exits); after that no
process can attach to it, and the kernel frees the memory once the last
mapping of it is gone. Processes that attached never remove it.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import secrets
import weakref
from collections.abc import Sequence
from multiprocessing import shared_memory
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

__all__ = ["PREFIX", "BlockArray", "SharedBlock", "attach"]

PREFIX = "sekai_data_"

_DEV_SHM = "/dev/shm"
_ALIGN = 64  # every array starts on a cache line


class BlockArray(NamedTuple):
    """Where one array lies in a block: what a pickled shared array is made of."""

    block: SharedBlock
    offset: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: str

    def load(self) -> NDArray[Any]:
        """The array, mapped from the block (read-only)."""
        return self.block.array(self.offset, self.shape, np.dtype(self.dtype), self.strides)


# Every block this process created or attached to, by name: unpickling many
# pieces of one dataset in a worker maps the segment once.
_BLOCKS: weakref.WeakValueDictionary[str, SharedBlock] = weakref.WeakValueDictionary()


def _segment_path(name: str) -> str | None:
    path = os.path.join(_DEV_SHM, name)
    return path if os.path.isdir(_DEV_SHM) else None


def _map_readonly(path: str, size: int) -> mmap.mmap:
    fd = os.open(path, os.O_RDONLY)
    try:
        return mmap.mmap(fd, size, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ)
    finally:
        os.close(fd)


def _release(segment: shared_memory.SharedMemory, owner_pid: int) -> None:
    """Remove the segment's name (in the owner process only; a forked child never does)."""
    if os.getpid() != owner_pid:
        return
    with contextlib.suppress(FileNotFoundError):  # removed behind our back
        segment.unlink()


def _new_segment(size: int) -> shared_memory.SharedMemory:
    """A new segment named ``sekai_data_<pid>_<random>``, so it is easy to tell apart."""
    while True:
        name = f"{PREFIX}{os.getpid()}_{secrets.token_hex(4)}"
        try:
            return shared_memory.SharedMemory(name=name, create=True, size=size)
        except FileExistsError:  # pragma: no cover - 32 random bits collided
            continue


def _layout(arrays: Sequence[NDArray[Any]]) -> tuple[list[int], int]:
    offsets, size = [], 0
    for array in arrays:
        offsets.append(size)
        size += -(-array.nbytes // _ALIGN) * _ALIGN
    return offsets, max(size, _ALIGN)


class SharedBlock:
    """A read-only block of shared memory holding arrays (see the module docstring).

    Attributes:
        name: The segment's name, what other processes attach to.
        size: Its size in bytes.
        owner: Whether this process created it (and removes it).
    """

    __slots__ = ("__weakref__", "_address", "_buffer", "_finalizer", "name", "owner", "size")

    def __init__(self, name: str, size: int, buffer: Any) -> None:
        self.name = name
        self.size = size
        self.owner = False
        self._buffer = buffer
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._address = int(np.frombuffer(buffer, np.uint8, count=1).ctypes.data)
        _BLOCKS[name] = self

    @classmethod
    def create(cls, arrays: Sequence[NDArray[Any]]) -> tuple[SharedBlock, list[NDArray[Any]]]:
        """Copy ``arrays`` into a new block owned by this process.

        Returns:
            The block and, in the order given, read-only arrays over it equal to
            ``arrays``.

        Raises:
            OSError: The shared-memory filesystem lacks the room (checked before
                writing: running out while writing would kill the process).
        """
        offsets, size = _layout(arrays)
        if os.path.isdir(_DEV_SHM):
            stats = os.statvfs(_DEV_SHM)
            free = stats.f_bavail * stats.f_frsize
            if free < size:
                raise OSError(
                    f"sharing market data needs {size:,} bytes of shared memory, {_DEV_SHM} "
                    f"has {free:,} free"
                )
        segment = _new_segment(size)
        try:
            for array, offset in zip(arrays, offsets, strict=True):
                target: NDArray[Any] = np.ndarray(
                    array.shape, array.dtype, buffer=segment.buf, offset=offset
                )
                target[...] = array
                del target  # no export may outlive the writable mapping
            path = _segment_path(segment.name)
            if path is not None:
                buffer: Any = _map_readonly(path, size)
                segment.close()
            else:  # pragma: no cover - platforms without /dev/shm
                buffer = segment.buf
        except BaseException:
            segment.close()
            segment.unlink()
            raise
        block = cls(segment.name, size, buffer)
        block.owner = True
        block._finalizer = weakref.finalize(block, _release, segment, os.getpid())
        views = [
            block.array(offset, array.shape, array.dtype, None)
            for array, offset in zip(arrays, offsets, strict=True)
        ]
        return block, views

    @property
    def closed(self) -> bool:
        """Whether the owner removed the segment (always False where attached)."""
        return self._finalizer is not None and not self._finalizer.alive

    def close(self) -> None:
        """Remove the segment's name if this process owns it (idempotent).

        Arrays already mapped, here or in other processes, stay readable; the
        memory is freed when the last of them is gone. Where the block was
        attached, this does nothing.
        """
        if self._finalizer is not None:
            self._finalizer()

    def array(
        self,
        offset: int,
        shape: tuple[int, ...],
        dtype: np.dtype[Any],
        strides: tuple[int, ...] | None,
    ) -> NDArray[Any]:
        """A read-only array over the block."""
        view: NDArray[Any] = np.ndarray(
            shape, dtype, buffer=self._buffer, offset=offset, strides=strides
        )
        view.flags.writeable = False
        return view

    def locate(self, array: NDArray[Any]) -> BlockArray | None:
        """Where ``array`` lies in this block, or None if its memory is elsewhere."""
        if array.size == 0:
            return None
        start = int(array.ctypes.data)
        low = start + sum(
            min(0, (n - 1) * s) for n, s in zip(array.shape, array.strides, strict=True)
        )
        high = start + sum(
            max(0, (n - 1) * s) for n, s in zip(array.shape, array.strides, strict=True)
        )
        high += array.itemsize
        if low < self._address or high > self._address + self.size:
            return None
        return BlockArray(self, start - self._address, array.shape, array.strides, array.dtype.str)

    def __reduce__(self) -> tuple[Any, tuple[str, int]]:
        if self.closed:
            raise ValueError(
                f"the shared block {self.name!r} of this MarketData was closed by its owner; "
                "share() the data again to send it to other processes"
            )
        return attach, (self.name, self.size)

    def __repr__(self) -> str:
        state = "owner" if self.owner else "attached"
        return f"SharedBlock({self.name!r}, size={self.size}, {state}, closed={self.closed})"


def attach(name: str, size: int) -> SharedBlock:
    """Map the block ``name`` read-only (once per process; later calls reuse it).

    Raises:
        FileNotFoundError: The block no longer exists: its owner closed it, was
            garbage collected or exited.
    """
    block = _BLOCKS.get(name)
    if block is not None and not block.closed:
        return block
    gone = FileNotFoundError(
        f"the shared market data block {name!r} no longer exists: the process that "
        "called MarketData.share() closed it, dropped it or exited before this one attached"
    )
    if block is not None:
        raise gone
    path = _segment_path(name)
    if path is not None:
        try:
            buffer: Any = _map_readonly(path, size)
        except FileNotFoundError:
            raise gone from None
    else:  # pragma: no cover - platforms without /dev/shm
        try:
            segment = shared_memory.SharedMemory(name=name)
        except FileNotFoundError:
            raise gone from None
        buffer = segment.buf
    return SharedBlock(name, size, buffer)
