"""The contracts of sekai as test kits you run on your own environment or backend.

As dm_env does with its ``EnvironmentTestMixin``, sekai ships the tests its
own environments and vector backends pass, for third-party code to inherit:

- `EnvContract`: a pytest test class for a single env; subclass it and
  implement ``make_env(self)``. It runs the checks of
  [`check_env`][sekai.utils.checker.check_env], one test per area.
- `VecEnvContract`: a pytest test class for a vector-env backend; subclass
  it and implement ``make_vec_env(self, env_fns, **kwargs)``. It runs the
  whole [`VecEnv`][sekai.vector.VecEnv] contract on small reference envs.
- `assert_native_matches`: steps a native vector env and its single env side
  by side and raises `AssertionError` at the first difference.

One import path, two distributions: this package ships with ``sekai-core``, so
`EnvContract` works on a core-only install; `VecEnvContract` and
`assert_native_matches` are implemented in ``sekai-vector`` (the modules
``sekai.vector._contract`` and ``sekai.vector._contract_native``, beside the
code they test) and loaded from there on first use. Without ``sekai-vector``,
importing them raises `ImportError` naming the distribution to install.

The kits are pytest test classes, so importing this package needs pytest
(the ``testing`` extra of ``sekai-core`` brings it); sekai itself does not depend on it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

try:
    importlib.import_module("pytest")
except ImportError as error:
    raise ImportError(
        "sekai.testing needs pytest: its kits are pytest test classes. Install pytest "
        "with your test tools, or the 'testing' extra of the sekai-core distribution.",
        name="pytest",
    ) from error

from sekai.testing._env_contract import EnvContract

if TYPE_CHECKING:
    from sekai.vector._contract import VecEnvContract as VecEnvContract
    from sekai.vector._contract_native import assert_native_matches as assert_native_matches

__all__ = ["EnvContract", "VecEnvContract", "assert_native_matches"]

_FROM_VECTOR = {
    "VecEnvContract": "sekai.vector._contract",
    "assert_native_matches": "sekai.vector._contract_native",
}


if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        """Load the kits that live in sekai-vector on first use."""
        module_name = _FROM_VECTOR.get(name)
        if module_name is None:
            raise AttributeError(f"module 'sekai.testing' has no attribute {name!r}")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name is not None and not module_name.startswith(error.name):
                raise
            raise ImportError(
                f"sekai.testing.{name} needs the sekai-vector distribution, which is not installed",
                name=module_name,
            ) from error
        value = getattr(module, name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(__all__))
