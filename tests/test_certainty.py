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


FRESH = '''\
import torch


def helper(x):
    print("h")
    return x + 1


@torch.compile
def f(x, flag):
    for i in range(2):
        x = x * 2
        torch._dynamo.graph_break()
    if flag:
        x = helper(x)
    return x
'''


def _codes(tmp_path, text):
    (tmp_path / "m.py").write_text(text)
    out = json.loads(run_cli("check", "--no-cache", "--isolated", "--format", "json", str(tmp_path / "m.py"),
                             cwd=str(tmp_path)).stdout)
    return {(d["code"], d["line"]): (d["certainty"], d["condition"]) for d in out["diagnostics"]}


def test_a_frame_compiled_on_its_own_from_a_conditional_call_is_conditional(tmp_path):
    """`f` is skipped (the break in its loop), so it runs eagerly and `helper` is compiled on its own, only when
    `flag` is true. Measured on torch 2.13 (backend="eager"): `f(x, False)` logs no break, `f(x, True)` one
    GB0059 at `print` in `helper`."""
    got = _codes(tmp_path, FRESH)
    assert got[("GBL201", 13)] == ("definite", None)
    assert got[("GBL107", 5)] == ("conditional", "when `flag`")
    # called unconditionally too: the break happens on every call
    got = _codes(tmp_path, FRESH.replace("    return x\n", "    return helper(x)\n"))
    assert got[("GBL107", 5)] == ("definite", None)


AFTER_A_CONDITIONAL_SKIP = '''\
import os

import torch

DEBUG = os.environ.get("GBLINT_TEST_DEBUG") == "1"


def step(x):
    x = x + 1
    if DEBUG:
        for i in range(2):
            print("step", i)
    x = x * 2
    print("done")
    return x.sin()
'''


def test_a_break_after_a_skip_under_a_condition_is_still_reported(tmp_path):
    """A skip that happens only when a test holds (`if DEBUG:` around a loop that breaks) does not
    end the frame's walk: when the test is false, the usual run goes on and meets the next break,
    which is definite (measured: Dynamo breaks at line 14 only). Before, it was never reported (a
    deprecation warning in diffusers' ``ModelMixin.__getattr__`` hid every break after a submodule
    read that way)."""
    import subprocess
    import sys
    (tmp_path / "m.py").write_text(AFTER_A_CONDITIONAL_SKIP + '\ncompiled = torch.compile(step, backend="eager")\n')
    proc = run_cli("check", "--isolated", "--no-cache", "--format", "json", "--exit-zero", "m.py", cwd=str(tmp_path))
    got = [(d["line"], d["code"], d["certainty"], d["condition"]) for d in json.loads(proc.stdout)["diagnostics"]]
    assert got == [(12, "GBL201", "conditional", "when `DEBUG`"), (14, "GBL107", "definite", None)]
    pytest.importorskip("torch")
    (tmp_path / "run_m.py").write_text(AFTER_A_CONDITIONAL_SKIP)
    code = ("import sys, torch; sys.path.insert(0, sys.argv[1]); import run_m\n"
            "out = torch._dynamo.explain(run_m.step)(torch.ones(2))\n"
            "print(sorted({s.lineno for r in out.break_reasons for s in r.user_stack[-1:]}))")
    run = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=300,
                         env={k: v for k, v in __import__("os").environ.items() if k != "GBLINT_TEST_DEBUG"})
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == "[14]"


TWO_BREAKS_HELPER = '''\
import os

import torch

VERBOSE = os.environ.get("GBLINT_TEST_VERBOSE") == "1"


def smooth(x):
    if VERBOSE:
        print("smoothing", x.shape)
    if x.sum() > 0:
        x = x * 0.5
    return torch.tanh(x)
'''

TWO_BREAKS_MAIN = '''\
import torch

from helpers import smooth


class Net(torch.nn.Module):
    def forward(self, x):
        return smooth(x) + 1
'''


def test_a_call_line_is_as_sure_as_the_break_it_names(tmp_path):
    """A call into another file is shown at the call line too (GBL301, naming the break it leads to). The call
    here leads to a print under a flag gblint cannot decide (off in the run) and to a branch on a tensor
    (measured: Dynamo breaks at helpers.py:11 only). The call line names the surer break and is exactly as sure
    as the diagnostic of the break it names; before, it named the print yet took the tensor branch's certainty
    (a definite diagnostic for a break that did not happen)."""
    import subprocess
    import sys
    (tmp_path / "helpers.py").write_text(TWO_BREAKS_HELPER)
    (tmp_path / "main.py").write_text(TWO_BREAKS_MAIN + '\nmodel = torch.compile(Net(), backend="eager")\n'
                                      'model(torch.ones(3))\n')
    proc = run_cli("check", "--isolated", "--no-cache", "--format", "json", "--exit-zero", "main.py",
                   cwd=str(tmp_path))
    diags = [d for d in json.loads(proc.stdout)["diagnostics"] if d["effect"] in ("break", "skip", "error")]
    by_site = {(d["path"], d["line"]): d for d in diags if d["path"] == "helpers.py"}
    calls = [d for d in diags if d["path"] == "main.py"]
    assert calls and by_site
    for d in calls:
        end = by_site[(d["trace"][-1]["path"], d["trace"][-1]["line"])]
        assert (d["certainty"], d["condition"]) == (end["certainty"], end["condition"]), (d, end)
    definite = sorted(line for (_path, line), d in by_site.items() if d["certainty"] == "definite")
    assert [d["trace"][-1]["line"] for d in calls] == definite[:1]
    pytest.importorskip("torch")
    (tmp_path / "run_main.py").write_text(TWO_BREAKS_MAIN)
    code = ("import sys, torch; sys.path.insert(0, sys.argv[1]); import run_main\n"
            "out = torch._dynamo.explain(run_main.Net())(torch.ones(3))\n"
            "print(sorted({s.lineno for r in out.break_reasons for s in r.user_stack[-1:]}))")
    run = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=300,
                         env={k: v for k, v in __import__("os").environ.items() if k != "GBLINT_TEST_VERBOSE"})
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == str(definite)


