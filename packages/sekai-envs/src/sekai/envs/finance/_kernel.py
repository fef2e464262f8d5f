"""What every market env's kernel shares: config attributes and one-row infos (private).

A market model is written once, as a *kernel*: a frozen config dataclass (the
only place its parameters are declared, defaulted and checked) and step
functions over a state whose fields are arrays with one row per sub-env. The
native vector env runs the kernel on ``num_envs`` rows; the single env runs
the same functions on one row (or on Python floats, where numpy's per-call
cost on scalars would dominate a step). This module holds the two pieces of
glue every env class needs around its kernel:

- `config_field`, a read-only attribute that reads the env's ``config``, so an
  env exposes its parameters (``env.sigma``, ...) without copying them;
- `row_infos`, the info dict of one row of a kernel's info arrays, with
  Python scalars, as a single env reports it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Collection, Mapping
from typing import Any, Generic, TypeVar, overload

import numpy as np
from numpy.typing import NDArray

__all__ = ["check_keywords", "config_field", "passed_arguments", "reset_reward", "row_infos"]

_V = TypeVar("_V")


class config_field(Generic[_V]):
    """A read-only attribute that reads the field of the same name of ``self.config``.

    ``sigma = config_field[float]()`` in an env class makes ``env.sigma`` return
    ``env.config.sigma``; ``config_field[float]("A")`` reads another field.
    """

    def __init__(self, field: str | None = None) -> None:
        self._field = field
        self.__doc__ = None

    def __set_name__(self, owner: type, name: str) -> None:
        if self._field is None:
            self._field = name
        self.__doc__ = f"The ``{self._field}`` of the env's config (read-only)."

    @overload
    def __get__(self, instance: None, owner: type) -> config_field[_V]: ...

    @overload
    def __get__(self, instance: object, owner: type) -> _V: ...

    def __get__(self, instance: object | None, owner: type) -> config_field[_V] | _V:
        if instance is None:
            return self
        value: _V = getattr(instance.config, self._field)  # type: ignore[attr-defined,arg-type]
        return value

    def __set__(self, instance: object, value: object) -> None:
        raise AttributeError(
            f"{type(instance).__name__}.{self._field} is read-only: build a new env with "
            f"{self._field}={value!r}"
        )


def row_infos(
    infos: Mapping[str, Any], row: int = 0, *, raw: Collection[str] = ()
) -> dict[str, Any]:
    """The info dict of sub-env ``row`` from a kernel's info arrays, values as Python scalars.

    A numpy scalar becomes the matching Python ``float`` / ``int`` / ``bool``,
    except under the keys in ``raw``, whose values stay numpy scalars (a
    timestamp, say); an array row of more than one element stays an array; a
    list (dated timestamps) gives its element.
    """
    info: dict[str, Any] = {}
    for key, values in infos.items():
        if type(values) is np.ndarray and values.ndim == 1 and key not in raw:
            info[key] = values.item(row)  # the Python scalar, in one call
            continue
        value = values[row]
        if isinstance(value, np.generic) and key not in raw:
            value = value.item()
        info[key] = value
    return info


def passed_arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """An env's constructor arguments, from ``locals()`` read first thing in ``__init__``.

    Lets a constructor whose signature spells out its keywords (for readers,
    type checkers and sekai 0.2's listing) hand them all to its config's
    ``from_arguments``, which declares and checks them, without a third copy
    of the list.
    """
    return {key: value for key, value in arguments.items() if key not in ("self", "__class__")}


def check_keywords(owner: str, keywords: Mapping[str, Any], accepts: Callable[..., Any]) -> None:
    """Refuse keywords that ``accepts`` (a config's ``from_arguments``) does not take.

    A vector env passes its ``**kwargs`` on to its config; this names the
    unknown keyword and lists the known ones, where Python's own error would
    name neither the env nor the alternatives.

    Raises:
        TypeError: A keyword ``accepts`` does not take.
    """
    known = [
        name
        for name, parameter in inspect.signature(accepts).parameters.items()
        if parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)
        and name != "owner"
    ]
    unknown = [repr(name) for name in keywords if name not in known]
    if unknown:
        what = (
            "an unexpected keyword argument"
            if len(unknown) == 1
            else "unexpected keyword arguments"
        )
        raise TypeError(f"{owner} got {what} {', '.join(unknown)}; it takes {', '.join(known)}")


def reset_reward(reward: Any, indices: NDArray[np.intp], n: int) -> NDArray[np.bool_] | None:
    """Reset the reward function's state for the rows ``indices`` of ``n``; return their mask.

    Every row: ``reward.reset()`` (a reward that keeps no per-row state may
    define it without a mask) and None; some rows: ``reward.reset(mask)`` and
    the mask.
    """
    if len(indices) == n:
        reward.reset()
        return None
    mask = np.zeros(n, dtype=np.bool_)
    mask[indices] = True
    reward.reset(mask)
    return mask
