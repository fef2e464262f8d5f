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
