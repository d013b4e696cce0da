"""Fuzzing: no input makes gblint fail.

Inputs: whole programs from hypothesmith (grammar-based, and libcst-tree-based), generated
expressions placed where the rules look inside a compiled function or ``forward``, and random
line/token mutations of the example programs (tests/cases/examples), the bundled examples and
the fix snapshots. Properties: the engine never raises, never reports ``GBL000`` or an ``errors``
entry, and its report serialises with every position inside the file; ``gblint fix`` output parses
(with libcst, and with CPython when the input did) and is a fixed point: a second run changes nothing.

CI runs a few hundred examples in all. A longer run sets the examples of every property:

    GBLINT_FUZZ_EXAMPLES=10000 python -m pytest tests/test_fuzz.py --hypothesis-show-statistics

(``GBLINT_FUZZ_SEED=N`` makes a run reproducible.)
"""
import ast
import glob
import json
import os
import re
import textwrap
import warnings

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from gblint.settings.config import Settings
from gblint.project.engine import SourceFile, check_sources

from .conftest import CASES, ROOT

hypothesmith = pytest.importorskip("hypothesmith")

pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")  # hypothesmith compiles what it generates

LONG = int(os.environ.get("GBLINT_FUZZ_EXAMPLES", "0"))


def fuzz_settings(ci_examples: int):
    """``ci_examples`` in CI, ``GBLINT_FUZZ_EXAMPLES`` when set; no deadline (shared CI cores)."""
    return settings(max_examples=LONG or ci_examples, deadline=None, print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large])


def maybe_seed(test):
    value = os.environ.get("GBLINT_FUZZ_SEED")
    return seed(int(value))(test) if value else test


SEEDS = sorted(glob.glob(os.path.join(CASES, "*.py")) + glob.glob(os.path.join(ROOT, "examples", "*.py"))
               + glob.glob(os.path.join(ROOT, "tests", "fixes", "*.in.py")))
SEED_TEXTS = {}
for _path in SEEDS:
    with open(_path, encoding="utf-8") as _fh:
        SEED_TEXTS[os.path.basename(_path)] = _fh.read()

SNIPPETS = [
    "torch._dynamo.graph_break()", "x = x.item()", "print(x)", "for i in range(3):", "while x:", "try:",
    "except Exception:", "finally:", "with torch.no_grad():", "return x", "yield x", "raise ValueError(x)",
    "global x", "nonlocal x", "del x", "lambda: x", "async def g(x):", "await x", "@torch.compile",
    "@torch.compile(fullgraph=True)", "torch._dynamo.config.nested_graph_breaks = True", "if x.sum() > 0:",
    "else:", "elif x:", "class C(torch.nn.Module):", "def forward(self, x):", "self.layers = nn.ModuleList()",
    "x = [y.tolist() for y in x]", "import torch._dynamo as dynamo", "from torch import compile as c",
    "torch.compiler.disable(f)", "x.backward()", "x.numpy()", "f'{x}'", "pass", "continue", "break", "...",
    "match x:", "case _:", "x: int = 1", "(x := x.item())", "*a, b = x", "import numpy as np",
]


_NEWLINE = re.compile(r"\r\n|\r|\n")


def check(text: str, path: str = "fuzz.py"):
    """Run the engine and assert that it did not fail; returns the report."""
    report = check_sources([SourceFile(path, text)], Settings())
    internal = [f"{d.line}: {d.message}" for d in report.diagnostics if d.code == "GBL000"]
    assert report.errors == [] and internal == [], (report.errors, internal)
    json.dumps(report.to_json())
    last = len(_NEWLINE.split(text))  # Python's lines: \r\n, \r or \n
    for d in report.diagnostics:
        assert d.path == path and 1 <= d.line <= last and d.column >= 1, d
    return report


# ------------------------------------------------------------------ generated programs

def in_region(code: str) -> str:
    """Generated code rarely declares a compiled region: make it the body of one as well."""
    return ("import torch\n\n@torch.compile\ndef _fuzz_entry(x):\n" + textwrap.indent(code, "    ")
            + "\n    return x\n\n" + code)


