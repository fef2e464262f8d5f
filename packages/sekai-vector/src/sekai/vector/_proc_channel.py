"""Length-prefixed messages over one end of a `multiprocessing.Pipe`.

On POSIX the bytes go straight through ``os.write`` / ``os.read`` on the
pipe's file descriptor, with an 8-byte length prefix, which costs about half
of what `multiprocessing.connection.Connection`'s own framing does per
message (this is on the path of every step). Several messages read at once are
kept in a buffer: `Channel.has_message` tells whether one is already
waiting there, since the descriptor then looks idle. Elsewhere (Windows) the
Connection's own ``send_bytes`` / ``recv_bytes`` are used.
"""

from __future__ import annotations

import os
import struct
from typing import Any

__all__ = ["Channel"]

_HEADER = struct.Struct("<Q")
_HEADER_SIZE = _HEADER.size
_CHUNK = 1 << 16
_POSIX = os.name == "posix"


class Channel:
    """Send and receive whole messages (``bytes``) over a pipe end.

    Attributes:
        conn: The underlying connection (kept open until `close`).
        fd: Its file descriptor (POSIX), else None.
    """

    __slots__ = ("buffer", "conn", "fd")

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.fd: int | None = conn.fileno() if _POSIX else None
        self.buffer = b""

    def send(self, data: bytes) -> None:
        """Send one message (blocks until it is written)."""
        fd = self.fd
        if fd is None:  # pragma: no cover - Windows
            self.conn.send_bytes(data)
            return
        message = memoryview(_HEADER.pack(len(data)) + data)
        written = os.write(fd, message)
        while written < len(message):  # a large message: the pipe takes it in parts
            written += os.write(fd, message[written:])

    def has_message(self) -> bool:
        """Whether a whole message is already buffered (so `recv` will not block)."""
        buffer = self.buffer
        return (
            len(buffer) >= _HEADER_SIZE
            and len(buffer) >= _HEADER_SIZE + _HEADER.unpack_from(buffer)[0]
        )

    def recv(self) -> bytes:
        """Receive one message, blocking until it has arrived.

        Raises:
            EOFError: The other end is closed.
        """
        fd = self.fd
        if fd is None:  # pragma: no cover - Windows
            data: bytes = self.conn.recv_bytes()
            return data
        buffer = self.buffer
        if not buffer:
            # The common case: one read returns exactly one whole message.
            chunk = os.read(fd, _CHUNK)
            if not chunk:
                raise EOFError("the other end of the pipe is closed")
            if len(chunk) >= _HEADER_SIZE:
                end = _HEADER_SIZE + _HEADER.unpack_from(chunk)[0]
                if len(chunk) == end:
                    return chunk[_HEADER_SIZE:]
            buffer = chunk
        pending = bytearray(buffer)  # grows in amortised constant time per read
        while True:
            if len(pending) >= _HEADER_SIZE:
                end = _HEADER_SIZE + _HEADER.unpack_from(pending)[0]
                if len(pending) >= end:
                    self.buffer = bytes(pending[end:])
                    return bytes(pending[_HEADER_SIZE:end])
                wanted = max(_CHUNK, end - len(pending))
            else:
                wanted = _CHUNK
            self.buffer = bytes(pending)  # kept if the read below is interrupted
            chunk = os.read(fd, wanted)
            if not chunk:
                raise EOFError("the other end of the pipe is closed")
            pending += chunk

    def close(self) -> None:
        """Close the underlying connection."""
        self.buffer = b""
        self.conn.close()
