"""sekai-compat's table of sekai 0.2 module paths (installed by `sekai._aliases`).

sekai 0.2 defined its adapter classes in ``sekai.compat._gymnasium`` and
``sekai.compat._pettingzoo``; both paths are thin re-exports of
`sekai.compat`, which loads the classes that need a peer library on first
use.
"""

from __future__ import annotations

from sekai._aliases import AliasTable

__all__ = ["COMPAT_ALIASES"]

COMPAT_ALIASES: AliasTable = {
    "sekai.compat": {
        "_gymnasium": (
            "sekai.compat",
            ("GymnasiumRenderer", "GymnasiumToSekai", "SekaiToGymnasium"),
        ),
        "_pettingzoo": ("sekai.compat", ("PettingZooToSekai", "SekaiToPettingZoo")),
    },
}
"""Old module name under ``sekai.compat`` -> (module now, the names it held)."""
