"""Check a module against sekai 0.2's API listing, encoded as data (the test harness).

Each distribution's ``tests/test_compat_02.py`` writes down its part of sekai
0.2's public API with `cls`, `func`, `constant` and `module`, and asks
`check_name` for the problems of each name: missing, an incompatible
signature (parameter names, order, keyword-only marker, defaults), a missing
member or instance attribute. One harness for every distribution; the test
modules put this folder on ``sys.path``.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
from collections.abc import Callable
from typing import Any, NamedTuple

__all__ = [
    "ANY_DEFAULT",
    "Entry",
    "Param",
    "check_name",
    "class_problems",
    "cls",
    "constant",
    "default_text",
    "func",
    "listed_problems",
    "listed_signature_problems",
    "member_problems",
    "module",
    "parse_parameters_listing",
    "parse_params",
    "signature_problems",
]

# -- the listing, encoded: a class is cls(init signature, *members, attrs=..., ...) -------------
#
# Signatures keep the names, the order, the keyword-only marker and the defaults
# (as the listing prints them; types are left out). A member is "name(params)"
# for a method, prefixed with "async ", "classmethod " or "staticmethod ", or
# "property name", "property settable name", "class_attribute name",
# "attribute name".


class Entry(NamedTuple):
    kind: str
    init: str | None = None
    members: tuple[str, ...] = ()
    attrs: str = ""
    fields: str = ""
    supports: str = ""
    abstract: str = ""


def cls(
    init: str,
    *members: str,
    attrs: str = "",
    fields: str = "",
    supports: str = "",
    abstract: str = "",
) -> Entry:
    return Entry("class", init, members, attrs, fields, supports, abstract)


def func(params: str) -> Entry:
    return Entry("function", params)


def constant() -> Entry:
    return Entry("constant")


def module() -> Entry:
    return Entry("module")


Param = tuple[str, str, "str | None"]
_MEMBER = re.compile(r"^(?:(async|classmethod|staticmethod) )?(\w+)\((.*)\)$")


def _split_params(text: str) -> list[str]:
    """Split at the commas outside brackets (a default can be a tuple: ``p=(-1.0, 0.0, 1.0)``)."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return [part.strip() for part in parts if part.strip()]


def parse_params(text: str) -> list[Param]:
    """``"a, b=1, *, c=None, **kw"`` -> ``[(name, kind, default text or None), ...]``."""
    params: list[Param] = []
    keyword_only = False
    for part in _split_params(text):
        if part == "*":
            keyword_only = True
        elif part.startswith("**"):
            params.append((part[2:], "varkw", None))
        elif part.startswith("*"):
            params.append((part[1:], "var", None))
            keyword_only = True
        else:
            name, eq, default = part.partition("=")
            params.append((name, "kw" if keyword_only else "pos", default if eq else None))
    return params


def default_text(value: Any) -> str | None:
    """A default as the listing prints it (strings unquoted, classes as ``<class mod.name>``)."""
    if value is inspect.Parameter.empty:
        return None
    if isinstance(value, type):
        return f"<class {value.__module__}.{value.__qualname__}>"
    if isinstance(value, str):
        return value
    return repr(value)


_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def signature_problems(target: Any, expected: str, *, drop_first: bool = False) -> list[str]:
    """Why ``target`` does not accept every call the expected signature accepts.

    Same parameter names, order and defaults; extra parameters are allowed only
    if they cannot be required (keyword-only or with a default, or ``*args``
    / ``**kwargs``).
    """
    wanted = parse_params(expected)
    try:
        params = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError) as error:
        return [f"no signature ({error})"]
    if drop_first and params and params[0].kind in _POSITIONAL:
        params = params[1:]
    problems = []
    by_name = {p.name: p for p in params}
    positional = [p for p in params if p.kind in _POSITIONAL]
    has_var = any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params)
    has_varkw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    wanted_positional = [w for w in wanted if w[1] == "pos"]
    for index, (name, _, default) in enumerate(wanted_positional):
        if index >= len(positional):
            if not has_var:
                problems.append(f"no positional parameter {name!r}")
            continue
        got = positional[index]
        if got.name != name:
            problems.append(f"positional parameter {index} is {got.name!r}, not {name!r}")
        elif default is not None and default_text(got.default) != default:
            problems.append(f"{name} defaults to {default_text(got.default)!r}, not {default!r}")
    for name, kind, default in wanted:
        if kind == "kw":
            found = by_name.get(name)
            if found is None:
                if not has_varkw:
                    problems.append(f"no keyword parameter {name!r}")
            elif found.kind not in (inspect.Parameter.KEYWORD_ONLY, *_POSITIONAL[1:]):
                problems.append(f"{name} cannot be passed by keyword")
            elif default is not None and default_text(found.default) != default:
                problems.append(
                    f"{name} defaults to {default_text(found.default)!r}, not {default!r}"
                )
        elif kind == "var" and not has_var:
            problems.append("no *args")
        elif kind == "varkw" and not has_varkw:
            problems.append("no **kwargs")
    for extra in positional[len(wanted_positional) :]:
        if extra.default is inspect.Parameter.empty:
            problems.append(f"extra required parameter {extra.name!r}")
    names = {w[0] for w in wanted}
    for p in params:
        required = p.default is inspect.Parameter.empty
        if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name not in names and required:
            problems.append(f"extra required keyword parameter {p.name!r}")
    return problems


