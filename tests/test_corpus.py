"""Corpus runs: the whole standard library and the installed torch package, checked without a
single internal error (no GBL000, empty ``errors``). Too slow for every CI run (minutes on two
cores), so marked ``slow`` and deselected by default; run them with

    python -m pytest -m slow tests/test_corpus.py -s

Each run prints ``files``, ``lines`` and ``seconds``, and records them as junit properties.
"""
import importlib.util
import os
import sysconfig
import time

import pytest

from gblint.config import Settings
from gblint.engine import check_paths, iter_python_files


def _torch_dir():
    spec = importlib.util.find_spec("torch")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


CORPORA = {"stdlib": sysconfig.get_paths()["stdlib"], "torch": _torch_dir()}


def _lines(paths):
    total = 0
    for path in paths:
        try:
            with open(path, "rb") as fh:
                total += fh.read().count(b"\n")
        except OSError:
            pass
    return total


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CORPORA))
def test_corpus_has_no_internal_errors(name, record_property, capsys):
    root = CORPORA[name]
    if root is None or not os.path.isdir(root):
        pytest.skip(f"{name} not installed")
    settings = Settings(respect_gitignore=False)
    files = iter_python_files([root], settings)
    start = time.perf_counter()
    report = check_paths([root], settings)
    seconds = time.perf_counter() - start
    lines = _lines(files)
    internal = [d for d in report.diagnostics if d.code == "GBL000"]
    unparsed = sum(d.code in ("GBL001", "GBL002") for d in report.diagnostics)
    for key, value in (("files", report.files_checked), ("lines", lines), ("seconds", round(seconds, 1)),
                       ("unparsed", unparsed), ("internal_errors", len(internal) + len(report.errors))):
        record_property(f"{name}_{key}", value)
    with capsys.disabled():
        print(f"\ncorpus {name}: {report.files_checked} files, {lines} lines, {seconds:.1f} s, "
              f"{unparsed} GBL001/GBL002, {len(internal)} GBL000, {len(report.errors)} errors")
    assert report.files_checked == len(files) > 100
    assert report.errors == []
    assert internal == [], "\n".join(f"{d.path}:{d.line}: {d.message}" for d in internal[:20])
