"""sekai.compat imports without its peers; adapters name the extra to install."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

import sekai.compat as compat
from sekai.compat import (
    from_gymnasium,
    from_gymnasium_space,
    from_pettingzoo,
    to_gymnasium,
    to_gymnasium_space,
    to_gymnasium_vector,
    to_pettingzoo,
)


@pytest.mark.parametrize(
    ("name", "peer"), [("SekaiToGymnasium", "gymnasium"), ("SekaiToPettingZoo", "pettingzoo")]
)
def test_peer_subclasses_load_on_access_and_name_the_extra(
    name: str, peer: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(vars(compat), name, raising=False)
    monkeypatch.setitem(sys.modules, peer, None)
    with pytest.raises(ImportError, match=rf"install the sekai-compat\[{peer}\] distribution"):
        getattr(compat, name)


def test_importing_compat_loads_neither_peer() -> None:
    code = (
        "import sys, sekai.compat; "
        "loaded = [m for m in ('gymnasium', 'pettingzoo') if m in sys.modules]; "
        "print(loaded)"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert completed.stdout.strip() == "[]"


def test_all_lists_the_adapters() -> None:
    assert sorted(compat.__all__) == sorted(
        [
            "from_gymnasium",
            "from_gymnasium_space",
            "from_pettingzoo",
            "to_gymnasium",
            "to_gymnasium_space",
            "to_gymnasium_vector",
            "to_pettingzoo",
            # sekai 0.2's names: the adapter classes and the space converters
            "GymnasiumRenderer",
            "GymnasiumToSekai",
            "PettingZooToSekai",
            "SekaiToGymnasium",
            "SekaiToPettingZoo",
            "space_from_gymnasium",
            "space_to_gymnasium",
        ]
    )


GYMNASIUM_ADAPTERS: list[Callable[[], Any]] = [
    lambda: to_gymnasium(object()),  # type: ignore[arg-type]
    lambda: from_gymnasium(object()),
    lambda: to_gymnasium_vector(object()),  # type: ignore[arg-type]
    lambda: to_gymnasium_space(object()),  # type: ignore[arg-type]
    lambda: from_gymnasium_space(object()),
    lambda: compat.space_to_gymnasium(object()),  # type: ignore[arg-type]
    lambda: compat.space_from_gymnasium(object()),
]


@pytest.mark.parametrize("call", GYMNASIUM_ADAPTERS)
def test_gymnasium_adapters_name_the_extra(
    call: Callable[[], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "gymnasium", None)
    with pytest.raises(
        ImportError, match=r"install the sekai-compat\[gymnasium\] distribution"
    ) as info:
        call()
    assert "sekai[gymnasium]" in str(info.value)
    assert "`pip install gymnasium`" in str(info.value)


@pytest.mark.parametrize(
    "call",
    [lambda: to_pettingzoo(object()), lambda: from_pettingzoo(object())],  # type: ignore[arg-type]
)
def test_pettingzoo_adapters_name_the_extra(
    call: Callable[[], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pettingzoo", None)
    with pytest.raises(
        ImportError, match=r"install the sekai-compat\[pettingzoo\] distribution"
    ) as info:
        call()
    assert "`pip install pettingzoo`" in str(info.value)
