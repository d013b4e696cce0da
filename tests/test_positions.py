"""Positions taken from `ast` must equal libcst's PositionProvider for everything a summary holds
(f-string sites excepted: ast merges implicitly concatenated pieces, see gblint/syntax/positions.py)."""
import dataclasses
import glob
import importlib.util
import os

import pytest

from gblint.settings.config import Settings
from gblint.project.engine import summarize
from gblint.core.source import read_source

from .conftest import CASES, ROOT


def _spans(summary):
    """Lines everywhere; full spans for calls and definitions (the node types matched against ast;
    a site on another node type, e.g. a bare name, takes the line of its innermost matched node)."""
    out = []
    for qual, f in sorted(summary.functions.items()):
        out.append((qual, dataclasses.astuple(f.span)[:4]))
        for ev in f.events:
            span = dataclasses.astuple(ev.span)[:4] if ev.kind == "call" else ev.span.line
            if ev.code == "GBL123":
                span = None  # f-strings take the line of the node around them (see gblint.syntax.positions)
            out.append((qual, ev.kind, ev.code, span, ev.detail, tuple((b.kind, b.line) for b in ev.blocks)))
    for r in summary.regions:
        out.append(("region", r.spelling, dataclasses.astuple(r.span)[:4]))
    return out


def _corpus():
    files = sorted(glob.glob(os.path.join(CASES, "*.py")))
    files += sorted(glob.glob(os.path.join(ROOT, "examples", "**", "*.py"), recursive=True))
    files += sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "**", "*.py"), recursive=True))
    files += sorted(glob.glob(os.path.join(ROOT, "tests", "fixes", "*.py")))
    spec = importlib.util.find_spec("torch")
    if spec and spec.submodule_search_locations:
        torch_dir = list(spec.submodule_search_locations)[0]
        files += sorted(glob.glob(os.path.join(torch_dir, "nn", "modules", "*.py")))[:40]
        files += sorted(glob.glob(os.path.join(torch_dir, "_dynamo", "*.py")))[:20]
    return files


@pytest.mark.parametrize("path", _corpus(), ids=lambda p: os.path.relpath(p, os.path.dirname(ROOT)))
def test_ast_positions_match_libcst(path):
    text = read_source(path)
    fast = summarize(text, path, Settings())
    slow = summarize(text, path, Settings(), ast_positions=False)
    assert _spans(fast) == _spans(slow)
