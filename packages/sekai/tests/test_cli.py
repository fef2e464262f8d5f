"""The ``sekai`` command."""

from __future__ import annotations

import subprocess
import sys

import pytest

from sekai._cli import main


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == "sekai 0.3.0.dev0"


def test_help_without_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: sekai")
    assert "--version" in out


def test_unknown_command_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["frobnicate"])
    assert exit_info.value.code == 2
    assert "frobnicate" in capsys.readouterr().err


def test_python_dash_m() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "sekai", "--help"], capture_output=True, text=True, check=True
    )
    assert "usage: sekai" in result.stdout
