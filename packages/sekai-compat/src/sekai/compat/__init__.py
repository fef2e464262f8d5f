"""Adapters between sekai and Gymnasium / PettingZoo, in both directions.

Single environments: `to_gymnasium` serves a sekai ``Env`` as a
``gymnasium.Env`` (`SekaiToGymnasium`) and `from_gymnasium` the
reverse (`GymnasiumToSekai`); `GymnasiumRenderer` renders such an
env the Gymnasium way. Vector environments: `to_gymnasium_vector` serves
any sekai ``VecEnv`` as a ``gymnasium.vector.VectorEnv`` (same-step autoreset).
Multi-agent environments: `to_pettingzoo` serves a sekai
``MultiAgentEnv`` as a PettingZoo ``ParallelEnv`` (`SekaiToPettingZoo`)
and `from_pettingzoo` the reverse (`PettingZooToSekai`). Spaces:
`to_gymnasium_space` and `from_gymnasium_space` (sekai 0.2's names:
`space_to_gymnasium`, `space_from_gymnasium`).

Importing this package imports neither Gymnasium nor PettingZoo: each adapter
imports its peer when called, and raises ``ImportError`` naming the
distribution and extra to install (``sekai-compat[gymnasium]`` or
``sekai-compat[pettingzoo]``; with the meta-package, ``sekai[gymnasium]`` /
``sekai[pettingzoo]``). The two classes that subclass a Gymnasium or
PettingZoo class, `SekaiToGymnasium` and `SekaiToPettingZoo`, are
loaded on first access for the same reason.

Module map: the public modules ``gymnasium_env``, ``gymnasium_vector``,
``gymnasium_spaces`` and ``pettingzoo_env`` hold the functions above. The
adapter classes live in private modules named after their direction
(``_to_gymnasium``, ``_from_gymnasium``, ``_to_gymnasium_vector``,
``_to_pettingzoo``, ``_from_pettingzoo``). sekai 0.2's private modules
``sekai.compat._gymnasium`` and ``sekai.compat._pettingzoo`` are thin
re-exports of this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sekai._aliases import install as _install_aliases
from sekai.compat._from_gymnasium import GymnasiumToSekai
from sekai.compat._from_pettingzoo import PettingZooToSekai
from sekai.compat._imports import require_gymnasium, require_pettingzoo
from sekai.compat._old_paths import COMPAT_ALIASES
from sekai.compat.gymnasium_env import GymnasiumRenderer, from_gymnasium, to_gymnasium
from sekai.compat.gymnasium_spaces import (
    from_gymnasium_space,
    space_from_gymnasium,
    space_to_gymnasium,
    to_gymnasium_space,
)
from sekai.compat.gymnasium_vector import to_gymnasium_vector
from sekai.compat.pettingzoo_env import from_pettingzoo, to_pettingzoo

__all__ = [  # noqa: RUF022 (grouped by topic)
    # Gymnasium
    "GymnasiumRenderer",
    "GymnasiumToSekai",
    "SekaiToGymnasium",
    "from_gymnasium",
    "to_gymnasium",
    "to_gymnasium_vector",
    # PettingZoo
    "PettingZooToSekai",
    "SekaiToPettingZoo",
    "from_pettingzoo",
    "to_pettingzoo",
    # spaces
    "from_gymnasium_space",
    "space_from_gymnasium",
    "space_to_gymnasium",
    "to_gymnasium_space",
]

if TYPE_CHECKING:
    from sekai.compat._to_gymnasium import SekaiToGymnasium as SekaiToGymnasium
    from sekai.compat._to_pettingzoo import SekaiToPettingZoo as SekaiToPettingZoo
else:

    def __getattr__(name: str) -> Any:
        # These two subclass a Gymnasium / PettingZoo class: import them (and
        # their peer) only when asked for, with the usual error when missing.
        if name == "SekaiToGymnasium":
            require_gymnasium()
            from sekai.compat._to_gymnasium import SekaiToGymnasium as value
        elif name == "SekaiToPettingZoo":
            require_pettingzoo()
            from sekai.compat._to_pettingzoo import SekaiToPettingZoo as value
        else:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})


_install_aliases(__name__, COMPAT_ALIASES)
