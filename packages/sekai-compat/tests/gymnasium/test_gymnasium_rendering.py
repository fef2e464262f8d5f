"""Gymnasium's render_mode through to_gymnasium: the env's default renderer."""

from __future__ import annotations

import pkgutil
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import sekai.registry
from sekai.compat import GymnasiumRenderer, to_gymnasium
from sekai.core import TimeLimit


def _declared(env_id: str) -> Any:
    """The default renderer the env of ``env_id`` declares (``None`` without one)."""
    env = sekai.registry.make(env_id)
    try:
        return env.unwrapped.metadata.get("renderer")
    finally:
        env.close()


def _size(renderer: Any) -> tuple[int, int, int]:
    return (renderer.height, renderer.width, 3)


class _Counting:
    """A renderer that counts its frames and closes."""

    def __init__(self) -> None:
        self.frames = 0
        self.closed = 0

    def render(self, env: Any) -> np.ndarray:
        self.frames += 1
        return np.full((3, 5, 3), self.frames, np.uint8)

    def close(self) -> None:
        self.closed += 1


def _with_metadata(env_type: type[Any], **metadata: Any) -> type[Any]:
    """A subclass of ``env_type`` whose metadata has ``metadata`` added."""
    return type(env_type.__name__, (env_type,), {"metadata": {**env_type.metadata, **metadata}})


# -- the reference envs ------------------------------------------------------------------------


def test_every_reference_env_declares_a_renderer(
    single_agent_ids: list[str], reference_envs: None
) -> None:
    assert single_agent_ids
    missing = [env_id for env_id in single_agent_ids if _declared(env_id) is None]
    assert missing == []


def test_render_mode_draws_with_the_default_renderer(single_agent_id: str) -> None:
    declared = _declared(single_agent_id)
    if declared is None:
        pytest.skip(f"{single_agent_id} declares no default renderer")
    pytest.importorskip("PIL", reason="the reference renderers draw with Pillow")
    env = to_gymnasium(sekai.registry.make(single_agent_id), render_mode="rgb_array")
    assert env.render_mode == "rgb_array"
    assert env.metadata["render_modes"] == ["rgb_array"]
    assert "renderer" not in env.metadata  # sekai's key, not Gymnasium's
    expected = pkgutil.resolve_name(declared)() if isinstance(declared, str) else declared()
    assert type(env.renderer) is type(expected)
    env.reset(seed=0)
    env.step(env.action_space.sample())
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
    assert frame.shape == _size(expected)
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 2  # something is drawn
    env.close()


@pytest.mark.parametrize("env_id", ["CartPole-v1", "MarketMaking-v0"])
def test_gymnasium_checker_and_render_collection(env_id: str, reference_envs: None) -> None:
    pytest.importorskip("PIL", reason="the reference renderers draw with Pillow")
    env = to_gymnasium(sekai.registry.make(env_id), render_mode="rgb_array")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. warnings about unbounded boxes
        check_env(env)  # renders, and remakes the env in each declared mode

    shape = _size(env.renderer)
    collected = gymnasium.wrappers.RenderCollection(env)
    collected.reset(seed=0)
    for _ in range(3):
        collected.step(collected.action_space.sample())
    frames = collected.render()
    assert len(frames) == 4 and all(frame.shape == shape for frame in frames)
    collected.close()

    # gymnasium.make over the adapter's spec: RenderCollection comes from the mode's name.
    listed = gymnasium.make(env.spec, render_mode="rgb_array_list")
    assert isinstance(listed, gymnasium.wrappers.RenderCollection)
    listed.reset(seed=0)
    listed.step(listed.action_space.sample())
    assert [frame.shape for frame in listed.render()] == [shape, shape]
    listed.close()


def test_default_renderer_through_sekai_wrappers(reference_envs: None) -> None:
    pytest.importorskip("PIL", reason="the reference renderers draw with Pillow")
    base = sekai.registry.make("Pendulum-v1")
    env = to_gymnasium(TimeLimit(base, 5), render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render().shape == (500, 500, 3)
    env.close()


# -- the convention, on envs of the tests ------------------------------------------------------


def test_a_callable_in_metadata_is_called_with_no_arguments(rich_env: Any) -> None:
    made: list[_Counting] = []

    def factory() -> _Counting:
        made.append(_Counting())
        return made[-1]

    env_type = _with_metadata(type(rich_env), renderer=factory, render_fps=4)
    sekai_env = env_type()
    env = to_gymnasium(sekai_env)
    assert env.render_mode is None and env.renderer is None and made == []
    assert env.render() is None
    assert env.metadata["render_modes"] == [] and "renderer" not in env.metadata

    env = to_gymnasium(sekai_env, render_mode="rgb_array")
    assert env.renderer is made[0] and env.metadata["render_modes"] == ["rgb_array"]
    env.reset(seed=0)
    assert env.render().shape == (3, 5, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env)
    env.close()
    assert made[0].closed == 1


def test_a_module_class_string_is_imported_when_a_frame_is_wanted(rich_env: Any) -> None:
    env_type = _with_metadata(type(rich_env), renderer="sekai.compat:GymnasiumRenderer")
    env = to_gymnasium(env_type(), render_mode="rgb_array")
    assert isinstance(env.renderer, GymnasiumRenderer)


def test_a_renderer_passed_in_wins_and_stays_open(rich_env: Any) -> None:
    env_type = _with_metadata(type(rich_env), renderer=lambda: pytest.fail("not the default"))
    renderer = _Counting()
    env = to_gymnasium(env_type(), renderer=renderer)
    assert env.renderer is renderer and env.render_mode == "rgb_array"
    env.close()
    assert renderer.closed == 0


def test_an_env_without_a_default_renderer_gets_a_clear_error(rich_env: Any) -> None:
    with pytest.raises(
        ValueError,
        match=r"render_mode='rgb_array' needs a renderer, and RichEnv declares no default one",
    ):
        to_gymnasium(rich_env, render_mode="rgb_array")


def test_an_unknown_mode_or_a_bad_declaration_is_refused(rich_env: Any) -> None:
    env_type = _with_metadata(type(rich_env), renderer=_Counting)
    with pytest.raises(ValueError, match=r"render_mode='ansi' is not a mode of RichEnv"):
        to_gymnasium(env_type(), render_mode="ansi")
    assert to_gymnasium(
        _with_metadata(env_type, render_modes=["ansi"])(), render_mode="ansi"
    ).renderer
    with pytest.raises(ValueError, match=r"'module:Class' string"):
        to_gymnasium(_with_metadata(env_type, renderer="not a name")(), render_mode="rgb_array")
    with pytest.raises(TypeError, match="must name a callable"):
        to_gymnasium(_with_metadata(env_type, renderer=42)(), render_mode="rgb_array")
    with pytest.raises(TypeError, match="has no render"):
        to_gymnasium(_with_metadata(env_type, renderer=object)(), render_mode="rgb_array")


def test_gymnasium_make_over_the_spec_builds_the_default_renderer(
    registered_rich_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    env_type = type(sekai.registry.make(registered_rich_id).unwrapped)
    monkeypatch.setitem(env_type.metadata, "renderer", _Counting)
    monkeypatch.setitem(env_type.metadata, "render_fps", 4)
    env = to_gymnasium(sekai.registry.make(registered_rich_id))
    remade = gymnasium.make(env.spec, render_mode="rgb_array")
    remade.reset(seed=0)
    assert remade.render().shape == (3, 5, 3)
    assert isinstance(remade.unwrapped.renderer, _Counting)
    remade.close()
