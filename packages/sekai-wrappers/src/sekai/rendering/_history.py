"""The values a dashboard records, one row per step (private)."""

from __future__ import annotations

import contextlib
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["History", "snapshot"]


def snapshot(value: Any) -> Any:
    """What the history keeps of a value: numbers as Python numbers, array-likes as float arrays.

    Arrays are copied, which protects the history from envs that update their
    arrays in place. Other values (objects, strings, bools) are kept as they are.
    """
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, (np.ndarray, list, tuple)):
        try:
            return np.array(value, dtype=np.float64)
        except (TypeError, ValueError):
            return value
    return value


class History:
    """The values a dashboard recorded, one row per step, and this frame's context values."""

    def __init__(self) -> None:
        self.steps: list[float] = []
        self.columns: dict[str, list[Any]] = {}
        self.context: dict[str, Any] = {}
        self.first: dict[str, Any] = {}  # the first value of each key since the last clear
        self.version = 0
        # Per key: how many rows are converted, and the float array of them.
        self._arrays: dict[str, tuple[int, NDArray[np.float64]]] = {}
        self._steps: tuple[int, NDArray[np.float64]] = (-1, np.zeros(0))

    def __len__(self) -> int:
        return len(self.steps)

    def clear(self) -> None:
        """Forget every row."""
        self.steps = []
        self.columns = {}
        self.context = {}
        self.first = {}
        self.version += 1
        self._arrays = {}

    def record(self, step: float, row: Mapping[str, Any]) -> None:
        """Add a row at ``step``.

        A step below the last one starts a new history; an equal one replaces the last row.
        """
        steps = self.steps
        if steps and step < steps[-1]:
            self.clear()
            steps = self.steps
        replace = bool(steps) and step == steps[-1]
        if replace:  # the last row changes: forget its conversion
            kept = len(steps) - 1
            for key, (rows, array) in self._arrays.items():
                if rows > kept:
                    self._arrays[key] = (kept, array[:kept])
        else:
            steps.append(step)
        n = len(steps)
        first = self.first
        for key, value in row.items():
            if value is not None and key not in first:
                first[key] = value
            column = self.columns.get(key)
            if column is None:
                column = self.columns[key] = [None] * (n - 1)
                column.append(value)
            elif replace:
                column[-1] = value
            else:
                column.append(value)
        for column in self.columns.values():  # keys missing from this row
            if len(column) < n:
                column.append(None)
        self.version += 1

    def trim(self, window: int) -> None:
        """Drop the rows older than ``window`` steps before the last one."""
        if not self.steps:
            return
        oldest = self.steps[-1] - window
        cut = 0
        while cut < len(self.steps) and self.steps[cut] < oldest:
            cut += 1
        if cut:
            del self.steps[:cut]
            for column in self.columns.values():
                del column[:cut]
            for key, (rows, array) in self._arrays.items():
                self._arrays[key] = (max(0, rows - cut), array[cut:])
            self.version += 1

    def step_array(self) -> NDArray[np.float64]:
        """The steps as a float array (cached until the history changes)."""
        version, array = self._steps
        if version != self.version:
            array = np.asarray(self.steps, dtype=np.float64)
            self._steps = (self.version, array)
        return array

    def values(self, key: str) -> NDArray[np.float64]:
        """A column as floats: ``(T,)`` for numbers, ``(T, n)`` for vectors (NaN where missing).

        Rows are converted once: each frame converts only the rows recorded
        since the last call. The array is read-only.
        """
        column = self.columns.get(key)
        if column is None:
            raise KeyError(key)
        rows, array = self._arrays.get(key, (0, None))
        if array is not None and rows == len(column):
            return array
        new = _to_float_array(column[rows:])
        if array is None or rows == 0:
            array = new
        elif array.ndim == new.ndim and array.shape[1:] == new.shape[1:]:
            array = np.concatenate((array, new))
        else:  # the vectors changed length: convert everything again
            array = _to_float_array(column)
        array.flags.writeable = False
        self._arrays[key] = (len(column), array)
        return array


def _to_float_array(column: list[Any]) -> NDArray[np.float64]:
    width = 0
    vector = False
    for value in column:
        if isinstance(value, np.ndarray) and value.ndim >= 1:
            vector = True
            width = max(width, value.size)
    if not vector:
        out = np.full(len(column), np.nan)
        for i, value in enumerate(column):
            if value is not None and not isinstance(value, str):
                with contextlib.suppress(TypeError, ValueError):
                    out[i] = float(value)
        return out
    out = np.full((len(column), width), np.nan)
    for i, value in enumerate(column):
        if isinstance(value, np.ndarray):
            flat = value.ravel()
            out[i, : flat.size] = flat
        elif isinstance(value, (int, float)):
            out[i, :] = value
    return out
