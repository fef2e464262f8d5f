"""sekai 0.2's ``sekai.sekai``: the whole top-level API under a second path.

sekai 0.2's ``sekai/sekai.py`` re-exported the package (``from sekai import *``),
so code written for it imports from here: ``from sekai.sekai import Env, Box,
StepResult``. Every name of ``sekai.__all__`` is served, read from the
package when first used (the same objects, nothing copied; importing this
module loads no subpackage). New code imports from ``sekai``.
"""

from __future__ import annotations

import sekai as _sekai

# What type checkers see: the public modules whose names the package exports
# (tools/sync_exports.py's MODULES), and its subpackages.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from sekai import (
        compat as compat,
        core as core,
        envs as envs,
        error as error,
        finance as finance,
        registry as registry,
        rendering as rendering,
        spaces as spaces,
        stats as stats,
        utils as utils,
        vector as vector,
        wrappers as wrappers,
    )
    from sekai.compat import *  # noqa: F403
    from sekai.core import *  # noqa: F403
    from sekai.envs import *  # noqa: F403
    from sekai.error import *  # noqa: F403
    from sekai.registry import *  # noqa: F403
    from sekai.rendering import *  # noqa: F403
    from sekai.spaces import *  # noqa: F403
    from sekai.stats import *  # noqa: F403
    from sekai.utils import *  # noqa: F403
    from sekai.vector import *  # noqa: F403
    from sekai.wrappers import *  # noqa: F403

__all__: list[str] = list(_sekai.__all__)

if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        if name not in _sekai.__all__:
            raise AttributeError(
                f"module {__name__!r} (sekai 0.2's re-export of 'sekai') has no attribute {name!r}"
            )
        value = getattr(_sekai, name)
        globals()[name] = value  # later lookups skip __getattr__
        return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
