"""gblint's predictions against what PyTorch did with the programs of tests/fixtures/measured.

Each program there was written for this project (beyond tests/cases) and run under torch 2.13.0
(CPU, eager backend, Python 3.11) by ``scripts/measure_fixtures.py`` with gblint's runtime observer;
``tests/fixtures/measured/observed.json`` is what the runtime did: break sites (line, GB id,
outcome), skipped frames, compile errors (with the lines of their stack), frames declined at no
cost, graphs. Nothing here compares gblint with its own earlier output.

Each program is scored as ``scripts/score.py`` scores tests/cases (the observation is turned into
a truth record): break sites by line, skipped frames by function, the compile error, plus one
check score.py does not make: the GB id Dynamo reported at each break site gblint predicts is among
the GB ids gblint gives for that line. Agreement must be exact. A program where gblint and the
runtime differ is listed in ``KNOWN_DIFFERENCES`` with the difference and why; the test fails
when a difference appears, changes or goes away, so the list stays true.

``test_observed_json_is_still_true`` (slow, needs torch) measures every program again and
compares with observed.json.
"""
import importlib.util
import json
import os

import pytest

from gblint.config import Settings
from gblint.engine import check_paths

from .conftest import ROOT, SCORE

MEASURED = os.path.join(ROOT, "tests", "fixtures", "measured")
OBSERVED = os.path.join(MEASURED, "observed.json")
with open(OBSERVED, encoding="utf-8") as _fh:
    DOC = json.load(_fh)
PROGRAMS = DOC["programs"]
PYTHON = tuple(int(p) for p in DOC["meta"]["python"].split(".")[:2])  # the Dynamo semantics measured


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


score = _load("gblint_score", SCORE)

#: Programs where gblint's prediction differs from what the runtime observed: the difference exactly as
#: :func:`differences` reports it, and why.
KNOWN_DIFFERENCES = {
    "b14_dictcomp_keys.py": (
        {"missed skipped frames": ["<dictcomp>"]},
        "gblint reports the caller `f` skipped (GB0092 reconstruction failure) but not the dict comprehension: "
        "once `f` runs eagerly, Dynamo compiles `<dictcomp>` as its own frame and fails there too (GB4347 Missing "
        "tp_iternext on the dict-keys iterator)."),
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
}


@pytest.fixture(scope="module")
def predicted():
    """gblint's JSON diagnostics for the measured programs, by file name."""
    report = check_paths([MEASURED], Settings(python_version=PYTHON))
    assert report.errors == []
    out = {name: [] for name in PROGRAMS}
    for d in report.diagnostics:
        out.setdefault(os.path.basename(d.path), []).append(d.to_json())
    return out


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


def differences(name, diags):
    """Where gblint's diagnostics ``diags`` for program ``name`` differ from its observation: a dict of
    non-empty sorted lists ("missed break sites", "false break sites", ..., "gb ids")."""
    obs = PROGRAMS[name]
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
    """observed.json has exactly the programs of the folder, each observed to the end of main()."""
    files = sorted(n for n in os.listdir(MEASURED) if n.endswith(".py"))
    assert sorted(PROGRAMS) == files
    assert DOC["meta"]["torch"].startswith("2.13.") and DOC["meta"]["backend"] == "eager"
    assert [n for n, obs in PROGRAMS.items() if obs["exception"] is not None] == []
    assert set(KNOWN_DIFFERENCES) <= set(PROGRAMS)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_prediction_matches_runtime(name, predicted):
    """Break sites, skipped frames, compile errors and GB ids as the runtime observed them."""
    got = differences(name, predicted[name])
    if name in KNOWN_DIFFERENCES:
        want, why = KNOWN_DIFFERENCES[name]
        assert got == want, f"the known difference of {name} changed ({why}); update KNOWN_DIFFERENCES"
    else:
        assert got == {}, f"gblint and the runtime differ on {name}: {got}"


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


@pytest.mark.slow
def test_observed_json_is_still_true():
    """Measure every program again under the installed torch (minutes) and compare with observed.json."""
    torch = pytest.importorskip("torch")
    measure = _load("gblint_measure_fixtures", os.path.join(ROOT, "scripts", "measure_fixtures.py"))
    doc = measure.measure(measure.programs(MEASURED), workers=2)
    changed = {n: (PROGRAMS.get(n), obs) for n, obs in doc["programs"].items() if PROGRAMS.get(n) != obs}
    assert changed == {}, (f"torch {torch.__version__} (observed.json: {DOC['meta']['torch']}) did otherwise; "
                           f"re-run scripts/measure_fixtures.py if that is expected")
    assert sorted(doc["programs"]) == sorted(PROGRAMS)
