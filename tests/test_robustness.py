"""Never crash: a broken rule, a broken consequence model and hostile files each become a
diagnostic or an ``errors`` entry, and the run goes on.

Hostile files are checked by ``python -m gblint`` in a subprocess: a regression there can be a
segmentation fault (libcst's native parser on deep nesting), which must fail one test, not kill
the test run.
"""
import json
import os
import re
import subprocess
import sys
import threading

import pytest

import gblint.frontends.cli
import gblint.project.engine
from gblint.core import source
from gblint.settings.config import Settings
from gblint.dynamo.consequences import Consequences
from gblint.project.engine import SourceFile, check_sources
from gblint.rules.scalars import ScalarExtraction
from gblint.core.source import SourceError, caused_by_recursion, describe_exception, run_deep

from .conftest import ROOT

ITEM_AND_PRINT = (
    "import torch\n"
    "\n"
    "@torch.compile\n"
    "def f(x):\n"
    "    m = x.sum().item()\n"
    "    n = x.max().item()\n"
    "    print(m, n)\n"
    "    return x\n"
)
OTHER = "import torch\n\n@torch.compile\ndef g(x):\n    print(x)\n    return x\n"


@pytest.fixture(autouse=True)
def fresh_summaries():
    """In-memory files' summaries are remembered between runs (``gblint.project.incremental``): a rule
    one test breaks must not leak into the next."""
    try:
        from gblint.project import incremental
    except ImportError:
        yield
        return
    incremental.forget()
    yield
    incremental.forget()


def compiled(body: str, extra: str = "") -> str:
    """A module whose compiled function runs ``body`` then prints (GBL107 on the print line)."""
    lines = body.splitlines() or ["pass"]
    return ("import torch\n" + extra + "\n@torch.compile\ndef f(x, y, a, b):\n"
            + "".join(f"    {line}\n" for line in lines) + "    print(x)\n    return x\n")


def print_line(text: str) -> int:
    return text.splitlines().index("    print(x)") + 1


def codes(report, path=None):
    return sorted({d.code for d in report.diagnostics if path is None or d.path == path})


# ------------------------------------------------------------------ a broken rule

class Unprintable(Exception):
    def __str__(self):
        raise RecursionError("printing the message fails too")


def test_broken_rule_is_one_gbl000_per_file_and_the_others_still_run(monkeypatch):
    def boom(self, node, ctx):
        raise ValueError("rule exploded")

    monkeypatch.setattr(ScalarExtraction, "check", boom)
    report = check_sources([SourceFile("a.py", ITEM_AND_PRINT), SourceFile("b.py", OTHER)], Settings())
    internal = [d for d in report.diagnostics if d.code == "GBL000"]
    # one per rule and file, at its first failure (the rule sees every call, print(x) included)
    assert [(d.path, d.line) for d in internal] == [("a.py", 5), ("b.py", 5)]
    assert "`tensor-item`" in internal[0].message and "ValueError: rule exploded" in internal[0].message
    assert "more place" in internal[0].message
    assert "GBL107" in codes(report, "a.py") and "GBL107" in codes(report, "b.py")  # print rule and other file
    assert "GBL102" not in codes(report)
    assert report.errors == []  # a rule's failure is reported, not a failure of the run


def test_rule_exception_that_cannot_be_printed(monkeypatch):
    def boom(self, node, ctx):
        raise Unprintable()

    monkeypatch.setattr(ScalarExtraction, "check", boom)
    report = check_sources([SourceFile("a.py", ITEM_AND_PRINT)], Settings())
    internal = [d for d in report.diagnostics if d.code == "GBL000"]
    assert len(internal) == 1 and "Unprintable" in internal[0].message
    assert "GBL107" in codes(report) and report.errors == []


# ------------------------------------------------------------------ gblint's own failures

