"""The typed model: its enums are their output words, and every summary round-trips through the
data-only cache encoding into exactly the same objects."""
import dataclasses
import glob
import json
import os

import pytest

from gblint.core import model
from gblint.project.cache import CacheFormatError, decode, encode
from gblint.settings.config import Settings
from gblint.project.engine import summarize

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = sorted(glob.glob(os.path.join(ROOT, "examples", "*.py"))
               + glob.glob(os.path.join(ROOT, "tests", "fixtures", "**", "*.py"), recursive=True))


def test_words_are_their_strings():
    assert model.Outcome.SKIP == "skip" and hash(model.Outcome.SKIP) == hash("skip")
    assert str(model.Kind.TENSOR) == "T" and f"{model.Kind.UNKNOWN}" == "?" and f"{model.Outcome.TAIL:>5}" == " tail"
    assert json.dumps({"effect": model.Outcome.ERROR}) == '{"effect": "error"}'
    assert {"skip": 1}[model.Outcome.SKIP] == 1


def test_outcome_words():
    words = {o: (o.effect, o.status) for o in model.Outcome}
    assert words[model.Outcome.RESUME] == ("break", "compiled")
    assert words[model.Outcome.TAIL] == ("break", "tail")
    assert words[model.Outcome.SKIP] == ("skip", "skipped")
    assert words[model.Outcome.ERROR] == ("error", "failed")
    assert max(model.Outcome, key=lambda o: o.severity) == model.Outcome.ERROR


def _types(value, seen):
    """Every type inside ``value`` (dataclass fields, containers)."""
    seen.add(type(value))
    if dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            _types(getattr(value, f.name), seen)
    elif isinstance(value, dict):
        for k, v in value.items():
            _types(k, seen)
            _types(v, seen)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _types(v, seen)
    return seen


def test_summaries_round_trip_through_the_cache_encoding():
    seen = set()
    for path in FILES:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        try:
            summary = summarize(text, path, Settings())
        except Exception:  # the fixtures hold files that do not parse on purpose
            continue
        back = decode(json.dumps(encode(summary)).encode())
        assert back == summary, path
        types = _types(summary, set())
        assert _types(back, set()) == types, path
        seen |= types
    # the typed parts really occur (not only their words)
    for cls in (model.Outcome, model.EventKind, model.BlockKind, model.ManagerKind, model.Dotted,
                model.LocalFunction, model.InstanceValue, model.TensorAttr):
        assert cls in seen, cls


@pytest.mark.parametrize("data", [b'{"@Outcome": ["X"]}', b'{"@Outcome": [1]}', b'{"@Outcome": ["skip", "tail"]}',
                                  b'{"@Kind": ["T"]}',
                                  b'{"@Dotted": [1]}', b'{"@Modules": [[{"@Dotted": ["a"]}]]}'])
def test_malformed_model_values_do_not_decode(data):
    with pytest.raises(CacheFormatError):
        decode(data)


def test_model_values_decode():
    assert decode(b'{"@Outcome": ["skip"]}') is model.Outcome.SKIP
    assert decode(b'{"@Modules": [{"@t": [{"@Dotted": ["a.B"]}]}]}') == model.Modules((model.Dotted("a.B"),))
