"""Soundness (issue 38): every definite diagnostic gblint gives on a generated program is what Dynamo does.

The programs come from :mod:`tests.soundness.generator`: a ``torch.compile(backend="eager")`` function or
``nn.Module`` that tests one value (Python bool, int, float, str, None, 0-d or one-element tensor, a tensor
computed from the input, NumPy array, list; true or false) with ``if``, ``if not``, ``while``, ``a if v else b``,
``bool(v)`` or an ``and``/``or`` chain, the value arriving as an argument, a default, a keyword a wrapper
decorator fills from a config, a dataclass config's attribute, a global, a module attribute, a buffer, a
parameter, a helper's return value or a tuple unpack, the test sitting at the top, in a loop, one or two helpers
deep or under ``torch.no_grad()``, with a graph-break source or none in the taken branch, with or without
``fullgraph=True``.

Each program is checked by gblint (torch 2.13.0, Python 3.11, ``check_paths`` as tests/test_harness_kinds.py
does) and run under Dynamo in a warm child process (:mod:`tests.soundness.runner`: gblint's runtime observer
installed as scripts/measure_fixtures.py installs it, ``torch._dynamo.reset()`` between programs, killed after
``TIMEOUT`` seconds). The property rests on the comparison of tests/test_measured.py (``differences``, which
scores as scripts/score.py): a definite break diagnostic needs a break Dynamo reported at its line, a definite
skip a frame Dynamo skipped, a definite error a compile error. A wrong definite diagnostic fails the test unless
a kind of :data:`tests.soundness.known.KNOWN` explains it; each known kind's minimal program is run too, and the
test fails when its difference changes or goes away (update the table then). What gblint misses is recorded
(``-s`` prints it, and the junit properties hold it), not asserted.

CI runs ``CI_COUNT`` programs (a fixed hypothesis seed, so every run draws the same programs) in ``SHARDS``
tests, each with its own child, so that pytest-xdist spreads them; ``GBLINT_SOUNDNESS_EXAMPLES`` and
``GBLINT_SOUNDNESS_SEED`` change the count and seed. The long run is ``python3 scripts/soundness.py --count 10000``.
"""
import importlib.util
import os
import shutil
import tempfile

import pytest

from tests.soundness import known
from tests.soundness.generator import Spec, draw_specs, render
from tests.soundness.runner import Child, check_program, judge

CI_COUNT = int(os.environ.get("GBLINT_SOUNDNESS_EXAMPLES", "600"))
SEED = int(os.environ.get("GBLINT_SOUNDNESS_SEED", "0"))
SHARDS = 2
TIMEOUT = 60.0

needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None and not os.environ.get("CI"),
                                 reason="runs programs under torch (pip install -e '.[test]')")

_SPECS = []


def ci_specs():
    """The ``CI_COUNT`` programs of the CI run (drawn once per process, seed ``SEED``)."""
    if not _SPECS:
        _SPECS.extend(draw_specs(CI_COUNT, SEED))
    return _SPECS


def _run(specs, tag):
    """Run every spec of ``specs`` in one child; returns the results, each with its ``spec``."""
    folder = tempfile.mkdtemp(prefix=f"gblint-soundness-{tag}-")
    out = []
    try:
        with Child(timeout=TIMEOUT) as child:
            for i, spec in enumerate(specs):
                result = check_program(child, folder, i, render(spec))
                result["spec"] = spec
                out.append(result)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return out


def test_generated_programs_are_valid_and_varied():
    """Every CI program compiles under CPython, and together they cover every kind, truth value, arrival, form,
    body, place, entry and fullgraph setting (so that the sample cannot quietly shrink to one shape)."""
    specs = ci_specs()
    assert len(specs) == CI_COUNT == len(set(specs))
    for spec in specs:
        compile(render(spec), f"<{spec.python()}>", "exec")
    from tests.soundness import generator as g
    for field, values in [("kind", g.KINDS), ("arrival", g.ARRIVALS), ("form", g.FORMS), ("body", g.BODIES),
                          ("else_body", g.BODIES), ("entry", g.ENTRIES), ("truthy", (True, False)), ("fullgraph", (True, False)),
                          ("fetch", (True, False))]:
        assert {getattr(s, field) for s in specs} == set(values), field
    assert {p for s in specs for p in s.places} == set(g.PLACES)
    assert {len(s.places) for s in specs} == {0, 1, 2}


@needs_torch
@pytest.mark.parametrize("shard", range(SHARDS))
def test_definite_diagnostics_match_dynamo(shard, record_property):
    """Each program of this shard ran to the end of ``main()`` (no timeout, crash or exception), and every wrong
    definite diagnostic is of a known kind. Misses are printed and recorded only."""
    results = _run(ci_specs()[shard::SHARDS], f"ci{shard}")
    failed = [(r["spec"].python(), r["observation"]) for r in results
              if "breaks" not in r["observation"] or r["observation"]["exception"] is not None]
    assert failed == [], f"programs that did not run to the end: {failed}"
    new, seen = [], {}
    for r in results:
        kinds, unexplained = known.classify(r["spec"], r)
        for k in kinds:
            seen[k] = seen.get(k, 0) + 1
        if unexplained:
            new.append((r["spec"].python(), r["wrong"]))
    missed = sum(1 for r in results if r["missed"])
    broke = sum(1 for r in results if r["observation"]["breaks"] or r["observation"]["skipped_frames"]
                or r["observation"]["errors"])
    seconds = sum(r["seconds"] for r in results) / len(results)
    summary = (f"shard {shard}: {len(results)} programs, {broke} where Dynamo broke, {missed} with a miss, "
               f"known wrong kinds {seen}, wrong GB ids {sum(1 for r in results if r['wrong_gb_ids'])}, "
               f"{seconds:.3f} s per program under Dynamo")
    print(summary)
    record_property("soundness", summary)
    assert new == [], (f"wrong definite diagnostics of no known kind (reduce each to a minimal program with "
                       f"scripts/soundness.py --spec and add it to tests/soundness/known.py): {new}")


