"""Class decorators that build documentation (transformers' ``auto_docstring``): what such a
decorator stores as ``cls.__doc__`` is never evaluated (gblint.core.semantics.DOC_ATTRIBUTES), but the
class it returns, and any other attribute it stores (``cls.forward = wrapper``, read from what the
class held before), are followed as before. ``print`` in a compiled frame is a graph break
(GBL107;
Dynamo's ``BuiltinVariable`` for ``print`` breaks the graph: torch/_dynamo/variables/builtin.py)."""
import json
import textwrap

import pytest

from .conftest import run_cli

PROGRAM = """
import re

import torch


def build_doc(cls):
    lines = [re.sub(r"\\s+", " ", line) for line in (cls.__name__, "{intro}")]
    return "\\n".join(lines)


def documented(cls):
    cls.__doc__ = build_doc(cls)
    {extra}
    return cls


@documented
class Net(torch.nn.Module):
    def forward(self, x):
        {body}
        return x + 1


model = torch.compile(Net())
model(torch.ones(2))
"""

WRAP = """original = cls.forward

    def forward(self, x):
        print("wrapped")
        return original(self, x)

    cls.forward = forward"""


def check(tmp_path, **fields):
    (tmp_path / "m.py").write_text(textwrap.dedent(PROGRAM).format(**fields))
    proc = run_cli("check", "--isolated", "--no-cache", "--format", "json", "--exit-zero", "m.py", cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    lines = (tmp_path / "m.py").read_text().splitlines()
    return [(lines[d["line"] - 1].strip(), d["code"], d["certainty"]) for d in json.loads(proc.stdout)["diagnostics"]]


@pytest.mark.parametrize("intro, extra, body, expected", [
    # the decorator returns the class: its forward is what the compiled module runs
    ("model", "pass", 'print("forward")', [('print("forward")', "GBL107", "definite")]),
    ("a model of {{name}}", "pass", "x = x * 2", []),
    # a store besides the documentation: the wrapper, which calls the class's own forward, runs
    # (the class's forward runs nested, called from the wrapper: GBL301)
    ("model", WRAP, 'print("forward")', [('print("wrapped")', "GBL107", "definite"),
                                         ('print("forward")', "GBL301", "definite")]),
    ("model", WRAP, "x = x * 2", [('print("wrapped")', "GBL107", "definite")]),
])
def test_documenting_decorator(tmp_path, intro, extra, body, expected):
    assert sorted(check(tmp_path, intro=intro, extra=extra, body=body)) == sorted(expected)
