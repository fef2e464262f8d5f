"""Module paths of sekai 0.2 that now live elsewhere: thin re-export modules built from a table.

sekai 0.2 code imports from paths such as ``sekai.core.result`` or
``sekai.wrappers.frame_stack``, whose contents now live in other modules
(``sekai.core.results``, ``sekai.wrappers.frame_stack_observation``). Rather
than one shim file per old path, each distribution keeps one table of its old
paths; the package that owns a path calls `install` at the end of its
``__init__``, which puts one small `AliasModule` per path into
``sys.modules``. An alias module holds no code and no copy of anything: every
attribute read is forwarded to the target module, which is imported on the
first read, so installing the aliases costs no import time.

Because an alias is registered before anything imports it, importing it never
rebinds an attribute of its package: ``import sekai.registry.spec`` leaves the
function ``sekai.registry.spec`` in place (sekai 0.2 had the same name for both).
"""

from __future__ import annotations

import sys
from importlib import import_module
from importlib.machinery import ModuleSpec
from types import ModuleType

__all__ = ["CORE_ALIASES", "AliasModule", "AliasTable", "install"]

AliasTable = dict[str, dict[str, tuple[str, tuple[str, ...]]]]
"""Package -> {old submodule name: (target module, the names 0.2 code imports from it)}."""


class AliasModule(ModuleType):
    """A thin re-export module: an old import path whose attributes are read from another module.

    ``from <alias> import Name`` and ``<alias>.Name`` return the very object
    ``<target>.Name`` is (nothing is copied); ``__all__`` lists the names the
    old path offered, so ``from <alias> import *`` imports those.
    """

    def __init__(self, name: str, target: str, names: tuple[str, ...]) -> None:
        super().__init__(
            name,
            f"Thin re-export of `{target}` under sekai 0.2's path ``{name}``.\n\n"
            f"Kept so that code written for sekai 0.2 runs unchanged; new code imports "
            f"from ``{target}``. Attributes are read from that module when first used.",
        )
        self.__all__ = list(names)
        self.__package__ = name.rpartition(".")[0]
        self.__spec__ = ModuleSpec(name, None, origin=f"alias of {target}")
        self.__sekai_alias_of__ = target

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        target = import_module(self.__sekai_alias_of__)
        try:
            value = getattr(target, name)
        except AttributeError:
            raise AttributeError(
                f"module {self.__name__!r} (an alias of {self.__sekai_alias_of__!r}) has no "
                f"attribute {name!r}"
            ) from None
        if name in vars(target):
            # Later reads skip __getattr__; a name the target computes in its own module
            # __getattr__ (a deprecated one that warns, say) is asked for every time.
            setattr(self, name, value)
        return value

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self.__all__})


def install(package: str, table: AliasTable) -> None:
    """Register the alias modules of ``package`` listed in ``table``.

    Each alias is also set as an attribute of the package unless the package
    already has one of that name. Installing twice does nothing more.

    Args:
        package: The package whose old submodules to register (it must be
            imported: call this at the end of its ``__init__``).
        table: The distribution's alias table.
    """
    parent = sys.modules[package]
    namespace = vars(parent)
    for child, (target, names) in table.get(package, {}).items():
        full_name = f"{package}.{child}"
        module = sys.modules.get(full_name)
        if module is None:
            module = AliasModule(full_name, target, names)
            sys.modules[full_name] = module
        if child not in namespace:
            setattr(parent, child, module)


CORE_ALIASES: AliasTable = {
    "sekai.core": {
        "result": (
            "sekai.core.results",
            ("AgentID", "MAResetResult", "MAStepResult", "ObsType", "ResetResult", "StepResult"),
        ),
    },
    "sekai.registry": {
        "registry": (
            "sekai.registry",
            (
                "EnvRegistry",
                "all_specs",
                "deregister",
                "make",
                "make_vec",
                "pprint_registry",
                "register",
                "register_namespace",
                "spec",
            ),
        ),
        "spec": ("sekai.registry.env_spec", ("ENV_ID_RE", "EnvSpec", "WrapperSpec")),
    },
    "sekai.spaces": {
        "utils": (
            "sekai.spaces",
            (
                "batch_space",
                "concatenate",
                "flatdim",
                "flatten",
                "flatten_space",
                "iterate",
                "register_space_type",
                "space_from_jsonable",
                "unflatten",
                "zero_sample",
            ),
        ),
    },
}
"""sekai-core's old paths (``sekai.core``, ``sekai.registry``, ``sekai.spaces``)."""
