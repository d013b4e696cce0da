"""``gblint confirm`` says what it measured, and nothing more (issue 17).

- Nothing ran (torch cannot be imported, an unknown backend, every region needing inputs, no
  compiled code reached): exit 2 with one line on stderr giving the reason, and precision and
  recall ``n/a`` (``null`` in JSON), never ``1.000``.
- A compile error under ``fullgraph=True`` or ``error_on_graph_break(True)`` that the user's
  code catches is still observed (``compile_errors``, ``caught``), so its prediction is
  confirmed, not refuted.
- Skipped frames are matched by file, qualified name and first line: a skip of ``Net.forward``
  says nothing about ``Small.forward``.

Every check here runs the user's code under torch (``backend="eager"``) and reads what the
runtime recorded; the matching units at the end feed hand-written run records to
:func:`gblint.runtime_check.matching.match`.
"""
import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import pytest

from .conftest import ROOT
from .conftest import write_tree as write

needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                 reason="needs torch (pip install -e .[test])")


def gblint(*args, cwd, env=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "gblint", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=timeout)


def err_lines(proc):
    return [ln for ln in proc.stderr.splitlines() if ln.strip()]


BREAKS = """
    import torch

    @torch.compile(backend="eager")
    def f(x):
        print(x)
        return x + 1

    def main():
        f(torch.randn(2))
"""


# --------------------------------------------------------------------------- nothing ran


@needs_torch
def test_torch_missing_is_exit_2_with_the_import_error(tmp_path):
    """The children's interpreter cannot import torch (a `torch.py` that raises, first on
    PYTHONPATH, which the child inherits): exit 2, the import error in one line, no scores."""
    write(tmp_path, {"prog.py": BREAKS, "shadow/torch.py": "raise ImportError('torch is broken here')\n"})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "shadow"), ROOT])}
    proc = gblint("confirm", "--backend", "eager", "--run", "--", sys.executable, "prog.py", cwd=tmp_path, env=env)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    (line,) = err_lines(proc)
    assert line.startswith("gblint: error: nothing ran:") and "ImportError: torch is broken here" in line
    assert "1.000" not in proc.stdout and "precision n/a" in proc.stdout and "recall n/a" in proc.stdout
    proc = gblint("confirm", "--backend", "eager", "--format", "json", "prog.py", cwd=tmp_path, env=env)
    assert proc.returncode == 2
    doc = json.loads(proc.stdout)
    assert doc["precision"] is None and doc["recall"] is None
    assert "torch is broken here" in doc["nothing_ran"]
    assert doc["runs"][0]["status"] == "failed"


