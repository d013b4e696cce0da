"""The catalogue's second round (docs/semantics.md §8): what decides each kind, as must-report /
must-not-report pairs, and the values (gblint.abstract.values) the new kinds rest on. The runtime facts
are measured by the programs of tests/fixtures/measured (v30-v57, scored by test_measured.py)
and tests/cases/found."""
import os

import pytest

from gblint.abstract import values
from gblint.core.model import Expr

from .conftest import lint


def sites(text, **settings):
    """(line, code, effect, certainty) of each diagnostic of ``text``, sorted."""
    settings.setdefault("python_version", (3, 11))
    return sorted((d.line, d.code, d.effect, d.certainty) for d in lint(text, **settings))


# ---------------------------------------------------------------------------- values

T23 = Expr("tensor", parts=(values.const(2), values.const(3)))
T32 = Expr("tensor", parts=(values.const(3), values.const(2)))
T4 = Expr("tensor", parts=(values.const(4),))
DICT = Expr("dict", parts=(Expr("kv", parts=(values.const("mask"), Expr("tensor"))),))
PLAIN = Expr("dict", parts=(Expr("kv", parts=(values.const("scale"), values.const(1.5))),))


@pytest.mark.parametrize("test, env, expected", [
    (Expr("notin", parts=(values.const("ids"), Expr("param", "b"))), {"b": DICT}, True),
    (Expr("in", parts=(values.const("mask"), Expr("param", "b"))), {"b": DICT}, True),
    (Expr("notin", parts=(values.const("ids"), Expr("param", "b"))), {}, None),
    (Expr("holds_tensor", parts=(Expr("param", "b"),)), {"b": DICT}, True),
    (Expr("holds_tensor", parts=(Expr("param", "b"),)), {"b": PLAIN}, False),
    (Expr("holds_tensor", parts=(Expr("param", "b"),)), {"b": values.NOTNONE}, None),
    (Expr("tensor_set", parts=(Expr("param", "s"),)), {"s": Expr("set", parts=(Expr("tensor"),))}, True),
    (Expr("tensor_set", parts=(Expr("param", "s"),)), {"s": Expr("set", parts=(values.const(1),))}, False),
    (Expr("tensor_set", parts=(Expr("param", "s"),)), {"s": Expr("seq", parts=(Expr("tensor"),))}, False),
    (Expr("op_fails", "matmul", (Expr("param", "a"), Expr("param", "b"))), {"a": T23, "b": T23}, True),
    (Expr("op_fails", "matmul", (Expr("param", "a"), Expr("param", "b"))), {"a": T23, "b": T32}, False),
    (Expr("op_fails", "broadcast", (Expr("param", "a"), Expr("param", "b"))), {"a": T23, "b": T4}, True),
    (Expr("op_fails", "broadcast", (Expr("param", "a"), Expr("param", "b"))), {"a": T23, "b": Expr("tensor")}, None),
    (Expr("is", parts=(Expr("param", "b"), values.const(None))), {"b": Expr("tensor")}, False),
])
def test_the_new_values_decide(test, env, expected):
    assert values.decide(test, values.Env(env)) is expected


def test_a_dict_display_answers_len_and_get():
    env = values.Env({"b": PLAIN})
    assert values.evaluate(Expr("len", parts=(Expr("param", "b"),)), env) == values.const(1)
    get = Expr("get", parts=(Expr("param", "b"), values.const("scale"), values.const(None)))
    assert values.evaluate(get, env) == values.const(1.5)
    missing = Expr("get", parts=(Expr("param", "b"), values.const("bias"), values.const(0)))
    assert values.evaluate(missing, env) == values.const(0)


# ---------------------------------------------------------------------------- except clauses that must run

PICK = """
import torch


@torch.compile
def pick(batch):
    try:
        return batch["ids"] * 2
    except KeyError as err:
        raise ValueError("no ids") from err


def main():
    try:
        pick({ARG})
    except ValueError:
        pass
"""


def test_an_except_clause_runs_when_the_dict_passed_lacks_the_key():
    assert sites(PICK.replace("{ARG}", '{"mask": torch.ones(3)}')) == [(10, "GBL124", "skip", "definite")]


@pytest.mark.parametrize("arg", ['{"ids": torch.ones(3)}', "batch_from_somewhere()"])
def test_an_except_clause_the_values_do_not_make_run_is_an_error_path(arg):
    assert sites(PICK.replace("{ARG}", arg)) == []


# ---------------------------------------------------------------------------- gates on what a call passes

SET = """
import torch


@torch.compile
def total(x, extras):
    acc = x.clone()
    for t in extras:
        acc = acc + t
    return acc


def main():
    total(torch.zeros(3), {ARG})
"""


def test_a_set_of_tensors_passed_in_fails_where_it_is_read():
    assert sites(SET.replace("{ARG}", "{torch.ones(3), torch.zeros(3)}")) == [(8, "GBL134", "skip", "definite")]


@pytest.mark.parametrize("arg", ["{1, 2}", "[torch.ones(3)]", "make_extras()"])
def test_other_iterables_passed_in_are_fine(arg):
    assert sites(SET.replace("{ARG}", arg)) == []


