"""The cache's msgpack records (gblint.project.cache_codec, issue 39): a summary comes back equal to what was
stored, and an entry of an older format, a truncated or altered one, or one whose fields do not have
their declared types is a miss, never a traceback or another kind of object."""
import json
import os
import random

import msgpack
import pytest

from gblint.project import cache as cache_mod
from gblint.core import model
from gblint.project.cache import SummaryCache, encode
from gblint.project.cache_codec import MAGIC
from gblint.settings.config import Settings
from gblint.core.diagnostics import Edit, Fix
from gblint.project.engine import summarize

from .test_cli import BREAK_IN_LOOP

PROGRAM = BREAK_IN_LOOP + '''

class Config:
    def __init__(self, flag=True, scale=-0.0, count=1, on=True):
        self.flag, self.scale, self.count, self.on = flag, scale, count, on


def helper(x, *args, key=None, **kw):
    values = [1, True, 1.0, -0.0, "1", None]
    return x + len(values) if key is None else x
'''


@pytest.fixture
def stored(tmp_path):
    """(cache, key, summary): the summary of PROGRAM stored in a fresh cache folder."""
    path = str(tmp_path / "a.py")
    summary = summarize(PROGRAM, path, Settings())
    cache = SummaryCache(str(tmp_path / "cache"), "f")
    key = cache.key(path, "a", PROGRAM)
    cache.put(key, summary)
    return cache, key, summary


def _entry(cache, key):
    return cache._file(key)


def test_a_summary_comes_back_equal_with_its_words_and_number_types(stored):
    cache, key, summary = stored
    back = SummaryCache(cache.directory, "f").get(key)
    assert json.dumps(encode(back)) == json.dumps(encode(summary))
    consts = {(type(e.value), repr(e.value)) for info in back.functions.values()
              for values in info.locals.values() for v in values for e in _walk(v) if e.op == model.Op.CONST}
    assert {(bool, "True"), (int, "1"), (float, "1.0"), (float, "-0.0")} <= consts  # equal values kept apart
    assert all(type(e.op) is model.Op for info in back.functions.values() for ev in info.events
               if ev.func is not None for e in _walk(ev.func))


def _walk(e):
    yield e
    for p in e.parts:
        yield from _walk(p)


def test_fixes_and_markers_round_trip(tmp_path):
    cache = SummaryCache(str(tmp_path), "f")
    fix = Fix("title", "safe", (Edit(1, 1, 1, 2, "x"),))
    for key, value in (("a" * 64, fix), ("b" * 64, True), ("c" * 64, False)):
        cache.put(key, value)
        got = SummaryCache(str(tmp_path), "f").get(key, fix=value is not True)
        assert got == value and type(got) is type(value)


def _spoil(cache, key, data):
    with open(_entry(cache, key), "wb") as fh:
        fh.write(data)
    return SummaryCache(cache.directory, "f").get(key)


def _pack(*parts):
    return MAGIC + msgpack.packb(list(parts))


@pytest.mark.parametrize("data", [
    _pack(1, (), ["a.py"]),                                     # a summary of too few fields
    _pack(7, (), []),                                           # no such kind of entry
    _pack(0, (), "yes"),                                        # a marker that is not a bool
    _pack(1, [["nosuchop", None, []]], []),                     # an unknown op
    _pack(1, [["const", [1], []]], []),                         # an Expr value of no allowed type
    _pack(1, [["seq", None, [0]]], []),                         # a value that holds itself
    _pack(1, [["const", 1, []], ["seq", None, [-1]]], []),      # a negative index
    MAGIC,                                                      # nothing after the magic
    MAGIC + b"\xc1",                                            # not msgpack
    json.dumps({"@t": [1, 2]}).encode(),                        # the JSON of format 10
], ids=["count", "kind", "marker", "op", "value", "cycle", "negative", "empty", "garbage", "json"])
def test_a_malformed_entry_is_a_miss(stored, data):
    cache, key, _ = stored
    assert _spoil(cache, key, data) is None


def test_fields_of_the_wrong_type_are_a_miss(stored):
    """Each field of the stored summary replaced by a value of another type: a miss each time."""
    cache, key, summary = stored
    with open(_entry(cache, key), "rb") as fh:
        kind, table, body = msgpack.unpackb(fh.read()[len(MAGIC):], raw=False)
    for i, field in enumerate(body):
        for wrong in (3.5, "x", [["x"]], {"k": "v"}, None):
            if type(wrong) is type(field):
                continue
            spoiled = list(body)
            spoiled[i] = wrong
            assert _spoil(cache, key, _pack(kind, table, spoiled)) is None, (i, wrong)


def test_truncated_or_altered_entries_never_raise(stored):
    """Every truncation and a few hundred random byte changes of a real entry: each read is a miss or a
    summary of gblint's classes (bytes that still decode), never an exception."""
    cache, key, _ = stored
    with open(_entry(cache, key), "rb") as fh:
        good = fh.read()
    rng = random.Random(39)
    spoiled = [good[:n] for n in range(0, len(good), max(1, len(good) // 200))]
    for _ in range(300):
        data = bytearray(good)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(MAGIC), len(data))] = rng.randrange(256)
        spoiled.append(bytes(data))
    for data in spoiled:
        got = _spoil(cache, key, data)
        assert got is None or type(got) is model.FileSummary


def test_an_entry_of_format_10_is_not_read(stored, tmp_path):
    """An older gblint's entry (JSON) sits under another key and name: never read, whatever it holds."""
    cache, key, summary = stored
    old = os.path.splitext(_entry(cache, key))[0] + ".json"
    with open(old, "w") as fh:
        fh.write(json.dumps(encode(summary)))
    os.unlink(_entry(cache, key))
    assert SummaryCache(cache.directory, "f").get(key) is None
    assert cache_mod.FORMAT >= 11


@pytest.mark.parametrize("call, frozen", [("entry", True), ("main", False)])
def test_only_a_one_shot_run_keeps_its_summaries_from_the_collector(tmp_path, call, frozen):
    """``gblint check`` from the command line (cli.entry) freezes what it loads (gc.freeze: the process
    ends with the run); cli.main, which the language server's process and the tests call, never does."""
    import subprocess
    import sys
    (tmp_path / "a.py").write_text(PROGRAM)
    code = ("import gc, sys\nfrom gblint.frontends import cli\n"
            f"sys.argv = ['gblint', 'check', '--no-cache', '--exit-zero', {str(tmp_path / 'a.py')!r}]\n"
            f"try:\n    cli.{call}({'' if call == 'entry' else 'sys.argv[1:]'})\nexcept SystemExit:\n    pass\n"
            "print(gc.get_freeze_count(), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert (int(out.stderr.strip().splitlines()[-1]) > 0) == frozen, out.stderr
