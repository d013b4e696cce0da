"""What changes across torch and Python releases on the programs of tests/cases/found and
tests/cases/real, measured, against what changes in gblint's predictions.

Each folder holds its programs' observations on every measured combination
(``observed.json``: torch 2.13.0 on Python 3.11, the reference, which agrees with the folder's
``truth.json``; ``observed-2.14.json``, ``observed-2.15.json``, ``observed-2.15-py3.12.json``,
``observed-2.15-py3.13.json``), written by ``scripts/measure_fixtures.py --folder``. These
folders score gblint against their 2.13 truth elsewhere; here each program's *change* from the
reference to another combination (the break sites, skipped frames and compile errors that appear
or go away) must be the change in gblint's predictions for those versions, so that a fact with a
version range is tested on the programs that show it. A program whose change gblint does not
follow yet is in ``KNOWN_DELTAS`` with why; the test fails when that changes.
"""
import importlib.util
import json
import os

import pytest

from gblint.settings.config import Settings
from gblint.project.engine import check_paths

from .conftest import ROOT, SCORE

FOLDERS = {name: os.path.join(ROOT, "tests", "cases", name) for name in ("found", "real")}


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


score = _load("gblint_score_deltas", SCORE)
measure = _load("gblint_measure_deltas", os.path.join(ROOT, "scripts", "measure_fixtures.py"))


def _observations(folder):
    out = {}
    for name in sorted(os.listdir(folder)):
        if name.startswith("observed") and name.endswith(".json"):
            with open(os.path.join(folder, name), encoding="utf-8") as fh:
                out[name] = json.load(fh)
    return out


DOCS = {key: _observations(path) for key, path in FOLDERS.items()}
CASES = [(key, file) for key in FOLDERS for file in DOCS[key] if file != "observed.json"]

#: (folder, observation file) -> {program: (the observed change, why gblint does not follow it)}: none now
#: (ContextVar.get() and a failing op inside `try` changed from 2.14; their rules carry `torch_versions = "<2.14"`).
KNOWN_DELTAS: dict = {}


def _items(record_sets):
    breaks, skips, errors = record_sets
    return {"break sites": {str(line) for _, line in breaks}, "skipped frames": {f for _, f in skips},
            "compile errors": set(errors)}


def observed_items(name, obs):
    """An observation's break sites, skipped frames and compile errors (as score.py reads a truth)."""
    from .test_measured import truth_record
    return _items(score.truth_items({name: truth_record(name, obs)})[:3])


def predicted_items(key, file):
    """gblint's break sites, skipped frames and compile errors per program, for the versions of ``file``."""
    doc = DOCS[key][file]
    torch = doc["meta"]["torch"]
    python = tuple(int(p) for p in doc["meta"]["python"].split(".")[:2])
    report = check_paths([FOLDERS[key]], Settings(python_version=python, torch_version=torch))
    diags = [d.to_json() for d in report.diagnostics]
    out = {}
    for name in doc["programs"]:
        b, s, e, _ = score.pred_items(diags, {name})
        out[name] = _items((b, s, e))
    return out


def delta(old, new):
    """``{set: ["+item", "-item"]}`` for what appears and goes away from ``old`` to ``new``."""
    out = {}
    for label in old:
        change = sorted([f"+{i}" for i in new[label] - old[label]] + [f"-{i}" for i in old[label] - new[label]])
        if change:
            out[label] = change
    return out


_PREDICTED = {}


def _predicted(key, file):
    if (key, file) not in _PREDICTED:
        _PREDICTED[(key, file)] = predicted_items(key, file)
    return _PREDICTED[(key, file)]


def test_every_combination_is_observed():
    """Each folder has the reference and the four other combinations, each with every program, and the
    reference agrees with the folder's truth.json (break sites, skipped frames, compile errors)."""
    for key, folder in FOLDERS.items():
        files = sorted(n for n in os.listdir(folder) if n.endswith(".py"))
        assert sorted(DOCS[key]) == ["observed-2.14.json", "observed-2.15-py3.12.json", "observed-2.15-py3.13.json",
                                     "observed-2.15.json", "observed.json"]
        for file, doc in DOCS[key].items():
            assert sorted(doc["programs"]) == files, (key, file)
            assert measure.observation_name(doc["meta"]["torch"], doc["meta"]["python"]) == file
        with open(os.path.join(folder, "truth.json"), encoding="utf-8") as fh:
            truth = json.load(fh)["cases"]
        for name, obs in DOCS[key]["observed.json"]["programs"].items():
            assert observed_items(name, obs) == _items(score.truth_items({name: truth[name]})[:3]), (key, name)


@pytest.mark.parametrize("key,file", CASES)
def test_predictions_change_as_the_runtime_does(key, file):
    """From torch 2.13 on 3.11 to ``file``'s versions, every program's observed change is gblint's change."""
    ref = DOCS[key]["observed.json"]["programs"]
    now = DOCS[key][file]["programs"]
    pred_ref, pred_now = _predicted(key, "observed.json"), _predicted(key, file)
    known = KNOWN_DELTAS.get((key, file), {})
    for name in sorted(now):
        seen = delta(observed_items(name, ref[name]), observed_items(name, now[name]))
        said = delta(pred_ref[name], pred_now[name])
        if name in known:
            want, why = known[name]
            assert (seen, said) == (want, {}), f"{key}/{name} on {file}: the known change moved ({why})"
        else:
            assert said == seen, f"{key}/{name} on {file}: the runtime changed {seen}, gblint {said}"
    assert set(known) <= set(now)


def test_a_version_fact_changes_the_predictions():
    """The comparison is not vacuous: a prediction that changes where the runtime does not is caught."""
    old = {"break sites": {"9", "10"}, "skipped frames": set(), "compile errors": set()}
    new = {"break sites": {"10"}, "skipped frames": set(), "compile errors": set()}
    assert delta(old, new) == {"break sites": ["-9"]}
    assert delta(old, old) == {}


@pytest.mark.slow
@pytest.mark.parametrize("key,file", [(key, file) for key in FOLDERS for file in sorted(DOCS[key])])
def test_observations_are_still_true(key, file):
    """Measure the folder's programs again (minutes) with an interpreter that has this file's torch and Python
    (this one, or one of ``GBLINT_MEASURE_PYTHONS``) and compare; skipped where none has them."""
    from .test_measured import _interpreters
    _, found = _interpreters()
    doc = DOCS[key][file]
    python = next((p for p, v in found if v["torch"] and measure.observation_name(v["torch"], v["python"]) == file),
                  None)
    if python is None:
        pytest.skip(f"no interpreter with torch {doc['meta']['torch']} on Python {doc['meta']['python']}")
    new = measure.measure(measure.programs(FOLDERS[key]), workers=2, python=python)
    changed = {n: (doc["programs"].get(n), obs) for n, obs in new["programs"].items() if doc["programs"].get(n) != obs}
    assert changed == {}, f"{key}/{file} is no longer what torch {new['meta']['torch']} does"