def test_consequence_model_failure_is_an_error_exit_2(monkeypatch, tmp_path, capsys):
    real_walk = Consequences.walk

    def walk(self, region):
        if region.entry.path.endswith("a.py"):
            raise Unprintable()
        return real_walk(self, region)

    monkeypatch.setattr(Consequences, "walk", walk)
    (tmp_path / "a.py").write_text(ITEM_AND_PRINT)
    (tmp_path / "b.py").write_text(OTHER)
    rc = gblint.frontends.cli.main(["check", "--isolated", "--format", "json", str(tmp_path)])
    out = capsys.readouterr()
    data = json.loads(out.out)
    assert rc == 2
    assert [e["path"] for e in data["errors"]] == [str(tmp_path / "a.py")]
    assert "internal error" in data["errors"][0]["message"] and "Unprintable" in data["errors"][0]["message"]
    by_file = {(os.path.basename(d["path"]), d["code"]) for d in data["diagnostics"]}
    assert ("a.py", "GBL000") in by_file and ("b.py", "GBL107") in by_file
    assert "Traceback" not in out.err


def test_summary_failure_is_an_error_and_other_files_go_on(monkeypatch):
    real = gblint.project.engine.summarize

    def summarize(text, path, *args, **kwargs):
        if path == "a.py":
            raise KeyError("x" * 10_000)  # a huge message is cut, not copied into the report
        return real(text, path, *args, **kwargs)

    monkeypatch.setattr(gblint.project.engine, "summarize", summarize)
    report = check_sources([SourceFile("a.py", ITEM_AND_PRINT), SourceFile("b.py", OTHER)], Settings())
    assert [e["path"] for e in report.errors] == ["a.py"]
    assert len(report.errors[0]["message"]) < 500
    assert codes(report, "a.py") == ["GBL000"] and codes(report, "b.py") == ["GBL107"]


def test_cli_last_line_of_defence(monkeypatch, capsys):
    def cmd_check(args):
        raise RuntimeError("the engine fell over")

    monkeypatch.setattr(gblint.frontends.cli, "cmd_check", cmd_check)
    assert gblint.frontends.cli.main(["check", "."]) == 2
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: the engine fell over" in err and "Traceback" not in err


# ------------------------------------------------------------------ hostile files

