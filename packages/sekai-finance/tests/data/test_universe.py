"""SlotMap: assets keep their slot while present; new ones take the lowest free slot."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.finance.universe import SlotMap


def test_listing_and_delisting() -> None:
    slots = SlotMap(3)
    assert len(slots) == 0 and slots.assets == (None, None, None) and slots.max_slots == 3
    np.testing.assert_array_equal(slots.update(["a", "b"]), [0, 1])
    np.testing.assert_array_equal(slots.changed, [True, True, False])
    np.testing.assert_array_equal(slots.mask, [True, True, False])
    np.testing.assert_array_equal(slots.update(["b", "a"]), [1, 0])  # order does not matter
    assert not slots.changed.any()
    np.testing.assert_array_equal(slots.update(["b", "c", "d"]), [1, 0, 2])
    assert slots.assets == ("c", "b", "d") and slots.changed.tolist() == [True, False, True]
    assert slots.slot_of("d") == 2 and slots.slot_of("a") is None and len(slots) == 3
    np.testing.assert_array_equal(slots.update(["b", "c", "d", "e"]), [1, 0, 2, -1])  # full
    assert slots.assets == ("c", "b", "d") and not slots.changed.any()  # nobody is displaced
    np.testing.assert_array_equal(slots.update(["e", "b"]), [0, 1])  # c and d left: e gets in
    assert slots.assets == ("e", "b", None) and slots.changed.tolist() == [True, False, True]
    slots.reset()
    assert len(slots) == 0 and slots.changed.tolist() == [True, True, False]
    assert "max_slots=3" in repr(slots)


def test_validation() -> None:
    with pytest.raises(ValueError, match="max_slots must be an int >= 1"):
        SlotMap(0)
    slots = SlotMap(2)
    with pytest.raises(ValueError, match="'a' is present twice"):
        slots.update(["a", "a"])
    with pytest.raises(TypeError, match="hashable"):
        slots.update([["a"]])
    with pytest.raises(ValueError, match="None cannot label"):
        slots.update([None])


@settings(max_examples=200, deadline=None)
@given(
    max_slots=st.integers(1, 6),
    steps=st.lists(st.sets(st.integers(0, 9), max_size=8), min_size=1, max_size=12),
)
def test_invariants(max_slots: int, steps: list[set[int]]) -> None:
    slots = SlotMap(max_slots)
    previous: tuple[object, ...] = slots.assets
    for present in steps:
        order = sorted(present)
        result = slots.update(order)
        held = [slot for slot in result if slot >= 0]
        assert len(held) == len(set(held))  # no two assets share a slot
        assert len(held) == min(len(order), max_slots) or len(held) < len(order)
        for asset, slot in zip(order, result, strict=True):
            if slot >= 0:
                assert slots.assets[slot] == asset and slots.slot_of(asset) == slot
                if asset in previous:  # an asset that stayed keeps its slot
                    assert previous.index(asset) == slot
            else:
                assert slots.slot_of(asset) is None
        assert set(slots.assets) - {None} <= present
        changed = [a != b for a, b in zip(previous, slots.assets, strict=True)]
        assert slots.changed.tolist() == changed
        assert slots.mask.tolist() == [a is not None for a in slots.assets]
        assert len(slots) == sum(slots.mask)
        # as many assets present as there are slots: nobody is left out
        assert (len(held) == len(order)) or all(a is not None for a in slots.assets)
        previous = slots.assets
