"""gblint.runtime_check: observations of torch.compile (torch 2.13 CPU) against the measured
truth of the example programs (tests/cases/examples), matching, and the isolation of user code (hangs, crashes, exits).

The whole-suite run uses the ``eager`` backend in two child processes; three cases go through
Inductor on CPU. The GPU path (Triton) is not exercised here: see ``scripts/gpu_check.sh``.
"""
import importlib.util
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

from .conftest import CASES, ROOT, TRUTH, run_cli
from .conftest import write_tree as write_files

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                reason="needs torch (pip install -e .[test])")


RUN_KEYS = {"entry", "backend", "device", "graph_count", "graphs", "breaks", "skipped_frames", "recompiles",
            "error", "seconds"}


def confirm_json(*args, cwd=None, timeout=600):
    proc = subprocess.run([sys.executable, "-m", "gblint", "confirm", "--format", "json", *args],
                          capture_output=True, text=True, cwd=cwd or ROOT, timeout=timeout)
    assert "Traceback" not in proc.stderr, proc.stderr
    try:
        return proc, json.loads(proc.stdout)
    except ValueError:
        raise AssertionError(f"not JSON (rc={proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")


def truth_cases():
    with open(TRUTH) as fh:
        return sorted(json.load(fh)["cases"])


def in_case(items, name, key="path"):
    return [it for it in items if it.get(key) and os.path.basename(it[key]) == name]


# --------------------------------------------------------------------------- all public cases


@pytest.fixture(scope="module")
def eager_doc():
    proc, doc = confirm_json("--backend", "eager", "--workers", "2", "--timeout", "120", CASES)
    assert proc.returncode == 0, proc.stderr
    doc["by_case"] = {os.path.basename(r["file"]): r for r in doc["runs"]}
    return doc


@pytest.mark.parametrize("name", truth_cases())
def test_case_reproduces_truth(eager_doc, truth, name):
    """Same graph count, break lines and skipped frames as the measured truth."""
    t = truth[name]
    run = eager_doc["by_case"][name]
    assert run["status"] in ("ok", "error"), run
    assert run["graph_count"] == t["graph_count"]
    assert [g["ops"] for g in run["graphs"]] == [g["ops"] for g in t["graphs"]]
    observed_lines = sorted({b["line"] for b in in_case(run["breaks"], name)})
    assert observed_lines == sorted({b["case_line"] for b in t["graph_breaks"]})
    benign = {b["co_name"] for b in t.get("benign_skips_in_case", [])}
    observed_skips = sorted({s["function"] for s in in_case(run["skipped_frames"], name)
                             if s.get("code_name") not in benign})
    assert observed_skips == sorted({s["func"] for s in t["skipped_frames"]})
    assert not [s for s in run["skipped_frames"] if s.get("code_name") in benign]
    if t["exception"]:
        err = run["error"]
        assert err and err["type"] == t["exception"]["type"]
        sites = {f"{os.path.basename(f['path'])}:{f['line']}" for f in err["stack"]}
        assert sites == set(t["exception"]["user_code"])
        assert err["gb_id"] and err["gb_id"].startswith("GB")
    else:
        assert run["error"] is None
    assert len(run["recompiles"]) == len(t["recompiles"])
    for r, tr in zip(run["recompiles"], t["recompiles"]):
        assert r["guard"] == tr["reason"]


