"""Cost of building a StepResult, compared with a plain 5-tuple.

``StepResult`` is built on every step of every env and wrapper, so its
construction cost matters. Three constructions are timed next to the tuple:

- ``tuple``: ``(obs, reward, terminated, truncated, info)``;
- ``dataclass-default``: a ``@dataclass(frozen=True, slots=True)`` with the
  ``__init__`` the dataclass machinery generates (it assigns through
  ``object.__setattr__`` to get past the frozen guard);
- ``object.__setattr__``: a hand-written ``__init__`` doing the same;
- ``StepResult``: sekai's, which writes the slots through the slot
  descriptors directly.

Run: ``python benchmarks/bench_results.py`` (or ``nox -s bench -- results``).
"""

# No ``from __future__ import annotations``: benchmarks/run.py executes this file
# without registering it in sys.modules, where dataclasses would look up string
# annotations.
import sys
import timeit
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sekai.core import StepResult

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class DefaultInit(Generic[T]):
    observation: T
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]


_setattr = object.__setattr__


@dataclass(frozen=True, slots=True, init=False)
class SetattrInit(Generic[T]):
    observation: T
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]

    def __init__(
        self, observation: T, reward: float, terminated: bool, truncated: bool, info: dict[str, Any]
    ) -> None:
        _setattr(self, "observation", observation)
        _setattr(self, "reward", reward)
        _setattr(self, "terminated", terminated)
        _setattr(self, "truncated", truncated)
        _setattr(self, "info", info)


CANDIDATES = {
    "tuple": "(obs, 1.0, False, False, info)",
    "dataclass-default": "DefaultInit(obs, 1.0, False, False, info)",
    "object.__setattr__": "SetattrInit(obs, 1.0, False, False, info)",
    "StepResult": "StepResult(obs, 1.0, False, False, info)",
}


def measure(number: int = 200_000, repeat: int = 5) -> dict[str, float]:
    """Best-of-``repeat`` construction time of each candidate, in ns."""
    namespace = {
        "obs": object(),
        "info": {},
        "DefaultInit": DefaultInit,
        "SetattrInit": SetattrInit,
        "StepResult": StepResult,
    }
    return {
        name: min(timeit.repeat(stmt, globals=namespace, number=number, repeat=repeat))
        / number
        * 1e9
        for name, stmt in CANDIDATES.items()
    }


def main(argv: list[str]) -> None:
    """Print the construction cost of each candidate in ns."""
    quick = "--quick" in argv
    results = measure(number=20_000 if quick else 200_000, repeat=3 if quick else 5)
    baseline = results["tuple"]
    print(f"{'construction':<22}{'ns each':>10}{'x tuple':>10}")
    for name, ns in results.items():
        print(f"{name:<22}{ns:>10.1f}{ns / baseline:>10.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
