"""Shared fixtures: the public cases beside the checkout and a helper to run gblint on text."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from gblint.config import Settings
from gblint.engine import SourceFile, check_sources

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("GBLINT_SHARED", os.path.join(os.path.dirname(ROOT), "shared"))
CASES = os.path.join(SHARED, "cases")
TRUTH = os.path.join(SHARED, "truth.json")


def lint(text: str, path: str = "snippet.py", **settings):
    """Run the engine on one in-memory module; returns the diagnostics."""
    s = Settings(**settings)
    return check_sources([SourceFile(path, textwrap.dedent(text))], s).diagnostics


def triples(diags):
    return sorted((d.code, d.line, d.effect) for d in diags)


def run_cli(*args, stdin=None, cwd=None):
    """Run ``python -m gblint`` in a subprocess; returns CompletedProcess."""
    return subprocess.run([sys.executable, "-m", "gblint", *args], input=stdin, capture_output=True, text=True,
                          cwd=cwd or ROOT)


@pytest.fixture(scope="session")
def truth():
    if not os.path.isfile(TRUTH):
        pytest.skip(f"public cases not found at {SHARED} (set GBLINT_SHARED)")
    with open(TRUTH) as fh:
        return json.load(fh)["cases"]
