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
from pathlib import Path
from typing import Any, NamedTuple

__all__ = [
    "Entry",
    "Param",
    "check_name",
    "class_problems",
    "cls",
    "constant",
    "default_text",
    "func",
    "member_problems",
    "module",
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
        # The listed fields, in order, first; fields added after them must have
        # defaults (as extra constructor parameters), so 0.2 code still works.
        fields = [f for f in dataclasses.fields(owner) if f.init]
        names = [f.name for f in fields]
        wanted = entry.fields.split()
        if names[: len(wanted)] != wanted:
            problems.append(f"dataclass fields {names}, not {wanted}")
        for extra in fields[len(wanted) :]:
            if (
                extra.default is dataclasses.MISSING
                and extra.default_factory is dataclasses.MISSING
            ):
                problems.append(f"extra dataclass field {extra.name!r} has no default")
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


# -- the parameters listing of 0.2 (api-0.2-parameters.md), checked as it is printed -------------
#
# That listing gives, per import path, one line per public function (- `name(params)`)
# or class (- class `Name(params)`: `method(params)`, ...); a default prints as ``=…``
# (its value is left out) and ``*`` starts the keyword-only parameters. The repository
# keeps a verbatim copy next to this file (PARAMETERS_LISTING). `parameters_listing`
# reads it, `listed_problems` checks one line of it against the code: 0.2's calls of
# the function or method must still bind the same way (names, order, kinds), and a
# parameter 0.2 gives a default keeps one. A positional parameter renamed since 0.2
# passes when 0.2's name is still accepted as a keyword-only alias.

PARAMETERS_LISTING = Path(__file__).with_name("api-0.2-parameters.md")


class ListedName(NamedTuple):
    """One line of the parameters listing: a function, or a class and its methods."""

    name: str
    kind: str  # "class" or "function"
    params: str | None  # None: a class listed without a signature
    methods: tuple[tuple[str, str], ...] = ()


_LISTED_HEADING = re.compile(r"^## `([\w.]+)`\s*$")
_LISTED_LINE = re.compile(r"^- (class )?`(\w+)(?:\((.*?)\))?`(?::\s*(.*))?$")
_LISTED_METHOD = re.compile(r"`(\w+)\((.*?)\)`")


def parse_parameters_listing(text: str) -> dict[str, list[ListedName]]:
    """The listing's text -> ``{import path: [ListedName, ...]}``, in the listing's order.

    Raises:
        ValueError: A line of the listing is not in its format.
    """
    listing: dict[str, list[ListedName]] = {}
    current: list[ListedName] | None = None
    for line in text.splitlines():
        heading = _LISTED_HEADING.match(line)
        if heading is not None:
            current = listing.setdefault(heading.group(1), [])
            continue
        if not line.startswith("- "):
            continue
        match = _LISTED_LINE.match(line)
        if match is None or current is None:
            raise ValueError(f"a line of the parameters listing not understood: {line!r}")
        is_class, name, params, methods = match.groups()
        found = tuple(_LISTED_METHOD.findall(methods or ""))
        if methods and len(found) != methods.count("`") // 2:
            raise ValueError(f"a method list of the parameters listing not understood: {line!r}")
        current.append(ListedName(name, "class" if is_class else "function", params, found))
    return listing


def parameters_listing(*prefixes: str) -> dict[str, list[ListedName]]:
    """The sections of PARAMETERS_LISTING for the import paths ``prefixes`` and below them."""
    listing = parse_parameters_listing(PARAMETERS_LISTING.read_text(encoding="utf-8"))
    return {
        path: names
        for path, names in listing.items()
        if any(path == prefix or path.startswith(prefix + ".") for prefix in prefixes)
    }


def listed_signature_problems(target: Any, params: str, *, drop_first: bool = False) -> list[str]:
    """Why ``target`` does not take every call of the listed signature ``params``.

    The listing's parameters, in order: each positional one at its position
    under its name (or under today's name, with 0.2's kept as a keyword-only
    alias), each keyword-only one by keyword, ``*args`` / ``**kwargs`` where
    listed, and a default wherever 0.2 had one. Parameters beyond the listing
    must have a default.
    """
    wanted = parse_params(params)
    try:
        found = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError) as error:
        return [f"no signature ({error})"]
    if drop_first and found and found[0].kind in _POSITIONAL:
        found = found[1:]
    by_name = {p.name: p for p in found}
    positional = [p for p in found if p.kind in _POSITIONAL]
    has_var = any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in found)
    has_varkw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in found)
    empty = inspect.Parameter.empty
    problems: list[str] = []
    wanted_positional = [w for w in wanted if w[1] == "pos"]
    for index, (name, _, default) in enumerate(wanted_positional):
        if index >= len(positional):
            if not has_var:
                problems.append(f"no positional parameter {name!r}")
            continue
        got = positional[index]
        if got.name != name:
            alias = by_name.get(name)
            if alias is None or alias.kind is not inspect.Parameter.KEYWORD_ONLY:
                problems.append(f"positional parameter {index} is {got.name!r}, not {name!r}")
                continue
        elif got.kind is inspect.Parameter.POSITIONAL_ONLY:
            problems.append(f"{name} cannot be passed by keyword")
        if default is not None and got.default is empty:
            problems.append(f"{got.name} has no default (0.2's {name} has one)")
    for name, kind, default in wanted:
        if kind == "kw":
            got_kw = by_name.get(name)
            if got_kw is None:
                if not has_varkw:
                    problems.append(f"no keyword parameter {name!r}")
            elif got_kw.kind not in (inspect.Parameter.KEYWORD_ONLY, *_POSITIONAL[1:]):
                problems.append(f"{name} cannot be passed by keyword")
            elif default is not None and got_kw.default is empty:
                problems.append(f"{name} has no default (0.2 gives it one)")
        elif kind == "var" and not has_var:
            problems.append("no *args")
        elif kind == "varkw" and not has_varkw:
            problems.append("no **kwargs")
    keywords = {w[0] for w in wanted if w[1] == "kw"}
    for extra in positional[len(wanted_positional) :]:
        # One 0.2 passed by keyword (a required keyword-only one there) is not extra.
        if extra.default is empty and extra.name not in keywords:
            problems.append(f"extra required parameter {extra.name!r}")
    names = {w[0] for w in wanted}
    for p in found:
        if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name not in names and p.default is empty:
            problems.append(f"extra required keyword parameter {p.name!r}")
    return problems