@maybe_seed
@fuzz_settings(30)
@given(hypothesmith.from_grammar())
def test_generated_programs_from_grammar(code):
    check(code)
    check(in_region(code))


@maybe_seed
@fuzz_settings(8)  # hypothesmith builds libcst trees slowly (~1 s an example)
@given(hypothesmith.from_node())
def test_generated_programs_from_libcst_nodes(code):
    check(code)
    check(in_region(code))


# hypothesmith's whole programs are mostly comments and odd whitespace (good for the reader and
# parser, little for the analysis); generated expressions, put where the rules look (conditions,
# loops, calls, ``.item()``, ``with``), exercise summaries and consequences.
LEAVES = ["x", "y", "a", "i", "self", "self.layers", "None", "True", "1", "2.5", "'s'", "torch", "np", "math",
          "torch.cat", "torch.where", "torch._dynamo.graph_break", "torch.compiler.is_compiling", "print", "len",
          "float", "int", "isinstance", "logging.info", "copy.deepcopy", "sorted", "range", "torch.no_grad",
          "torch.compiler.disable", "torch._dynamo.config.capture_scalar_outputs", "x.shape[0]", "super()"]
ATTRS = ["item", "tolist", "numpy", "sum", "shape", "dim", "T", "grad", "data", "backward", "register_hook",
         "nonzero", "unique", "cpu", "size", "forward", "__class__", "compile"]
BINOPS = ["+", "-", "*", "@", "/", "//", "%", "**", "<", ">", "==", "!=", "is", "in", "&", "|", "and", "or"]


def _extend(sub):
    pair = st.tuples(sub, sub)
    return st.one_of(
        st.tuples(sub, st.sampled_from(ATTRS)).map(lambda t: f"{t[0]}.{t[1]}"),
        st.tuples(sub, st.lists(sub, max_size=3)).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
        pair.map(lambda t: f"{t[0]}[{t[1]}]"),
        st.tuples(sub, st.sampled_from(BINOPS), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["-", "not ", "~", "*", "await ", "yield "]), sub).map(lambda t: f"({t[0]}{t[1]})"),
        st.tuples(sub, sub, sub).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        pair.map(lambda t: f"[{t[0]} for i in {t[1]}]"),
        pair.map(lambda t: f"{{i: {t[0]} for i in {t[1]}}}"),
        sub.map(lambda e: f"(lambda: {e})"),
        sub.map(lambda e: f"f'{{{e}!r}}'"),
        sub.map(lambda e: f"(w := {e})"),
        st.lists(sub, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"),
    )


EXPRESSIONS = st.recursive(st.sampled_from(LEAVES), _extend, max_leaves=10)
STATEMENTS = ["y = {e}", "if {e}:\n    y = x\nelse:\n    print(x)", "for a in {e}:\n    x = x + a",
              "while {e}:\n    break", "{e}", "y = {e}.item()", "x = torch.where({e}, x, x)",
              "with {e}:\n    torch._dynamo.graph_break()", "try:\n    y = {e}\nexcept Exception:\n    raise",
              "assert {e}", "raise {e}", "return {e}", "del {e}", "x[{e}] = 1", "{e} += 1", "def g():\n    return {e}",
              "class C:\n    z = {e}", "async def h():\n    await {e}"]


@st.composite
def programs_with_expressions(draw):
    """A compiled function (or ``nn.Module.forward``) of 1-5 generated statements, and a caller."""
    lines = [draw(st.sampled_from(STATEMENTS)).format(e=draw(EXPRESSIONS)) for _ in range(draw(st.integers(1, 5)))]
    body = textwrap.indent("\n".join(lines), "    ")
    if draw(st.booleans()):
        return f"import torch\n\n@torch.compile\ndef f(x):\n{body}\n    return x\n"
    return ("import torch\nimport torch.nn as nn\n\nclass M(nn.Module):\n    def forward(self, x):\n"
            + textwrap.indent(body, "    ") + "\n        return x\n\nm = torch.compile(M())\n")


