"""The order-book envs' warmup: bounded by the session, since every reset runs all of it."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

from sekai.envs.finance import LimitOrderBookEnv, LimitOrderBookMarket
from sekai.envs.finance._lob_core import MAX_WARMUP_SESSIONS


@settings(max_examples=20, deadline=None)
@given(st.floats(1.0, 1000.0), st.floats(1.0, 1e6, exclude_min=True))
def test_a_warmup_longer_than_the_bound_is_refused_saying_why(
    session_length: float, excess: float
) -> None:
    warmup = MAX_WARMUP_SESSIONS * session_length * excess
    for build in (
        lambda: LimitOrderBookEnv(session_length=session_length, warmup=warmup),
        lambda: LimitOrderBookMarket(2, session_length=session_length, warmup=warmup),
    ):
        with pytest.raises(
            ValueError, match=r"warmup must be a time in \[0, .*every reset"
        ) as caught:
            build()
        assert f"got {warmup!r}" in str(caught.value)
        assert f"session_length ({session_length:g})" in str(caught.value)


@pytest.mark.parametrize("warmup", [math.inf, math.nan, -1.0])
def test_warmup_must_be_finite_and_not_negative(warmup: float) -> None:
    with pytest.raises(ValueError, match="LimitOrderBookEnv: warmup must be"):
        LimitOrderBookEnv(warmup=warmup)


def test_warmups_within_the_bound_run() -> None:
    env = LimitOrderBookEnv(session_length=0.5, decision_interval=0.25, warmup=50.0)
    result = env.reset(seed=0)
    assert env.core.book.time == pytest.approx(50.0)
    assert result.observation["book"].shape == (5, 4)
    assert LimitOrderBookEnv().config.warmup == 20.0  # the default is well inside
