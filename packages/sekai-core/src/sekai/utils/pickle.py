"""Sending callables to worker processes: `CloudpickleWrapper`."""

from __future__ import annotations

import pickle
from typing import Any, Generic, TypeVar

__all__ = ["CloudpickleWrapper"]

_T = TypeVar("_T")


class CloudpickleWrapper(Generic[_T]):
    """Holds an object (typically an env factory) that pickles with cloudpickle.

    The standard `pickle` refuses lambdas, closures and classes defined
    in ``__main__`` or a notebook; wrapped, they cross to worker processes.
    The wrapper pickles its object with ``cloudpickle`` when it is installed
    (the ``sekai-vector[proc]`` distribution brings it) and with `pickle` otherwise;
    unpickling needs only `pickle`. Calling the wrapper calls the object.

    Args:
        fn: The object to carry.

    Attributes:
        fn: The wrapped object.

    Examples:
        >>> import pickle
        >>> wrapper = CloudpickleWrapper(len)
        >>> pickle.loads(pickle.dumps(wrapper))([1, 2, 3])
        3
    """

    def __init__(self, fn: _T) -> None:
        self.fn = fn

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the wrapped object with the given arguments."""
        return self.fn(*args, **kwargs)  # type: ignore[operator]

    def __getstate__(self) -> bytes:
        try:
            import cloudpickle
        except ImportError:
            try:
                return pickle.dumps(self.fn)
            except (pickle.PicklingError, AttributeError, TypeError) as error:
                raise pickle.PicklingError(
                    f"CloudpickleWrapper: {self.fn!r} cannot be pickled without cloudpickle "
                    "(install the sekai-vector[proc] distribution, or `pip install cloudpickle`)"
                ) from error
        data: bytes = cloudpickle.dumps(self.fn)
        return data

    def __setstate__(self, state: bytes) -> None:
        self.fn = pickle.loads(state)

    def __repr__(self) -> str:
        return f"CloudpickleWrapper({self.fn!r})"