@maybe_seed
@fuzz_settings(100)
@given(programs_with_expressions())
def test_generated_expressions_in_a_region(code):
    check(code)


# ------------------------------------------------------------------ mutated cases

_TOKEN = re.compile(r"\w+|[^\w\s]+")


@st.composite
def mutated_cases(draw):
    """A case file with 1-6 random line or token edits; returns (name, text)."""
    if not SEED_TEXTS:
        pytest.skip("no seed files found")
    name = draw(st.sampled_from(sorted(SEED_TEXTS)))
    lines = SEED_TEXTS[name].splitlines(keepends=True) or ["\n"]
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["delete", "duplicate", "indent", "dedent", "break", "snippet", "swap_tokens",
                                   "swap_lines", "truncate", "crlf", "odd_space"]))
        i = draw(st.integers(0, len(lines) - 1))
        line = lines[i]
        indent = line[:len(line) - len(line.lstrip(" \t"))]
        if op == "delete" and len(lines) > 1:
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, line)
        elif op == "indent":
            lines[i] = "    " + line
        elif op == "dedent":
            lines[i] = line[min(4, len(indent)):]
        elif op == "break":
            lines.insert(i, indent + "torch._dynamo.graph_break()\n")
        elif op == "snippet":
            extra = draw(st.sampled_from(["", "    ", "        "]))
            lines.insert(i, indent + extra + draw(st.sampled_from(SNIPPETS)) + "\n")
        elif op == "swap_tokens":
            spans = [m.span() for m in _TOKEN.finditer(line)]
            if len(spans) >= 2:
                a, b = sorted(draw(st.lists(st.sampled_from(spans), min_size=2, max_size=2, unique=True)))
                lines[i] = (line[:a[0]] + line[b[0]:b[1]] + line[a[1]:b[0]] + line[a[0]:a[1]] + line[b[1]:])
        elif op == "swap_lines":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "truncate":
            lines[i] = line[:draw(st.integers(0, len(line)))]
            del lines[i + 1:]
        elif op == "crlf":
            lines[i] = line.replace("\n", "\r\n")
        elif op == "odd_space":  # characters str.splitlines() breaks at and Python does not
            odd = draw(st.sampled_from(["\x0c", "\x0b", "\x1c", "\x85", "\u2028", "\r"]))
            lines[i] = draw(st.sampled_from([odd + line, line.rstrip("\r\n") + "  # " + odd + "\n"]))
        if not lines:
            lines = ["\n"]
    return name, "".join(lines)


@maybe_seed
@fuzz_settings(160)
@given(mutated_cases())
def test_mutated_cases(case):
    name, text = case
    check(text, name)


# ------------------------------------------------------------------ fixes

def _fixer():
    fix = pytest.importorskip("gblint.frontends.fix")
    if hasattr(fix, "apply_fixes"):
        return lambda text, path: fix.apply_fixes(text, path, Settings(), unsafe=True)
    return lambda text, path: fix.fix_sources({path: text}, Settings(), unsafe=True).texts[path]


def _python_parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


@st.composite
def fixable_cases(draw):
    """Seed files as they are (they hold most of the fixable breaks), mutated, or generated."""
    kind = draw(st.sampled_from(["seed", "mutated", "generated"]))
    if kind == "seed":
        name = draw(st.sampled_from(sorted(SEED_TEXTS)))
        return name, SEED_TEXTS[name]
    if kind == "mutated":
        return draw(mutated_cases())
    return "generated.py", draw(programs_with_expressions())


@maybe_seed
@fuzz_settings(40)
@given(fixable_cases())
def test_fix_output_parses_and_is_a_fixed_point(case):
    fixer = _fixer()
    name, text = case
    try:
        cst.parse_module(text)
    except Exception:
        return  # fix leaves unparsable files alone; test_mutated_cases covers them
    fixed = fixer(text, name)
    cst.parse_module(fixed)
    if _python_parses(text):
        assert _python_parses(fixed), fixed
    assert fixer(fixed, name) == fixed
    check(fixed, name)
