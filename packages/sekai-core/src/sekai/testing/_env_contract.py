"""`EnvContract`: what `check_env` checks, as a pytest test class."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from sekai.core import Env
from sekai.utils.checker import check_env

__all__ = ["EnvContract"]


class EnvContract:
    """The [`Env`][sekai.core.Env] contract as tests an environment's test suite inherits.

    Subclass it in a test module, name the subclass ``Test<Something>`` (this
    base's name does not start with ``Test``, so pytest does not collect it
    itself) and implement `make_env`:

    ```python
    from sekai.testing import EnvContract

    class TestMyEnv(EnvContract):
        n_steps = 200
        deterministic = True

        def make_env(self):
            return MyEnv()
    ```

    Each test builds a fresh env, runs [`check_env`][sekai.utils.checker.check_env]
    with one group of its checks and fails with every problem that group
    reports: the spaces and the ``reset`` signature, a random rollout (result
    types, observations in the space and free of NaN, finite rewards, bool
    flags, infos, action masks, invalid actions), seeded resets, seeded
    trajectories (when `deterministic`), and the async methods. Envs are
    closed after each test.
    """

    n_steps: ClassVar[int] = 100
    """Random steps of the rollout checks."""

    deterministic: ClassVar[bool] = False
    """Whether the same seed and actions must give the same trajectory."""

    warnings_fail: ClassVar[bool] = False
    """Whether ``WARNING:`` entries of `check_env` fail the tests too."""

    def make_env(self) -> Env[Any, Any]:
        """Build the environment under test (a new one on each call)."""
        raise NotImplementedError(f"{type(self).__name__} must implement make_env(self)")

    @pytest.fixture(autouse=True)
    def _close_built_envs(self) -> Iterator[None]:
        self._built: list[Env[Any, Any]] = []
        yield
        for env in self._built:
            close = getattr(env, "close", None)
            if callable(close):
                close()

    def _check(self, what: str, **options: Any) -> None:
        env = self.make_env()
        self._built.append(env)
        settings: dict[str, Any] = {
            "n_steps": 0,
            "check_reset_seed": False,
            "check_determinism": False,
            "check_async": False,
            "warn_on_anomaly": True,
        }
        settings.update(options)
        problems = check_env(env, **settings)
        failing = [p for p in problems if self.warnings_fail or p.startswith("ERROR")]
        if failing:
            listed = "\n".join(f"  {p}" for p in problems)
            pytest.fail(f"{what}: check_env reported\n{listed}", pytrace=False)

    def test_spaces_and_reset(self) -> None:
        """The spaces are Spaces containing their samples; ``reset`` follows the contract."""
        self._check("spaces and reset")

    def test_random_rollout(self) -> None:
        """``n_steps`` random steps give results that follow the contract."""
        self._check("random rollout", n_steps=self.n_steps)

    def test_seeded_reset_is_reproducible(self) -> None:
        """``reset(seed=s)`` twice gives the same observation."""
        self._check("seeded reset", check_reset_seed=True)

    def test_seeded_trajectory_is_reproducible(self) -> None:
        """The same seed and actions give the same trajectory (when `deterministic`)."""
        if not self.deterministic:
            pytest.skip("the env is not declared deterministic (deterministic = False)")
        self._check("seeded trajectory", n_steps=self.n_steps, check_determinism=True)

    def test_async_methods_agree(self) -> None:
        """``async_reset`` / ``async_step`` give what ``reset`` / ``step`` give."""
        self._check("async methods", n_steps=self.n_steps, check_async=True)
