"""gblint's predictions against what PyTorch did with the programs of tests/fixtures/measured, on
every measured torch and Python.

Each program there was written for this project (beyond tests/cases) and run by
``scripts/measure_fixtures.py`` with gblint's runtime observer (CPU, eager backend) under each
measured combination; each observation file is what the runtime did there: break sites (line, GB
id, outcome), skipped frames, compile errors (with the lines of their stack), frames declined at no
cost, graphs. ``observed.json`` is torch 2.13.0 on Python 3.11 (the reference, the CI's torch);
``observed-2.14.json``, ``observed-2.15.json`` torch 2.14.1 / 2.15.0 on 3.11;
``observed-2.15-py3.12.json``, ``observed-2.15-py3.13.json`` torch 2.15.0 on 3.12 / 3.13;
``observed-2.13-py3.13.json``, ``observed-2.14-py3.13.json`` torch 2.13.0 / 2.14.1 on 3.13
(``measure_fixtures.observation_name``). Nothing here compares gblint with its own earlier output.

Each program is scored, with ``--torch-version`` and ``--python-version`` of its file, as
``scripts/score.py`` scores tests/cases (the observation is turned into a truth record): break
sites by line, skipped frames by function, the compile error, plus one check score.py does not
make: the GB id Dynamo reported at each break site gblint predicts is among the GB ids gblint
gives for that line. Agreement must be exact. A program where gblint and the runtime differ is
listed in ``KNOWN_DIFFERENCES`` (every file) or ``VERSION_DIFFERENCES`` (one file) with the
difference and why; the test fails when a difference appears, changes or goes away, so the lists
stay true.

``test_observations_are_still_true`` (slow) measures every program again with each interpreter
that has an observation file's torch and Python (this one, or those named in
``GBLINT_MEASURE_PYTHONS``, separated by ``os.pathsep``) and compares.
"""
import importlib.util
import json
import os

import pytest

from gblint.settings.config import Settings
from gblint.project.engine import check_paths

from .conftest import ROOT, SCORE

MEASURED = os.path.join(ROOT, "tests", "fixtures", "measured")
REFERENCE = "observed.json"
FILES = sorted(n for n in os.listdir(MEASURED) if n.startswith("observed") and n.endswith(".json"))
DOCS = {}
for _name in FILES:
    with open(os.path.join(MEASURED, _name), encoding="utf-8") as _fh:
        DOCS[_name] = json.load(_fh)
PROGRAMS = DOCS[REFERENCE]["programs"]


def versions_of(doc):
    """``(torch version, (major, minor))`` an observation file was measured on."""
    return doc["meta"]["torch"], tuple(int(p) for p in doc["meta"]["python"].split(".")[:2])


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


score = _load("gblint_score", SCORE)

#: Programs where gblint's prediction differs from what the runtime observed: the difference exactly as
#: :func:`differences` reports it, and why.
KNOWN_DIFFERENCES = {
    "b16_enumerate_listcomp_tensor.py": (
        {"gb ids": ["12: GB8335 observed, gblint says GB0025, GB0092"]},
        "the frame skip at the comprehension over enumerate() is predicted, under GB0092 (what a dict comprehension "
        "over .items() raises); Dynamo raised GB8335 Generator reconstruction with mutations here."),
    "v02_logging_module_fn.py": (
        {"gb ids": ["9: GB4841 observed, gblint says GB0291"]},
        "the break is predicted, but `logging.info(...)` (a module function, not a Logger method) fails as GB4841 "
        "Unsupported python_type() call, not GB0291 (logging.Logger method)."),
    "v06_tolist_int.py": (
        {"gb ids": ["6: GB0033 observed, gblint says GB0109"]},
        "the break is predicted, but `.tolist()` of an integer tensor breaks as GB0033 Data dependent operator; "
        "GB0109 is only the non-integer (float) tensor case."),
    "n03_reraise_in_except.py": (
        {"missed break sites": [11, 17, 27], "missed skipped frames": ["bare_reraise", "raise_from", "raise_new"]},
        "an exception raised again from an `except` block leaves the compiled frame (GB0088 Observed exception, the "
        "frame is skipped); gblint counts an `except` body as an error path and reports it only with --error-paths "
        "(the kind of found/316; issue 16). From torch 2.14 a bare `raise` is reported at the line that raised "
        "first (17), on 2.13 at the `raise` (19)."),
}


