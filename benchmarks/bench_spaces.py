"""Cost of the hot space operations, side by side with Gymnasium when it is installed.

Timed per call: ``sample()``, ``contains()`` (``x in space``) and
``concatenate`` of 16 samples into a preallocated batch, for a small float Box,
an image-sized uint8 Box, a Discrete and a Dict of both kinds.

Run: ``python benchmarks/bench_spaces.py [--quick]`` (or ``nox -s bench -- spaces``).
"""

from __future__ import annotations

import sys
import timeit
from collections.abc import Callable
from typing import Any

import numpy as np

import sekai.spaces as sk

BATCH = 16


def _cases(lib: Any) -> dict[str, Any]:
    spaces = lib
    return {
        "Box(3,) float32": spaces.Box(-1.0, 1.0, (3,), dtype=np.float32),
        "Box(84,84,3) uint8": spaces.Box(0, 255, (84, 84, 3), dtype=np.uint8),
        "Discrete(10)": spaces.Discrete(10),
        "Dict(box, discrete)": spaces.Dict(
            {"box": spaces.Box(-1.0, 1.0, (8,), dtype=np.float32), "n": spaces.Discrete(4)}
        ),
    }


def _time(fn: Callable[[], Any], number: int, repeat: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def _measure(
    lib: Any, concatenate: Any, batch_space: Any, number: int, repeat: int
) -> dict[tuple[str, str], float]:
    results: dict[tuple[str, str], float] = {}
    for name, space in _cases(lib).items():
        space.seed(0)
        sample = space.sample()
        items = [space.sample() for _ in range(BATCH)]
        out = batch_space(space, BATCH).sample()
        results[(name, "sample")] = _time(space.sample, number, repeat)
        results[(name, "contains")] = _time(lambda s=space, x=sample: s.contains(x), number, repeat)
        results[(name, f"concatenate x{BATCH}")] = _time(
            lambda s=space, i=items, o=out: concatenate(s, i, o), number, repeat
        )
    return results


def main(argv: list[str]) -> None:
    """Print microseconds per call for sekai (and Gymnasium, if importable)."""
    quick = "--quick" in argv
    number, repeat = (200, 3) if quick else (2000, 5)
    columns = {"sekai": _measure(sk, sk.concatenate, sk.batch_space, number, repeat)}
    try:
        import gymnasium.spaces as gs
        from gymnasium.vector.utils import batch_space as g_batch, concatenate as g_concat
    except ImportError:
        print("(gymnasium not installed: sekai only)")
    else:
        columns["gymnasium"] = _measure(gs, g_concat, g_batch, number, repeat)
    header = f"{'space':<22}{'operation':<18}" + "".join(f"{c + ' us':>14}" for c in columns)
    print(header)
    for key in columns["sekai"]:
        row = "".join(f"{columns[c][key]:>14.2f}" for c in columns)
        print(f"{key[0]:<22}{key[1]:<18}{row}")


if __name__ == "__main__":
    main(sys.argv[1:])
