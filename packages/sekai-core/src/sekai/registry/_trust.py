"""Which ``"module:attr"`` entry points a spec read from JSON may name.

Making a spec imports its entry points and calls them with the spec's
arguments, so a spec read from a file someone else wrote (a shared config, a
checkpoint) could run any code. `EnvSpec.from_json` therefore accepts, unless
its caller trusts the text, only entry points that are:

* used in the same role by a registered spec (any id): an ``entry_point`` of
  one, a ``vector_entry_point`` of one, a wrapper of one or a splitter of one.
  Nothing is imported for these: the registry is only asked (which runs the
  loaders of the installed plugins);
* for the env, vector and wrapper roles, a class of the right kind defined in
  sekai or in the package of an installed plugin (the package holding the
  loader a ``sekai.envs`` entry point names): a subclass of `sekai.core.Env`
  or `sekai.core.MultiAgentEnv` as the env, of ``sekai.vector.VecEnv`` as the
  vector env, of `sekai.core.Wrapper` as a wrapper. Such a reference is
  imported (its module, then the attribute) to check what it names; one
  outside those packages, or through a private name, is refused first,
  without importing it;
* for splitters, sekai's own (`_SPLITTERS`).

So a public function of sekai or of a plugin that writes files or reads URLs
(``sekai.rendering.recorder:save_npz``) is refused: only classes of the right
kind, and what registered specs already use, get called with the JSON's
arguments.

The check runs in `EnvSpec.from_json`, so the spec it returns holds only
vetted references: copies (``dataclasses.replace``, pickling, ``to_dict``)
and re-serialised specs are as safe as the original, with no mark to lose.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sekai.error import UntrustedEntryPoint
from sekai.registry import _plugins
from sekai.registry._loading import callable_name, load_reference

if TYPE_CHECKING:
    from sekai.registry.env_spec import EnvSpec

__all__ = ["check_json_entry_points", "trusted_packages"]

# The splitters sekai provides: accepted in a spec read from JSON even when no
# registered spec uses them (e.g. with sekai-finance but not sekai-envs).
_SPLITTERS = frozenset({"sekai.finance.sampling:spawn_samplers"})

_OPT_IN = (
    "if the JSON comes from a source you trust, read it with "
    "EnvSpec.from_json(text, trust_entry_points=True)"
)


@dataclass(frozen=True)
class _Role:
    """What an entry point is used as, and the classes accepted in that role."""

    description: str  # "as <description>", in messages
    bases: tuple[tuple[str, str], ...]  # (module, class name): an accepted class subclasses one


_ENV = _Role(
    "an entry_point",
    (("sekai.core", "Env"), ("sekai.core", "MultiAgentEnv")),
)
_VECTOR = _Role("a vector_entry_point", (("sekai.vector", "VecEnv"),))
_WRAPPER = _Role("a wrapper entry_point", (("sekai.core", "Wrapper"),))
_SPLITTER = _Role("a per_env_kwargs splitter", ())


def _within(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == package or module.startswith(f"{package}.") for package in packages)


def trusted_packages() -> tuple[str, ...]:
    """``"sekai"`` and the package of each installed plugin's loader, read now."""
    packages = ["sekai"]
    for entry_point in _plugins.list_entry_points(_plugins.ENTRY_POINT_GROUP):
        module = entry_point.module
        # The package holding the loader (the module itself when it is top-level).
        package = module.rpartition(".")[0] or module
        if package not in packages:
            packages.append(package)
    return tuple(packages)


def _references(spec: EnvSpec) -> list[tuple[str, _Role, str]]:
    """Every ``"module:attr"`` string of ``spec``: its field, its role, the string."""
    found = [
        (name, role, value)
        for name, role, value in (
            ("entry_point", _ENV, spec.entry_point),
            ("vector_entry_point", _VECTOR, spec.vector_entry_point),
        )
        if isinstance(value, str)
    ]
    found += [
        (f"additional_wrappers[{index}].entry_point", _WRAPPER, wrapper.entry_point)
        for index, wrapper in enumerate(spec.additional_wrappers)
    ]
    found += [
        (f"per_env_kwargs[{name!r}]", _SPLITTER, splitter)
        for name, splitter in spec.per_env_kwargs.items()
        if isinstance(splitter, str)
    ]
    return found