def test_document_shape_and_scores(eager_doc):
    assert eager_doc["version"] == 1
    for run in eager_doc["runs"]:
        assert RUN_KEYS <= set(run)
        assert run["backend"] == "eager" and run["device"] == "cpu"
        for g in run["graphs"]:
            assert {"ops", "codegen", "lines"} <= set(g) and g["codegen"] is None
            assert all(set(ln) == {"path", "line"} for ln in g["lines"])
        for b in run["breaks"]:
            assert {"path", "line", "function", "gb_id", "gb_type", "outcome", "stack"} <= set(b)
            assert b["outcome"] in ("resumed", "skipped", "prefix")
            assert b["gb_id"] is None or b["gb_id"].startswith("GB")
            assert all(set(f) == {"path", "line", "function"} for f in b["stack"])
        for s in run["skipped_frames"]:
            assert {"function", "path", "line", "reason", "gb_id"} <= set(s)
        for r in run["recompiles"]:
            assert {"function", "path", "line", "guard"} <= set(r)
    for m in eager_doc["matches"]:
        assert {"code", "path", "line", "effect", "status"} <= set(m)
        assert m["status"] in ("confirmed", "refuted", "not_reached")
    for m in eager_doc["missed"]:
        assert {"path", "line", "gb_id", "outcome"} <= set(m)
    # gblint's predictions on the public cases are nearly all right (README "Accuracy")
    assert eager_doc["precision"] >= 0.9 and eager_doc["recall"] >= 0.9
    by = eager_doc["by_case"]
    # outcomes: a loop skip, a prefix compile (checkpoint rule), a plain resume
    assert {b["outcome"] for b in by["006_break_inside_range_loop.py"]["breaks"]} == {"skipped"}
    assert by["006_break_inside_range_loop.py"]["breaks"][0]["gb_id"] == "GB7000"
    assert by["016_try_finally_break_after_two_ops.py"]["breaks"][0]["outcome"] == "prefix"
    assert by["001_dynamo_alias_break_before_loop.py"]["breaks"][0]["gb_id"] == "GB0025"
    # a break inside library code is reported at the user's call site
    deep = by["068_deepcopy_tensor.py"]["breaks"][0]
    assert os.path.basename(deep["path"]) == "068_deepcopy_tensor.py" and deep["line"] == 8
    # a nested break lists every call site of the trace
    nested = by["041_nested_depth3_default.py"]["breaks"][0]
    assert len(nested["stack"]) >= 3 and nested["events"] == 3
    # harmless declines are kept apart from skipped frames
    assert [d["function"] for d in by["049_disable_recursive_and_non_recursive.py"]["declined_frames"]] == ["shallow"]


def test_text_table(tmp_path):
    """The text report ends with the per-case table and the summed precision and recall; a break
    gblint did not report (silenced here with `# noqa`) is missed, and fails under --strict."""
    hidden = write_files(tmp_path, {"hidden.py": """
        import torch

        @torch.compile(backend="eager")
        def f(x):
            print(x)  # noqa
            return x + 1

        def main():
            f(torch.randn(2))
    """}) / "hidden.py"
    proc = run_cli("confirm", "--backend", "eager", "--strict",
                   os.path.join(CASES, "001_dynamo_alias_break_before_loop.py"), str(hidden))
    out = proc.stdout
    assert "predicted observed confirmed refuted not_reached missed  status" in out
    assert "001_dynamo_alias_break_before_loop.py" in out and "total" in out
    assert "precision" in out and "recall 0.500" in out
    assert "hidden.py:5: missed: resumed (GB0059)" in out
    assert proc.returncode == 1, proc.stderr


def test_entry_case_main_without_arguments():
    case = os.path.join(CASES, "049_disable_recursive_and_non_recursive.py")
    proc, doc = confirm_json(case, "--entry", "case:main", "--backend", "eager")
    assert proc.returncode == 0
    (run,) = doc["runs"]
    assert run["entry"] == "case:main" and run["status"] == "ok" and run["graph_count"] == 4
    assert sorted(b["line"] for b in run["breaks"]) == [11, 28, 29]
    assert {m["status"] for m in doc["matches"]} == {"confirmed"} and doc["missed"] == []


def test_cuda_requested_without_a_device():
    """`--device cuda` where torch sees no GPU fails the runs with the reason, not a traceback."""
    case = os.path.join(CASES, "001_dynamo_alias_break_before_loop.py")
    proc, doc = confirm_json("--device", "cuda", "--backend", "eager", case)
    probe = subprocess.run([sys.executable, "-c", "import torch; print(torch.cuda.is_available())"],
                           capture_output=True, text=True)
    if probe.stdout.strip() == "True":
        pytest.skip("a CUDA device is present: see scripts/gpu_check.sh")
    assert proc.returncode == 2  # nothing ran
    assert proc.stderr.strip().splitlines()[-1].startswith("gblint: error: nothing ran: --device cuda")
    (run,) = doc["runs"]
    assert run["status"] == "failed" and "sees no CUDA device" in run["message"]
    assert doc["precision"] is None and doc["recall"] is None


