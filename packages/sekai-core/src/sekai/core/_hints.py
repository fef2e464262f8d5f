"""Hints for values given where a single-agent :class:`~sekai.core.Env` was expected."""

from __future__ import annotations

from sekai.core.env import Env
from sekai.core.multi_agent import MultiAgentEnv

__all__ = ["not_an_env_hint"]


def not_an_env_hint(value: object) -> str:
    """A sentence saying how to fix ``value`` (empty when there is nothing to add).

    Covers the usual mistakes: an env class instead of an instance, a
    :class:`~sekai.core.MultiAgentEnv`, and a Gymnasium env.
    """
    if isinstance(value, type) and issubclass(value, (Env, MultiAgentEnv)):
        return f" (a class, not an instance: create the env first, e.g. {value.__name__}(...))"
    if isinstance(value, MultiAgentEnv):
        return " (a MultiAgentEnv is not a single-agent sekai.core.Env)"
    module = type(value).__module__.partition(".")[0]
    if module in ("gymnasium", "gym"):
        return " (a Gymnasium env: convert it first with sekai.compat.from_gymnasium(env))"
    return ""
