"""Corpus runs: the whole standard library, the installed torch package and the benchmark's model
corpus, checked without a single internal error (no GBL000, empty ``errors``). Too slow for every
CI run (minutes on two cores), so marked ``slow`` and deselected by default; run them with

    python -m pytest -m slow tests/test_corpus.py -s

The model corpus (vit-pytorch and x-transformers, pinned in bench/corpus.json) is fetched from the
package registry by bench/corpus.py the first time (sha256-checked, cached in bench/.corpus/);
without network access that case is skipped, saying why. Nothing runs at import time, so the
default suite never touches the network.

Each run prints ``files``, ``lines`` and ``seconds``, and records them as junit properties.
"""
import importlib.util
import os
import sysconfig
import time

import pytest

from gblint.settings.config import Settings
from gblint.project.engine import check_paths, iter_python_files


def _torch_dir():
    spec = importlib.util.find_spec("torch")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def _models_dir():
    """The benchmark's model corpus, fetched by bench/corpus.py; skips the test if it cannot be."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench", "corpus.py")
    spec = importlib.util.spec_from_file_location("gblint_bench_corpus", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        return module.fetch("models")
    except module.CorpusError as e:
        pytest.skip(f"models corpus unavailable (bench/corpus.py could not fetch it): {e}")


# name -> a function returning the root folder (called inside the test: no work at collection time)
CORPORA = {"stdlib": lambda: sysconfig.get_paths()["stdlib"], "torch": _torch_dir, "models": _models_dir}


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
    root = CORPORA[name]()
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
