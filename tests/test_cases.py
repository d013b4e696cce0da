"""The example programs (tests/cases/examples) scored against PyTorch 2.13's measured behaviour
(their truth.json, with scripts/score.py), plus exact predictions for representative cases of each
consequence."""
import os
import re
import subprocess
import sys

import pytest

from gblint.settings.config import Settings
from gblint.project.engine import check_paths

from .conftest import CASES, ROOT, SCORE, TRUTH


@pytest.fixture(scope="module")
def report(truth):
    return check_paths([CASES], Settings(python_version=(3, 11)))


def _by_case(report):
    out = {}
    for d in report.diagnostics:
        out.setdefault(os.path.basename(d.path), []).append(d)
    return out


def test_score_thresholds(truth, tmp_path):
    """precision >= 0.95 and recall >= 0.9 on break sites, skipped frames and compile errors."""
    out = tmp_path / "out.json"
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--format", "json", "--python-version", "3.11",
                           CASES], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 1, proc.stderr
    out.write_text(proc.stdout)
    score = subprocess.run([sys.executable, SCORE, TRUTH, str(out),
                            "--min-precision", "0.95", "--min-recall", "0.9"], capture_output=True, text=True)
    assert score.returncode == 0, score.stdout + score.stderr


def test_no_internal_errors(report):
    assert report.errors == []
    assert not [d for d in report.diagnostics if d.code.startswith("GBL0")]


def test_cases_without_breaks_are_clean(truth, report):
    """Every case where Dynamo reported no break, skip or error gets no diagnostic."""
    by_case = _by_case(report)
    for name, case in truth.items():
        if not case["graph_breaks"] and not case["skipped_frames"] and not case["exception"]:
            assert by_case.get(name, []) == [], name


EXACT = {
    "001_dynamo_alias_break_before_loop.py": [("GBL101", 9, "break", "center_then_decay")],
    "004_skip_frame_marker.py": [("GBL121", 8, "skip", "blend")],
    "005_step_unsupported_marker.py": [("GBL122", 10, "break", "residual")],
    "006_break_inside_range_loop.py": [("GBL201", 11, "skip", "iterative_refine")],
    "010_modulelist_layer_breaks.py": [("GBL201", 9, "skip", "Stack.forward")],
    "013_submodule_forward_breaks_module_compile.py": [("GBL301", 13, "break", "Net.forward")],
    "015_try_except_break.py": [("GBL202", 8, "skip", "safe_ratio")],
    "016_try_finally_break_after_two_ops.py": [("GBL208", 11, "break", "staged")],
    "017_callee_with_try_break.py": [("GBL202", 8, "skip", "guarded_log"), ("GBL301", 8, "break", "pipeline")],
    "026_user_context_manager_break.py": [("GBL208", 22, "break", "scoped")],
    "027_contextmanager_generator_break.py": [("GBL203", 16, "skip", "phased"), ("GBL205", 8, "skip", "phase")],
    "030_device_context_manager.py": [("GBL204", 8, "skip", "with_default_device")],
    "031_global_manager_object.py": [("GBL204", 10, "skip", "frozen")],
    "033_compiled_generator_function.py": [("GBL205", 6, "skip", "scaled_chunks")],
    "034_consume_breaking_generator.py": [("GBL205", 7, "skip", "window_sums")],
    "035_generator_expression_break.py": [("GBL107", 6, "break", "announce"), ("GBL206", 13, "skip", "pooled")],
    "036_list_comprehension_break.py": [("GBL301", 6, "break", "normalize_rows")],
    "038_comprehensions_capturing_tensor_break.py": [("GBL206", 6, "skip", "<listcomp>"),
                                                     ("GBL206", 6, "skip", "<setcomp>")],
    "043_nested_depth2_enabled.py": [("GBL301", 10, "break", "denoise")],
    "047_nested_break_in_caller_try.py": [("GBL208", 7, "break", "careful")],
    "049_disable_recursive_and_non_recursive.py": [("GBL101", 11, "break", "breaking_leaf"),
                                                   ("GBL119", 28, "break", "driver"),
                                                   ("GBL119", 29, "break", "driver")],
    "050_nonstrict_trace_helpers.py": [("GBL102", 13, "break", "maybe_shift"),
                                       ("GBL120", 22, "break", "use_opaque")],
    # a compile error (GBL402), the call on its way (GBL403, line 15) and the frame that gets no graph (GBL409)
    "051_error_on_graph_break_decorator.py": [("GBL402", 8, "error", "train_step"),
                                              ("GBL403", 15, "error", "train_step"),
                                              ("GBL409", 13, "skip", "train_step")],
    "053_error_on_graph_break_false_callee.py": [("GBL301", 9, "break", "strict_outer")],
    "054_fullgraph_print.py": [("GBL401", 8, "error", "debug_forward"), ("GBL409", 6, "skip", "debug_forward")],
    "058_tensor_while_condition.py": [("GBL105", 8, "break", "halve_until_small")],
    "067_fstring_of_tensor.py": [("GBL123", 9, "skip", "labelled")],  # Dynamo formats lazily: first use
    "071_uncaught_raise.py": [("GBL124", 9, "skip", "checked")],
}