def _hostile_files():
    """name -> (bytes, expected codes, expected line of the first such code or None).

    The deep ones that must be analysed stay within what every supported CPython compiles; the
    ones that must be refused are far past what any of them does."""
    sum_1000 = compiled("y = " + " + ".join(["x"] * 1000))
    parens_190 = compiled("y = " + "(" * 190 + "x" + ")" * 190)
    ifs_95 = compiled("".join("    " * i + f"if a{i}:\n" for i in range(95)) + "    " * 95 + "y = x")
    attrs_900 = compiled("y = x" + ".real" * 900)
    elif_900 = compiled("if a:\n    pass\n" + "elif a:\n    pass\n" * 900)
    newer = compiled("", extra="type Alias = list[int]\n\ndef first[T](xs: list[T]) -> T:\n    return xs[0]\n")
    cookie = "# -*- coding: latin-1 -*-\n" + compiled("s = 'caf\u00e9'")
    bom = compiled("y = x")
    big = ("import torch\n"
           + "".join(f"def helper_{i}(x):\n    return x * {i}\n\n" for i in range(2000))
           + "".join(f"# filler line {i} to make the file huge\n" for i in range(44_000))
           + "\n@torch.compile\ndef f(x):\n    print(x)\n    return helper_1(x)\n")
    assert big.count("\n") >= 50_000
    return {
        "syntax_error.py": (b"def f(:\n    pass\n", ["GBL001"], 1),
        "latin1_no_cookie.py": (b"import torch\nx = 'caf\xe9'\n", ["GBL002"], 2),
        "latin1_cookie.py": (cookie.encode("latin-1"), ["GBL107"], print_line(cookie)),
        "unknown_cookie.py": (b"# -*- coding: klingon -*-\nx = 1\n", ["GBL002"], 1),
        "nul_bytes.py": (b"x = 1\n\x00\n", ["GBL002"], 2),
        "empty.py": (b"", [], None),
        "blank.py": (b"\n\n   \n\t\n", [], None),
        "bom.py": (b"\xef\xbb\xbf" + bom.encode(), ["GBL107"], print_line(bom)),
        "crlf.py": (compiled("y = x").replace("\n", "\r\n").encode(), ["GBL107"], print_line(compiled("y = x"))),
        "huge_50k_lines.py": (big.encode(), ["GBL107"], big.splitlines().index("    print(x)") + 1),
        "ifs_95.py": (ifs_95.encode(), ["GBL107"], print_line(ifs_95)),
        "ifs_200.py": (("".join("    " * i + "if x:\n" for i in range(200)) + "    " * 200 + "pass\n").encode(),
                       ["GBL001"], None),
        "parens_190.py": (parens_190.encode(), ["GBL107"], print_line(parens_190)),
        "parens_1000.py": (("x = " + "(" * 1000 + "1" + ")" * 1000 + "\n").encode(), ["GBL001"], 1),
        "brackets_5000.py": (("x = " + "[" * 5000 + "]" * 5000 + "\n").encode(), ["GBL001"], 1),
        "sum_1000.py": (sum_1000.encode(), ["GBL107"], print_line(sum_1000)),  # needs run_deep
        "attrs_900.py": (attrs_900.encode(), ["GBL107"], print_line(attrs_900)),
        "elif_900.py": (elif_900.encode(), ["GBL107"], print_line(elif_900)),
        "unary_100000.py": (("import torch\nx = " + "-" * 100_000 + "1\n").encode(), ["GBL001"], None),
        "not_100000.py": (("x = " + "not " * 100_000 + "1\n").encode(), ["GBL001"], None),
        "and_chain_12000.py": (compiled("y = " + " and ".join(["a"] * 12_000)).encode(), ["GBL001"], 5),
        "sum_100000.py": (compiled("y = " + " + ".join(["x"] * 100_000)).encode(), ["GBL001"], None),
        "newer_syntax.py": (newer.encode(), ["GBL107"], print_line(newer)),
        "print_statement.py": (b"print 'hello'\n", ["GBL001"], 1),
        "tabs_and_spaces.py": (b"if x:\n\tif y:\n        pass\n", ["GBL001"], None),
        "unterminated.py": (b"x = '''abc\n", ["GBL001"], None),
        "lone_backslash.py": (b"x = 1 \\", ["GBL001"], None),
    }


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    files = _hostile_files()
    for name, (data, _, _) in files.items():
        (root / name).write_bytes(data)
    return root, files, _check_json(root, timeout=600)


