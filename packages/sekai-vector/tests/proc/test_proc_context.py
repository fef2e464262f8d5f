"""The forkserver preload patch in ``sekai.vector._proc_context`` still matches this Python.

The patch exists because, for a script run as ``python script.py``, the
multiprocessing forkserver is handed the script's path under
``init_main_from_path`` while ``forkserver.main`` reads ``main_path``, so the
main module is imported again by every worker instead of once by the server.
If this test fails, the interpreter changed that behaviour: revisit (most
likely delete) the patch.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROBE = """
import inspect, json
from multiprocessing import forkserver, spawn
print(json.dumps({
    "keys": sorted(spawn.get_preparation_data("probe")),
    "main_reads": sorted(inspect.signature(forkserver.main).parameters),
}))
"""


def test_the_forkserver_still_gets_the_main_path_under_a_key_it_does_not_read(
    tmp_path: Path,
) -> None:
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    output = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=True
    ).stdout
    probe = json.loads(output)
    assert "main_path" in probe["main_reads"]
    assert "init_main_from_path" in probe["keys"]
    assert "main_path" not in probe["keys"]