#: Differences on one observation file only: the file -> {program: (difference, why)}; a program mapped to
#: None agrees there although it is in KNOWN_DIFFERENCES.
_REFERENCE_ONLY = {  # torch 2.13, on every Python measured
    "n03_reraise_in_except.py": (
        {"missed break sites": [11, 19, 27], "missed skipped frames": ["bare_reraise", "raise_from", "raise_new"]},
        KNOWN_DIFFERENCES["n03_reraise_in_except.py"][1]),
    "n05_failing_op_in_try.py": (
        {"missed break sites": [9, 18], "missed skipped frames": ["cat_fallback", "matmul_fallback"],
         "missed compile errors": ["n05_failing_op_in_try.py"]},
        "on torch 2.13 an op that fails under fake tensors inside `try` (a shape mismatch) raises TorchRuntimeError "
        "out of the compiled call instead of running the `except` block; from 2.14 Dynamo traces the `except` "
        "path (2-3 graphs). gblint cannot know shapes (the kind of found/318)."),
}
_PY312 = {  # Python 3.12 and 3.13
    "n11_loop_exit_paths.py": (
        {"false skipped frames": ["return_in_body"]},
        "Dynamo's loop test (`maybe_has_backedge`, symbolic_convert.py) scans the bytecode from the break to the "
        "first RETURN: a `return` inside the loop body after the break stops the scan before the backward jump, so "
        "the break resumes instead of skipping the frame; on 3.12+ only in a `while` loop (a `for` loop's return "
        "is laid out after its backward jump). gblint reads that layout for Python 3.11 only (gblint.syntax.backedge)."),
    "v17_while_true.py": (
        {"false skipped frames": ["f"]},
        "on Python 3.12+ the `return x` after a `while True:` loop is copied to the `break` (CPython inlines small "
        "exit blocks), so Dynamo's backedge scan from the break meets a RETURN first and the break resumes (2 "
        "graphs); on 3.11 the frame is skipped (GB7000). gblint still predicts the skip."),
}
VERSION_DIFFERENCES = {
    "observed.json": _REFERENCE_ONLY,
    "observed-2.13-py3.13.json": {**_PY312, **_REFERENCE_ONLY},
    "observed-2.14-py3.13.json": _PY312,
    "observed-2.15-py3.12.json": _PY312,
    "observed-2.15-py3.13.json": _PY312,
}


def known_difference(file, name):
    """``(difference, why)`` expected for program ``name`` on observation ``file``, or None."""
    per_file = VERSION_DIFFERENCES.get(file, {})
    if name in per_file:
        return per_file[name]
    return KNOWN_DIFFERENCES.get(name)


_PREDICTED = {}


def predicted(file):
    """gblint's JSON diagnostics for the measured programs, by file name, predicted for the torch and
    Python of observation ``file``."""
    if file not in _PREDICTED:
        torch, python = versions_of(DOCS[file])
        report = check_paths([MEASURED], Settings(python_version=python, torch_version=torch))
        assert report.errors == []
        out = {name: [] for name in DOCS[file]["programs"]}
        for d in report.diagnostics:
            out.setdefault(os.path.basename(d.path), []).append(d.to_json())
        _PREDICTED[file] = out
    return _PREDICTED[file]


def truth_record(name, obs):
    """An observation of observed.json as a truth record of tests/cases (what score.py reads). A frame whose
    compile raised counts as skipped, as in tests/cases; a frame declined at no cost is benign unless the
    same function was really skipped (a skipped loop frame's empty resume function is declined too)."""
    skipped = [s["function"] for s in obs["skipped_frames"]] + [e["function"] for e in obs["errors"]]
    real = {score.frame_name(f) for f in skipped}
    return {"graph_breaks": [{"case_line": b["line"]} for b in obs["breaks"]],
            "skipped_frames": [{"func": f} for f in skipped],
            "exception": {"user_code": [f"{name}:{line}" for e in obs["errors"] for line in e["lines"]]}
            if obs["errors"] else None,
            "benign_skips_in_case": [{"co_name": d["function"]} for d in obs["declined"]
                                     if score.frame_name(d["function"]) not in real]}


def differences(name, diags, obs=None):
    """Where gblint's diagnostics ``diags`` for program ``name`` differ from its observation ``obs``
    (default: the reference's): a dict of non-empty sorted lists ("missed break sites", "false break
    sites", ..., "gb ids")."""
    obs = PROGRAMS[name] if obs is None else obs
    out = {}
    for label, truth, pred in score.compare({name: truth_record(name, obs)}, diags):
        def plain(items):
            return sorted(it[1] if isinstance(it, tuple) else it for it in items)
        if truth - pred:
            out[f"missed {label}"] = plain(truth - pred)
        if pred - truth:
            out[f"false {label}"] = plain(pred - truth)
    wrong_ids = []
    sites = [(b["line"], b["gb_id"]) for b in obs["breaks"]]
    sites += [(line, e["gb_id"]) for e in obs["errors"] for line in e["lines"]]
    for line, gb_id in sorted(set(sites), key=str):
        said = sorted({g for d in diags if d["line"] == line and d["effect"] != "info" for g in d["gb_ids"]})
        if gb_id and said and gb_id not in said:
            wrong_ids.append(f"{line}: {gb_id} observed, gblint says {', '.join(said)}")
    if wrong_ids:
        out["gb ids"] = wrong_ids
    return out


