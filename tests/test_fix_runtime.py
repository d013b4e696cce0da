"""Fixes checked against PyTorch itself: each public case whose diagnostics offer a fix with edits
is rewritten with ``gblint fix --unsafe-fixes``; the original and the rewrite then run under
torch.compile (eager backend) with the same seed. The frames the fixed diagnostics named must no
longer be skipped, and the outputs must match (torch.allclose)."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from gblint.config import Settings
from gblint.engine import SourceFile, check_sources

from .conftest import CASES, ROOT

torch = pytest.importorskip("torch")

OBSERVE = os.path.join(ROOT, "tests", "runtime", "observe_case.py")


def _fixable_cases():
    if not os.path.isdir(CASES):
        return []
    out = []
    for name in sorted(os.listdir(CASES)):
        if not name.endswith(".py"):
            continue
        diags = check_sources([SourceFile(os.path.join(CASES, name), None)], Settings(python_version=(3, 11))).diagnostics
        if any(d.fix and d.fix.edits for d in diags):
            out.append(name)
    return out


FIXABLE = _fixable_cases()


@pytest.fixture(scope="module")
def observed(tmp_path_factory):
    """Copy the fixable cases twice, fix one copy with one `gblint fix` call, observe both copies
    (one Python process each, so torch is imported twice, not per case)."""
    base = tmp_path_factory.mktemp("fixrt")
    orig, fixed = base / "orig", base / "fixed"
    orig.mkdir()
    fixed.mkdir()
    for name in FIXABLE:
        shutil.copy(os.path.join(CASES, name), orig / name)
        shutil.copy(os.path.join(CASES, name), fixed / name)
    targeted = {}
    for name in FIXABLE:
        diags = check_sources([SourceFile(str(orig / name), None)], Settings(python_version=(3, 11))).diagnostics
        targeted[name] = {d.frame.split(".")[-1] for d in diags if d.fix and d.fix.edits and d.effect == "skip"}
    proc = subprocess.run([sys.executable, "-m", "gblint", "fix", "--unsafe-fixes", "--no-cache",
                           "--python-version", "3.11", str(fixed)], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode in (0, 1), proc.stderr
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_LOGS", "TORCHDYNAMO"))}
    results = {}
    for label, folder in (("before", orig), ("after", fixed)):
        run = subprocess.run([sys.executable, OBSERVE, *[str(folder / n) for n in FIXABLE]], capture_output=True,
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
