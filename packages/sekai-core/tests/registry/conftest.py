"""Fixtures of the registry tests: isolated registries and an importable env module."""

from __future__ import annotations

import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from sekai.registry import EnvRegistry

_ENV_MODULE = '''
"""Environments and wrappers used by the registry tests, imported by name."""


from json import JSONDecoder  # a class of another package, seen through this module

from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Discrete


class RecordingEnv(Env):
    """A sekai env recording the kwargs it was built with."""

    observation_space = Discrete(1)
    action_space = Discrete(1)

    def __init__(self, **kwargs):
        self.kwargs = kwargs

    def reset(self, *, seed=None, options=None):
        return ResetResult(0, {})

    def step(self, action):
        return StepResult(0, 0.0, False, False, {})


class TagWrapper:
    """Wraps an env, recording a tag; forwards ``spec`` reads like sekai wrappers."""

    def __init__(self, env, tag="t"):
        self.env = env
        self.tag = tag

    @property
    def unwrapped(self):
        return self.env.unwrapped

    @property
    def spec(self):
        return self.env.spec


class OpaqueWrapper:
    """Wraps an env without forwarding ``spec`` (nor anything else)."""

    spec = None

    def __init__(self, env):
        self.inner = env


class NativeVec:
    """A stand-in native vector env recording how it was called."""

    def __init__(self, num_envs, **kwargs):
        self.num_envs = num_envs
        self.kwargs = kwargs


NOT_CALLABLE = 42


def touch(path, **kwargs):
    """A public function with a side effect: it creates the file ``path``."""
    open(path, "w").close()


def numbered(value, num_envs):
    """A per_env_kwargs splitter: ``value`` numbered for each sub-env."""
    return [f"{value}.{index}" for index in range(num_envs)]


from sekai.core import Wrapper


class CoreTag(Wrapper):
    """A sekai.core wrapper recording a tag."""

    def __init__(self, env, tag):
        super().__init__(env)
        self.tag = tag
'''


@pytest.fixture
def registry() -> EnvRegistry:
    """An empty registry that ignores installed plugins."""
    return EnvRegistry()


@pytest.fixture
def env_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The name of a freshly written, not yet imported module of test envs."""
    name = f"sekai_registry_test_envs_{uuid.uuid4().hex}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(_ENV_MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)