def test_every_program_is_measured():
    """Every observation file has exactly the programs of the folder, each observed to the end of main(), and
    says what it was measured on; the reference is torch 2.13 on Python 3.11."""
    files = sorted(n for n in os.listdir(MEASURED) if n.endswith(".py"))
    measure = _load("gblint_measure_fixtures", os.path.join(ROOT, "scripts", "measure_fixtures.py"))
    assert len(FILES) >= 7
    for file, doc in DOCS.items():
        assert sorted(doc["programs"]) == files, file
        assert doc["meta"]["backend"] == "eager"
        assert measure.observation_name(doc["meta"]["torch"], doc["meta"]["python"]) == file
        assert [n for n, obs in doc["programs"].items() if obs["exception"] is not None] == [], file
    assert versions_of(DOCS[REFERENCE])[0].startswith("2.13.") and versions_of(DOCS[REFERENCE])[1] == (3, 11)
    assert set(KNOWN_DIFFERENCES) <= set(PROGRAMS)
    assert set(VERSION_DIFFERENCES) <= set(FILES)


@pytest.mark.parametrize("file,name", [(f, n) for f in FILES for n in sorted(DOCS[f]["programs"])])
def test_prediction_matches_runtime(file, name):
    """Break sites, skipped frames, compile errors and GB ids as the runtime observed them, on the torch and
    Python of each observation file."""
    got = differences(name, predicted(file)[name], DOCS[file]["programs"][name])
    known = known_difference(file, name)
    if known is not None:
        want, why = known
        assert got == want, f"the known difference of {name} on {file} changed ({why}); update the lists"
    else:
        assert got == {}, f"gblint and the runtime differ on {name} ({file}): {got}"


def test_scoring_sees_a_wrong_prediction():
    """The comparison is not vacuous: a prediction moved by a line, a skip dropped and an invented error are
    each reported."""
    name = "v01_item_in_range_loop.py"  # observed: GB7000 loop skip of `f` at line 9
    obs = PROGRAMS[name]
    assert [(b["line"], b["outcome"]) for b in obs["breaks"]] == [(9, "skipped")]
    moved = [{"path": name, "line": 10, "effect": "break", "frame": "f", "gb_ids": ["GB0124"]}]
    assert differences(name, moved) == {"missed break sites": [9], "false break sites": [10],
                                        "missed skipped frames": ["f"]}
    # an error's frame is claimed as failing to compile (it gets no compiled code): the skip is not missed
    wrong = [{"path": name, "line": 9, "effect": "error", "frame": "f", "gb_ids": ["GB0059"]}]
    assert differences(name, wrong) == {"false compile errors": [name],
                                        "gb ids": ["9: GB7000 observed, gblint says GB0059"]}


def _interpreters():
    """This interpreter and those of ``GBLINT_MEASURE_PYTHONS``, each with its ``{"torch", "python"}``."""
    import subprocess
    import sys
    measure = _load("gblint_measure_fixtures", os.path.join(ROOT, "scripts", "measure_fixtures.py"))
    found = []
    for python in [sys.executable] + [p for p in os.environ.get("GBLINT_MEASURE_PYTHONS", "").split(os.pathsep) if p]:
        try:
            found.append((python, measure.interpreter_versions(python)))
        except (OSError, ValueError, subprocess.SubprocessError):  # not an interpreter gblint can ask
            continue
    return measure, found


@pytest.mark.slow
@pytest.mark.parametrize("file", FILES)
def test_observations_are_still_true(file):
    """Measure every program again (minutes) with an interpreter that has this file's torch and Python, and
    compare with the file; skipped where none has them."""
    measure, found = _interpreters()
    doc = DOCS[file]
    python = next((p for p, v in found if v["torch"] and measure.observation_name(v["torch"], v["python"]) == file),
                  None)
    if python is None:
        pytest.skip(f"no interpreter with torch {doc['meta']['torch']} on Python {doc['meta']['python']} "
                    "(GBLINT_MEASURE_PYTHONS names more)")
    new = measure.measure(measure.programs(MEASURED), workers=2, python=python)
    changed = {n: (doc["programs"].get(n), obs) for n, obs in new["programs"].items() if doc["programs"].get(n) != obs}
    assert changed == {}, (f"torch {new['meta']['torch']} on Python {new['meta']['python']} did otherwise than "
                           f"{file} says; re-run scripts/measure_fixtures.py if that is expected")
    assert sorted(new["programs"]) == sorted(doc["programs"])
