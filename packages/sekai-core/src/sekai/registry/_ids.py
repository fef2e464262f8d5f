"""Parsing and formatting of environment ids (``[namespace/]Name[-vN]``)."""

from __future__ import annotations

import re

__all__ = ["ENV_ID_FORM", "ENV_ID_RE", "format_env_id", "parse_env_id", "validate_namespace"]

#: The form every environment id must have, quoted in error messages.
ENV_ID_FORM = "[namespace/]Name[-vN], e.g. 'CartPole-v1', 'qc/MarketEnv-v0' or 'my_ns/CustomEnv'"

# A word character (any script's letters and digits, or "_") first, then word
# characters, ":", "." or "-"; the same rule for every character of a part.
_PART = r"\w[\w:.-]*"
ENV_ID_RE = re.compile(
    rf"^(?:(?P<namespace>{_PART})/)?(?P<name>{_PART}?)(?:-v(?P<version>0|[1-9][0-9]*))?$"
)
"""The pattern of an id, with the groups ``namespace``, ``name`` and ``version``."""
_NAMESPACE_RE = re.compile(rf"^{_PART}$")
_VERSION_SUFFIX_RE = re.compile(r"-v-?\d+$")


def parse_env_id(env_id: str) -> tuple[str | None, str, int | None]:
    """Split an environment id into its namespace, name and version.

    Args:
        env_id: An id of the form ``[namespace/]Name[-vN]``.

    Returns:
        ``(namespace, name, version)``; namespace and version are ``None`` when the
        id has none.

    Raises:
        TypeError: If ``env_id`` is not a string.
        ValueError: If ``env_id`` does not have the expected form.
    """
    if not isinstance(env_id, str):
        raise TypeError(f"an environment id must be a str ({ENV_ID_FORM}); got {env_id!r}")
    match = ENV_ID_RE.fullmatch(env_id)
    if match is None:
        raise ValueError(f"malformed environment id {env_id!r}: expected {ENV_ID_FORM}")
    version = match.group("version")
    if version is None and _VERSION_SUFFIX_RE.search(match.group("name")):
        # e.g. "Name-v01", "Name-v-1" or "Name-v\u0661" (a non-ASCII digit): a
        # version suffix that is not a canonical version number.
        raise ValueError(
            f"malformed environment id {env_id!r}: a version is '-v' followed by a "
            f"non-negative number without leading zeros; expected {ENV_ID_FORM}"
        )
    return match.group("namespace"), match.group("name"), None if version is None else int(version)


def format_env_id(namespace: str | None, name: str, version: int | None) -> str:
    """Join a namespace, a name and a version into an id (the inverse of `parse_env_id`)."""
    env_id = name if namespace is None else f"{namespace}/{name}"
    return env_id if version is None else f"{env_id}-v{version}"


def validate_namespace(namespace: str) -> str:
    """Return ``namespace`` if it is a valid namespace, else raise ValueError."""
    if not isinstance(namespace, str) or _NAMESPACE_RE.fullmatch(namespace) is None:
        raise ValueError(
            "a namespace must be a non-empty string of letters, digits, '_', '-', '.' or ':' "
            f"(the part before '/' in an id); got {namespace!r}"
        )
    return namespace