def member_problems(owner: type, member: str, instance: Callable[[], Any] | None) -> list[str]:
    """Why ``owner`` lacks the member described by ``member`` (see the encoding above)."""
    match = _MEMBER.match(member)
    if match is None:
        kind, _, name = member.rpartition(" ")
        if not hasattr(owner, name):
            return [f"{name}: missing"]
        static = inspect.getattr_static(owner, name)
        if kind.startswith("property"):
            if not hasattr(static, "__get__"):
                return [f"{name}: not a property"]
            if kind.endswith("settable") and isinstance(static, property) and static.fset is None:
                return [f"{name}: property without a setter"]
        return []
    flavour, name, params = match.groups()
    if not hasattr(owner, name):
        return [f"{name}: missing"]
    static = inspect.getattr_static(owner, name)
    value = getattr(owner, name)
    drop_first = flavour in (None, "async")
    if isinstance(static, property):
        # A value that can also be called (e.g. InMemoryTracker.mean_return): check it on
        # an instance.
        if instance is None:
            return [f"{name}: a property; give the class a builder to check it on an instance"]
        value, drop_first = getattr(instance(), name), False
    if not callable(value):
        return [f"{name}: not callable"]
    problems = []
    if flavour == "async" and not inspect.iscoroutinefunction(value):
        problems.append(f"{name}: not async")
    problems += [f"{name}: {p}" for p in signature_problems(value, params, drop_first=drop_first)]
    return problems


def class_problems(owner: type, entry: Entry, instance: Callable[[], Any] | None) -> list[str]:
    problems = []
    if entry.init not in (None, "..."):
        problems += [f"constructor: {p}" for p in signature_problems(owner, entry.init)]
    for member in entry.members:
        problems += member_problems(owner, member, instance)
    if entry.fields:
        names = [f.name for f in dataclasses.fields(owner) if f.init]
        if names != entry.fields.split():
            problems.append(f"dataclass fields {names}, not {entry.fields.split()}")
    for dunder in entry.supports.split():
        if getattr(owner, dunder, None) is None:
            problems.append(f"does not support {dunder}")
    for name in entry.abstract.split():
        if not hasattr(owner, name):
            problems.append(f"no {name}, which subclasses implement")
    if instance is not None and entry.attrs:
        built = instance()
        problems += [
            f"instances have no {a!r}" for a in entry.attrs.split() if not hasattr(built, a)
        ]
    return problems


def check_name(module_name: str, name: str, entry: Entry, instance: Any) -> list[str]:
    module = importlib.import_module(module_name)
    if not hasattr(module, name):
        return ["missing"]
    problems = [] if name in module.__all__ else ["not in __all__"]
    value = getattr(module, name)
    if entry.kind == "class":
        if not isinstance(value, type):
            return [*problems, f"{value!r} is not a class"]
        if entry.attrs and instance is None:
            problems.append(f"no builder to check the instance attributes {entry.attrs}")
        problems += class_problems(value, entry, instance)
    elif entry.kind == "function":
        problems += signature_problems(value, entry.init or "")
    return problems


# -- the parameters listing (api-0.2-parameters.md), read from its own text ---------------------
#
# That listing prints, per import path, every public function as "- `name(params)`" and every
# class as "- class `Name(init params)`: `method(params)`, ...", with "name=…" for a parameter
# that has a default (its value is not given); a class printed without parameters
# ("- class `Name`") has a constructor the listing does not describe.
# `parse_parameters_listing` turns the text into the entries above, `listed_problems` checks
# one of them. A method's flavour (plain, static, class) is not in the listing: it is read
# from the class being checked.

ANY_DEFAULT = "…"
_LISTING_MODULE = re.compile(r"^## `([\w.]+)`\s*$")
_LISTING_ITEM = re.compile(r"^- (class )?`(\w+)(?:\((.*?)\))?`(?::\s*(.*))?$")


def parse_parameters_listing(text: str) -> dict[str, dict[str, Entry]]:
    """Every import path of the listing -> its names -> `cls` or `func` entries (in order)."""
    listing: dict[str, dict[str, Entry]] = {}
    current: dict[str, Entry] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        header = _LISTING_MODULE.match(line)
        if header is not None:
            current = listing.setdefault(header.group(1), {})
            continue
        if not line.startswith("- "):
            continue
        item = _LISTING_ITEM.match(line)
        if item is None or current is None:
            raise ValueError(f"line {number} of the listing is not an item of a module: {line!r}")
        is_class, name, params, members = item.groups()
        if is_class:
            init = "..." if params is None else params
            current[name] = cls(init, *re.findall(r"`([^`]*)`", members or ""))
        elif params is None:
            raise ValueError(f"line {number} of the listing is a function without parameters")
        else:
            current[name] = func(params)
    return listing