# --------------------------------------------------------------------------- Inductor on CPU

INDUCTOR_CASES = ["001_dynamo_alias_break_before_loop.py", "018_grad_mode_blocks_break.py",
                  "057_tensor_if_branch.py"]


def test_inductor_cpu_cases(truth):
    proc, doc = confirm_json("--backend", "inductor", "--device", "cpu", "--timeout", "300",
                             *[os.path.join(CASES, n) for n in INDUCTOR_CASES])
    assert proc.returncode == 0
    # two stages: the breaks under eager (doc["runs"]), then the Inductor build with its own result
    assert [r["backend"] for r in doc["runs"]] == ["eager"] * len(INDUCTOR_CASES)
    build = doc["build"]
    assert build["status"] == "ok" and build["backend"] == "inductor" and build["codegen"] == ["cpp"]
    assert build["kernels"] >= build["compiled_graphs"] >= 1 and build["seconds"] > 0
    for name, breaks_run, run in zip(INDUCTOR_CASES, doc["runs"], build["runs"]):
        t = truth[name]
        assert breaks_run["graph_count"] == t["graph_count"]
        assert sorted({b["line"] for b in breaks_run["breaks"]}) == sorted({b["case_line"] for b in t["graph_breaks"]})
        assert run["status"] == "ok", run.get("message")
        assert run["backend"] == "inductor" and run["device"] == "cpu"
        assert run["graph_count"] == t["graph_count"]
        assert sorted({b["line"] for b in run["breaks"]}) == sorted({b["case_line"] for b in t["graph_breaks"]})
        # Inductor generated C++ kernels for the pointwise graphs
        gens = {g["codegen"] for g in run["graphs"]}
        assert "cpp" in gens and "triton" not in gens
        assert all(g["kernels"] >= 1 for g in run["graphs"] if g["codegen"] == "cpp")


# --------------------------------------------------------------------------- isolation

BAD_PROGRAMS = {
    "hang.py": """
        import torch

        @torch.compile(backend="eager")
        def f(x):
            torch._dynamo.graph_break()
            return x + 1

        def main():
            f(torch.randn(2))
            while True:
                pass
    """,
    "abort.py": """
        import os
        import torch

        def main():
            torch.compile(lambda x: x + 1, backend="eager")(torch.randn(2))
            os.abort()
    """,
    "segfault.py": """
        import ctypes
        import torch

        def main():
            torch.compile(lambda x: x.sin(), backend="eager")(torch.randn(2))
            ctypes.string_at(0)
    """,
    "sysexit.py": """
        import sys
        import torch

        @torch.compile(backend="eager")
        def f(x):
            return x.item()

        def main():
            f(torch.randn(1))
            sys.exit(3)
    """,
    "osexit.py": """
        import os
        import torch

        def main():
            torch.compile(lambda x: x + 1, backend="eager")(torch.randn(2))
            os._exit(4)
    """,
    "zz_fine.py": """
        import torch

        def main():
            torch.compile(lambda x: x.cos() * 2, backend="eager")(torch.randn(3))
    """,
}


def test_hang_crash_and_exit_are_reported(tmp_path):
    folder = write_files(tmp_path / "bad", BAD_PROGRAMS)
    proc, doc = confirm_json("--backend", "eager", "--timeout", "6", "--workers", "2", str(folder), timeout=300)
    assert proc.returncode == 2  # runs that did not finish (the hang, the crashes): incomplete
    assert doc["precision"] is None and doc["recall"] is None and "did not finish" in doc["incomplete"]
    runs = {os.path.basename(r["file"]): r for r in doc["runs"]}
    hang = runs["hang.py"]
    assert hang["status"] == "timeout" and hang["time_limit"] == 6
    assert "time limit of 6 s" in hang["message"] and hang["seconds"] >= 6
    assert [b["line"] for b in hang["breaks"]] == [5]  # what was seen before the hang is kept
    assert runs["abort.py"]["status"] == "crashed" and "SIGABRT" in runs["abort.py"]["message"]
    assert runs["abort.py"]["graph_count"] == 1
    assert runs["segfault.py"]["status"] == "crashed" and "SIGSEGV" in runs["segfault.py"]["message"]
    assert runs["sysexit.py"]["status"] == "exited" and runs["sysexit.py"]["exit_code"] == 3
    assert "sys.exit(3)" in runs["sysexit.py"]["message"]
    assert runs["osexit.py"]["status"] == "exited" and runs["osexit.py"]["exit_code"] == 4
    assert all(r["time_limit"] == 6 for r in runs.values())
    # the jobs after a crash still run, in a fresh child
    assert runs["zz_fine.py"]["status"] == "ok" and runs["zz_fine.py"]["graph_count"] == 1
    text = run_cli("confirm", "--backend", "eager", "--timeout", "6", str(folder / "segfault.py"))
    assert text.returncode == 2 and "crashed: the process was killed by SIGSEGV (time limit 6 s)" in text.stdout
    assert "precision n/a, recall n/a: the run was incomplete" in text.stdout and "incomplete run" in text.stderr


