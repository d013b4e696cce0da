"""Every break, skip or compile-error diagnostic says how sure it is: ``certainty`` is
``definite`` (on every path through the frames of its trace), ``conditional`` (under an ``if``
gblint does not decide; ``condition`` gives the test as written) or ``error-path``. Text and
flake8 output show the condition."""
import json

import pytest

from .conftest import run_cli

SOURCE = '''\
import torch


def helper(x, labels=None):
    if labels is not None:
        print(labels)
    else:
        torch._dynamo.graph_break()
    return x


@torch.compile
def f(x, labels=None):
    x = helper(x, labels)
    print(x)
    return x
'''


@pytest.fixture
def doc(tmp_path):
    (tmp_path / "m.py").write_text(SOURCE)
    proc = run_cli("check", "--isolated", "--no-cache", "--format", "json", "m.py", cwd=str(tmp_path))
    return json.loads(proc.stdout)


def test_certainty_and_condition(doc):
    got = {(d["line"], d["code"]): (d["certainty"], d["condition"]) for d in doc["diagnostics"]}
    assert got[(6, "GBL301")] == ("conditional", "when `labels is not None`")
    assert got[(8, "GBL301")] == ("conditional", "when `not (labels is not None)`")
    assert got[(15, "GBL107")] == ("definite", None)


def test_every_break_skip_or_error_has_a_certainty(doc):
    assert doc["diagnostics"] and all(d["certainty"] in ("definite", "conditional", "error-path")
                                      for d in doc["diagnostics"] if d["effect"] in ("break", "skip", "error"))


def test_text_shows_the_condition(tmp_path):
    (tmp_path / "m.py").write_text(SOURCE)
    out = run_cli("check", "--isolated", "--no-cache", "-q", "m.py", cwd=str(tmp_path)).stdout
    line6 = [line for line in out.splitlines() if line.startswith("m.py:6:")]
    assert line6 and line6[0].endswith("(when `labels is not None`)")
