"""Internal helpers shared by sekai's own distributions (not public API).

`sekai._internal` is shipped by sekai-core so that the other sekai distributions
(sekai-wrappers, sekai-vector, sekai-finance, sekai-envs, sekai-compat and the
``sekai`` meta-package) can share one implementation of the things they all
need, such as the argument checks of `sekai._internal.validation`.

It is not part of sekai's public API: names here may change or disappear
between any two releases, without deprecation. Only distributions released
from this repository, which pin a matching sekai-core, may import it. Plugins
and user code must not: they should use the public modules (`sekai.core`,
`sekai.spaces`, `sekai.registry`, ...) and write their own checks.

This package imports nothing; each submodule imports only what it needs
(`sekai._internal.validation` uses the standard library alone, so that
`sekai.registry` stays free of numpy until an environment is made).
"""