def _check_json(root, timeout):
    # --jobs 2: through the process pool, as a large tree is checked
    return subprocess.run([sys.executable, "-m", "gblint", "check", "--isolated", "--no-cache", "--format", "json",
                           "--jobs", "2", str(root)], capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def test_hostile_files_never_crash(hostile_run):
    root, files, proc = hostile_run
    assert proc.returncode == 1, proc.stderr[-3000:]  # 1: diagnostics; not 2 (own error), not -11 (crash)
    assert "Traceback" not in proc.stderr
    data = json.loads(proc.stdout)
    assert data["errors"] == []
    assert data["files_checked"] == len(files)
    assert not [d for d in data["diagnostics"] if d["code"] == "GBL000"]


@pytest.mark.parametrize("name", sorted(_hostile_files()))
def test_hostile_file(hostile_run, name):
    root, files, proc = hostile_run
    _, expected, line = files[name]
    diags = [d for d in json.loads(proc.stdout)["diagnostics"] if os.path.basename(d["path"]) == name]
    assert sorted({d["code"] for d in diags}) == expected, diags
    if line is not None:
        assert diags[0]["line"] == line, diags[0]
    for d in diags:
        if d["code"] in ("GBL001", "GBL002"):
            assert d["message"] and "Traceback" not in d["message"] and len(d["message"]) < 300


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_is_unreadable_not_a_hang(tmp_path):
    os.mkfifo(tmp_path / "fifo.py")  # opening it for reading would block until a writer comes
    (tmp_path / "ok.py").write_text(OTHER)
    proc = _check_json(tmp_path, timeout=60)
    diags = {os.path.basename(d["path"]): d for d in json.loads(proc.stdout)["diagnostics"]}
    assert diags["fifo.py"]["code"] == "GBL002" and "regular file" in diags["fifo.py"]["message"]
    assert diags["ok.py"]["code"] == "GBL107"


def test_decode_messages_are_helpful():
    with pytest.raises(SourceError) as info:
        source.decode_source(b"x = 1\ny = 'caf\xe9'\n", "m.py")
    d = info.value.diagnostic
    assert (d.code, d.line, d.column) == ("GBL002", 2, 9)
    assert "0xE9" in d.message and "coding" in d.hint
    assert source.decode_source(b"# coding: latin-1\ny = 'caf\xe9'\n", "m.py").endswith("'caf\u00e9'\n")
    assert source.decode_source(b"\xef\xbb\xbfx = 1\n", "m.py") == "x = 1\n"
    with pytest.raises(SourceError):
        source.decode_source(b"\xef\xbb\xbf# coding: latin-1\nx = 1\n", "m.py")  # BOM contradicts the cookie


@pytest.mark.parametrize("odd", ["\x0c", "\x0b", "\x1c", "\x85", "\u2028"])
def test_characters_str_splitlines_breaks_on_do_not_shift_lines(odd):
    # Python ends lines only at \r\n, \r and \n; str.splitlines() also splits at these
    text = compiled("y = x", extra=f"# a{odd}b\n").replace("    print(x)\n", "    print(x)  # noqa: GBL107\n    y.item()\n")
    report = check_sources([SourceFile("m.py", text)], Settings())
    line = re.split(r"\r\n|\r|\n", text).index("    y.item()") + 1
    assert [(d.code, d.line) for d in report.diagnostics] == [("GBL102", line)]  # print(x) is noqa'd


@pytest.mark.parametrize("indent", ["  \x0c    ", "\x0c    "])
def test_form_feed_in_indentation_is_named_as_a_parser_limit_not_a_syntax_error(indent):
    # CPython restarts the column count after a form feed in indentation; libcst does not and
    # fails on the dedent that follows. The file is valid Python: say so, and where.
    text = ("import torch\n\n\ndef helper(x):\n" + indent + "try:\n        y = x.log()\n    except RuntimeError:\n"
            "        y = x\n    return y\n\n\n@torch.compile\ndef f(x):\n    return helper(x)\n")
    compile(text, "m.py", "exec")  # Python accepts it
    [d] = check_sources([SourceFile("m.py", text)], Settings()).diagnostics
    assert (d.code, d.line) == ("GBL001", 5)
    assert "syntax error" not in d.long_text and "Python accepts it" in d.message and "form feed" in d.long_text
    assert len(d.message) <= 120
    assert "form feed" in d.hint


def test_stdin_with_bad_bytes():
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--isolated", "-"], input=b"x = '\xe9'\n",
                          capture_output=True)
    assert proc.returncode == 1 and b"GBL002" in proc.stdout and b"Traceback" not in proc.stderr


# ------------------------------------------------------------------ deep recursion

def _recurse(n):
    return 0 if n == 0 else 1 + _recurse(n - 1)


def test_run_deep_raises_the_limit_and_restores_it():
    before = sys.getrecursionlimit()
    with pytest.raises(RecursionError):
        _recurse(before + 100)
    assert run_deep(_recurse, 20_000) == 20_000
    assert sys.getrecursionlimit() == before


def test_run_deep_reraises_and_nests():
    with pytest.raises(ZeroDivisionError):
        run_deep(lambda: 1 / 0)
    outer = run_deep(lambda: (threading.current_thread(), run_deep(threading.current_thread)))
    assert outer[0] is outer[1] and outer[0] is not threading.current_thread()  # nested call runs in place


def test_run_deep_falls_back_when_the_platform_refuses(monkeypatch):
    def refuse(*args):
        raise ValueError("size not valid")

    monkeypatch.setattr(threading, "stack_size", refuse)
    assert run_deep(threading.current_thread) is threading.current_thread()
    report = check_sources([SourceFile("m.py", OTHER)], Settings())
    assert codes(report) == ["GBL107"]


