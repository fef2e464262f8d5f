"""sekai 0.2 compatibility of the ``sekai`` command: the ``sekai.cli`` module path."""

from __future__ import annotations

import argparse
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

# The listing harness, shared by every distribution's test (tools/compat02.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))
from compat02 import ListedName, listed_problems, parameters_listing

ROOT = Path(__file__).resolve().parents[3]


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


def test_sekai_sekai_re_exports_the_whole_top_level_api() -> None:
    # sekai 0.2's sekai/sekai.py is ``from sekai import *``.
    import sekai
    import sekai.sekai

    assert sekai.sekai.__all__ == sekai.__all__
    from sekai.sekai import Box, Env, StepResult, SyncVecEnv, make, spaces

    assert (Env, Box, StepResult, SyncVecEnv, make) == (
        sekai.Env,
        sekai.Box,
        sekai.StepResult,
        sekai.SyncVecEnv,
        sekai.make,
    )
    assert spaces is sekai.spaces
    namespace: dict[str, object] = {}
    exec("from sekai.sekai import *", namespace)
    assert {name for name in namespace if name != "__builtins__"} == set(sekai.__all__)
    with pytest.raises(AttributeError, match=r"re-export of 'sekai'.*'shared'"):
        sekai.sekai.shared  # noqa: B018 (only in sekai.vector, as at the top level)


def test_importing_sekai_sekai_loads_no_subpackage() -> None:
    code = "import sys, sekai.sekai; print(sorted(m for m in sys.modules if m.startswith('sekai')))"
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert output.split() == ["['sekai',", "'sekai.sekai']"]


def test_sekai_sekai_shows_type_checkers_every_module_the_package_exports() -> None:
    # The TYPE_CHECKING star imports of sekai/sekai.py name the modules that
    # tools/sync_exports.py builds the top-level exports from.
    import sync_exports  # tools/ is on sys.path (see the top of the module)

    text = (ROOT / "packages" / "sekai" / "src" / "sekai" / "sekai.py").read_text()
    starred = set(re.findall(r"from (sekai\.\w+) import \*", text))
    assert starred == set(sync_exports.MODULES)


def test_sekai_space_utils_is_0_2_alias_of_the_space_utilities() -> None:
    import sekai.space_utils
    import sekai.spaces
    import sekai.spaces.utils

    assert sekai.space_utils.__all__ == sekai.spaces.utils.__all__
    for name in sekai.space_utils.__all__:
        assert getattr(sekai.space_utils, name) is getattr(sekai.spaces, name)
    box = sekai.spaces.Box(0.0, 1.0, (2, 3))
    assert sekai.space_utils.flatdim(box) == 6
    assert "Thin re-export" in (sekai.space_utils.__doc__ or "")


# The parameters listing of 0.2 (tools/api-0.2-parameters.md), section of the meta-package.
PARAMETERS = parameters_listing("sekai.cli")
PARAMETER_CASES = [(module, listed) for module, names in PARAMETERS.items() for listed in names]


def test_the_parameters_listing_has_the_section_of_sekai_cli() -> None:
    assert list(PARAMETERS) == ["sekai.cli"]
    assert [listed.name for _, listed in PARAMETER_CASES] == ["build_parser", "main"]


@pytest.mark.parametrize(
    ("module", "listed"), PARAMETER_CASES, ids=[f"{m}.{n.name}" for m, n in PARAMETER_CASES]
)
def test_every_function_takes_the_0_2_parameters(module: str, listed: ListedName) -> None:
    assert listed_problems(module, listed) == []
