"""What ``bench/ecosystem/fixcheck.py`` measures of a fix: the touched models, their figures before
and after, a model made worse, the figures per half and fix kind (``fixmeasure``), and the
applied fixes it reads from ``gblint fix``.
"""
import json
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ECO = os.path.join(ROOT, "bench", "ecosystem")
sys.path.insert(0, ECO)

import fixcheck  # noqa: E402
import fixmeasure  # noqa: E402
from spec import half  # noqa: E402

SOURCE = textwrap.dedent("""\
    import torch

    def helper(x):
        return x + 1

    class Net(torch.nn.Module):
        @staticmethod
        def step(x):
            for i in range(3):
                print(i)
            return x

        def forward(self, x):
            return helper(x)
""")


def record(breaks, skipped, graphs=(1, 1), status="measured", modes=("ok", "ok")):
    return {"status": status, "breaks": breaks, "skipped": skipped,
            "modes": {m: {"status": s, "graphs": g} for m, s, g in zip(("eval", "train"), modes, graphs)},
            "traced": [["pkg/m.py", "Net.forward", 14], ["pkg/m.py", "helper", 3]]}


def test_spans_cover_decorators_and_nested_functions():
    got = fixmeasure.spans(SOURCE)
    assert ("step", 7, 11) in got and ("helper", 3, 4) in got and ("forward", 13, 14) in got


def test_touched_models_are_those_whose_run_went_through_a_changed_function():
    truth = {"a": record([], []), "b": dict(record([], []), traced=[["pkg/other.py", "f", 1]]),
             "c": dict(record([], []), status="eager-failed"),
             "d": dict(record([], [["pkg/m.py", "step", 7, ["eval"]]]), traced=[])}
    changed = {("pkg/m.py", "helper"): {"GBL201"}, ("pkg/m.py", "step"): {"GBL202"}}
    assert fixmeasure.touched(truth, changed) == {"a": {"GBL201"}, "d": {"GBL202"}}


def test_figures_count_sites_frames_graphs_and_what_lies_in_rewritten_code():
    rec = record([["pkg/m.py", 10, "GB0007", "resumed", ["eval"]], ["pkg/m.py", 10, "GB7000", "skipped", ["eval"]],
                  ["pkg/m.py", 4, "GB0007", "resumed", ["train"]]],
                 [["pkg/m.py", "step", 7, ["eval"]], ["pkg/m.py", "<listcomp>", 9, ["eval"]]], graphs=(3, 2))
    f = fixmeasure.figures(rec, {"pkg/m.py": [("step", 7, 11)]})
    assert (f["breaks"], f["skipped"], f["graphs"], f["compile_errors"]) == (2, 2, 5, 0)
    assert f["rewritten"] == 3  # the site at line 10, the frame `step` and the comprehension inside it
    assert fixmeasure.figures(rec, {})["rewritten"] == 0


def test_a_model_with_more_breaks_or_skips_or_no_longer_measured_is_a_failure():
    before = fixmeasure.figures(record([["pkg/m.py", 10, "GB0007", "resumed", ["eval"]]], []), {})
    same = fixmeasure.figures(record([["pkg/m.py", 12, "GB0007", "resumed", ["eval"]]], [], graphs=(2, 2)), {})
    assert fixmeasure.failure(before, same) is None
    skips = fixmeasure.figures(record([], [["pkg/m.py", "step", 7, ["eval"]]]), {})
    assert fixmeasure.failure(before, skips) == "skipped 0 -> 1"
    crashed = fixmeasure.figures(record([], [], status="crashed", modes=()), {})
    assert fixmeasure.failure(before, crashed) == "measured before, crashed after"
    lost = fixmeasure.figures(record([], [], modes=("ok", "eager-failed")), {})
    assert fixmeasure.failure(before, lost) == "mode train not measured after the fix"