def test_deep_but_valid_file_is_analysed_in_process():
    text = compiled("y = " + " + ".join(["x"] * 400))
    report = check_sources([SourceFile("m.py", text)], Settings())
    assert [(d.code, d.line) for d in report.diagnostics] == [("GBL107", print_line(text))]
    assert sys.getrecursionlimit() < source.DEEP_RECURSION_LIMIT


def test_deeper_than_the_raised_limit_is_gbl001(monkeypatch):
    # libcst turns a RecursionError into a KeyError; it must still read as GBL001 (gblint's own walk
    # recurses less than libcst's visitor did, so the file is deeper than the parser can take at 1000)
    before = sys.getrecursionlimit()
    monkeypatch.setattr(source, "DEEP_RECURSION_LIMIT", 1000)
    sys.setrecursionlimit(1000)  # another test may have raised it for good
    try:
        text = compiled("y = " + " + ".join(["x"] * 2000))
        report = check_sources([SourceFile("m.py", text)], Settings())
    finally:
        sys.setrecursionlimit(before)
    assert [(d.code, d.message) for d in report.diagnostics] == [("GBL001", "file is nested too deeply to analyse")]
    assert report.errors == []


def test_exception_helpers():
    assert describe_exception(Unprintable()) == "Unprintable: <message could not be printed>"
    assert describe_exception(ValueError("a\nb")) == "ValueError: a"
    assert len(describe_exception(KeyError("k" * 5000))) < 320
    try:
        try:
            raise RecursionError()
        except RecursionError:
            raise KeyError("node")
    except KeyError as exc:
        assert caused_by_recursion(exc)
    assert not caused_by_recursion(KeyError("node"))


# ------------------------------------------------------------------ deep chains of calls (issue 39)


def _chain_program(functions: int, methods: int, recursion: int) -> str:
    """A solver-like program: ``functions`` plain functions each calling the next, a module whose
    ``methods`` methods call one another through ``self`` (``self.g0 -> self.g1 -> ...``), and two
    mutually recursive functions ``recursion`` calls deep; the last of each prints (a graph break)."""
    lines = ["import torch", ""]
    for i in range(functions):
        body = f"return step{i + 1}(x) + 1" if i < functions - 1 else "print('end of chain')\n    return x"
        lines.append(f"def step{i}(x):\n    {body}\n")
    lines.append("def even(x, n):\n    if n == 0:\n        return x\n    return odd(x * 2, n - 1)\n")
    lines.append("def odd(x, n):\n    if n == 0:\n        print('odd')\n        return x\n    return even(x + 1, n - 1)\n")
    lines.append("class Solver(torch.nn.Module):")
    for i in range(methods):
        body = f"return self.g{i + 1}(x) * 2" if i < methods - 1 else "print('end of methods')\n        return x"
        lines.append(f"    def g{i}(self, x):\n        {body}\n")
    lines.append(f"    def forward(self, x):\n        return self.g0(x) + even(x, {recursion}) + step0(x)\n")
    lines.append("@torch.compile(backend='eager')\ndef run(x):\n    return Solver()(x)\n")
    return "\n".join(lines)


def _check_chain(tmp_path, text):
    path = tmp_path / "solver.py"
    path.write_text(text)
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--no-cache", "--exit-zero", "--format", "json",
                           str(path)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0 and "RecursionError" not in proc.stderr, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert report["errors"] == []
    return text.splitlines(), report


def test_a_chain_of_hundreds_of_calls_is_cut_and_the_cut_is_stated(tmp_path):
    """600 nested function calls, 400 nested ``self`` method calls and a mutual recursion 200 deep:
    the run ends in bounded time without RecursionError, reports the breaks it reached, and says
    where it stopped analysing (coverage.unfollowed, not complete) instead of passing silently."""
    lines, report = _check_chain(tmp_path, _chain_program(600, 400, 200))
    cut = [u for u in report["coverage"]["unfollowed"] if "deeper than" in u["reason"]]
    assert {u["call"].rstrip("0123456789") for u in cut} == {"step", "self.g"}, cut
    assert all(not u["undecided"] for u in cut)
    assert report["coverage"]["complete"] is False
    reached = {lines[d["line"] - 1].strip() for d in report["diagnostics"]}
    assert "print('odd')" in reached  # through the recursion
    assert not {"print('end of chain')", "print('end of methods')"} & reached  # past the cut


