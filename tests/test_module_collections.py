"""Collections a module fills at its top level (issue 38, the honest all-clear).

``CHOICES = {}`` then ``CHOICES[i] = exact`` in a loop (opt_einsum's ``_AUTO_CHOICES``), or ``LAYERS = []`` then
``LAYERS.append(Layer())`` (tests/cases/kinds k98, k99): what the module holds is what those statements put
there, maybe more. Before, the empty collection it was bound to was taken: ``CHOICES.get(n, greedy)`` was
``greedy`` alone, and a call through an item of the list was dropped. A read with a key not decided is one of
the entries or the default.
"""
import textwrap

from gblint.settings.config import Settings
from gblint.project.engine import SourceFile, run


def check(tmp_path, source: str):
    """(diagnostics as (line, certainty), coverage) of gblint on ``source`` (torch 2.13.0, Python 3.11)."""
    path = tmp_path / "prog.py"
    path.write_text(textwrap.dedent(source))
    report = run([SourceFile(str(path), None)], Settings(python_version=(3, 11), torch_version="2.13.0"),
                 fixes=False, coverage=True)[0]
    coverage = {"complete": report.complete, "unfollowed": [u["call"] for u in report.coverage["unfollowed"]]}
    return sorted((d.line, d.certainty) for d in report.diagnostics if d.code != "GBL006"), coverage


DISPATCH = """
import torch


def exact(x):
    print("exact path")
    return x * 2


def greedy(x):
    return x + 1


CHOICES = {}
for i in range(1, 4):
    CHOICES[i] = exact


@torch.compile
def contract(x, n):
    return CHOICES.get(n, greedy)(x)


def main():
    contract(torch.ones(2), len(__name__) % 3)
"""


def test_a_dict_filled_in_a_loop_is_not_the_empty_one(tmp_path):
    diags, coverage = check(tmp_path, DISPATCH)
    assert diags == [(6, "conditional")], diags  # the print of `exact`, one of the entries: never an all-clear


def test_a_literal_key_still_decides(tmp_path):
    diags, coverage = check(tmp_path, DISPATCH.replace("CHOICES.get(n, greedy)", "CHOICES.get(7, greedy)")
                            .replace("CHOICES = {}\nfor i in range(1, 4):\n    CHOICES[i] = exact\n",
                                     "CHOICES = {1: exact, 2: exact}\n"))
    assert diags == [] and coverage["complete"] is True
