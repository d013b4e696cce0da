"""The summary cache holds data only: a hostile, foreign or broken entry is a miss (never code
run, never a crash or a hang), and a failed write leaves nothing behind."""
import errno
import os
import pickle
import threading

import pytest

from gblint.project.cache import SummaryCache, maybe_cache
from gblint.settings.config import Settings
from gblint.project.engine import check_paths

from .conftest import run_cli
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
    assert all(p.endswith(".msgpack") or p.endswith(".gitignore") for p in entries(directory))


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


# ------------------------------------------------------------------ the memory layer


def _summary(project):
    from gblint.project.engine import summarize
    path = os.path.join(project, "a.py")
    with open(path) as fh:
        return summarize(fh.read(), path, Settings())


def test_memory_layer_returns_a_fresh_object_each_get(project):
    from gblint.project.cache import encode
    summary = _summary(project)
    cache = SummaryCache(None, "f", memory=4)
    cache.put("k", summary)
    summary.functions.clear()  # what the caller does with its object after put() is not kept
    first, second = cache.get("k"), cache.get("k")
    assert first is not second and first.functions and first.functions is not second.functions
    event = next(ev for f in first.functions.values() for ev in f.events)
    event.span.line = -1
    first.functions.clear()
    assert encode(cache.get("k")) == encode(second) and second.functions
    assert cache.hits == 3 and cache.misses == 0


def test_memory_layer_drops_the_least_recently_used():
    cache = SummaryCache(None, "f", memory=2)
    for key in "abc":
        cache.put(key, True)
    assert cache.get("a") is None and cache.get("b") is True
    cache.put("d", True)  # "b" was used last: "c" goes
    assert cache.get("c") is None and cache.get("b") is True and cache.get("d") is True


def test_memory_layer_holds_data_only():
    """Like the folder, the memory layer keeps gblint's summary classes only, never pickles."""
    import gblint.project.cache
    cache = SummaryCache(None, "f", memory=4)
    for i, value in enumerate([Payload(), {"a": Payload()}, [lambda: 1], {1: "key not a str"}]):
        cache.put(str(i), value)
        assert cache.get(str(i)) is None
    with open(gblint.project.cache.__file__) as fh:
        text = fh.read()
    assert "import pickle" not in text and "pickle." not in text


def test_memory_layer_in_front_of_the_folder(project, tmp_path):
    directory = str(tmp_path / "cache")
    check_paths([project], Settings(), SummaryCache(directory))  # as `gblint check` stores them
    cache = SummaryCache(directory, memory=16)
    first = check_paths([project], Settings(), cache)
    assert cache.hits > 0 and cache.misses == 0
    os.rename(directory, str(tmp_path / "moved"))  # now only memory can answer
    second = check_paths([project], Settings(), cache)
    assert cache.misses == 0
    assert [d.to_json() for d in second.diagnostics] == [d.to_json() for d in first.diagnostics]


def test_values_persist_declines_stay_out_of_the_folder(project, tmp_path):
    directory = tmp_path / "cache"
    cache = SummaryCache(str(directory), memory=16, persist=lambda path, text: False)
    check_paths([project], Settings(), cache)
    assert not directory.exists() or entries(directory) == []
    misses = cache.misses
    check_paths([project], Settings(), cache)
    assert cache.misses == misses  # answered from memory


def test_maybe_cache_without_a_folder(tmp_path):
    assert maybe_cache(Settings(), False, str(tmp_path / "c")) is None
    memory_only = maybe_cache(Settings(), False, str(tmp_path / "c"), memory=8)
    assert memory_only.directory is None and not (tmp_path / "c").exists()


def test_fixes_come_from_the_cache(project, tmp_path, monkeypatch):
    """A warm run re-parses no file for its fixes: each fix is stored by its request and text."""
    from gblint.project import engine
    directory = str(tmp_path / "cache")
    first = check_paths([project], Settings(), SummaryCache(directory))
    assert any(d.fix for d in first.diagnostics)
    monkeypatch.setattr(engine, "attach_fixes", lambda *a: pytest.fail("fixes computed again"))
    cache = SummaryCache(directory)
    second = check_paths([project], Settings(), cache)
    assert [d.to_json() for d in second.diagnostics] == [d.to_json() for d in first.diagnostics]
    assert cache.fix_hits > 0 and cache.fix_misses == 0


def test_a_fix_entry_is_never_read_as_a_summary(project, tmp_path):
    from gblint.core.diagnostics import Fix
    cache = SummaryCache(str(tmp_path / "cache"), memory=4)
    cache.put("a" * 64, Fix("t", "safe", ()))
    cache.put("b" * 64, False)
    assert cache.get("a" * 64) is None and cache.get("b" * 64) is None
    assert SummaryCache(str(tmp_path / "cache")).get("a" * 64, fix=True) == Fix("t", "safe", ())
    assert SummaryCache(str(tmp_path / "cache")).get("b" * 64, fix=True) is False


LOOP_BREAK = "import torch\n\n\n@torch.compile\ndef f(x):\n    for i in range(3):\n        print(i)\n    return x\n"


def test_a_summary_stored_from_another_folder_keeps_this_run_s_paths(tmp_path):
    # the cache is keyed by the absolute path; the path printed and matched is this run's spelling
    (tmp_path / "pyproject.toml").write_text('[tool.gblint]\nper-file-ignores = { "tests/test_y.py" = ["GBL2"] }\n')
    (tmp_path / "tests").mkdir()
    for name in ("test_x.py", "test_y.py"):
        (tmp_path / "tests" / name).write_text(LOOP_BREAK)
    first = run_cli("check", "-q", ".", cwd=str(tmp_path / "tests"))
    assert "test_x.py:7" in first.stdout and "test_y.py" not in first.stdout
    warm = run_cli("check", "-q", ".", cwd=str(tmp_path))
    cold = run_cli("check", "-q", "--no-cache", ".", cwd=str(tmp_path))
    assert warm.stdout == cold.stdout and "tests/test_x.py:7" in warm.stdout and "test_y.py" not in warm.stdout


def test_the_size_limit_applies_to_cached_files(tmp_path):
    (tmp_path / "a.py").write_text(LOOP_BREAK)
    assert "GBL201" in run_cli("check", "a.py", cwd=str(tmp_path)).stdout
    (tmp_path / "pyproject.toml").write_text("[tool.gblint]\nmax-file-size = 10\n")
    assert "GBL002" in run_cli("check", "a.py", cwd=str(tmp_path)).stdout
