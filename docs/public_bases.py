"""Griffe extension: class bases under their public import paths.

A class page of the API reference shows the class's bases ("Bases: ...").
Griffe records each base as the source writes it, so a page would show the
module that defines a base (``sekai.core.env.Env`` for ``sekai.core.Env``) or a
private helper class (``EnvListVecEnv``, from ``sekai.vector._in_process``).

For every class of the ``sekai`` package, this extension computes the bases to
show and stores them in ``cls.extra["sekai"]["bases"]``, which
``templates/python/material/class.html.jinja`` renders:

- a base with a public path is shown under it (``sekai.core.Env``,
  ``sekai.vector.VecEnv``), and so are the names of its subscript;
- a base without one (a private class) is replaced by the bases shown for it,
  recursively: its nearest public ancestors;
- inside a subscript, a private type alias is replaced by its value, and any
  other name of the package without a public path (a type variable) is shown
  as plain text, with no link and no path.

The public path of an object is the path under which a module without a
private segment exports it (its ``__all__``, or its non-private names when it
has no ``__all__``); for an object exported by several, the
path that ends with the object's own name, then the shortest (``sekai.vector.VecEnv``
rather than ``sekai.vector.vec_env.VecEnv``), then the one closest to where it
is defined.

The bases themselves are left as they are: Griffe derives the method resolution
order and the inherited members (the constructor signature merged into the
class) from them.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterator
from typing import Any

import griffe

PACKAGE = "sekai"


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _modules(module: griffe.Module) -> Iterator[griffe.Module]:
    """The module and its submodules, recursively, except private ones."""
    yield module
    for name, submodule in module.modules.items():
        if not _private(name) and not submodule.is_alias:
            yield from _modules(submodule)


def _exported(module: griffe.Module) -> list[str]:
    """The names a module exports: its ``__all__``, or its non-private names."""
    if module.exports is not None:
        return [name if isinstance(name, str) else name.name for name in module.exports]
    return [name for name in module.members if not _private(name)]


def _rank(target: str, path: str) -> tuple[bool, int, int, str]:
    """Sort key of the candidate public paths of the object at ``target``."""
    shared = 0
    for ours, theirs in zip(path.split("."), target.split("."), strict=False):
        if ours != theirs:
            break
        shared += 1
    renamed = path.rpartition(".")[2] != target.rpartition(".")[2]
    return renamed, path.count("."), -shared, path


class PublicNames:
    """The public path of each object of a package (see the module docstring)."""

    def __init__(self, package: griffe.Module, collection: griffe.ModulesCollection) -> None:
        self.collection = collection
        candidates: dict[str, list[str]] = {}
        for module in _modules(package):
            for name in _exported(module):
                member = module.members.get(name)
                target = None if member is None else self.resolve(member.path)
                if target is not None and not target.is_module:
                    candidates.setdefault(target.path, []).append(f"{module.path}.{name}")
        self.paths = {
            target: min(paths, key=functools.partial(_rank, target))
            for target, paths in candidates.items()
        }

    def resolve(self, path: str) -> griffe.Object | None:
        """The object at ``path``, aliases followed, or None if Griffe does not know it."""
        try:
            found = self.collection.get_member(path)
            return found.final_target if found.is_alias else found  # type: ignore[no-any-return]
        except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            return None

    def public_path(self, path: str) -> str | None:
        """The public path of the object at ``path``, if it has one."""
        if path in self.paths:
            return self.paths[path]
        target = self.resolve(path)
        return None if target is None else self.paths.get(target.path)

    def publicize(self, expr: Any) -> Any:
        """A copy of ``expr`` with the names of the package under their public paths."""
        if isinstance(expr, (griffe.ExprName, griffe.ExprAttribute)):
            canonical = expr.canonical_path
            if not canonical.startswith(f"{PACKAGE}."):
                return expr
            path = self.public_path(canonical)
            if path is None:
                target = self.resolve(canonical)
                if (
                    isinstance(target, griffe.Attribute)
                    and _private(target.name)
                    and isinstance(target.value, griffe.Expr)
                    and not isinstance(target.value, griffe.ExprCall)  # a TypeVar
                ):
                    return self.publicize(target.value)  # a private type alias: its value
                return griffe.ExprName(canonical.rpartition(".")[2])  # plain text
            module, _, name = path.rpartition(".")
            return griffe.ExprName(name, parent=module)
        if not (isinstance(expr, griffe.Expr) and dataclasses.is_dataclass(expr)):
            return expr
        changes: dict[str, Any] = {}
        for field in dataclasses.fields(expr):
            value = getattr(expr, field.name)
            if isinstance(value, griffe.Expr):
                changes[field.name] = self.publicize(value)
            elif isinstance(value, (list, tuple)):
                changes[field.name] = type(value)(self.publicize(item) for item in value)
        return dataclasses.replace(expr, **changes)

    def shown_bases(
        self, cls: griffe.Class, seen: frozenset[str] = frozenset()
    ) -> list[griffe.Expr | str]:
        """The bases to show for ``cls``: public ones, private ones replaced by theirs."""
        shown: list[griffe.Expr | str] = []
        for base in cls.bases:
            head = base.left if isinstance(base, griffe.ExprSubscript) else base
            path = head if isinstance(head, str) else head.canonical_path
            if not path.startswith(f"{PACKAGE}.") or self.public_path(path) is not None:
                replacements = [self.publicize(base)]
            else:
                hidden = self.resolve(path)
                if not isinstance(hidden, griffe.Class) or hidden.path in seen:
                    continue  # nothing to show rather than a private path
                replacements = self.shown_bases(hidden, seen | {cls.path})
            for replacement in replacements:
                if str(replacement) not in {str(other) for other in shown}:
                    shown.append(replacement)
        return shown


def _classes(parent: griffe.Module | griffe.Class) -> Iterator[griffe.Class]:
    for member in parent.members.values():
        if member.is_alias:
            continue
        if isinstance(member, griffe.Class):
            yield member
            yield from _classes(member)
        elif isinstance(member, griffe.Module):
            yield from _classes(member)


class PublicBases(griffe.Extension):
    """Store the bases to show for each class of the package (see the module docstring)."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Compute the bases of every class once the whole package is loaded."""
        if pkg.name != PACKAGE:
            return
        names = PublicNames(pkg, loader.modules_collection)
        for cls in _classes(pkg):
            cls.extra[PACKAGE]["bases"] = names.shown_bases(cls)