DEEPCOPY = """
import copy
import torch


@torch.compile
def scaled(x, opts):
    local = copy.deepcopy(opts)
    return x * local["scale"]


def main():
    scaled(torch.randn(3), {ARG})
"""


@pytest.mark.parametrize("arg, expected", [
    ('{"scale": 1.5}', []),
    ('{"scale": torch.ones(3)}', [(8, "GBL111", "break", "definite")]),
    ("load()", [(8, "GBL111", "break", "conditional")]),
])
def test_deepcopy_of_an_argument_breaks_unless_it_holds_no_tensor(arg, expected):
    assert sites(DEEPCOPY.replace("{ARG}", arg)) == expected


MATMUL = """
import torch


@torch.compile
def project(a, b):
    try:
        return a @ b
    except RuntimeError:
        return a @ b.t()


def main():
    project({ARG})
"""


@pytest.mark.parametrize("args, expected", [
    ("torch.randn(2, 3), torch.randn(2, 3)", [(6, "GBL409", "skip", "definite"), (8, "GBL136", "error", "definite")]),
    ("torch.randn(2, 3), torch.randn(3, 4)", []),
    ("torch.randn(2, 3), weights()", []),
])
def test_an_op_in_try_fails_to_compile_only_where_the_sizes_make_it_fail(args, expected):
    assert sites(MATMUL.replace("{ARG}", args)) == expected


# ---------------------------------------------------------------------------- lazy formatting, logging config

@pytest.mark.parametrize("body, expected", [
    ('print(f"max {y.max()}")', [(7, "GBL107", "break", "definite")]),
    ('s = f"max {y.max():.3f}"\n    return y, s', []),
    # (conditional: `x` is a tensor only by how `f` uses it; no call of `f` says what it gets)
    ('s = "{}".format(y.max())\n    return y * len(s)', [(8, "GBL123", "skip", "conditional")]),
    # `in` keeps the graph up to the checkpoint (softmax and max: 2 ops), the rest eager
    ('s = f"{y.max()}"\n    return y, "nan" in s', [(8, "GBL123", "break", "conditional")]),
    ('return y, "%s" % y.max()', [(7, "GBL123", "skip", "conditional")]),
])
def test_strings_of_tensors_cost_only_where_python_uses_them(body, expected):
    src = f"import torch\n\n\n@torch.compile\ndef f(x):\n    y = x.softmax(-1)\n    {body}\n    return y\n"
    assert sites(src) == expected


def test_logging_config_added_in_the_file():
    src = """
import logging
import warnings
import torch

log = logging.getLogger("x")
torch._dynamo.config.ignore_logging_functions.add(log.info)
torch._dynamo.config.reorderable_logging_functions.update({warnings.warn, log.warning})


@torch.compile
def f(x):
    log.info("dropped")
    warnings.warn("reordered")
    log.warning("a Logger method is not reordered")
    return x + 1
"""
    diags = lint(src, python_version=(3, 11))
    assert [(d.line, d.code) for d in diags] == [(15, "GBL109")]
    assert "ignore_logging_functions" in diags[0].hint


# ---------------------------------------------------------------------------- imports, fullgraph, wrappers

def test_a_failed_import_is_one_nothing_provides(tmp_path, monkeypatch):
    (tmp_path / "local_kernels.py").write_text("def fused(x):\n    return x\n")
    src = """
import torch


@torch.compile
def f(x):
    y = x.relu() * 2
    import local_kernels
    import not_installed_kernels_pkg
    return y
"""
    path = tmp_path / "m.py"
    path.write_text(src)
    monkeypatch.chdir(tmp_path)
    got = sorted((d.line, d.code) for d in lint(src, path=str(path), python_version=(3, 11)))
    assert got == [(9, "GBL126")]


def test_fullgraph_captures_dynamic_shapes_but_not_a_branch_on_a_scalar():
    src = """
import torch


@torch.compile(fullgraph=True)
def f(x, labels):
    valid = labels >= 0
    idx = torch.nonzero(valid).squeeze(-1)
    s = x[valid].sum().item()
    if s > 0:
        return x.index_select(0, idx)
    return x
"""
    assert sites(src) == [(6, "GBL409", "skip", "definite"), (10, "GBL401", "error", "definite")]


def test_an_error_on_graph_break_decorator_adds_a_wrapper_frame_to_the_count():
    src = """
import torch


@torch._dynamo.error_on_graph_break(False)
def leaf(x):
    print("leaf")
    return x * 2


def mid(x):
    return leaf(x - 1) + 1


@torch.compile
def top(x):
    return mid(x * 3) - 1
"""
    (d,) = lint(src, python_version=(3, 11))
    assert d.code == "GBL301" and "4 breaks, 6 graphs" in d.explanation


def test_the_measured_programs_exist():
    """Every program docs/semantics.md §8 cites for this round is in the repository."""
    here = os.path.join(os.path.dirname(__file__), "fixtures", "measured")
    doc = open(os.path.join(os.path.dirname(here), "..", "..", "docs", "semantics.md"), encoding="utf-8").read()
    import re
    cited = set(re.findall(r"measured/(v[3-5]\d_\w+\.py)", doc))
    assert len(cited) >= 25
    assert sorted(n for n in cited if not os.path.exists(os.path.join(here, n))) == []
