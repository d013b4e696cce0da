"""A method rebound in ``__init__`` to a wrapper of itself (``self.update = self._wrap_update(self.update)``,
torchmetrics' ``Metric.__init__``; tests/cases/harness/h04): the store's value reads the attribute before the
store, the class's method bound to the instance, and the wrapper closure that captures it calls it.

Each program's runtime behaviour was measured on torch 2.13.0 / Python 3.11 (eager backend, CPU, with
``scripts/measure_fixtures.py --folder``) and is stated in ``MEASURED``; ``test_runtime_agrees`` re-measures it
when torch is installed.

- a module-level helper (not a method, no ``functools.wraps``) wraps a method the subclass defines, in the
  base class's ``__init__``: the break (``.item()``, GB0124) in the subclass's method, called inside the
  wrapper's ``try``, skips the wrapper's frame ``inner``: definite (the store is on every path);
- the same store under ``if count:`` (``count`` False when the instance is built): Dynamo calls the method
  itself, the break resumes and no frame is skipped; the store's test is false for the instance, so gblint
  follows the method too: the break, definite, and no skip.
"""
import json
import sys

import pytest

from .conftest import run_cli

PROGRAM = '''import torch
import torch.nn as nn


def counted(fn):
    def inner(x):
        try:
            return fn(x)
        finally:
            inner.calls += 1

    inner.calls = 0
    return inner


class Accumulator(nn.Module):
    def __init__(self, count=False):
        super().__init__()
        {STORE}

    def forward(self, x):
        y = self.step(x)
        return y + 1


class Scaled(Accumulator):
    def step(self, x):
        scale = x.abs().max().item()
        return x / scale


torch.compile(Scaled(), backend="eager")(torch.randn(4))
'''

STORES = {
    "always": "self.step = counted(self.step)",
    "only when count": "if count:\n            self.step = counted(self.step)",
}

#: kind -> (break sites as (line, GB id), skipped frames): measured on torch 2.13.0, Python 3.11, eager, CPU
MEASURED = {
    "always": ([(28, "GB0124")], ["inner"]),
    "only when count": ([(29, "GB0124")], []),
}


def _source(kind):
    return PROGRAM.replace("{STORE}", STORES[kind])


def _diagnostics(tmp_path, kind):
    (tmp_path / "m.py").write_text(_source(kind))
    proc = run_cli("check", "--isolated", "--no-cache", "--format", "json", "--exit-zero", "m.py", cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    return doc["diagnostics"], doc["coverage"]["unfollowed"]


def test_the_wrapper_calls_the_method_it_captured(tmp_path):
    """The store on every path: the wrapper's call of its free variable reaches ``Scaled.step`` (followed, not
    reported as not followed); the break there is definite, and in the wrapper's ``try`` it skips ``inner``."""
    found, unfollowed = _diagnostics(tmp_path, "always")
    assert unfollowed == []
    (line, gb), = MEASURED["always"][0]
    assert sorted((d["code"], d["line"], d["frame"], d["certainty"], tuple(d["gb_ids"])) for d in found) == [
        ("GBL202", line, "counted.inner", "definite", (gb,)),
        ("GBL301", line, "Accumulator.forward", "definite", (gb,))]


def test_a_store_under_a_test_false_for_the_instance_never_runs(tmp_path):
    """``if count: self.step = counted(self.step)`` with ``count`` False when the instance is built: the store never
    runs, so ``self.step`` is the method itself; its break resumes, definite, and no frame is skipped, as Dynamo
    does. (Before building stores were tested against their ``if``, the attribute was the wrapper or the method and
    every diagnostic was conditional.)"""
    found, unfollowed = _diagnostics(tmp_path, "only when count")
    assert unfollowed == []
    (line, gb), = MEASURED["only when count"][0]
    assert [(d["code"], d["line"], d["certainty"], tuple(d["gb_ids"])) for d in found] == [
        ("GBL301", line, "definite", (gb,))]
    assert MEASURED["only when count"][1] == []


@pytest.mark.parametrize("kind", sorted(STORES))
def test_runtime_agrees(tmp_path, kind):
    """Dynamo does with each program what ``MEASURED`` says."""
    pytest.importorskip("torch")
    (tmp_path / "m.py").write_text(_source(kind))
    proc = run_cli("confirm", "--isolated", "--backend", "eager", "--format", "json", "--run", "--", sys.executable,
                   "m.py", cwd=str(tmp_path))
    assert proc.returncode in (0, 1), proc.stderr
    runs = json.loads(proc.stdout)["runs"]
    breaks = sorted({(b["line"], b["gb_id"]) for run in runs for b in run["breaks"]})
    skipped = sorted({f["function"] for run in runs for f in run["skipped_frames"]})
    assert (breaks, skipped) == MEASURED[kind]
