"""The summary cache holds data only: a hostile, foreign or broken entry is a miss (never code
run, never a crash or a hang), and a failed write leaves nothing behind."""
import errno
import os
import pickle
import threading

import pytest

from gblint.cache import SummaryCache, maybe_cache
from gblint.config import Settings
from gblint.engine import check_paths

from .test_cli import BREAK_IN_LOOP


@pytest.fixture
def project(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.py").write_text(BREAK_IN_LOOP)
    return str(src)


def entries(directory):
    return [os.path.join(root, f) for root, _, files in os.walk(directory) for f in files]


def run_twice(project, directory, tamper):
    """Check ``project`` with a fresh cache, let ``tamper(path)`` spoil each entry, check again."""
    first = check_paths([project], Settings(), SummaryCache(directory))
    for path in entries(directory):
        tamper(path)
    cache = SummaryCache(directory)
    second = check_paths([project], Settings(), cache)
    assert [d.to_json() for d in second.diagnostics] == [d.to_json() for d in first.diagnostics]
    assert second.errors == []
    return cache


class Payload:
    def __reduce__(self):
        return (os.mkdir, (self.marker,))


@pytest.mark.parametrize("content", [
    b'{"@t": [1, 2]}',                                       # valid JSON, wrong type
    b'"a summary"',
    b'{"@Span": [1, 2, 3]}',                                 # wrong field count
    b'{"@Span": ["1", 2, 3, 4]}',                            # wrong field type
    b'{"@FileSummary": ["a.py", "a", {"f": 1}, {}, [], {}, {}, {}, []]}',  # a function that is not one
    b'{"@os.system": ["true"]}',                             # not a summary class
    b'{"@FileSummary": [',                                   # truncated
    pickle.dumps({"a": 1}),                                  # a pickle, as older versions wrote
    b"",
], ids=["tuple", "str", "count", "field", "nested", "foreign", "truncated", "pickle", "empty"])
def test_unexpected_entry_is_a_miss(project, tmp_path, content):
    def tamper(path):
        with open(path, "wb") as fh:
            fh.write(content)
    cache = run_twice(project, str(tmp_path / "cache"), tamper)
    assert cache.hits == 0 and cache.misses > 0


def test_pickle_in_the_cache_is_never_run(project, tmp_path):
    """A cache folder others can write to must not run their code (pickle would)."""
    directory = str(tmp_path / "cache")
    marker = tmp_path / "pwned"
    Payload.marker = str(marker)
    evil = pickle.dumps(Payload())

    def tamper(path):
        for name in {path, os.path.splitext(path)[0] + ".pickle"}:  # where this and older versions look
            with open(name, "wb") as fh:
                fh.write(evil)
    run_twice(project, directory, tamper)
    assert not marker.exists()


def test_fifo_entry_is_a_miss_not_a_hang(project, tmp_path):
    directory = str(tmp_path / "cache")

    def tamper(path):
        os.unlink(path)
        for name in {path, os.path.splitext(path)[0] + ".pickle"}:  # where this and older versions look
            os.mkfifo(name)
    result = []
    t = threading.Thread(target=lambda: result.append(run_twice(project, directory, tamper)), daemon=True)
    t.start()
    t.join(30)
    if t.is_alive():  # unblock the reader so the test process can exit
        for path in entries(directory):
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        pytest.fail("reading a FIFO in the cache blocked")
    assert result and result[0].hits == 0


def test_symlinked_entry_is_a_miss(project, tmp_path):
    directory = str(tmp_path / "cache")
    outside = tmp_path / "outside"
    outside.write_bytes(b"whatever")

    def tamper(path):
        os.unlink(path)
        os.symlink(outside, path)
    assert run_twice(project, directory, tamper).hits == 0


def test_round_trip_hits(project, tmp_path):
    directory = str(tmp_path / "cache")
    cache = run_twice(project, directory, lambda path: None)
    assert cache.hits > 0 and cache.misses == 0
    assert all(p.endswith(".json") or p.endswith(".gitignore") for p in entries(directory))


@pytest.mark.parametrize("dangling", [True, False])
def test_gitignore_is_never_written_through_a_link(tmp_path, dangling):
    directory = tmp_path / "cache"
    directory.mkdir()
    target = tmp_path / "elsewhere"
    if not dangling:
        target.write_text("keep\n")
    (directory / ".gitignore").symlink_to(target)
    assert maybe_cache(Settings(), True, str(directory)) is not None
    assert target.exists() == (not dangling)
    if not dangling:
        assert target.read_text() == "keep\n"
    assert os.path.islink(directory / ".gitignore")


def test_gitignore_is_written(tmp_path):
    maybe_cache(Settings(), True, str(tmp_path / "cache"))
    assert (tmp_path / "cache" / ".gitignore").read_text().endswith("*\n")


def test_full_disk_leaves_no_temporary_file(tmp_path, monkeypatch):
    real = os.fdopen

    class Full:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: Full(real(fd, *a, **k)))
    cache = SummaryCache(str(tmp_path / "cache"))
    cache.put("ab" * 32, True)  # a cache that cannot be written only costs speed
    monkeypatch.undo()
    assert entries(tmp_path / "cache") == []
    assert cache.get("ab" * 32) is None