def listed_signature_problems(target: Any, expected: str, *, drop_first: bool = False) -> list[str]:
    """Why ``target`` does not accept every call the listed signature accepts.

    The listing's rules for ``expected``: a default of ``…`` means "has a
    default, of any value" (other defaults are compared as `signature_problems`
    compares them). Each positional parameter must be there in the same place
    under the same name, each keyword-only one under its name (positional or
    keyword-only), with a default wherever the listing has one. A parameter of
    ``target`` that the listing does not have must not be required, unless
    every call of the listing passes it: a required keyword-only parameter of
    the listing may be positional-or-keyword in ``target``, in any place.
    """
    wanted = parse_params(expected)
    try:
        params = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError) as error:
        return [f"no signature ({error})"]
    if drop_first and params and params[0].kind in _POSITIONAL:
        params = params[1:]
    positional = [p for p in params if p.kind in _POSITIONAL]
    by_name = {p.name: p for p in params}
    has_var = any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params)
    has_varkw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    wanted_positional = [w for w in wanted if w[1] == "pos"]
    problems: list[str] = []

    def default_problems(name: str, found: inspect.Parameter, default: str | None) -> list[str]:
        if default is None:
            return []
        if found.default is inspect.Parameter.empty:
            return [f"{name} has no default (0.2's has one)"]
        if default != ANY_DEFAULT and default_text(found.default) != default:
            return [f"{name} defaults to {default_text(found.default)!r}, not {default!r}"]
        return []

    for index, (name, _, default) in enumerate(wanted_positional):
        if index >= len(positional):
            if not has_var:
                problems.append(f"no positional parameter {name!r}")
            continue
        got = positional[index]
        if got.name != name:
            problems.append(f"positional parameter {index} is {got.name!r}, not {name!r}")
        elif got.kind is inspect.Parameter.POSITIONAL_ONLY:
            problems.append(f"{name} cannot be passed by keyword")
        else:
            problems += default_problems(name, got, default)
    for name, kind, default in wanted:
        if kind == "kw":
            found = by_name.get(name)
            if found is None:
                if not has_varkw:
                    problems.append(f"no keyword parameter {name!r}")
            elif found.kind not in (inspect.Parameter.KEYWORD_ONLY, *_POSITIONAL[1:]):
                problems.append(f"{name} cannot be passed by keyword")
            else:
                problems += default_problems(name, found, default)
        elif kind == "var" and not has_var:
            problems.append("no *args")
        elif kind == "varkw" and not has_varkw:
            problems.append("no **kwargs")
    # The listing's parameters were checked above (a required keyword-only one of the listing
    # is passed by every call, so it may be required here in any place); any other parameter
    # must not be required.
    listed = {name for name, _, _ in wanted}
    for index, p in enumerate(positional):
        required = p.default is inspect.Parameter.empty
        if required and index >= len(wanted_positional) and p.name not in listed:
            problems.append(f"extra required parameter {p.name!r}")
    for p in params:
        required = p.default is inspect.Parameter.empty
        if p.kind is inspect.Parameter.KEYWORD_ONLY and required and p.name not in listed:
            problems.append(f"extra required keyword parameter {p.name!r}")
    return problems


def listed_problems(module_name: str, name: str, entry: Entry) -> list[str]:
    """Why ``module_name.name`` does not accept the calls the listing's entry describes.

    A class's constructor and each listed method are checked with
    `listed_signature_problems`; the name must be in the module's ``__all__``.
    """
    module = importlib.import_module(module_name)
    if not hasattr(module, name):
        return ["missing"]
    problems = [] if name in getattr(module, "__all__", ()) else ["not in __all__"]
    value = getattr(module, name)
    if entry.kind == "function":
        return problems + listed_signature_problems(value, entry.init or "")
    if not isinstance(value, type):
        return [*problems, f"{value!r} is not a class"]
    if entry.init != "...":
        init = entry.init or ""
        problems += [f"constructor: {p}" for p in listed_signature_problems(value, init)]
    for member in entry.members:
        match = _MEMBER.match(member)
        if match is None:
            raise ValueError(f"{member!r} is not a method as the listing prints one")
        _, method, params = match.groups()
        if not hasattr(value, method):
            problems.append(f"{method}: missing")
            continue
        static = inspect.getattr_static(value, method)
        if isinstance(static, property):
            problems.append(f"{method}: a property, where 0.2 has a method")
            continue
        # A plain method is read from the class as a function: its first parameter is self.
        drop_first = not isinstance(static, (staticmethod, classmethod))
        found = getattr(value, method)
        if not callable(found):
            problems.append(f"{method}: not callable")
            continue
        problems += [
            f"{method}: {p}"
            for p in listed_signature_problems(found, params, drop_first=drop_first)
        ]
    return problems
