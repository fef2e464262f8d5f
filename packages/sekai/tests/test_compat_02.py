"""sekai 0.2 compatibility of the ``sekai`` command: the ``sekai.cli`` module path."""

from __future__ import annotations

import argparse
import inspect
import subprocess
import sys

import pytest


def test_sekai_cli_offers_build_parser_and_main() -> None:
    import sekai._cli
    import sekai.cli

    assert sekai.cli.__all__ == ["build_parser", "main"]
    assert sekai.cli.main is sekai._cli.main
    assert sekai.cli.build_parser is sekai._cli.build_parser
    assert "Thin re-export" in (sekai.cli.__doc__ or "")
    assert list(inspect.signature(sekai.cli.main).parameters) == ["argv"]
    parser = sekai.cli.build_parser()
    assert isinstance(parser, argparse.ArgumentParser) and parser.prog == "sekai"


def test_main_runs_a_command_and_returns_its_status(capsys: pytest.CaptureFixture[str]) -> None:
    from sekai.cli import main

    assert main([]) == 2  # no command: the help on stderr, a usage error
    assert "list" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith("sekai ")


def test_python_dash_m_sekai_goes_through_sekai_cli() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "sekai", "--version"], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0 and completed.stdout.startswith("sekai ")


def test_the_empty_sekai_sekai_module_of_0_2_imports() -> None:
    # sekai 0.2 shipped ``sekai.sekai`` with no public names; importing it must not fail.
    import sekai.sekai

    assert sekai.sekai.__all__ == []