@pytest.mark.parametrize("name", sorted(EXACT))
def test_exact_predictions(report, name):
    got = sorted((d.code, d.line, d.effect, d.frame) for d in _by_case(report).get(name, []))
    assert got == sorted(EXACT[name])


def test_nested_trace_and_graph_count(report):
    (d,) = _by_case(report)["041_nested_depth3_default.py"]
    assert [(t.function, t.line) for t in d.trace] == [("top", 20), ("mid", 13), ("leaf", 7)]
    assert "3 breaks, 6 graphs" in d.explanation


def test_a_compile_error_and_its_companions_name_each_other(report):
    """The compile error names the calls that lead to it (its trace, the error's user stack) and the frame that
    gets no compiled code; the call on the way (GBL403) and that frame (GBL409) are diagnostics of their own,
    each linked to the error and to each other."""
    by_code = {d.code: d for d in _by_case(report)["051_error_on_graph_break_decorator.py"]}
    d = by_code["GBL402"]
    assert [(t.function, t.line) for t in d.trace] == [("train_step", 15), ("strict_step", 8)]
    assert "`train_step` gets no compiled graph" in d.explanation and "at line 15" in d.explanation
    assert d.message.endswith("calling `train_step` raises") and len(d.message) <= 120
    assert sorted(r.code for r in d.related) == ["GBL403", "GBL409"]
    assert sorted(r.code for r in by_code["GBL403"].related) == ["GBL402", "GBL409"]
    assert "compile error at line 8 (GBL402)" in by_code["GBL409"].explanation


def test_while_condition_on_312_skips(truth):
    report = check_paths([os.path.join(CASES, "058_tensor_while_condition.py")], Settings(python_version=(3, 12)))
    assert [(d.code, d.line, d.effect) for d in report.diagnostics] == [("GBL201", 8, "skip")]


def test_comprehension_on_312_resumes(truth):
    report = check_paths([os.path.join(CASES, "038_comprehensions_capturing_tensor_break.py")],
                         Settings(python_version=(3, 12)))
    got = sorted((d.code, d.line, d.effect, d.frame) for d in report.diagnostics)
    # 3.12 inlines list comprehensions (PEP 709); a set comprehension skips the whole frame.
    assert got == [("GBL206", 14, "skip", "expand"), ("GBL301", 6, "break", "expand")]