def test_a_condition_that_quotes_its_code_is_not_quoted_again():
    from gblint.abstract.certainty import certainty_of
    assert certainty_of(("`x` holds a tensor",)) == ("conditional", "when `x` holds a tensor")
    assert certainty_of(("x > 0",)) == ("conditional", "when `x > 0`")


def test_a_union_holds_a_tensor_only_when_every_value_does():
    from gblint.abstract import values
    from gblint.core.model import Expr
    from gblint.core.ops import Op
    t, c = Expr(Op.TENSOR), values.const(1)
    assert values.holds_tensor(Expr(Op.UNION, parts=(t, Expr(Op.TENSOR, "default")))) is True
    assert values.holds_tensor(Expr(Op.UNION, parts=(c, values.const(None)))) is False
    assert values.holds_tensor(Expr(Op.UNION, parts=(t, c))) is None
    assert values.holds_tensor(Expr(Op.UNION, parts=(t, values.UNKNOWN))) is None


def test_arithmetic_of_constants_is_computed():
    """``num_layers - 2`` with ``num_layers=2`` is 0 (a loop over ``range(num_layers - 2)`` takes no step); a
    result too big to be a setting, a division by zero or a string is not computed."""
    from gblint.abstract import values
    from gblint.core.model import Expr
    from gblint.core.ops import Op

    def arith(op, a, b):
        return values.evaluate(Expr(Op.ARITH, op, (values.const(a), values.const(b))), values.Env())

    assert arith("Subtract", 2, 2) == values.const(0)
    assert arith("FloorDivide", 7, 2) == values.const(3)
    assert arith("Multiply", 2, 1.5) == values.const(3.0)
    assert arith("FloorDivide", 1, 0) == values.NOTNONE
    assert arith("Multiply", 2 ** 100, 2 ** 100) == values.NOTNONE
    assert arith("Add", "a", "b") == values.NOTNONE
    assert arith("Power", 2, 3) == values.NOTNONE  # not folded: a power may be huge


def test_a_test_that_inputs_are_not_empty_is_named_so():
    """A condition marked by the walk as a test that inputs are not empty (gblint.abstract.sizes.nonempty_test) says
    so, where every condition is one; with another condition beside it, it is an ordinary condition."""
    from gblint.abstract.certainty import NONEMPTY, NONEMPTY_WORDS, certainty_of
    assert certainty_of((NONEMPTY + "index.numel() > 0",)) == (
        "conditional", "when `index.numel() > 0`" + NONEMPTY_WORDS)
    assert certainty_of((NONEMPTY + "len(x) > 0", "flag")) == ("conditional", "when `flag` (and 1 more condition)")


def test_nonempty_tests():
    from gblint.abstract.sizes import nonempty_test
    from gblint.core.model import Expr
    from gblint.core.ops import Op
    x = Expr(Op.PARAM, "x")
    numel = Expr(Op.CALLV, None, (Expr(Op.ATTR, "numel", (x,)),))
    size0 = Expr(Op.CALLV, None, (Expr(Op.ATTR, "size", (x,)), Expr(Op.CONST, 0)))
    dim = Expr(Op.CALLV, None, (Expr(Op.ATTR, "dim", (x,)),))
    c = lambda v: Expr(Op.CONST, v)  # noqa: E731
    tensor = lambda r: True  # noqa: E731
    assert nonempty_test(Expr(Op.GT, None, (numel, c(0))), tensor)
    assert nonempty_test(Expr(Op.LT, None, (c(0), size0)), tensor)
    assert nonempty_test(Expr(Op.GE, None, (Expr(Op.LEN, None, (x,)), c(1))), tensor)
    assert nonempty_test(numel, tensor)
    assert not nonempty_test(Expr(Op.GT, None, (numel, c(0))), lambda r: False)
    assert not nonempty_test(Expr(Op.EQ, None, (numel, c(0))), tensor)
    assert nonempty_test(Expr(Op.NOT, None, (Expr(Op.EQ, None, (numel, c(0))),)), tensor)
    assert nonempty_test(Expr(Op.NOT, None, (Expr(Op.LT, None, (size0, c(1))),)), tensor)
    assert not nonempty_test(Expr(Op.NOT, None, (Expr(Op.GT, None, (numel, c(0))),)), tensor)
    assert not nonempty_test(Expr(Op.GT, None, (size0, c(1))), tensor)
    assert not nonempty_test(Expr(Op.GT, None, (dim, c(0))), tensor)
    assert not nonempty_test(Expr(Op.GT, None, (Expr(Op.ATTR, "layerdrop", (x,)), c(0))), tensor)