@needs_torch
def test_unknown_backend_is_exit_2_with_dynamo_s_message(tmp_path):
    """An unknown --backend: exit 2; the line holds Dynamo's whole message and the backends it
    knows (it used to run, fail every graph with a message cut at `raised:`, and exit 0)."""
    write(tmp_path, {"prog.py": BREAKS})
    proc = gblint("confirm", "--backend", "no_such_backend", "prog.py", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    (line,) = err_lines(proc)
    assert "nothing ran" in line and "Invalid backend: 'no_such_backend'" in line
    assert "for available backends." in line  # not cut off
    known = line.split("Registered backends:")[-1]
    assert "eager" in known.split(", ") and "aot_eager" in known and "inductor" in known
    assert "precision 1.000" not in proc.stdout and "precision n/a" in proc.stdout
    # gblint check --confirm: the same
    proc = gblint("check", "--no-cache", "--confirm", "--backend", "no_such_backend", "prog.py", cwd=tmp_path)
    assert proc.returncode == 2 and "Invalid backend: 'no_such_backend'" in err_lines(proc)[-1]


@needs_torch
def test_no_region_executed_is_exit_2(tmp_path):
    """Every region needs inputs gblint cannot make up, or a main() that never calls its
    compiled function: nothing reached torch.compile, exit 2 with the reason."""
    write(tmp_path, {
        "needs.py": """
            import torch

            @torch.compile(backend="eager")
            def f(x, y):
                print(x)
                return x + y
        """,
        "idle.py": """
            import torch

            @torch.compile(backend="eager")
            def f(x):
                print(x)
                return x + 1

            def main():
                return None
        """})
    proc = gblint("confirm", "--backend", "eager", "needs.py", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    (line,) = err_lines(proc)
    assert "nothing ran" in line and "needs_inputs" in line and "no value for parameter(s) x, y" in line
    assert "precision n/a" in proc.stdout
    proc = gblint("confirm", "--backend", "eager", "--format", "json", "idle.py", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["runs"][0]["status"] == "ok" and doc["runs"][0]["dynamo_frames"] == 0
    assert doc["precision"] is None and doc["recall"] is None
    assert "Dynamo compiled no frame" in doc["nothing_ran"] and "Dynamo compiled no frame" in err_lines(proc)[0]


@needs_torch
def test_a_hang_before_compiling_is_reported_without_scores(tmp_path):
    """A program that hangs before it compiles anything: the timeout is reported, the run is
    incomplete (exit 2, as for any run that did not finish), and there is no precision or recall."""
    write(tmp_path, {"hang.py": """
        import time
        import torch

        @torch.compile(backend="eager")
        def f(x):
            print(x)
            return x + 1

        def main():
            while True:
                time.sleep(0.05)
    """})
    proc = gblint("confirm", "--backend", "eager", "--timeout", "3", "--format", "json", "hang.py", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["runs"][0]["status"] == "timeout" and doc["runs"][0]["dynamo_frames"] == 0
    assert doc["precision"] is None and doc["recall"] is None
    assert "did not finish within the time limit of 3 s" in doc["incomplete"]
    assert "incomplete run" in proc.stderr


@needs_torch
def test_no_scores_when_there_was_nothing_to_measure(tmp_path):
    """Dynamo compiled the region, without a break, and gblint predicted none: the run is
    fine (exit 0) but there is no precision or recall to give."""
    write(tmp_path, {"clean.py": """
        import torch

        @torch.compile(backend="eager")
        def f(x):
            return x.sin() + 1

        def main():
            f(torch.randn(2))
    """})
    proc = gblint("confirm", "--backend", "eager", "clean.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "precision n/a" in proc.stdout and "recall n/a" in proc.stdout and "1.000" not in proc.stdout
    proc = gblint("confirm", "--backend", "eager", "--format", "json", "clean.py", cwd=tmp_path)
    doc = json.loads(proc.stdout)
    assert doc["runs"][0]["graph_count"] == 1 and doc["nothing_ran"] is None
    assert doc["precision"] is None and doc["recall"] is None


def test_backend_error_is_not_cut_after_its_colon():
    """Dynamo's `backend='x' raised:` puts the backend's own error on the next line."""
    from gblint.runtime_check.observer import _first_line
    text = "backend='bad' raised:\nRuntimeError: boom here\n\nSet TORCHDYNAMO_VERBOSE=1 for the internal stack trace"
    assert _first_line(RuntimeError(text)) == "backend='bad' raised: RuntimeError: boom here"
    assert _first_line("plain message\nmore") == "plain message" and _first_line("") == ""


# --------------------------------------------------------------------------- caught compile errors

CAUGHT = {
    "fg.py": """
        import torch


        @torch.compile(backend="eager", fullgraph=True)
        def f(x):
            print(x)
            return x + 1


        def main():
            try:
                f(torch.randn(2))
            except Exception:
                pass
    """,
    "eog.py": """
        import torch


        @torch.compile(backend="eager")
        def g(x):
            with torch._dynamo.error_on_graph_break(True):
                torch._dynamo.graph_break()
            return x + 1


        def main():
            try:
                g(torch.randn(2))
            except Exception:
                pass
    """,
    "uncaught.py": """
        import torch


        @torch.compile(backend="eager", fullgraph=True)
        def h(x):
            print(x)
            return x + 1


        def main():
            h(torch.randn(2))
    """,
    "loop.py": """
        import torch


        @torch.compile(backend="eager")
        def k(x):
            for _ in range(2):
                torch._dynamo.graph_break()
                x = x + 1
            return x


        def main():
            k(torch.randn(2))
    """,
}


@needs_torch
def test_caught_compile_errors_are_observed(tmp_path):
    write(tmp_path, CAUGHT)
    proc = gblint("confirm", "--backend", "eager", "--format", "json", "fg.py", "eog.py", "uncaught.py", "loop.py",
                  cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    status = {(m["path"].rsplit(os.sep, 1)[-1], m["code"]): m["status"] for m in doc["matches"]}
    assert status[("fg.py", "GBL401")] == "confirmed"
    assert status[("eog.py", "GBL402")] == "confirmed"
    assert status[("uncaught.py", "GBL401")] == "confirmed"
    assert doc["counts"]["refuted"] == 0 and doc["missed"] == []
    runs = {r["entry"]: r for r in doc["runs"]}
    # what the runtime recorded: the error reached the caller, which caught it
    (fg,) = runs["fg:main"]["compile_errors"]
    assert fg["caught"] is True and fg["gb_id"] == "GB0059" and (fg["line"], fg["qualname"]) == (6, "f")
    assert fg["type"] == "torch._dynamo.exc.Unsupported" and runs["fg:main"]["error"] is None
    (eog,) = runs["eog:main"]["compile_errors"]
    assert eog["caught"] is True and eog["gb_id"] == "GB0025" and eog["line"] == 7
    # an error nobody caught ends the run, and is the same observation
    (unc,) = runs["uncaught:main"]["compile_errors"]
    assert unc["caught"] is False and runs["uncaught:main"]["status"] == "error"
    assert runs["uncaught:main"]["error"]["line"] == unc["line"] == 6
    # a failure Dynamo suppressed (the frame runs eagerly) is a skipped frame, not a compile error
    assert runs["loop:main"]["compile_errors"] == [] and runs["loop:main"]["skipped_frames"]


# --------------------------------------------------------------------------- frames by identity

TWO_MODULES = """
    import torch
    import torch.nn as nn


    class Net(nn.Module):
        def forward(self, x):
            for _ in range(2):
                torch._dynamo.graph_break()
                x = x + 1
            return x


    class Small(nn.Module):
        def forward(self, x):
            for _ in range(2):
                torch._dynamo.graph_break()
                x = x * 2
            return x


    net = torch.compile(Net(), backend="eager")
    small = torch.compile(Small(), backend="eager")


    def main():
        net(torch.randn(2))
"""


@needs_torch
def test_skip_of_one_forward_does_not_confirm_another(tmp_path):
    write(tmp_path, {"two.py": TWO_MODULES})
    proc = gblint("confirm", "--backend", "eager", "--format", "json", "two.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    by_line = {m["line"]: m for m in doc["matches"]}
    assert by_line[16]["status"] == "not_reached"  # Small never ran
    assert by_line[8]["status"] == "confirmed" and "Net.forward" in by_line[8]["why"]
    (run,) = doc["runs"]
    (skip,) = run["skipped_frames"]
    assert (skip["qualname"], skip["first_line"]) == ("Net.forward", 6)  # what Dynamo's code object said


# --------------------------------------------------------------------------- matching units (no torch)


def _skip_run(path, qualname, first_line, code_name=None, resume_at=None, line=None):
    return {"graphs": [], "breaks": [], "error": None,
            "skipped_frames": [{"function": (code_name or qualname).split(".")[-1], "path": path,
                                "line": line or first_line, "reason": "graph break in loop", "gb_id": "GB7000",
                                "first_line": first_line, "resume_at": resume_at,
                                "code_name": code_name or qualname.split(".")[-1], "qualname": qualname}]}


def test_frames_match_by_file_qualname_and_first_line(tmp_path):
    from gblint.runtime_check.matching import match
    a = tmp_path / "a.py"
    a.write_text(textwrap.dedent(TWO_MODULES).lstrip())
    b = tmp_path / "b.py"
    b.write_text(textwrap.dedent(TWO_MODULES).lstrip())
    pa, pb = str(a), str(b)
    net = {"path": pa, "line": 8, "code": "GBL201", "effect": "skip", "frame": "Net.forward", "trace": []}
    small = {"path": pa, "line": 16, "code": "GBL201", "effect": "skip", "frame": "Small.forward", "trace": []}
    other_file = {"path": pb, "line": 8, "code": "GBL201", "effect": "skip", "frame": "Net.forward", "trace": []}
    res = match([net, small, other_file], [_skip_run(pa, "Net.forward", 6)])
    assert [m["status"] for m in res["matches"]][:1] == ["confirmed"]
    assert res["matches"][1]["status"] != "confirmed"  # same name, other class
    assert res["matches"][2]["status"] != "confirmed"  # same qualname, other file
    # same file and qualname, but another definition (another first line): not this frame
    res = match([net], [_skip_run(pa, "Net.forward", 14)])
    assert res["matches"][0]["status"] != "confirmed"
    assert [(m["line"], m["outcome"]) for m in res["missed"]] == [(14, "skipped")]
    # a resume function of Net.forward (first line inside it) is Net.forward; its qualname says so
    res = match([net, small], [_skip_run(pa, "Net.torch_dynamo_resume_in_forward_at_9", 9,
                                         code_name="torch_dynamo_resume_in_forward_at_9", resume_at=9)])
    assert [m["status"] for m in res["matches"]] == ["confirmed", "not_reached"] and res["missed"] == []
    # the frame is found through the trace when the diagnostic's line is in a callee
    via = {"path": pa, "line": 16, "code": "GBL201", "effect": "skip", "frame": "Net.forward",
           "trace": [{"path": pa, "line": 8, "function": "Net.forward"},
                     {"path": pa, "line": 16, "function": "Small.forward"}]}
    assert match([via], [_skip_run(pa, "Net.forward", 6)])["matches"][0]["status"] == "confirmed"


def test_scores_are_none_without_a_denominator(tmp_path):
    from gblint.runtime_check.matching import match
    res = match([], [])
    assert res["precision"] is None and res["recall"] is None
    import io

    from gblint.runtime_check.report import nothing_ran, write_table
    buf = io.StringIO()
    write_table([], res, buf)
    assert "precision n/a" in buf.getvalue() and "recall n/a" in buf.getvalue()
    assert nothing_ran([]) and nothing_ran([{"entry": "m:main", "status": "ok", "graphs": [], "dynamo_frames": 0}])
    assert nothing_ran([{"entry": "m:main", "status": "ok", "graphs": [], "dynamo_frames": 2}]) is None
