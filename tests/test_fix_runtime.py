"""Fixes checked against PyTorch itself: each public case whose diagnostics offer a fix that
``gblint fix`` applies is rewritten with ``gblint fix --unsafe-fixes``; the original and the
rewrite then run under torch.compile (eager backend) with the same seed. The frames the fixed
diagnostics named must no longer be skipped, no case may get worse (more skipped frames, fewer ops
compiled, or the same ops in more graphs), and the outputs must match (torch.allclose). A
rewrite gblint shows only as advice (``display-only``: no gain predicted) is applied by hand and
measured too: it must indeed gain nothing, and ``gblint fix`` must leave its case as it is."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from gblint.settings.config import Settings
from gblint.core.diagnostics import DISPLAY_ONLY
from gblint.project.engine import SourceFile, check_sources
from gblint.frontends.fix import apply_edits

from .conftest import CASES, ROOT

torch = pytest.importorskip("torch")

OBSERVE = os.path.join(ROOT, "tests", "runtime", "observe_case.py")
#: programs besides the public cases whose rewrites are measured the same way
PROGRAMS = os.path.join(ROOT, "tests", "runtime", "fix_programs")


def _source(name):
    """Where a measured program lives: the public cases, else tests/runtime/fix_programs."""
    here = os.path.join(CASES, name)
    return here if os.path.exists(here) else os.path.join(PROGRAMS, name)


def _rewritable_cases():
    """``(cases gblint fix rewrites, {case: display-only fix edits})``."""
    if not os.path.isdir(CASES):
        return [], {}
    out, advice = [], {}
    for name in sorted(os.listdir(CASES)) + sorted(os.listdir(PROGRAMS)):
        if not name.endswith(".py"):
            continue
        diags = check_sources([SourceFile(_source(name), None)], Settings(python_version=(3, 11))).diagnostics
        if any(d.fix and d.fix.edits and d.fix.applicability != DISPLAY_ONLY for d in diags):
            out.append(name)
        else:
            shown = [d.fix.edits for d in diags if d.fix and d.fix.edits]
            if shown:
                advice[name] = shown[0]
    return out, advice


FIXABLE, ADVICE = _rewritable_cases()


@pytest.fixture(scope="module")
def observed(tmp_path_factory):
    """Copy the fixable cases twice, fix one copy with one `gblint fix` call, observe both copies
    (one Python process each, so torch is imported twice, not per case)."""
    base = tmp_path_factory.mktemp("fixrt")
    orig, fixed, by_hand = base / "orig", base / "fixed", base / "by_hand"
    orig.mkdir()
    fixed.mkdir()
    by_hand.mkdir()
    for name in FIXABLE + sorted(ADVICE):
        shutil.copy(_source(name), orig / name)
        shutil.copy(_source(name), fixed / name)
    for name, edits in ADVICE.items():  # the advice applied by hand, to measure what it would do
        with open(_source(name)) as fh:
            (by_hand / name).write_text(apply_edits(fh.read(), edits))
    targeted = {}
    for name in FIXABLE:
        diags = check_sources([SourceFile(str(orig / name), None)], Settings(python_version=(3, 11))).diagnostics
        targeted[name] = {d.frame.split(".")[-1] for d in diags if d.fix and d.fix.edits and d.effect == "skip"}
    proc = subprocess.run([sys.executable, "-m", "gblint", "fix", "--unsafe-fixes", "--no-cache",
                           "--python-version", "3.11", str(fixed)], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode in (0, 1), proc.stderr
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_LOGS", "TORCHDYNAMO"))}
    results = {}
    for label, folder in (("before", orig), ("after", fixed), ("by_hand", by_hand)):
        names = FIXABLE + sorted(ADVICE) if folder is not by_hand else sorted(ADVICE)
        run = subprocess.run([sys.executable, OBSERVE, *[str(folder / n) for n in names]], capture_output=True,
                             text=True, timeout=900, env={**env, "PYTHONWARNINGS": "ignore"})
        assert run.returncode == 0, run.stderr[-3000:]
        for line in run.stdout.splitlines():
            if line.startswith("{"):
                rec = json.loads(line)
                results.setdefault(os.path.basename(rec["path"]), {})[label] = rec
    return results, targeted, orig, fixed


def test_there_are_fixable_cases():
    assert len(FIXABLE) >= 10


@pytest.mark.parametrize("name", FIXABLE)
def test_fix_removes_skip_and_keeps_outputs(name, observed):
    results, targeted, orig, fixed = observed
    assert (orig / name).read_text() != (fixed / name).read_text()
    before, after = results[name]["before"], results[name]["after"]
    assert before["error"] == after["error"]
    assert not (targeted[name] & set(after["skipped"])), (before, after)
    assert len(after["outputs"]) == len(before["outputs"])
    for a, b in zip(before["outputs"], after["outputs"]):
        assert torch.allclose(torch.tensor(a), torch.tensor(b), atol=1e-5), (a, b)


# What torch 2.13 (eager backend) ran, per case: (graphs, ops in them, skipped frames) before the
# rewrite and after it (`gblint fix --unsafe-fixes`; for display-only advice, the rewrite applied by hand).
MEASURED = {
    "006_break_inside_range_loop.py": ((0, 0, ["iterative_refine"]), (4, 9, [])),
    # the print guarded (issue 40), no longer the loop moved into a skipped helper (1 graph of 1 op)
    "007_print_in_tensor_list_loop.py": ((0, 0, ["sum_features"]), (1, 7, [])),
    "009_loop_calls_breaking_helper.py": ((1, 1, ["run_steps"]), (4, 5, [])),
    "015_try_except_break.py": ((0, 0, ["safe_ratio"]), (2, 2, [])),
    "017_callee_with_try_break.py": ((2, 3, ["guarded_log"]), (3, 4, [])),
    "026_user_context_manager_break.py": ((1, 2, []), (2, 5, [])),
    "027_contextmanager_generator_break.py": ((0, 0, ["phased"]), (2, 3, [])),
    "028_suppress_break.py": ((0, 0, ["tolerant"]), (2, 4, [])),
    "029_catch_warnings_break.py": ((0, 0, ["quiet"]), (2, 3, [])),
    "046_nested_break_in_caller_loop.py": ((2, 3, ["unrolled"]), (3, 6, [])),
    "057_tensor_if_branch.py": ((2, 5, []), (1, 6, [])),
    # `.item()` moved out of a `try` whose handler it cannot reach: the frame is compiled, 2 graphs
    "item_in_try.py": ((0, 0, ["scaled"]), (2, 3, [])),
    # advice only: the skipped frame moves into the helper, no op is compiled that was not
    "008_break_inside_while_counter.py": ((0, 0, ["power_iteration"]), (0, 0, ["_power_iteration_loop"])),
    # advice only: the helper holding the `try` is skipped, where nothing was
    "047_nested_break_in_caller_try.py": ((3, 4, []), (3, 4, ["_careful_try"])),
    # advice only: the helper is skipped, and so is forward's rest (its second loop)
    "transformer_two_loops.py": ((2, 4, ["forward"]),
                                 (3, 5, ["_forward_loop", "torch_dynamo_resume_in_forward_at_33"])),
}


def _figures(rec):
    return rec["graphs"], sum(rec["ops"]), rec["skipped"]


@pytest.mark.parametrize("name", sorted(MEASURED))
def test_measured_before_and_after(name, observed):
    results = observed[0]
    if name not in results:
        pytest.skip(f"{name} is no longer rewritten or advised")
    after = results[name]["after"] if name in FIXABLE else results[name]["by_hand"]
    assert (_figures(results[name]["before"]), _figures(after)) == MEASURED[name]


def _worse(before, after):
    """Why ``after`` is worse than ``before`` as PyTorch ran them, or "": more skipped frames, fewer
    ops compiled, or the same ops compiled in more graphs."""
    if len(after["skipped"]) > len(before["skipped"]):
        return f"skipped frames {before['skipped']} -> {after['skipped']}"
    if sum(after["ops"]) < sum(before["ops"]):
        return f"ops compiled {sum(before['ops'])} -> {sum(after['ops'])}"
    if sum(after["ops"]) == sum(before["ops"]) and after["graphs"] > before["graphs"]:
        return f"graphs {before['graphs']} -> {after['graphs']} for the same {sum(after['ops'])} ops"
    return ""


@pytest.mark.parametrize("name", FIXABLE)
def test_fix_makes_no_case_worse(name, observed):
    results = observed[0]
    before, after = results[name]["before"], results[name]["after"]
    assert not _worse(before, after), (_worse(before, after), before, after)


def test_advice_cases_are_measured():
    # 047: moving the `try` that holds a breaking call into a helper; 008: a loop with no op outside it
    assert {"047_nested_break_in_caller_try.py", "008_break_inside_while_counter.py",
            "transformer_two_loops.py"} <= set(ADVICE)


@pytest.mark.parametrize("name", sorted(ADVICE))
def test_display_only_rewrite_gains_nothing_and_is_left_alone(name, observed):
    results, _, orig, fixed = observed
    assert (orig / name).read_text() == (fixed / name).read_text()  # `gblint fix --unsafe-fixes` left it
    before, by_hand = results[name]["before"], results[name]["by_hand"]
    # applied anyway, the rewrite adds a skipped frame, or removes none and compiles no more ops
    assert len(by_hand["skipped"]) > len(before["skipped"]) or (
        len(by_hand["skipped"]) == len(before["skipped"]) and sum(by_hand["ops"]) <= sum(before["ops"])), (before, by_hand)
