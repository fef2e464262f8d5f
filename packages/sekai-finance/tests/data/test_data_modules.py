"""sekai.finance.data after its split into private modules: the same names, pickles and docs."""

from __future__ import annotations

import base64
import pickle

import numpy as np

from sekai.finance import data as data_module
from sekai.finance.data import MarketData, Past, PointInTime, Time

# {"data": MarketData(...), "time": Time(5), "now": data.at(1)}, pickled by the
# single data.py module that preceded the split (protocol 4).
BEFORE_THE_SPLIT = (
    "gASVsAIAAAAAAAB9lCiMBGRhdGGUjBJzZWthaS5maW5hbmNlLmRhdGGUjAhfcmVzdG9yZZSTlChdlCiMBWNsb3NllIwG"
    "dm9sdW1llGVoBowBYZSMAWKUhpRdlIwEcmF0ZZRhSwFdlCiMFm51bXB5Ll9jb3JlLm11bHRpYXJyYXmUjAxfcmVjb25z"
    "dHJ1Y3SUk5SMBW51bXB5lIwHbmRhcnJheZSTlEsAhZRDAWKUh5RSlChLAUsDSwKGlGgRjAVkdHlwZZSTlIwCZjiUiYiH"
    "lFKUKEsDjAE8lE5OTkr/////Sv////9LAHSUYolDMAAAAAAAAPA/AAAAAAAA+H8AAAAAAAAAQAAAAAAAAAhAAAAAAAAA"
    "EEAAAAAAAAAUQJR0lGJoEGgTSwCFlGgVh5RSlChLAUsDSwKGlGgdiUMwAAAAAAAA8D8AAAAAAAAAQAAAAAAAAPA/AAAA"
    "AAAAAEAAAAAAAADwPwAAAAAAAABAlHSUYmgQaBNLAIWUaBWHlFKUKEsBSwNLAoaUaBqMAmIxlImIh5RSlChLA4wBfJRO"
    "Tk5K/////0r/////SwB0lGKJQwYBAAEBAQGUdJRiaBBoE0sAhZRoFYeUUpQoSwFLA4WUaBqMAk04lImIh5RSlChLBGge"
    "Tk5OSv////9K/////0sATihDAUSUSwFLAUsBdJSGlHSUYolDGAtNAAAAAAAADE0AAAAAAAANTQAAAAAAAJR0lGJoEGgT"
    "SwCFlGgVh5RSlChLAUsDhZRoHYlDGJqZmZmZmbk/mpmZmZmZyT8zMzMzMzPTP5R0lGJlTnSUUpSMBHRpbWWUaAKMBFRp"
    "bWWUk5QpgZR9lIwFdmFsdWWUSwVzYowDbm93lGgCjAtQb2ludEluVGltZZSTlCmBlE59lCiMBV9kYXRhlGhHjARfbm93"
    "lEsBdYaUYnUu"
)


def test_every_name_keeps_its_import_path() -> None:
    assert set(data_module.__all__) == {
        "MarketData",
        "Past",
        "PastBatch",
        "PointInTime",
        "PointInTimeBatch",
        "Time",
        "TimeLike",
    }
    for name in data_module.__all__:
        obj = getattr(data_module, name)
        if isinstance(obj, type):
            assert obj.__module__ == "sekai.finance.data", name


def test_pickles_from_before_the_split_load() -> None:
    loaded = pickle.loads(base64.b64decode(BEFORE_THE_SPLIT))
    data, now = loaded["data"], loaded["now"]
    assert isinstance(data, MarketData) and loaded["time"] == Time(5)
    assert (
        data.assets == ("a", "b") and data.warmup == 1 and list(data.fields) == ["close", "volume"]
    )
    np.testing.assert_array_equal(data.prices, [[1.0, np.nan], [2.0, 3.0], [4.0, 5.0]])
    assert data.mask.tolist() == [[True, False], [True, True], [True, True]]
    assert str(data.timestamps[2]) == "2024-01-03" and data.exogenous_series("rate")[1] == 0.2
    assert not data.prices.flags.writeable
    assert isinstance(now, PointInTime) and now.index == 1 and now.prices.latest.tolist() == [2, 3]
    assert isinstance(now.prices, Past)
    returns = data.at_rows([2]).log_returns(1)
    assert returns[0, 0, 0] == np.log(4.0 / 2.0) and returns[0, 0, 1] == np.log(5.0 / 3.0)


def test_pickles_still_name_the_public_module() -> None:
    blob = pickle.dumps(MarketData(np.ones(3)))
    assert b"sekai.finance.data" in blob and b"_restore" in blob
    assert b"sekai.finance._" not in blob
    assert b"sekai.finance._" not in pickle.dumps((Time(1), MarketData(np.ones(3)).at(1)))