@needs_torch
def test_known_kinds_are_still_wrong():
    """Each known kind's minimal program gives exactly its recorded wrong items, and only that kind explains
    them; when gblint is fixed, this fails: remove the kind from KNOWN."""
    names = sorted(known.KNOWN)
    results = _run([known.KNOWN[n].spec for n in names], "known")
    for name, r in zip(names, results):
        kind = known.KNOWN[name]
        assert r["observation"].get("exception", "missing") is None, (name, r["observation"])
        assert r["wrong"] == kind.wrong, (f"the known kind {name} changed on its program {kind.spec.python()} "
                                          f"({kind.why}); update KNOWN: {r['wrong']}")
        assert known.classify(kind.spec, r) == ([name], False), name


@needs_torch
def test_fixed_kinds_stay_fixed():
    """Each fixed kind's minimal program has no wrong definite diagnostic, and gblint misses exactly what
    :data:`tests.soundness.known.FIXED` records on it."""
    names = sorted(known.FIXED)
    results = _run([known.FIXED[n].spec for n in names], "fixed")
    for name, r in zip(names, results):
        kind = known.FIXED[name]
        assert r["observation"].get("exception", "missing") is None, (name, r["observation"])
        assert r["wrong"] == {}, f"the fixed kind {name} is back on {kind.spec.python()} ({kind.why}): {r['wrong']}"
        assert r["missed"] == kind.missed, f"what gblint misses on {kind.spec.python()} changed: {r['missed']}"


def test_judge_sees_a_wrong_definite_diagnostic():
    """The comparison is not vacuous: on an observation with one resumed break at line 8 of ``f``, a definite
    break elsewhere, a definite skip of ``f`` and a definite compile error are wrong; the same diagnostics as
    conditional are not; a definite break at line 8 is right; the break is a miss when nothing is said."""
    name = "p00000.py"
    obs = {"graphs": [1, 1], "breaks": [{"line": 8, "function": "f", "gb_id": "GB0124", "gb_ids": ["GB0124"],
                                         "outcome": "resumed", "events": 1}],
           "skipped_frames": [], "errors": [], "declined": [], "exception": None}

    def diag(line, effect, certainty="definite", gb="GB0124"):
        return {"path": f"/tmp/{name}", "line": line, "effect": effect, "frame": "f", "gb_ids": [gb],
                "certainty": certainty, "trace": [], "code": "GBL102"}

    assert judge(name, [diag(8, "break")], obs) == {"wrong": {}, "wrong_gb_ids": [], "missed": {}}
    assert judge(name, [diag(9, "break")], obs)["wrong"] == {"false break sites": [9]}
    assert judge(name, [diag(8, "skip")], obs)["wrong"] == {"false skipped frames": ["f"]}
    assert judge(name, [diag(8, "error")], obs)["wrong"] == {"false compile errors": [name],
                                                             "false skipped frames": ["f"]}
    assert judge(name, [diag(9, "break", "conditional"), diag(8, "skip", "conditional")], obs)["wrong"] == {}
    assert judge(name, [diag(8, "break", gb="GB0170")], obs)["wrong_gb_ids"] == ["8: GB0124 observed, gblint says "
                                                                                 "GB0170"]
    assert judge(name, [], obs)["missed"] == {"missed break sites": [8]}
    # a wrong item no kind explains is new; the known kind's own program is explained
    spec = Spec(kind="int", form="if", body="item")
    result = {"wrong": {"false break sites": [9]}, "diagnostics": [diag(9, "break")], "observation": obs}
    assert known.classify(spec, result) == ([], True)


@needs_torch
def test_a_program_that_hangs_is_killed_with_what_it_started(tmp_path):
    """A program that does not return within the timeout gets ``{"timeout": True}``; the child, and a process the
    program started, are killed; the next program runs in a new child."""
    import time
    pid_file = tmp_path / "grandchild.pid"
    hang = tmp_path / "p00000.py"
    hang.write_text("import subprocess, sys, time\n\n\ndef main():\n"
                    "    p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
                    f"    open({str(pid_file)!r}, 'w').write(str(p.pid))\n"
                    "    time.sleep(120)\n")
    with Child(timeout=3.0) as child:
        first = child.run(str(hang))
        assert first == {"timeout": True}
        assert child.proc is None
        grandchild = int(pid_file.read_text())
        deadline = time.time() + 10
        while time.time() < deadline and os.path.exists(f"/proc/{grandchild}"):
            with open(f"/proc/{grandchild}/stat") as fh:
                if fh.read().split(")")[-1].split()[0] == "Z":  # killed, waiting for its parent to be reaped
                    break
            time.sleep(0.1)
        else:
            assert not os.path.exists(f"/proc/{grandchild}"), "the program's own process outlived the timeout"
        result = check_program(child, str(tmp_path), 1, render(Spec(form="if", body="item")))
        assert result["observation"]["exception"] is None and result["observation"]["breaks"]