def test_clean_environment(monkeypatch):
    from gblint.runtime_check.runner import clean_env
    monkeypatch.setenv("GITHUB_TOKEN", "secret")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    monkeypatch.setenv("MY_SETTING", "1")
    env = clean_env()
    assert "GITHUB_TOKEN" not in env and "AWS_SECRET_ACCESS_KEY" not in env and "MY_SETTING" not in env
    assert env["PATH"] and env["PYTHONUNBUFFERED"] == "1"
    assert clean_env(["MY_SETTING"])["MY_SETTING"] == "1"


def test_gblint_process_never_imports_torch(tmp_path):
    write_files(tmp_path, {"m.py": """
        import torch

        @torch.compile(backend="eager")
        def f(x: torch.Tensor):
            print(x)
            return x + 1
    """})
    code = ("import sys; from gblint.frontends.cli import main; "
            f"rc = main(['check', '--no-cache', '--confirm', '--backend', 'eager', {str(tmp_path / 'm.py')!r}]); "
            "print('TORCH-IMPORTED' if 'torch' in sys.modules else 'NO-TORCH', rc)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert "NO-TORCH 1" in proc.stdout, proc.stdout + proc.stderr
    assert "confirmed" in proc.stdout


# --------------------------------------------------------------------------- front ends

PROJECT = {
    "pkg/__init__.py": "",
    "pkg/model.py": """
        import torch


        def helper(x):
            print("debug", x.shape)
            return x * 2


        @torch.compile(backend="eager")
        def step(x):
            x = x + 1
            x = helper(x)
            return x.relu()
    """,
    "train.py": """
        import sys
        import torch
        from pkg.model import step

        for _ in range(int(sys.argv[1])):
            step(torch.randn(4))
        if sys.argv[2:] == ["fail"]:
            sys.exit(5)
    """,
    "tests/test_model.py": """
        import torch
        from pkg.model import step


        def test_step():
            assert step(torch.ones(3)).shape == (3,)


        def test_lambda():
            torch.compile(lambda x: x.sin().item(), backend="eager")(torch.ones(1))  # noqa
    """,
}


def test_run_observes_a_program(tmp_path):
    write_files(tmp_path, PROJECT)
    proc, doc = confirm_json("--backend", "eager", "--run", "--", sys.executable, "train.py", "2", cwd=tmp_path)
    assert proc.returncode == 0
    (run,) = doc["runs"]
    assert run["status"] == "ok" and run["entry"] == "train.py" and run["graph_count"] == 3
    (brk,) = run["breaks"]
    assert brk["path"].endswith(os.path.join("pkg", "model.py")) and brk["line"] == 5
    assert brk["gb_id"] == "GB0059" and brk["function"] == "helper"
    assert [s["line"] for s in brk["stack"]] == [12, 5]
    # pkg/model.py was checked statically because the break was there
    assert [m["status"] for m in doc["matches"]] == ["confirmed"] and doc["missed"] == []
    proc, doc = confirm_json("--backend", "eager", "--run", "--", sys.executable, "train.py", "1", "fail",
                             cwd=tmp_path)
    assert proc.returncode == 0 and doc["runs"][0]["status"] == "exited" and doc["runs"][0]["exit_code"] == 5
    bad = run_cli("confirm", "--run", "--", "bash", "train.py", cwd=str(tmp_path))
    assert bad.returncode == 2 and "Python interpreter" in bad.stderr


def test_pytest_plugin(tmp_path):
    write_files(tmp_path, PROJECT)
    out = tmp_path / "confirm.json"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "gblint.runtime_check.pytest_plugin",
                           "--gblint-confirm", "--gblint-confirm-strict", f"--gblint-confirm-output={out}",
                           "-p", "no:cacheprovider", "tests/test_model.py"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert "gblint confirm" in proc.stdout and "2 passed" in proc.stdout, proc.stdout + proc.stderr
    # strict: the `.item()` in the lambda was not reported (noqa), so the session fails
    assert proc.returncode == 1 and "missed resumed (GB0124)" in proc.stdout
    doc = json.loads(out.read_text())
    runs = {r["entry"].split("::")[-1]: r for r in doc["runs"]}
    assert set(runs) == {"test_step", "test_lambda"}
    assert [b["line"] for b in runs["test_step"]["breaks"]] == [5]
    assert [b["gb_id"] for b in runs["test_lambda"]["breaks"]] == ["GB0124"]
    statuses = {(os.path.basename(m["path"]), m["line"]): m["status"] for m in doc["matches"]}
    assert statuses[("model.py", 5)] == "confirmed"


REGIONS = {
    "pyproject.toml": """
        [tool.gblint]
        select = ["GBL"]

        [tool.gblint.confirm]
        backend = "eager"
        timeout = 60

        [tool.gblint.confirm.examples]
        "regions:scale" = ["torch.randn(1)", "2.0"]
    """,
    "regions.py": """
        import torch
        import torch.nn as nn


        @torch.compile
        def annotated(x: torch.Tensor):
            y = x * 2
            print(y)
            return y + 1


        def scale(x, factor):
            return (x * factor).item()


        scaled = torch.compile(scale)


        def unknown(x, y):
            return x + y.item()


        compiled_unknown = torch.compile(unknown)


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)

            def forward(self, x: torch.Tensor):
                x = self.lin(x)
                if x.sum() > 0:
                    x = x * 2
                return x


        net = torch.compile(Net())


        def make():
            def inner(x):
                return x.tolist()
            return torch.compile(inner)
    """,
}


def test_check_confirm_regions(tmp_path):
    write_files(tmp_path, REGIONS)
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--no-cache", "--confirm", "--format", "json",
                           "regions.py"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    doc = json.loads(proc.stdout)
    section = doc["confirm"]
    runs = {r["entry"]: r for r in section["runs"]}
    assert runs["regions:annotated"]["status"] == "ok" and runs["regions:annotated"]["backend"] == "eager"
    assert runs["regions:scale"]["status"] == "ok"  # examples from [tool.gblint.confirm.examples]
    net = runs["regions:Net.forward"]  # Net() built, compiled, called with a synthesised torch.randn(4, 4)
    assert net["status"] == "ok" and [b["line"] for b in net["breaks"]] == [33]
    need = runs["regions:unknown"]
    assert need["status"] == "needs_inputs" and "x" in need["message"] and "y" in need["message"]
    assert "--example" in need["message"]
    assert [u["entry"] for u in section["unrunnable"]] == ["regions:make.inner"]
    by_line = {d["line"]: d for d in doc["diagnostics"] if d["effect"] != "info"}
    assert by_line[8]["status"] == "confirmed"    # print
    assert by_line[13]["status"] == "confirmed"   # .item() with the configured examples
    assert by_line[33]["status"] == "confirmed"   # data-dependent branch in Net.forward
    assert by_line[20]["status"] == "not_reached"  # unknown() needed inputs
    assert all("status" in d for d in doc["diagnostics"] if d["effect"] != "info")
    text = subprocess.run([sys.executable, "-m", "gblint", "check", "--no-cache", "--confirm", "regions.py"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert "Runtime confirmation" in text.stdout and "not run: regions:make.inner" in text.stdout
    assert "needs_inputs: no value for parameter(s) x, y" in text.stdout


def test_entry_with_examples(tmp_path):
    write_files(tmp_path, REGIONS)
    proc, doc = confirm_json("regions.py", "--entry", "regions:compiled_unknown", "--example", "torch.ones(2)",
                             "--example", "torch.ones(1)", "--backend", "eager", cwd=tmp_path)
    (run,) = doc["runs"]
    assert run["status"] == "ok" and run["entry"] == "regions:compiled_unknown"
    assert [(b["line"], b["gb_id"]) for b in run["breaks"]] == [(20, "GB0124")]
    proc, doc = confirm_json("regions.py", "--entry", "regions:compiled_unknown", "--backend", "eager", cwd=tmp_path)
    assert doc["runs"][0]["status"] == "needs_inputs"
    assert run_cli("confirm", "--entry", ":x").returncode == 2


# --------------------------------------------------------------------------- units (no child)


def test_outcome_of_reason():
    from gblint.runtime_check.observer import outcome_of_reason
    assert outcome_of_reason("Failed to handle graph break gracefully. Skipping the function and falling back "
                             "to eager. Graph break encountered:\n\nx") == "skipped"
    assert outcome_of_reason("Encountered graph break that we cannot resume from. Compiling up to the previous "
                             "resumable state, then skipping the rest of the function.") == "prefix"
    assert outcome_of_reason("Encountered graph break when attempting to trace CALL: a function call") == "resumed"
    assert outcome_of_reason("") == "resumed"


def test_parse_stack_trace():
    from gblint.runtime_check.observer import parse_stack_trace
    text = ('  File "/a/b.py", line 12, in outer\n    y = inner(x)\n        ^^^^^^^^\n'
            '  File "/a/c d.py", line 3, in inner\n    return x.sin()\n')
    assert parse_stack_trace(text) == [{"path": "/a/b.py", "line": 12, "function": "outer"},
                                       {"path": "/a/c d.py", "line": 3, "function": "inner"}]
    assert parse_stack_trace(None) == [] and parse_stack_trace("no frames") == []


def test_names_and_registry():
    from gblint.runtime_check.observer import codegen_name, resume_target
    from gblint.runtime_check.registry import gb_id_for
    assert resume_target("torch_dynamo_resume_in_forward_at_12") == ("forward", 12)
    assert resume_target("forward") == ("forward", None)
    assert codegen_name("CppScheduling") == "cpp"
    assert codegen_name("TritonScheduling") == "triton" and codegen_name("CUDACombinedScheduling") == "triton"
    assert codegen_name("HalideScheduling") == "halide"
    assert gb_id_for("Call to `torch._dynamo.graph_break()`") == "GB0025"
    assert gb_id_for("Call to `torch._dynamo.graph_break()`\n  Explanation: ...") == "GB0025"
    assert gb_id_for("no such break") is None and gb_id_for(None) is None


def test_program_job_parsing():
    from gblint.runtime_check.plan import parse_entry, program_job
    job, exe = program_job(["python", "-u", "-W", "ignore", "train.py", "--lr", "3"])
    assert job.kind == "program" and job.argv == ["train.py", "--lr", "3"] and job.file.endswith("train.py")
    job, _ = program_job(["python3", "-m", "pkg.train", "x"])
    assert job.module == "pkg.train" and job.argv == ["pkg.train", "x"]
    for bad in ([], ["bash", "x.sh"], ["python", "-c", "print(1)"], ["python"]):
        with pytest.raises(ValueError):
            program_job(bad)
    assert parse_entry("a.b:c") == ("a.b", "c") and parse_entry("main") == (None, "main")
    with pytest.raises(ValueError):
        parse_entry("mod:")


def test_matching_statuses(tmp_path):
    from gblint.runtime_check.matching import match
    src = tmp_path / "m.py"
    src.write_text("def f(x):\n    a = 1\n    b = 2\n    return x\n\n\ndef g(x):\n    return x\n")
    p = str(src)
    runs = [{"graphs": [{"ops": 1, "lines": [{"path": p, "line": 4}]}],
             "breaks": [{"path": p, "line": 2, "outcome": "resumed", "outcomes": ["resumed"], "gb_id": "GB0025",
                         "stack": [{"path": p, "line": 2, "function": "f"}]},
                        {"path": p, "line": 4, "outcome": "skipped", "outcomes": ["skipped"], "gb_id": "GB0059",
                         "stack": [{"path": p, "line": 4, "function": "f"}]}],
             "skipped_frames": [{"function": "f", "path": p, "line": 4, "reason": "x", "gb_id": "GB0059",
                                 "first_line": 1, "code_name": "f", "qualname": "f"}],
             "error": None}]
    diags = [{"path": p, "line": 2, "code": "GBL101", "effect": "break", "frame": "f"},
             {"path": p, "line": 3, "code": "GBL102", "effect": "break", "frame": "f"},
             {"path": p, "line": 4, "code": "GBL201", "effect": "skip", "frame": "f"},
             {"path": p, "line": 8, "code": "GBL102", "effect": "break", "frame": "g"},
             {"path": p, "line": 8, "code": "GBL001", "effect": "info", "frame": None}]
    res = match(diags, runs)
    assert [m["status"] for m in res["matches"]] == ["confirmed", "refuted", "confirmed", "not_reached"]
    assert res["precision"] == pytest.approx(2 / 3, abs=1e-3)
    assert res["missed"] == [] and res["recall"] == 1.0
    conditional = dict(diags[1], certainty="conditional", condition="when `labels is not None`")
    [m] = match([conditional], runs)["matches"]  # the function ran; the branch did not
    assert m["status"] == "not_reached" and "labels is not None" in m["why"]
    res = match(diags[:1], runs)
    assert {(m["line"], m["outcome"]) for m in res["missed"]} == {(4, "skipped")}
    assert res["recall"] == pytest.approx(1 / 3, abs=1e-3)


def test_check_confirm_runs_no_script_that_compiles_nothing(tmp_path):
    """`check --confirm` over a tree runs only code that compiles something: a script's `main()`
    that never mentions a compile is not run, one that compiles its model is."""
    (tmp_path / "tool.py").write_text(
        "import pathlib\n\n\ndef main():\n    pathlib.Path('tool-ran').write_text('x')\n")
    (tmp_path / "train.py").write_text(textwrap.dedent("""\
        import pathlib
        import torch


        def step(x):
            print("loss")
            return x * 2


        def main():
            pathlib.Path("train-ran").write_text("x")
            torch.compile(step, backend="eager")(torch.ones(2))
        """))
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--no-cache", "--confirm", "--format", "json", "."],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    entries = [r["entry"] for r in json.loads(proc.stdout)["confirm"]["runs"]]
    assert entries == ["train:main"]
    assert (tmp_path / "train-ran").exists() and not (tmp_path / "tool-ran").exists()


def test_confirm_table_is_read_by_the_configuration_s_one_reader(tmp_path):
    from gblint.settings.config import ConfigError
    from gblint.runtime_check.plan import ConfirmConfig, load_confirm_config
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.gblint]\nselect = ["GBL"]\n[tool.gblint.confirm]\nbackend = "eager"\ntimeout = 30\n'
                         'workers = 2\n[tool.gblint.confirm.examples]\n"m:f" = ["torch.ones(2)"]\n')
    cfg = load_confirm_config(str(pyproject))
    assert cfg == ConfirmConfig(backend="eager", timeout=30.0, workers=2, examples={"m:f": ["torch.ones(2)"]})
    assert load_confirm_config(None) == ConfirmConfig()
    pyproject.write_text('[tool.gblint]\nselect = ["GBL"]\n')
    assert load_confirm_config(str(pyproject)) == ConfirmConfig()
    # the schema's checks and messages, as for every other key of [tool.gblint]
    for bad, message in [("timeout = 0", "confirm.timeout = 0: expected a positive number of seconds"),
                         ("workers = true", "confirm.workers = true: expected a positive integer"),
                         ('backend = ""', 'confirm.backend = "": expected a torch.compile backend name'),
                         ('examples = {"f" = "torch.ones(2)"}', "confirm.examples.f"),
                         ("retries = 3", "unknown [tool.gblint.confirm] key(s): retries")]:
        pyproject.write_text(f"[tool.gblint.confirm]\n{bad}\n")
        with pytest.raises(ConfigError, match=re.escape(message)):
            load_confirm_config(str(pyproject))
    pyproject.write_text("[tool.gblint.confirm\n")
    with pytest.raises(ConfigError, match="pyproject.toml"):
        load_confirm_config(str(pyproject))
