"""Which ``"module:attr"`` entry points a spec read from JSON may name.

Making a spec imports its entry points and calls them with the spec's
arguments, so a spec read from a file someone else wrote (a shared config, a
checkpoint) could run any code. `EnvSpec.from_json` therefore accepts, unless
its caller trusts the text, only entry points that are:

* those of the spec registered under the same id (every entry point of it:
  the env's, the vector one, its wrappers' and its splitters'), or
* public callables of sekai's own modules or of the package of an installed
  plugin (the package holding the loader a ``sekai.envs`` entry point names).
  Such a reference is imported to check what it resolves to: the object must
  be defined in one of those packages (so ``sekai.x:os.system`` is refused),
  and never in the registry (``sekai.registry:register`` would let a second
  spec register anything) nor in sekai's command line or private modules.

The check runs in `EnvSpec.from_json`, so the spec it returns holds only
vetted references: copies (``dataclasses.replace``, pickling, ``to_dict``)
and re-serialised specs are as safe as the original, with no mark to lose.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sekai.error import EnvNotFound, UntrustedEntryPoint
from sekai.registry import _plugins
from sekai.registry._loading import load_reference

if TYPE_CHECKING:
    from sekai.registry.env_spec import EnvSpec

__all__ = ["check_json_entry_points", "trusted_packages"]

# sekai modules whose callables are never entry points, though part of sekai:
# the registry (it registers and loads references) and the command line.
_NOT_ENTRY_POINTS = ("sekai.registry", "sekai.cli")

_OPT_IN = (
    "if the JSON comes from a source you trust, read it with "
    "EnvSpec.from_json(text, trust_entry_points=True)"
)


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


def _references(spec: EnvSpec) -> list[tuple[str, str]]:
    """Every ``"module:attr"`` string of ``spec``, with the field that holds it."""
    found = [
        (name, value)
        for name, value in (
            ("entry_point", spec.entry_point),
            ("vector_entry_point", spec.vector_entry_point),
        )
        if isinstance(value, str)
    ]
    found += [
        (f"additional_wrappers[{index}].entry_point", wrapper.entry_point)
        for index, wrapper in enumerate(spec.additional_wrappers)
    ]
    found += [
        (f"per_env_kwargs[{name!r}]", splitter)
        for name, splitter in spec.per_env_kwargs.items()
        if isinstance(splitter, str)
    ]
    return found


def _registered_references(env_id: str) -> set[str]:
    """The ``"module:attr"`` strings of the spec registered under ``env_id``, if any."""
    from sekai.registry.env_registry import current_registry  # imports this package

    try:
        registered = current_registry().spec(env_id)
    except EnvNotFound:
        return set()
    return {reference for _, reference in _references(registered)}


def check_json_entry_points(spec: EnvSpec) -> None:
    """Refuse ``spec`` (just read from JSON) if it names an entry point not trusted.

    Raises:
        sekai.error.UntrustedEntryPoint: An entry point is neither one of the
            spec registered under the same id nor a public callable of sekai
            or of an installed plugin; the message names the field, the entry
            point and how to opt in.
        ImportError, AttributeError, TypeError: A reference into sekai or a
            plugin cannot be loaded (checking it needs the object it names).
    """
    references = _references(spec)
    if not references:
        return
    registered = _registered_references(spec.id)
    packages: tuple[str, ...] | None = None
    for field, reference in references:
        if reference in registered:
            continue
        if packages is None:
            packages = trusted_packages()
        _check_reference(spec.id, field, reference, packages, registered=bool(registered))


def _check_reference(
    env_id: str, field: str, reference: str, packages: tuple[str, ...], *, registered: bool
) -> None:
    module, _, attr_path = reference.partition(":")
    where = (
        f"it is not one of the entry points registered for {env_id!r}"
        if registered
        else f"{env_id!r} is not registered"
    )

    def refuse(reason: str) -> UntrustedEntryPoint:
        return UntrustedEntryPoint(
            f"EnvSpec.from_json: {field} {reference!r} is not trusted in a spec read from "
            f"JSON: {where}, and {reason}. Making the spec would import it and call it with "
            f"the JSON's arguments, which can run any code; {_OPT_IN}, or register the "
            "environment (or install the plugin that provides it) before reading the spec",
            entry_point=reference,
            field=field,
        )

    if not _within(module, packages):
        listed = ", ".join(packages)
        raise refuse(
            f"module {module!r} belongs neither to sekai nor to an installed plugin ({listed})"
        )
    private = [part for part in (*module.split("."), *attr_path.split(".")) if part.startswith("_")]
    if private:
        raise refuse(f"it goes through the private name {private[0]!r}")
    target = load_reference(reference, f"EnvSpec.from_json: {field}")
    defined_in = getattr(target, "__module__", None)
    if not isinstance(defined_in, str) or not _within(defined_in, packages):
        raise refuse(
            f"it resolves to {target!r}, defined in {defined_in!r}, outside sekai and the "
            "installed plugins"
        )
    parts = defined_in.split(".")
    sekai_private = parts[0] == "sekai" and len(parts) > 1 and parts[1].startswith("_")
    if sekai_private or _within(defined_in, _NOT_ENTRY_POINTS):
        raise refuse(f"it resolves to {target!r} of {defined_in!r}, which is not an entry point")