def test_summary_per_half_and_kind():
    rows, spans = [], {"pkg/m.py": [("step", 7, 11)]}
    models = {}
    for name in ("m1", "m2", "m3", "m4", "m5", "m6"):
        models.setdefault(half("x", name), []).append(name)
    h = next(k for k, v in models.items() if len(v) >= 2)
    a, b = models[h][:2]
    loop = record([["pkg/m.py", 10, "GB7000", "skipped", ["eval"]]], [["pkg/m.py", "step", 7, ["eval"]]], graphs=(0, 0))
    fixed = record([], [], graphs=(1, 1))
    worse = record([["pkg/m.py", 10, "GB7000", "skipped", ["eval"]], ["pkg/m.py", 20, "GB0007", "resumed", ["eval"]]],
                   [["pkg/m.py", "step", 7, ["eval"]]])
    rows = fixmeasure.compare("x", {}, {a: {"GBL201"}, b: {"GBL201", "GBL202"}}, {a: loop, b: loop},
                              {a: fixed, b: worse}, spans, spans)
    assert [r["failure"] for r in rows] == [None, "breaks 1 -> 2"]
    s = fixmeasure.summary(rows, {h: {"models": 3, "breaks": 4}})[h]
    assert (s["models"], s["fully_fixed"], s["failures"]) == (2, 1, 1)
    assert s["breaks"] == [2, 2] and s["skipped"] == [2, 1] and s["rewritten"] == [4, 2]
    assert set(s["kinds"]) == {"GBL201", "GBL201+GBL202"} and s["kinds"]["GBL201"]["fully_fixed"] == 1
    lines = fixcheck.measured_lines({"safe": {h: s}}, ["x"], "truth")
    assert any(f"| safe | {h} | 2 (of 3) | 4 -> 2 (50% removed) | 1 |" in line for line in lines), lines


def test_the_fix_run_names_each_applied_fix(tmp_path):
    """``fixcheck.FIX`` is ``gblint fix`` that also prints each applied fix's (path, code, frame, title)."""
    (tmp_path / "m.py").write_text(textwrap.dedent("""\
        import torch

        @torch.compile
        def f(x, n):
            y = x.sin()
            for i in range(n):
                if x.sum() > i:
                    x = x + 1
            return x + y
    """))
    proc = subprocess.run([sys.executable, "-c", fixcheck.FIX, "fix", "--isolated", "--no-cache", "--exit-zero", "m.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    applied = [json.loads(line.split(" ", 1)[1]) for line in proc.stderr.splitlines()
               if line.startswith("fixcheck-applied ")]
    assert proc.returncode == 0, proc.stderr
    assert applied and all(p == "m.py" and code.startswith("GBL") and frame == "f" for p, code, frame, _ in applied), \
        proc.stderr


def test_runs_of_separate_packages_merge_into_one_summary(tmp_path):
    """``--merge`` adds up the rows of several ``--json`` files: pools and touched models of both."""
    loop = record([["pkg/m.py", 10, "GB7000", "skipped", ["eval"]]], [["pkg/m.py", "step", 7, ["eval"]]])
    files = []
    for package in ("p1", "p2"):
        rows = fixmeasure.compare(package, {}, {"m": {"GBL201"}}, {"m": loop}, {"m": record([], [])}, {}, {})
        h = rows[0]["half"]
        data = {"rows": [{"package": package, "variant": "safe", "measured": rows,
                          "pool": {h: {"models": 2, "breaks": 3}}}]}
        files.append(tmp_path / f"{package}.json")
        files[-1].write_text(json.dumps(data))
    out = tmp_path / "all.json"
    assert fixcheck.main(["--merge", *map(str, files), "--json", str(out)]) == 0
    summary = json.loads(out.read_text())["summary"]["safe"]
    assert sum(summary[h]["models"] for h in ("dev", "test")) == 2
    assert sum(summary[h]["fully_fixed"] for h in ("dev", "test")) == 2
    assert sum(summary[h]["pool"]["breaks"] for h in ("dev", "test")) == 6
