"""The kind of a name bound differently in the arms of an ``if`` or a ``match`` (gblint.syntax.arm_kinds).

Dynamo traces the arm the run's values take (``docs/semantics.md`` §0, rule 6). The programs measured under
torch 2.13 are k90-k95 in tests/cases/kinds (tests/test_fact_kinds.py); these check the cases those do not:
an arm gblint cannot decide makes the break conditional on that arm's test, an operand that is a tensor
whatever the arm keeps it definite, ``elif`` chains, arms that return, and the eager-only arm of
``if not torch.compiler.is_compiling():``.
"""
import textwrap

from gblint.settings.config import Settings
from gblint.project.engine import SourceFile, run


def diagnostics(tmp_path, source: str):
    """(line, certainty, condition) of gblint's break diagnostics on ``source`` (torch 2.13.0, Python 3.11)."""
    path = tmp_path / "prog.py"
    path.write_text(textwrap.dedent(source))
    report = run([SourceFile(str(path), None)], Settings(python_version=(3, 11), torch_version="2.13.0"),
                 fixes=False)[0]
    return sorted((d.line, d.certainty, d.condition or None) for d in report.diagnostics
                  if d.code != "GBL006")


HEAD = """
import sys
import torch


"""
UNDECIDED = """
def main():
    fn = torch.compile(width, backend="eager")
    fn(torch.randn(4), len(sys.argv) > 3)
"""


def test_undecided_arm_makes_the_break_conditional_on_it(tmp_path):
    got = diagnostics(tmp_path, HEAD + """
def width(x: torch.Tensor, flag: bool):
    w = x.sum()
    if flag:
        w = 3
    if w > 1:
        x = x * 2
    if w > x.sum():
        x = x + 1
    return x
""" + UNDECIDED)
    # the first test needs `w` to be the tensor (the arm not taken); the second has a tensor operand either way
    assert got == [(11, "conditional", "when `not (flag)`"), (13, "definite", None)]


def test_elif_chain_gates_on_the_arms_that_bind_a_tensor(tmp_path):
    got = diagnostics(tmp_path, HEAD + """
def width(x: torch.Tensor, flag: bool):
    if flag:
        w = 1
    elif x.dim() > 3:
        w = 2
    else:
        w = x.sum()
    if w > 1:
        x = x * 2
    return x
""" + UNDECIDED)
    assert len(got) == 1 and got[0][:2] == (14, "conditional"), got
    assert "flag" in got[0][2] and "x.dim() > 3" in got[0][2], got


def test_an_arm_that_returns_does_not_reach_what_follows(tmp_path):
    got = diagnostics(tmp_path, HEAD + """
def width(x: torch.Tensor, flag: bool):
    if flag:
        w = x.sum()
        return w
    else:
        w = 3
    if w > 1:
        x = x * 2
    return x
""" + UNDECIDED)
    assert got == []


def test_eager_only_arm_is_not_what_dynamo_sees(tmp_path):
    got = diagnostics(tmp_path, HEAD + """
def width(x: torch.Tensor, flag: bool):
    w = 3
    if not torch.compiler.is_compiling():
        w = x.sum()
    if w > 1:
        x = x * 2
    return x
""" + UNDECIDED)
    assert got == []


def test_match_without_a_matching_case_keeps_the_value_before(tmp_path):
    got = diagnostics(tmp_path, HEAD + """
def width(x: torch.Tensor, mode: str):
    w = x.sum()
    match mode:
        case "int":
            w = 3
    if w > 1:
        x = x * 2
    return x


def main():
    fn = torch.compile(width, backend="eager")
    fn(torch.randn(4), "other")
""")
    assert got == [(12, "definite", None)]