def test_a_chain_within_the_bound_is_analysed_to_its_end(tmp_path):
    lines, report = _check_chain(tmp_path, _chain_program(30, 30, 3))
    reached = {lines[d["line"] - 1].strip() for d in report["diagnostics"]}
    assert {"print('end of chain')", "print('end of methods')", "print('odd')"} <= reached
    assert report["coverage"]["unfollowed"] == [] and report["coverage"]["complete"] is True


# ------------------------------------------------------------------ call graphs that fork at every level (issue 39)


def _forking_program(levels: int, kind: str) -> str:
    """``h{levels}`` calls ``h{levels-1}`` twice, and so on down to ``h0``, which breaks: 2**levels ways to one
    break. ``kind``: "join" (the two calls on one line), "branch" (one in each arm of an undecided ``if``),
    "values" (each call with a new constant, so no two calls are alike; ``h0`` breaks only for a ``k`` no call
    passes)."""
    if kind == "values":
        lines = ["import torch", "", "def h0(x, k):", "    if k > 10 ** 9:", "        torch._dynamo.graph_break()",
                 "    return x", ""]
        for i in range(1, levels + 1):
            lines += [f"def h{i}(x, k):", f"    return h{i - 1}(x, 2 * k) + h{i - 1}(x, 2 * k + 1)", ""]
        return "\n".join(lines + ["@torch.compile", "def f(x):", f"    return h{levels}(x, 1)", ""])
    lines = ["import torch", "", "def h0(x, c):", "    torch._dynamo.graph_break()", "    return x", ""]
    for i in range(1, levels + 1):
        if kind == "join":
            lines += [f"def h{i}(x, c):", f"    return h{i - 1}(x, c) + h{i - 1}(x * 2, c)", ""]
        else:
            lines += [f"def h{i}(x, c):", "    if c:", f"        return h{i - 1}(x, c)", f"    return h{i - 1}(x * 2, c)", ""]
    return "\n".join(lines + ["@torch.compile", "def f(x, c):", f"    return h{levels}(x, c)", ""])


@pytest.mark.parametrize("kind", ["join", "branch"])
def test_a_call_graph_forking_at_every_level_is_analysed_once_per_function(tmp_path, kind):
    """2**24 ways to one break (exponential time and memory before: 20 levels took 32 s and 2 GB, an
    ``if`` at each level ran out of memory): the break is reported once, through every level, and the
    analysis is complete."""
    path = tmp_path / "fork.py"
    path.write_text(_forking_program(24, kind))
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--no-cache", "--exit-zero", "--format", "json",
                           "--conditional", "all", str(path)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    report = json.loads(proc.stdout)
    assert report["errors"] == [] and report["coverage"]["complete"] is True
    assert [(d["line"], d["code"]) for d in report["diagnostics"]] == [(4, "GBL301")]
    assert len(report["diagnostics"][0]["trace"]) == 26  # f, h24 ... h0


def test_a_call_graph_of_new_values_at_every_level_stops_and_says_where(tmp_path):
    """2**20 calls, each with other arguments (no memo joins them): the walk stops at its limit
    (gblint.dynamo.inner_breaks.MAX_WALKS) and lists where as not analysed, instead of running for minutes."""
    path = tmp_path / "fork.py"
    path.write_text(_forking_program(20, "values"))
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--no-cache", "--exit-zero", "--format", "json",
                           str(path)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    report = json.loads(proc.stdout)
    assert report["errors"] == [] and report["coverage"]["complete"] is False
    assert any("does not analyse past here" in u["reason"] for u in report["coverage"]["unfollowed"])
    text = subprocess.run([sys.executable, "-m", "gblint", "check", "--no-cache", str(path)], capture_output=True,
                          text=True, timeout=120, cwd=ROOT).stdout
    assert "All checks passed" not in text
