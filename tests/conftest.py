"""Fixtures used across the suite: the example programs with their measured truth
(tests/cases/examples) and helpers to run gblint on text or through its command line."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from gblint.settings.config import Settings
from gblint.project.engine import SourceFile, check_sources

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = os.path.join(ROOT, "tests", "cases", "examples")
TRUTH = os.path.join(CASES, "truth.json")  # torch 2.13.0 (CPU), Python 3.11.7
SCORE = os.path.join(ROOT, "scripts", "score.py")


def lint(text: str, path: str = "snippet.py", **settings):
    """Run the engine on one in-memory module; returns the diagnostics."""
    s = Settings(**settings)
    return check_sources([SourceFile(path, textwrap.dedent(text))], s).diagnostics


def triples(diags):
    """(code, line, effect) of each diagnostic, sorted."""
    return sorted((d.code, d.line, d.effect) for d in diags)


def write_tree(folder, files):
    """Write ``files`` ({relative path: text}, each dedented and left-stripped) under
    ``folder`` (a pathlib.Path), making folders on the way; returns ``folder``."""
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    return folder


def run_cli(*args, stdin=None, cwd=None):
    """Run ``python -m gblint`` in a subprocess; returns CompletedProcess."""
    return subprocess.run([sys.executable, "-m", "gblint", *args], input=stdin, capture_output=True, text=True,
                          cwd=cwd or ROOT)


@pytest.fixture()
def site_dir(tmp_path, monkeypatch):
    """A folder first on the ``PYTHONPATH`` of the gblint processes :func:`run_cli` starts: a
    package written there is an installed one (``--follow-imports`` finds it)."""
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.setenv("PYTHONPATH", f"{site}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    return site


@pytest.fixture(scope="session")
def truth():
    """The measured truth of the example programs: file name -> record (tests/cases/README.md)."""
    with open(TRUTH) as fh:
        return json.load(fh)["cases"]
