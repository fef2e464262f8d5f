"""The async routing rule shared by Env, Wrapper and MultiAgentEnv.

A class that defines ``step`` (or ``reset``) in its own body but not
``async_step`` (or ``async_reset``) gets an async method that runs its sync
override. The decision is taken once, when the class is created, so calls pay
nothing for it; an async implementation inherited from a base class is
replaced, because it would skip the logic the subclass added to the sync method.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

__all__ = ["is_routed", "route_async_methods"]

_PAIRS = (("step", "async_step"), ("reset", "async_reset"))

_AsyncMethod = Callable[..., Coroutine[Any, Any, Any]]


def _make_routed(sync_name: str) -> _AsyncMethod:
    if sync_name == "step":

        async def routed(self: Any, *args: Any, **kwargs: Any) -> Any:
            return self.step(*args, **kwargs)

    else:

        async def routed(self: Any, *args: Any, **kwargs: Any) -> Any:
            return self.reset(*args, **kwargs)

    return routed


def is_routed(method: object) -> bool:
    """Whether ``method`` was installed by :func:`route_async_methods`."""
    return getattr(method, "__sekai_routed__", False) is True


def route_async_methods(cls: type) -> None:
    """Install routed async methods on ``cls`` where the rule asks for them."""
    for sync_name, async_name in _PAIRS:
        if sync_name in cls.__dict__ and async_name not in cls.__dict__:
            routed = _make_routed(sync_name)
            routed.__name__ = async_name
            routed.__qualname__ = f"{cls.__qualname__}.{async_name}"
            routed.__module__ = cls.__module__
            routed.__doc__ = (
                f"Run :meth:`{sync_name}`: this class overrides it without "
                f"overriding ``{async_name}``."
            )
            routed.__sekai_routed__ = True  # type: ignore[attr-defined]
            setattr(cls, async_name, routed)
