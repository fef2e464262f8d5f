"""The names of sekai 0.2 that code written for it uses: signatures, defaults, members."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import numpy as np
import pytest

from sekai.finance import data as data_module, features, sampling, universe
from sekai.finance.data import MarketData, Time
from sekai.finance.sampling import EpisodeSampler, FixedStart, RandomStart, SequentialStart
from sekai.finance.universe import SlotMap

E = inspect.Parameter.empty
KW = inspect.Parameter.KEYWORD_ONLY
POS = inspect.Parameter.POSITIONAL_OR_KEYWORD
VAR = inspect.Parameter.VAR_POSITIONAL
VARKW = inspect.Parameter.VAR_KEYWORD


def params(obj: Any) -> list[tuple[str, Any, Any]]:
    signature = inspect.signature(obj)
    return [(p.name, p.kind, p.default) for p in signature.parameters.values()]


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (
            MarketData,
            [
                ("prices", POS, None),
                ("fields", KW, None),
                ("timestamps", KW, None),
                ("assets", KW, None),
                ("exogenous", KW, None),
                ("price_field", KW, "close"),
                ("warmup", KW, 0),
            ],
        ),
        (MarketData.between, [("self", POS, E), ("start", POS, None), ("end", POS, None)]),
        (MarketData.exogenous_series, [("self", POS, E), ("name", POS, E)]),
        (MarketData.exogenous_width, [("self", POS, E), ("name", POS, E)]),
        (MarketData.field, [("self", POS, E), ("name", POS, E)]),
        (
            MarketData.from_long,
            [
                ("frame", POS, E),
                ("time", KW, "date"),
                ("asset", KW, "symbol"),
                ("price", KW, "close"),
                ("fields", KW, ()),
            ],
        ),
        (
            MarketData.from_pandas,
            [
                ("prices", POS, E),
                ("fields", KW, None),
                ("exogenous", KW, None),
                ("price_field", KW, "close"),
            ],
        ),
        (MarketData.index_of, [("self", POS, E), ("when", POS, E), ("side", KW, "left")]),
        (MarketData.log_returns, [("self", POS, E)]),
        (MarketData.select, [("self", POS, E), ("assets", POS, E)]),
        (
            MarketData.split,
            [("self", POS, E), ("boundaries", VAR, E), ("embargo", KW, 0), ("history", KW, 0)],
        ),
        (
            MarketData.walk_forward,
            [
                ("self", POS, E),
                ("train_size", POS, E),
                ("test_size", POS, E),
                ("step", KW, None),
                ("embargo", KW, 0),
                ("history", KW, 0),
                ("expanding", KW, False),
            ],
        ),
        (MarketData.with_exogenous, [("self", POS, E), ("arrays", VARKW, E)]),
        (MarketData.with_fields, [("self", POS, E), ("arrays", VARKW, E)]),
        (Time, [("value", POS, E)]),
        (
            EpisodeSampler.sample,
            [("self", POS, E), ("rng", POS, E), ("n_starts", POS, E), ("episode_length", POS, E)],
        ),
        (EpisodeSampler.reset, [("self", POS, E)]),
        (EpisodeSampler.spawn, [("self", POS, E)]),
        (FixedStart, [("start", POS, E)]),
        (RandomStart, []),
        (SequentialStart, [("start", POS, 0), ("stride", POS, None)]),
        (SlotMap, [("max_slots", POS, E)]),
        (SlotMap.update, [("self", POS, E), ("present", POS, E)]),
        (SlotMap.slot_of, [("self", POS, E), ("asset", POS, E)]),
        (SlotMap.reset, [("self", POS, E)]),
    ],
    ids=lambda obj: getattr(obj, "__qualname__", None),
)
def test_signatures(obj: Any, expected: list[tuple[str, Any, Any]]) -> None:
    assert params(obj) == expected


def test_members_and_kinds() -> None:
    for name in [
        "assets", "exogenous", "fields", "is_datetime", "mask", "n_assets", "n_steps",
        "periods_per_year", "prices", "timestamps", "warmup",
    ]:  # fmt: skip
        assert isinstance(inspect.getattr_static(MarketData, name), property), name
    for name in ["from_long", "from_pandas"]:
        assert isinstance(inspect.getattr_static(MarketData, name), classmethod)
    data = MarketData(np.ones(3))
    assert data.price_field == "close" and len(data) == 3 and data[1:].n_steps == 2
    assert dataclasses.is_dataclass(Time) and Time.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert [f.name for f in dataclasses.fields(Time)] == ["value"]
    assert Time(3) == Time(3) and hash(Time(3)) == hash(Time(3))
    assert inspect.isabstract(EpisodeSampler) and EpisodeSampler.sample.__isabstractmethod__
    for cls in (FixedStart, RandomStart, SequentialStart):
        assert issubclass(cls, EpisodeSampler) and not inspect.isabstract(cls)
    sequential = SequentialStart()
    assert {"epoch", "start", "stride"} <= set(vars(sequential))
    assert vars(FixedStart(1))["start"] == 1
    slots = SlotMap(2)
    assert {"changed", "max_slots"} <= set(vars(slots)) and len(slots) == 0
    assert isinstance(inspect.getattr_static(SlotMap, "assets"), property)
    assert isinstance(inspect.getattr_static(SlotMap, "mask"), property)


def test_module_listings() -> None:
    assert {"MarketData", "Time"} <= set(data_module.__all__)
    assert {
        "EpisodeSampler", "FixedStart", "RandomStart", "SequentialStart", "as_sampler",
        "first_start", "resolve_start", "sample_start",
    } <= set(sampling.__all__)  # fmt: skip
    assert {
        "asof_join", "check_causal", "cross_sectional_rank", "cross_sectional_zscore",
        "ewm_mean", "ewm_std", "forward_fill", "lag", "log_returns", "momentum",
        "realized_volatility", "rolling_mean", "rolling_std", "rolling_zscore", "simple_returns",
    } <= set(features.__all__)  # fmt: skip
    assert universe.__all__ == ["SlotMap"]
    for module in (data_module, sampling, features, universe):
        for name in module.__all__:
            assert hasattr(module, name), (module.__name__, name)
