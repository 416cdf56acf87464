"""``--json`` values (dicebase.present.jsonable): plain types as they are, the rest made plain.

The web API sends the same documents, so this is also what every API answer is made of.
"""

from __future__ import annotations

import datetime
import decimal
import enum
import json
import math

import numpy as np

from dicebase.present import json_text
from dicebase.present import jsonable as _jsonable


class Face(enum.IntEnum):
    ONE = 1


class Name(str):
    pass


def test_plain_values_stay_as_they_are():
    document = {"keep": [3, 1], "value": 0.2760297255455543, "best": True, "to_beat": None, "variant": "classic",
                "rows": [{"seat": 1, "p_win": 0.5}], "pair": (1, 2)}
    out = _jsonable(document)
    assert out == {**document, "pair": [1, 2]}
    assert type(out["pair"]) is list and out["keep"] is not document["keep"]  # a copy, never the caller's lists


def test_non_finite_floats_become_null():
    assert _jsonable([math.nan, math.inf, -math.inf, np.float64("nan"), np.float32("inf")]) == [None] * 5
    json_text(_jsonable({"x": math.nan}))  # allow_nan=False would refuse a NaN left in the document


def test_unusual_values_are_made_plain():
    out = _jsonable({
        1: np.int64(7), "f": np.float64(0.25), "f32": np.float32(0.5), "d": decimal.Decimal("2.50"),
        "dint": decimal.Decimal("3"), "day": datetime.date(2026, 11, 23), "b": b"\x01\xff", "face": Face.ONE,
        "name": Name("x"), "flag": np.bool_(True), "other": object,
    })
    assert out["1"] == 7 and type(out["1"]) is int
    assert out["f"] == 0.25 and out["f32"] == 0.5
    assert out["d"] == 2.5 and out["dint"] == 3 and type(out["dint"]) is int
    assert out["day"] == "2026-11-23" and out["b"] == "01ff"
    assert out["face"] == 1 and out["name"] == "x" and out["flag"] is True
    assert out["other"] == str(object)
    json.loads(json_text(out))


def test_json_text_is_json_dumps_with_indent_2():
    import pytest

    for document in ({"keep": [3, 1], "value": 0.276, "note": 'é"\\', "none": None, "empty": {}, "rows": [[]]}, [], 1.5):
        assert json_text(document) == json.dumps(document, indent=2, allow_nan=False)
    with pytest.raises(ValueError):
        json_text({"x": math.nan})
