"""``confirm`` and the front ends tell the truth (issue 41), through the command line, with
real runs under torch (``backend="eager"``: what Dynamo does, not what a backend builds).

- A run that did not finish (it timed out) is an error: exit 2, and no precision or recall as
  if the run were complete; what it observed before it was killed is still reported.
- Every break Dynamo reports is counted wherever it lies: one in a package the static check
  did not follow is ``missed``, unless a diagnostic predicts it (``--follow-imports``).
- A conditional prediction whose condition did not hold in the run is ``not_reached``, never
  ``confirmed``: its frame skipped by a break elsewhere does not confirm it.
- ``check --confirm`` runs a script that compiles and calls its model at module level, as
  ``confirm --run -- python FILE`` does.

The observations each test relies on are asserted first (the run records: break lines, GB ids,
skipped frames), so that a change in PyTorch shows as a failed observation, not as a wrong status.
"""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

from .conftest import ROOT
from .conftest import write_tree as write

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                reason="needs torch (pip install -e .[test])")


def gblint(*args, cwd, pythonpath=(), timeout=300):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, pythonpath), ROOT, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return subprocess.run([sys.executable, "-m", "gblint", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=timeout)


def by_line(doc, path_end):
    return {m["line"]: m for m in doc["matches"] if m["path"].endswith(path_end)}


HANG = {"hang.py": """
    import time
    import torch

    @torch.compile(backend="eager")
    def f(x):
        y = x * 2
        print("step")
        return y + 1

    def main():
        f(torch.randn(4))
        while True:
            time.sleep(0.05)
"""}


def test_a_timed_out_confirm_exits_2_and_gives_no_scores(tmp_path):
    write(tmp_path, HANG)
    proc = gblint("confirm", "--backend", "eager", "--timeout", "4", "--format", "json", "hang.py", cwd=tmp_path)
    doc = json.loads(proc.stdout)
    run, = doc["runs"]
    # observed: the break at the print (line 7) before the program hung, then the kill at the limit
    assert run["status"] == "timeout" and run["time_limit"] == 4
    assert [(b["line"], b["gb_id"]) for b in run["breaks"]] == [(7, "GB0059")]
    assert proc.returncode == 2, proc.stderr
    assert "gblint: error: incomplete run" in proc.stderr and "did not finish within the time limit of 4 s" in proc.stderr
    assert doc["precision"] is None and doc["recall"] is None
    assert "did not finish" in doc["incomplete"] and doc["nothing_ran"] is None
    assert by_line(doc, "hang.py")[7]["status"] == "confirmed"  # what was seen before the kill still counts

    text = gblint("confirm", "--backend", "eager", "--timeout", "4", "hang.py", cwd=tmp_path)
    assert text.returncode == 2
    assert "timeout: did not finish within the time limit of 4 s" in text.stdout
    assert "precision n/a, recall n/a: the run was incomplete" in text.stdout
    assert "precision 1.000" not in text.stdout and "recall 1.000" not in text.stdout

    check = gblint("check", "--confirm", "--backend", "eager", "--timeout", "4", "hang.py", cwd=tmp_path)
    assert check.returncode == 2 and "--confirm: incomplete run" in check.stderr
    assert "precision n/a, recall n/a: the run was incomplete" in check.stdout


PACKAGE = {"site/pkgx/__init__.py": """
    import torch


    def scale(x):
        y = x * 2
        torch._dynamo.graph_break()
        return y + 1


    class Block(torch.nn.Module):
        def forward(self, x):
            h = x.cos()
            print("inside the package")
            return h.sin()
""", "proj/driver.py": """
    import torch
    import pkgx


    def step(x):
        return pkgx.scale(x) * 3


    compiled = torch.compile(step, backend="eager")
    block = torch.compile(pkgx.Block(), backend="eager")
    compiled(torch.randn(4))
    block(torch.randn(4))
"""}


def test_a_break_in_a_package_not_followed_is_missed(tmp_path):
    write(tmp_path, PACKAGE)
    site, proj = tmp_path / "site", tmp_path / "proj"
    proc = gblint("confirm", "--backend", "eager", "--format", "json", "--run", "--", sys.executable, "driver.py",
                  cwd=proj, pythonpath=[site])
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    run, = doc["runs"]
    init = os.path.realpath(site / "pkgx" / "__init__.py")
    # observed: Dynamo broke twice inside the package, at graph_break() and at print()
    assert sorted((os.path.realpath(b["path"]), b["line"], b["gb_id"]) for b in run["breaks"]) == [
        (init, 6, "GB0025"), (init, 13, "GB0059")]
    assert doc["matches"] == []  # the static check did not read the package: nothing predicted there
    assert sorted((os.path.realpath(m["path"]), m["line"], m["gb_id"]) for m in doc["missed"]) == [
        (init, 6, "GB0025"), (init, 13, "GB0059")]
    assert doc["counts"]["observed"] == 2 and doc["counts"]["missed"] == 2 and doc["counts"]["outside"] == 2
    assert doc["recall"] == 0.0

    text = gblint("confirm", "--backend", "eager", "--run", "--", sys.executable, "driver.py", cwd=proj,
                  pythonpath=[site])
    row = [ln.split() for ln in text.stdout.splitlines() if ln.startswith("__init__.py")]
    assert row == [["__init__.py", "0", "2", "0", "0", "0", "2", "mismatch"]]
    assert "recall 0.000" in text.stdout and "missed: resumed (GB0025)" in text.stdout
    strict = gblint("confirm", "--backend", "eager", "--strict", "--run", "--", sys.executable, "driver.py",
                    cwd=proj, pythonpath=[site])
    assert strict.returncode == 1

    # followed, the package's breaks are predicted, so they are confirmed, not missed
    followed = gblint("check", "--confirm", "--backend", "eager", "--follow-imports", "pkgx", "--format", "json",
                      "driver.py", cwd=proj, pythonpath=[site])
    section = json.loads(followed.stdout)["confirm"]
    assert section["missed"] == [] and section["recall"] == 1.0
    assert {(m["line"], m["code"], m["status"]) for m in section["matches"] if m["path"].endswith("__init__.py")} == {
        (6, "GBL301", "confirmed"), (13, "GBL107", "confirmed")}


CONDITIONAL = {"cond.py": """
    import torch


    def helper(y):
        print("huge")
        return y


    def step(x):
        z = helper(x) if x.sum() > 1e4 else x
        return z.sin()


    @torch.compile(backend="eager")
    def g(x):
        for _ in range(2):
            x = step(x)
        return x


    def main():
        g(torch.randn(4, 4))
"""}


def test_a_conditional_whose_condition_did_not_hold_is_not_reached(tmp_path):
    write(tmp_path, CONDITIONAL)
    proc = gblint("confirm", "--backend", "eager", "--format", "json", "cond.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    run, = doc["runs"]
    # observed: the data-dependent branch at line 10 broke inside the loop, so frame g was
    # skipped (GB7000, caused by GB0170); nothing happened at the print (line 5): x.sum() was small
    assert [(b["line"], b["outcome"], sorted(b["gb_ids"])) for b in run["breaks"]] == [
        (10, "skipped", ["GB0170", "GB7000"])]
    assert [(s["qualname"], s["line"]) for s in run["skipped_frames"]] == [("g", 10)]
    lines = by_line(doc, "cond.py")
    assert lines[5]["code"] == "GBL201" and lines[5]["status"] == "not_reached"
    assert "skipped, but by what happened at line 10" in lines[5]["why"]
    assert lines[10]["code"] == "GBL201" and lines[10]["status"] == "confirmed"
    assert doc["counts"] == {"confirmed": 1, "refuted": 0, "not_reached": 1, "observed": 2, "explained": 2,
                             "missed": 0, "outside": 0}

    text = gblint("confirm", "--backend", "eager", "cond.py", cwd=tmp_path)
    assert "cond.py:5: GBL201 [skip] not_reached" in text.stdout
    check = gblint("check", "--confirm", "--backend", "eager", "--format", "json", "cond.py", cwd=tmp_path)
    status = {(d["line"], d["code"]): d.get("status") for d in json.loads(check.stdout)["diagnostics"]}
    assert status[(5, "GBL201")] == "not_reached" and status[(10, "GBL201")] == "confirmed"


def test_the_gpt_example_s_overflow_print_is_not_reached(tmp_path):
    with open(os.path.join(ROOT, "examples", "gpt.py"), encoding="utf-8") as fh:
        source = fh.read()
    write(tmp_path, {"drive.py": """
        import torch
        import gpt

        gpt.model(torch.randint(0, 256, (2, 16)))
    """})
    (tmp_path / "gpt.py").write_text(source, encoding="utf-8")
    proc = gblint("confirm", "--backend", "eager", "--format", "json", "--run", "--", sys.executable, "drive.py",
                  cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    run, = doc["runs"]
    # observed: one break, the data-dependent `if` (line 43) in the blocks' loop, skipping GPT.forward
    assert [(b["line"], b["outcome"]) for b in run["breaks"]] == [(43, "skipped")]
    lines = by_line(doc, "gpt.py")
    assert (lines[43]["code"], lines[43]["status"]) == ("GBL201", "confirmed")
    assert (lines[44]["code"], lines[44]["status"]) == ("GBL107", "not_reached")  # when h.abs().max() > 1e4


SCRIPT = {"model.py": """
    import torch


    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 4)

        def forward(self, x):
            h = self.lin(x)
            print("forward")
            return h.relu()
""", "driver.py": """
    import torch
    from model import Net

    model = torch.compile(Net(), backend="eager")
    model(torch.randn(2, 4))
"""}


def test_check_confirm_runs_a_module_level_region(tmp_path):
    write(tmp_path, SCRIPT)
    proc = gblint("check", "--confirm", "--backend", "eager", "--format", "json", "driver.py", cwd=tmp_path)
    doc = json.loads(proc.stdout)
    section = doc["confirm"]
    run, = section["runs"]
    # observed: the script ran as a program, and Dynamo broke at the print in Net.forward
    assert run["entry"] == "driver.py" and run["status"] == "ok"
    assert [(os.path.basename(b["path"]), b["line"], b["gb_id"]) for b in run["breaks"]] == [("model.py", 11, "GB0059")]
    assert section["nothing_ran"] is None and section["unrunnable"] == []
    assert [(os.path.basename(m["path"]), m["line"], m["status"]) for m in section["matches"]] == [
        ("model.py", 11, "confirmed")]
    assert section["missed"] == [] and section["precision"] == 1.0 and section["recall"] == 1.0
    assert proc.returncode == 1  # a diagnostic reported, as plain `check`

    text = gblint("check", "--confirm", "--backend", "eager", "driver.py", cwd=tmp_path)
    assert "run driver.py [eager, cpu]: ok" in text.stdout and "nothing to run" not in text.stderr


def test_a_script_inside_a_package_runs_as_its_module(tmp_path):
    """A script with relative imports runs as ``python -m package.module`` from above its package."""
    write(tmp_path, {"app/__init__.py": "", "app/net.py": """
        def fn(x):
            print("in fn")
            return x + 1
    """, "app/run.py": """
        import torch
        from .net import fn

        if __name__ == "__main__":
            torch.compile(fn, backend="eager")(torch.randn(3))
    """})
    proc = gblint("confirm", "--backend", "eager", "--format", "json", "app/run.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    run, = doc["runs"]
    # observed: the relative import worked and Dynamo broke at the print in app/net.py
    assert run["entry"] == "-m app.run" and run["status"] == "ok"
    assert [(os.path.basename(b["path"]), b["line"], b["gb_id"]) for b in run["breaks"]] == [("net.py", 2, "GB0059")]
    assert [(m["line"], m["code"], m["status"]) for m in doc["matches"]] == [(2, "GBL107", "confirmed")]


STAGED = {"tiny.py": """
    import torch


    @torch.compile
    def f(x):
        y = x.sin() * 2
        print("step")
        return y.cos() + 1


    def main():
        f(torch.randn(8))
"""}


def test_inductor_runs_as_two_stages_each_with_its_own_result(tmp_path):
    """Under Inductor the breaks are found with eager first; the build is its own stage, with its
    own time limit: a build that runs out of time leaves the breaks complete and scored, and
    the command fails (exit 2)."""
    write(tmp_path, STAGED)
    proc = gblint("confirm", "--format", "json", "tiny.py", cwd=tmp_path)  # default backend: inductor
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    run, = doc["runs"]
    # observed, breaks stage: one break at the print (line 7), two graphs
    assert run["backend"] == "eager" and run["graph_count"] == 2
    assert [(b["line"], b["gb_id"]) for b in run["breaks"]] == [(7, "GB0059")]
    assert doc["precision"] == 1.0 and doc["recall"] == 1.0
    # observed, build stage: Inductor generated C++ kernels for both graphs
    build = doc["build"]
    assert build["status"] == "ok" and build["backend"] == "inductor" and build["time_limit"] == 120
    assert build["graphs"] == 2 and build["compiled_graphs"] == 2 and build["kernels"] >= 2
    assert build["codegen"] == ["cpp"] and build["seconds"] > 0

    short = gblint("confirm", "--format", "json", "--build-timeout", "0.5", "tiny.py", cwd=tmp_path)
    doc = json.loads(short.stdout)
    assert doc["build"]["status"] == "timeout" and doc["build"]["time_limit"] == 0.5
    assert doc["incomplete"] is None and doc["precision"] == 1.0 and doc["recall"] == 1.0  # the breaks are complete
    assert short.returncode == 2 and "gblint: error: incomplete build: the inductor build timeout" in short.stderr
    text = gblint("confirm", "--build-timeout", "0.5", "tiny.py", cwd=tmp_path)
    assert "build [inductor, cpu]: timeout" in text.stdout and "precision 1.000" in text.stdout
    assert "the breaks above are complete" in text.stdout and text.returncode == 2