def _registered_references() -> set[tuple[_Role, str]]:
    """The ``"module:attr"`` strings the registered specs use, each with its role."""
    from sekai.registry.env_registry import current_registry  # imports this package

    return {
        (role, reference)
        for registered in current_registry().all_specs()
        for _, role, reference in _references(registered)
    }


def check_json_entry_points(spec: EnvSpec) -> None:
    """Refuse ``spec`` (just read from JSON) if it names an entry point not trusted.

    Raises:
        sekai.error.UntrustedEntryPoint: An entry point is neither used in
            the same role by a registered spec nor a class of the right kind
            defined in sekai or an installed plugin (nor, for a splitter, one
            of sekai's), or it names something in sekai or a plugin that
            cannot be imported; the message names the field, the entry point
            and how to opt in.
    """
    references = _references(spec)
    if not references:
        return
    registered = _registered_references()
    packages: tuple[str, ...] | None = None
    for field, role, reference in references:
        if (role, reference) in registered:
            continue
        if role is _SPLITTER:
            if reference in _SPLITTERS:
                continue
            sekai_splitters = ", ".join(sorted(_SPLITTERS))
            raise _refuse(
                field, role, reference, f"it is not one of sekai's splitters ({sekai_splitters})"
            )
        if packages is None:
            packages = trusted_packages()
        _check_class(field, role, reference, packages)


def _refuse(field: str, role: _Role, reference: str, reason: str) -> UntrustedEntryPoint:
    return UntrustedEntryPoint(
        f"EnvSpec.from_json: {field} {reference!r} is not trusted in a spec read from JSON: "
        f"no registered spec uses it as {role.description}, and {reason}. Making the spec "
        f"would import it and call it with the JSON's arguments, which can run any code; "
        f"{_OPT_IN}, or register the environment (or install the plugin that provides it) "
        "before reading the spec",
        entry_point=reference,
        field=field,
    )


def _check_class(field: str, role: _Role, reference: str, packages: tuple[str, ...]) -> None:
    """Refuse ``reference`` unless it names a class of ``role`` defined in ``packages``."""
    names = " or ".join(f"{module}.{name}" for module, name in role.bases)
    kinds = f"subclass of {names}"
    module, _, attr_path = reference.partition(":")
    if not _within(module, packages):
        listed = ", ".join(packages)
        raise _refuse(
            field,
            role,
            reference,
            f"module {module!r} belongs neither to sekai nor to an installed plugin ({listed})",
        )
    private = [part for part in (*module.split("."), *attr_path.split(".")) if part.startswith("_")]
    if private:
        raise _refuse(field, role, reference, f"it goes through the private name {private[0]!r}")
    try:
        target = load_reference(reference, field)
    except (ImportError, AttributeError, TypeError) as exc:
        raise _refuse(
            field, role, reference, f"it could not be loaded to check that it is a {kinds}: {exc}"
        ) from exc
    if not isinstance(target, type):
        raise _refuse(
            field,
            role,
            reference,
            f"it names {callable_name(target)}, which is not a class (expected a {kinds})",
        )
    defined_in = target.__module__
    if not _within(defined_in, packages):
        raise _refuse(
            field,
            role,
            reference,
            f"it names {target!r}, defined in {defined_in!r}, outside sekai and the installed "
            "plugins",
        )
    bases = _base_classes(role)
    if not bases:
        raise _refuse(
            field,
            role,
            reference,
            f"{names} cannot be imported, so nothing can be checked against it",
        )
    if not issubclass(target, bases):
        raise _refuse(field, role, reference, f"{target!r} is not a {kinds}")


def _base_classes(role: _Role) -> tuple[type, ...]:
    """The classes of ``role`` that can be imported (sekai.vector may be absent)."""
    found: list[type] = []
    for module, name in role.bases:
        try:
            base = getattr(importlib.import_module(module), name)
        except ImportError:
            continue  # e.g. sekai-vector is not installed: it has no classes to accept
        found.append(base)
    return tuple(found)
