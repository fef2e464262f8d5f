"""Space conversion between sekai and Gymnasium, both ways."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.compat import from_gymnasium_space, to_gymnasium_space
from sekai.spaces import (
    Box,
    Dict,
    Discrete,
    MaskedBox,
    MultiBinary,
    MultiDiscrete,
    Sequence,
    Space,
    Tuple,
)

gs = gymnasium.spaces


def canonical_spaces() -> list[Space[Any]]:
    return [
        Box(-1.0, 2.0, (3,)),
        Box(np.array([0.0, -np.inf]), np.array([1.0, np.inf]), dtype=np.float64),
        Box(-5, 5, (2, 2), dtype=np.int32),
        Box(0, 255, (4, 4, 3), dtype=np.uint8),
        Discrete(4),
        Discrete(3, start=-1),
        MultiDiscrete([2, 3, 4]),
        MultiDiscrete([[2, 3], [4, 5]], start=[[1, 0], [0, -2]], dtype=np.int32),
        MultiBinary(5),
        MultiBinary((2, 3)),
        Dict({"z": Box(0.0, 1.0, (2,)), "a": Discrete(3), "m": MultiBinary(2)}),
        Tuple([Discrete(2), Box(-1.0, 1.0, (2,))]),
        Sequence(Box(0.0, 1.0, (2,)), max_length=5),
        Sequence(Discrete(3), max_length=4, stack=True),
        MaskedBox(-1.0, 1.0, (2,), max_size=3),
        MaskedBox(0, 10, max_size=4, dtype=np.int64),
        Dict(
            {
                "book": MaskedBox(0.0, 100.0, (2,), max_size=5),
                "nested": Tuple([Dict({"k": Discrete(2)}), Sequence(Discrete(2), max_length=3)]),
            }
        ),
    ]


SPACES = canonical_spaces()
IDS = [repr(space) for space in SPACES]


@pytest.mark.parametrize("space", SPACES, ids=IDS)
def test_round_trip_gives_an_equal_space(space: Space[Any]) -> None:
    back = from_gymnasium_space(to_gymnasium_space(space))
    assert type(back) is type(space)
    assert back == space


@pytest.mark.parametrize("space", SPACES, ids=IDS)
def test_samples_belong_to_both_spaces(space: Space[Any]) -> None:
    gym_space = to_gymnasium_space(space)
    space.seed(0)
    gym_space.seed(0)
    for _ in range(20):
        assert space.sample() in gym_space
    if not isinstance(gym_space, gs.Sequence) and not _has_sequence(space):
        # Gymnasium's own sequences draw unbounded lengths; other samples must fit sekai.
        for _ in range(20):
            assert space.contains(gym_space.sample())


def _has_sequence(space: Space[Any]) -> bool:
    if isinstance(space, Sequence):
        return True
    if isinstance(space, Dict):
        return any(_has_sequence(sub) for sub in space.spaces.values())
    if isinstance(space, Tuple):
        return any(_has_sequence(sub) for sub in space.spaces)
    return False


def test_each_type_maps_to_the_gymnasium_space_of_the_same_name() -> None:
    assert to_gymnasium_space(Box(0.0, 1.0, (2,))) == gs.Box(0.0, 1.0, (2,), np.float32)
    assert to_gymnasium_space(Discrete(3, start=2)) == gs.Discrete(3, start=2)
    assert to_gymnasium_space(MultiDiscrete([2, 3])) == gs.MultiDiscrete([2, 3])
    assert to_gymnasium_space(MultiBinary(4)) == gs.MultiBinary(4)
    converted = to_gymnasium_space(Sequence(Discrete(2), max_length=7, stack=True))
    assert isinstance(converted, gs.Sequence) and converted.stack
    assert converted.max_length == 7


def test_dict_keeps_sekai_key_order() -> None:
    space = Dict({"zeta": Discrete(2), "alpha": Discrete(3), "mid": Discrete(4)})
    converted = to_gymnasium_space(space)
    assert list(converted.spaces) == ["zeta", "alpha", "mid"]
    assert list(from_gymnasium_space(converted).spaces) == ["zeta", "alpha", "mid"]


def test_masked_box_becomes_a_dict_of_its_two_parts() -> None:
    space = MaskedBox(-2.0, 3.0, (2,), max_size=4)
    converted = to_gymnasium_space(space)
    assert type(converted) is gs.Dict
    assert list(converted.spaces) == ["values", "mask"]
    assert converted["values"] == gs.Box(-2.0, 3.0, (4, 2), np.float32)
    assert converted["mask"] == gs.MultiBinary(4)


def test_a_plain_gymnasium_dict_with_masked_box_keys_stays_a_dict() -> None:
    plain = gs.Dict({"values": gs.Box(0.0, 1.0, (3, 2)), "mask": gs.MultiBinary(3)})
    assert type(from_gymnasium_space(plain)) is Dict


def test_gymnasium_sequences_need_a_length_bound() -> None:
    unbounded = gs.Dict({"obs": gs.Sequence(gs.Discrete(2))})
    with pytest.raises(ValueError, match=r"space\['obs'\].*max_sequence_length"):
        from_gymnasium_space(unbounded)
    converted = from_gymnasium_space(unbounded, max_sequence_length=9)
    assert isinstance(converted, Dict)
    assert converted["obs"] == Sequence(Discrete(2), max_length=9)


def test_unconvertible_gymnasium_space_names_its_path() -> None:
    space = gs.Dict({"a": gs.Tuple([gs.Discrete(2), gs.Text(5)])})
    with pytest.raises(TypeError, match=r"space\['a'\]\[1\] = Text"):
        from_gymnasium_space(space)


def test_unconvertible_sekai_space_names_its_path() -> None:
    class Custom(Space[int]):
        def __init__(self) -> None:
            super().__init__((), np.int64, None)

    space = Tuple([Discrete(2), Dict({"inner": Custom()})])
    with pytest.raises(TypeError, match=r"space\[1\]\['inner'\] = .*Custom has no Gymnasium"):
        to_gymnasium_space(space)


def test_spaces_gymnasium_refuses_name_their_path() -> None:
    space = Dict({"book": Dict({"mask": MultiBinary(0)})})  # Gymnasium refuses n=0
    with pytest.raises(ValueError, match=r"space\['book'\]\['mask'\] = MultiBinary\(0\)"):
        to_gymnasium_space(space)


def test_boolean_gymnasium_box_is_refused() -> None:
    with pytest.raises(TypeError, match="dtype bool"):
        from_gymnasium_space(gs.Box(0, 1, (2,), dtype=np.bool_))


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple),
    low=st.floats(-1e3, 1e3),
    width=st.floats(0.0, 1e3),
    dtype=st.sampled_from([np.float32, np.float64]),
)
def test_box_bounds_survive_both_ways(
    shape: tuple[int, ...], low: float, width: float, dtype: Any
) -> None:
    space = Box(low, low + width, shape, dtype=dtype)
    gym_space = to_gymnasium_space(space)
    assert gym_space.shape == space.shape and gym_space.dtype == space.dtype
    np.testing.assert_array_equal(gym_space.low, space.low)
    np.testing.assert_array_equal(gym_space.high, space.high)
    assert from_gymnasium_space(gym_space) == space


@settings(max_examples=40, deadline=None)
@given(
    nvec=st.lists(st.integers(1, 6), min_size=1, max_size=4),
    start=st.integers(-3, 3),
)
def test_multi_discrete_survives_both_ways(nvec: list[int], start: int) -> None:
    space = MultiDiscrete(nvec, start=[start] * len(nvec))
    gym_space = to_gymnasium_space(space)
    np.testing.assert_array_equal(gym_space.nvec, space.nvec)
    np.testing.assert_array_equal(gym_space.start, space.start)
    assert from_gymnasium_space(gym_space) == space