def listed_method_problems(
    owner: type, name: str, params: str, instance: Callable[[], Any] | None = None
) -> list[str]:
    """Why ``owner.name`` does not take 0.2's calls of the listed method ``name(params)``."""
    try:
        static = inspect.getattr_static(owner, name)
    except AttributeError:
        return [f"{name}: missing"]
    if isinstance(static, property):
        # A value that can also be called (e.g. InMemoryTracker.mean_return).
        if instance is None:
            return [f"{name}: a property; give the class a builder to check it on an instance"]
        value, drop_first = getattr(instance(), name), False
    elif isinstance(static, staticmethod):
        value, drop_first = getattr(owner, name), False
    else:
        # A function read from the class takes the instance first; a classmethod (or
        # any other descriptor giving a bound method) does not.
        value = getattr(owner, name)
        drop_first = not inspect.ismethod(value)
    if not callable(value):
        return [f"{name}: not callable"]
    return [f"{name}: {p}" for p in listed_signature_problems(value, params, drop_first=drop_first)]


def listed_problems(
    module_name: str, listed: ListedName, instance: Callable[[], Any] | None = None
) -> list[str]:
    """Why ``<module_name>.<listed.name>`` does not take 0.2's calls (empty when it does).

    ``instance`` builds an object of a listed class, for methods that are
    properties on the class (their value is what 0.2 code calls).
    """
    module = importlib.import_module(module_name)
    if not hasattr(module, listed.name):
        return ["missing"]
    value = getattr(module, listed.name)
    problems = [] if listed.name in getattr(module, "__all__", ()) else ["not in __all__"]
    if listed.kind == "function":
        return problems + listed_signature_problems(value, listed.params or "")
    if not isinstance(value, type):
        return [*problems, f"{value!r} is not a class"]
    if listed.params is not None:
        problems += [f"constructor: {p}" for p in listed_signature_problems(value, listed.params)]
    for method, params in listed.methods:
        problems += listed_method_problems(value, method, params, instance)
    return problems


__all__ += [
    "PARAMETERS_LISTING",
    "ListedName",
    "listed_method_problems",
    "listed_problems",
    "listed_signature_problems",
    "parameters_listing",
    "parse_parameters_listing",
]
