"""Adapters between sekai and Gymnasium / PettingZoo, in both directions.

Single environments: :func:`to_gymnasium` serves a sekai ``Env`` as a
``gymnasium.Env`` and :func:`from_gymnasium` the reverse. Vector
environments: :func:`to_gymnasium_vector` serves any sekai ``VecEnv`` as a
``gymnasium.vector.VectorEnv`` (same-step autoreset). Multi-agent
environments: :func:`to_pettingzoo` serves a sekai ``MultiAgentEnv`` as a
PettingZoo ``ParallelEnv`` and :func:`from_pettingzoo` the reverse. Spaces:
:func:`to_gymnasium_space` and :func:`from_gymnasium_space`.

Importing this package imports neither Gymnasium nor PettingZoo: each adapter
imports its peer when called, and raises ``ImportError`` naming the extra to
install (``pip install 'sekai-compat[gymnasium]'`` or
``'sekai-compat[pettingzoo]'``; with the meta-package, ``'sekai[gymnasium]'``
/ ``'sekai[pettingzoo]'``).

Module map: the public modules ``gymnasium_env``, ``gymnasium_vector``,
``gymnasium_spaces`` and ``pettingzoo_env`` hold the functions above. The
adapter classes live in private modules named after their direction
(``_to_gymnasium``, ``_from_gymnasium``, ``_to_gymnasium_vector``,
``_to_pettingzoo``, ``_from_pettingzoo``); those that subclass a Gymnasium or
PettingZoo class import it, so the functions import them only when called.
"""

from sekai.compat.gymnasium_env import from_gymnasium, to_gymnasium
from sekai.compat.gymnasium_spaces import from_gymnasium_space, to_gymnasium_space
from sekai.compat.gymnasium_vector import to_gymnasium_vector
from sekai.compat.pettingzoo_env import from_pettingzoo, to_pettingzoo

__all__ = [  # noqa: RUF022 (grouped by topic)
    # Gymnasium
    "from_gymnasium",
    "to_gymnasium",
    "to_gymnasium_vector",
    # PettingZoo
    "from_pettingzoo",
    "to_pettingzoo",
    # spaces
    "from_gymnasium_space",
    "to_gymnasium_space",
]