def test_semantics_doc_cites_existing_programs():
    """docs/semantics.md names the program behind each measured fact; every name it cites exists, and every
    example program is cited at least once."""
    with open(os.path.join(ROOT, "docs", "semantics.md"), encoding="utf-8") as fh:
        text = fh.read()
    folders = {"": CASES, "found/": os.path.join(ROOT, "tests", "cases", "found"),
               "real/": os.path.join(ROOT, "tests", "cases", "real"),
               "measured/": os.path.join(ROOT, "tests", "fixtures", "measured")}
    cited = re.findall(r"`(found/|real/|measured/)?([a-z]?\d{2,3}_\w+\.py)`", text)
    assert len(cited) > 100
    assert [p + n for p, n in cited if not os.path.isfile(os.path.join(folders[p], n))] == []
    examples = {n for n in os.listdir(CASES) if n.endswith(".py")}
    assert sorted(examples - {n for p, n in cited if p == ""}) == []
    for name in set(re.findall(r"`(truth[-\w.]*\.json)`", text)):
        assert os.path.isfile(os.path.join(CASES, name)), name


#: (truth file, torch, Python): every combination whose example truth is stored (tests/cases/README.md)
COMBINATIONS = [("truth.json", "2.13", "3.11"), ("truth-2.14.json", "2.14", "3.11"), ("truth-2.15.json", "2.15", "3.11"),
                ("truth-2.15-py3.12.json", "2.15", "3.12"), ("truth-2.15-py3.13.json", "2.15", "3.13")]


@pytest.mark.parametrize("truth_file,torch,python", COMBINATIONS)
def test_score_on_every_measured_combination(tmp_path, truth_file, torch, python):
    """`gblint check --torch-version T --python-version P` on the examples scores precision and recall of at
    least 0.98 on break sites, skipped frames and compile errors against the truth measured on T and P, and
    the JSON says which versions it predicted for."""
    import json
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--no-cache", "--format", "json", "--torch-version",
                           torch, "--python-version", python, CASES], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 1, proc.stderr
    versions = json.loads(proc.stdout)["versions"]
    assert (versions["torch"], versions["python"], versions["torch_from"]) == (torch, python, "option")
    out = tmp_path / "out.json"
    out.write_text(proc.stdout)
    score = subprocess.run([sys.executable, SCORE, os.path.join(CASES, truth_file), str(out), "--min-precision", "0.98",
                            "--min-recall", "0.98"], capture_output=True, text=True)
    assert score.returncode == 0, score.stdout + score.stderr


@pytest.mark.parametrize("truth_file,torch,python", COMBINATIONS)
def test_gb_ids_match_each_release(truth_file, torch, python):
    """At every break site of the truth that gblint reports, the GB id of the gb_type Dynamo reported there (in
    that release's registry) is among the ids gblint gives: the ids and texts follow the release in force
    (031: GB0142 on 2.13, GB0008 from 2.14; 066: time.time is GB9193 on 2.15)."""
    import json
    from gblint.core import registry, versions
    release = versions.release_for(torch)
    ids = {e["gb_type"]: gid for gid, e in sorted(registry.load(release)["entries"].items(), reverse=True)}
    with open(os.path.join(CASES, truth_file), encoding="utf-8") as fh:
        cases = json.load(fh)["cases"]
    report = check_paths([CASES], Settings(python_version=tuple(int(p) for p in python.split(".")), torch_version=torch))
    said = {}
    for d in report.diagnostics:
        said.setdefault((os.path.basename(d.path), d.line), set()).update(d.gb_ids)
    observed = {}  # a line where Dynamo logged two breaks (032: GB0059, then GB0142 in the resume frame) has both
    for name, case in cases.items():
        for b in case["graph_breaks"]:
            if ids.get(b["gb_type"]) and not b.get("cause_gb_type"):
                observed.setdefault((name, b["case_line"]), set()).add(ids[b["gb_type"]])
    wrong = [f"{name}:{line}: {sorted(gids)} observed, gblint says {sorted(said[(name, line)])}"
             for (name, line), gids in sorted(observed.items()) if said.get((name, line)) and not gids & said[(name, line)]]
    assert wrong == []
    assert len(observed) >= 70
