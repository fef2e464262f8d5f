"""The README's Python example and the ``python -m rest_market`` tour run as written."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from rest_market.__main__ import main

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_example_runs_and_stops_its_server(kit: SimpleNamespace) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert len(blocks) == 1
    namespace: dict[str, object] = {}
    exec(compile(blocks[0], str(README), "exec"), namespace)
    url = namespace["url"]
    assert isinstance(url, str)
    assert not kit.accepts_connections(kit.port_of(url))


def test_the_tour_checks_full_batches_and_times_both_loops(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--envs", "6", "--batch-size", "2", "--steps", "30", "--latency-ms", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "20 steps over HTTP equal the same steps in process" in out
    assert re.search(r"partial / full: \d+\.\d\dx", out)
