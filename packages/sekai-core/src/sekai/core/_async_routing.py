"""The async routing rule shared by Env, Wrapper and MultiAgentEnv.

A class whose ``step`` (or ``reset``) is more derived than its ``async_step``
(or ``async_reset``) gets an async method that runs the sync one: the class
defines ``step`` in its own body but not ``async_step``, or inherits ``step``
from a mixin listed before the base that implements ``async_step``. The
decision is taken once, when the class is created, so calls pay nothing for
it; the inherited async implementation is replaced, because it would skip the
logic the subclass (or mixin) added to the sync method.
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
    """Whether ``method`` was installed by `route_async_methods`."""
    return getattr(method, "__sekai_routed__", False) is True


def _owner(mro: tuple[type, ...], name: str) -> type | None:
    """The class of ``mro`` whose body defines ``name``."""
    for klass in mro:
        if name in klass.__dict__:
            return klass
    return None


def route_async_methods(cls: type) -> None:
    """Install routed async methods on ``cls`` where the rule asks for them."""
    mro = cls.__mro__
    for sync_name, async_name in _PAIRS:
        sync_owner = _owner(mro, sync_name)
        async_owner = _owner(mro, async_name)
        if sync_owner is None or async_owner is None:
            continue
        if mro.index(sync_owner) >= mro.index(async_owner):
            continue  # the async method is at least as derived as the sync one
        if is_routed(async_owner.__dict__[async_name]):
            continue  # it already calls self.<sync_name>(), whichever that is
        routed = _make_routed(sync_name)
        routed.__name__ = async_name
        routed.__qualname__ = f"{cls.__qualname__}.{async_name}"
        routed.__module__ = cls.__module__
        routed.__doc__ = (
            f"Run `{sync_name}`: this class overrides it without overriding ``{async_name}``."
        )
        routed.__sekai_routed__ = True  # type: ignore[attr-defined]
        setattr(cls, async_name, routed)
