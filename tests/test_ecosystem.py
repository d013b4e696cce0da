"""The ecosystem harness as a regression gate (bench/ecosystem).

The static side runs on the committed runtime truth of a dozen models (``gate.json`` names
them and holds the figures they scored when the gate was last raised). A score below its
committed figure fails. The packages' sources must be installed (``pip install -e ".[test]"``
pins them); gblint reads them and never imports them, so torch is not needed here.

Raise the figures after an accuracy gain with ``python bench/ecosystem/gate.py --write``.
"""
import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ECO = os.path.join(ROOT, "bench", "ecosystem")
sys.path.insert(0, ECO)

import gate  # noqa: E402


def test_gate_models_are_measured():
    """Every gated model has a measured truth record; the gate covers the four first packages and
    new ones, and both halves of the harness with several models each."""
    spec = gate.load()
    assert len(spec["models"]) >= 12
    from measure import load_truth
    from spec import PACKAGES, half
    packages = {m.split("/")[0] for m in spec["models"]}
    assert packages <= set(PACKAGES)
    assert {"transformers", "diffusers", "x-transformers", "torch-geometric"} < packages
    halves = [half(*m.split("/", 1)) for m in spec["models"]]
    assert halves.count("dev") >= 5 and halves.count("test") >= 5, halves
    for m in spec["models"]:
        package, name = m.split("/", 1)
        assert load_truth(package)["models"][name]["status"] == "measured", m
    assert set(spec["figures"]) == {"dev", "test"}


def test_scores_do_not_drop(tmp_path):
    """Reach, precision and recall per set on the gated models are at least the committed figures."""
    spec = gate.load()
    missing = gate.missing_packages(spec)
    assert not missing, f"install the measured packages first (pip install -e '.[test]'): {missing}"
    got = gate.measure_gate(spec, str(tmp_path))
    drops = gate.drops(spec["figures"], got)
    assert not drops, "scores below the committed gate:\n" + "\n".join(drops)


def test_gate_detects_a_drop():
    """The comparison itself fails on a lower figure (a gate that cannot fail is no gate)."""
    figures = {"reach": 0.5, "no false all-clear": 0.5, "sets": {"break sites": {"precision": 1.0, "recall": 0.5}}}
    lower = json.loads(json.dumps(figures))
    lower["sets"]["break sites"]["recall"] = 0.25
    assert gate.drops(figures, lower) == ["break sites recall: 0.25 < 0.5"]
    assert gate.drops(figures, figures) == []
    # per half: a drop in the test half alone fails, named by its half
    halves = {"dev": figures, "test": figures}
    worse = {"dev": figures, "test": dict(figures, **{"no false all-clear": 0.4})}
    assert gate.drops(halves, worse) == ["test: no false all-clear: 0.4 < 0.5"]
    assert gate.drops(halves, halves) == []


def test_the_scorer_shows_what_the_default_output_shows():
    """The harness scores the default output as gblint.project.reporting.conditional_shown keeps it: a conditional
    diagnostic whose break lies in a followed package only when the module's mode, or inputs not being empty, is all it
    depends on."""
    from gblint.abstract import certainty, values
    from score import MODE_ONLY, NONEMPTY_WORDS, _shown
    assert set(MODE_ONLY) == set(values.MODE_CONDITIONS.values()) and NONEMPTY_WORDS == certainty.NONEMPTY_WORDS
    inside = {"certainty": "conditional", "path": "/site/pkg/m.py", "trace": []}
    assert not _shown(dict(inside, condition="when `flag`"), "/tmp/drv.py")
    assert _shown(dict(inside, condition="in training mode"), "/tmp/drv.py")
    assert _shown(dict(inside, condition="when `index.numel() > 0`" + NONEMPTY_WORDS), "/tmp/drv.py")
    assert _shown(dict(inside, certainty="definite", condition=None), "/tmp/drv.py")


def test_halves_are_stable_and_split_each_package():
    """A model's half depends on its package and name alone, and each big package has both."""
    from measure import load_truth
    from spec import half
    assert half("transformers", "albert") == half("transformers", "albert")
    for package in ("transformers", "diffusers", "torch-geometric", "x-transformers"):
        names = [n for n, r in load_truth(package)["models"].items() if r["status"] == "measured"]
        counts = [half(package, n) for n in names]
        assert 0.3 < counts.count("dev") / len(counts) < 0.7, (package, counts.count("dev"), len(counts))


def _model(breaks, shown_pred, shown_hit, observed=None, predicted=None, status="ok", complete=False):
    """A truth record and gblint document of one driver, for :func:`score.score_model`."""
    rec = {"traced": [], "breaks": [["pkg/m.py", 3, "GB0170", "resumed", ["eval"]]] if breaks else [],
           "skipped": [], "modes": {"eval": {"status": status, "graphs": observed or 0}}}
    diags = [{"effect": "break", "path": "/x/site-packages/pkg/m.py", "line": 3 if i < shown_hit else 40 + i,
              "certainty": "definite", "code": "GBL201"} for i in range(shown_pred)]
    doc = {"diagnostics": diags, "coverage": {"functions": [], "regions": [{"graphs": predicted}], "complete": complete}}
    return rec, doc


def test_per_driver_figures():
    """False all-clear: a breaking driver whose default output shows none of its breaks; "All checks
    passed": it shows nothing and the analysis says it was complete (on a breaking driver, a false one);
    false alarm: a break-free driver whose default output shows something; graphs: predicted against
    the first call's count."""
    from score import driver_figures, score_model
    cases = [_model(True, 0, 0, 3, 3),      # false all-clear, graphs exact; incomplete: not "All checks passed"
             _model(True, 0, 0, 3, 4, complete=True),  # false all-clear and a false "All checks passed"
             _model(True, 2, 1, 3, 5, complete=True),  # found, graphs off
             _model(False, 1, 0, 1, 1),     # false alarm
             _model(False, 0, 0, 2, 2, complete=True),  # break-free, "All checks passed"
             _model(False, 0, 0, None, 1, status="eager-failed")]  # break-free, no count
    drivers = [score_model(rec, doc, "/tmp/drv.py")["driver"] for rec, doc in cases]
    assert driver_figures(drivers) == {"models": 6, "breaking": 3, "false_all_clear": 2, "false_passed": 1,
                                       "clean": 3, "clean_passed": 1, "false_alarm": 1, "graphs_compared": 5,
                                       "graphs_exact": 3}


def test_scored_documents_are_reused_until_gblint_changes(tmp_path, monkeypatch):
    """The incremental cache returns a stored document for the same inputs, and none once gblint's
    fingerprint (its sources) or the driver changed."""
    import score
    cache = score.DocCache(str(tmp_path))
    key = cache.key("driver text", None, ["pkg"])
    assert cache.get(key) is None
    cache.put(key, {"diagnostics": [], "coverage": {}})
    assert cache.get(key) == {"diagnostics": [], "coverage": {}}
    assert cache.get(cache.key("other driver", None, ["pkg"])) is None
    cache.put(cache.key("failed", None, []), {"error": "exit 2"})
    assert cache.get(cache.key("failed", None, [])) is None  # a failed run is run again
    monkeypatch.setattr(score, "gblint_fingerprint", lambda python=None: "changed")
    changed = score.DocCache(str(tmp_path))
    assert changed.get(changed.key("driver text", None, ["pkg"])) is None


def test_test_half_items_are_kept_apart(tmp_path):
    """details.json holds the dev half's misses and false positives and only the test half's
    aggregate figures; the test half's per-item lists go to details-test.json."""
    import score
    d = {"gb_ids": {"GB0170": {"truth": 1, "hit": 0}}, "codes": {}, "missed": {"GB0170": ["m.py:3 (x)"]},
         "false_positives": {}, "unreached_most_common": {}, "errors": {}}
    score._write({"torch": "2.13.0", "packages": {}, "entry_given": {}},
                 {"packages": {"pkg": {"dev": d, "test": d}}}, str(tmp_path), readme=False, quiet=True)
    dev = json.loads((tmp_path / "details.json").read_text())["packages"]["pkg"]
    test = json.loads((tmp_path / "details-test.json").read_text())["packages"]["pkg"]
    assert dev["dev"]["missed"] and "missed" not in dev["test"] and dev["test"]["gb_ids"]
    assert test["test"]["missed"] == d["missed"]


# Drivers of the harness written both ways: transformers' top level is a _LazyModule (names declared
# under TYPE_CHECKING through star imports), diffusers' an _import_structure dictionary.
IMPORT_MODELS = ["transformers/albert", "transformers/ctrl", "transformers/rwkv", "transformers/sew",
                 "transformers/roberta", "transformers/mamba", "diffusers/UNet2DModel", "diffusers/VQModel",
                 "diffusers/Lumina2Transformer2DModel", "diffusers/MochiTransformer3DModel",
                 "diffusers/FluxTransformer2DModel", "diffusers/AutoencoderKL"]


def test_top_level_imports_reach_what_deep_imports_reach(tmp_path):
    """``from transformers import AlbertModel`` finds the same compiled region and reaches the same
    functions as ``from transformers.models.albert.modeling_albert import AlbertModel``, on a dozen
    measured models of the two lazy packages (what each reaches of Dynamo's trace is the gate's)."""
    from gblint.core.fs import package_dir
    from measure import load_truth
    from score import predicted_sets, run_gblint, truth_sets
    from spec import PACKAGES, deep_imports, driver
    assert not gate.missing_packages({"models": IMPORT_MODELS})
    cache = str(tmp_path / "cache")
    for model in IMPORT_MODELS:
        package, name = model.split("/", 1)
        rec = load_truth(package)["models"][name]
        deep = deep_imports(rec["setup"], package, package_dir(package))
        assert deep != rec["setup"] and f"from {package} import" not in deep
        reached = {}
        for how, setup in (("top", rec["setup"]), ("deep", deep)):
            path = tmp_path / f"{how}_{name}.py"
            path.write_text(driver(setup))
            doc = run_gblint(str(path), PACKAGES[package]["follow"], cache)
            assert "error" not in doc, doc.get("error")
            regions = sorted((r["path"], r["function"]) for r in doc["coverage"]["regions"])
            assert len(regions) == 1, (model, how, regions)
            reached[how] = (regions, predicted_sets(doc, str(path))[0])
        assert reached["top"] == reached["deep"], model
        assert truth_sets(rec)[0] & reached["top"][1], model  # the functions reached are what Dynamo traced


def _part(folder, package, traced, reached, hit):
    """What ``run.py --package PACKAGE --out FOLDER`` writes, for one package of ``traced`` functions."""
    from score import SETS, summary_row
    per_model = {"m": {"traced": traced, "reached": reached, "definite": {"pred": 1, "hit": 1},
                       "shown": {"pred": 1, "hit": 1}, "half": "dev",
                       **{s: {"truth": 2, "pred": 2, "hit": hit} for s in SETS}}}
    truth = {"version": "1.0", "models": {"m": {"modes": {"eval": {"status": "ok"}, "train": {"status": "ok"}}}}}
    row = summary_row(truth, per_model)
    folder.mkdir()
    (folder / "results.json").write_text(json.dumps({"torch": "2.13.0", "packages": {package: row},
                                                     "entry_given": {package: row}}))
    (folder / "details.json").write_text(json.dumps({"packages": {package: {}}, "entry_given": {package: {}}}))
    return str(folder)


def test_runs_of_one_package_each_merge_into_one_table(tmp_path, capsys):
    """``run.py merge`` pools per-package runs as one run of all of them would (reach over all the
    functions traced), and refuses a package merged twice or a folder without results."""
    from score import merge
    a = _part(tmp_path / "a", "pkg-a", traced=10, reached=9, hit=2)
    b = _part(tmp_path / "b", "pkg-b", traced=30, reached=21, hit=1)
    assert merge([a, b], str(tmp_path / "out"), readme=False, quiet=True) == 0
    got = json.loads((tmp_path / "out" / "results.json").read_text())
    assert sorted(got["packages"]) == ["pkg-a", "pkg-b"]
    assert got["overall"]["reach"] == 0.75 and got["overall"]["models"] == 2
    assert got["overall"]["recall"] == round(9 / 12, 3)
    assert got["overall"]["halves"]["dev"]["models"] == 2 and got["overall"]["halves"]["test"]["models"] == 0
    assert merge([a, a], str(tmp_path / "out2"), readme=False, quiet=True) == 2
    assert merge([str(tmp_path / "missing")], str(tmp_path / "out3"), readme=False, quiet=True) == 2
    assert "already merged" in capsys.readouterr().err


def test_a_package_of_its_own_environment_needs_it_made(tmp_path, monkeypatch, capsys):
    """The Transformers 4.x line runs in its own venv: without it, scoring and listing say which command
    makes it (exit 2), never a traceback; the other packages run in this interpreter."""
    import run
    import spec
    monkeypatch.setattr(spec, "VENVS", str(tmp_path))
    assert spec.python_for("transformers") == sys.executable
    with pytest.raises(FileNotFoundError, match="run.py env --package transformers-4"):
        spec.python_for("transformers-4")
    assert run.main(["list", "--package", "transformers-4"]) == 2
    assert "run.py env --package transformers-4" in capsys.readouterr().err
    assert run.main(["--package", "transformers-4", "--out", str(tmp_path / "out")]) == 2


def test_incomplete_runs_never_replace_the_tables(tmp_path, monkeypatch, capsys):
    """A driver gblint failed on makes the run exit 1 and name it, and such a run writes no tables where the
    committed ones live; part of the harness is scored only into --out; --models must name measured models."""
    import run
    import score
    monkeypatch.setattr(score, "run_gblint", lambda *a, **k: {"error": "exit 3: boom"})
    out = tmp_path / "out"
    assert score.score(["mixture-of-experts"], 1, str(out), {"mixture-of-experts/experts"}, readme=True,
                       quiet=True, cache=None) == 1
    assert not out.exists()
    err = capsys.readouterr().err
    assert "gblint failed on mixture-of-experts/experts: exit 3: boom" in err and "not writing the tables" in err
    assert score.score(["mixture-of-experts"], 1, str(out), {"mixture-of-experts/experts"}, readme=False,
                       quiet=True, cache=None) == 1
    got = json.loads((out / "results.json").read_text())
    assert got["packages"]["mixture-of-experts"]["gblint_errors"] == 1
    assert run.main(["--package", "mixture-of-experts"]) == 2
    assert "needs --out" in capsys.readouterr().err
    assert run.main(["--models", "mixture-of-experts/nope", "--out", str(tmp_path / "o2")]) == 2
    assert "names no measured model: mixture-of-experts/nope" in capsys.readouterr().err


def test_lines_of_one_package_share_halves():
    """A Transformers family is in the same half in the 4.x and the 5.x line, so tuning on one line's dev
    half never reads the other line's test items."""
    from measure import load_truth
    from spec import half
    names = set(load_truth("transformers")["models"]) & set(load_truth("transformers-4")["models"])
    assert len(names) > 100
    assert all(half("transformers", n) == half("transformers-4", n) for n in names)


def test_a_call_line_diagnostic_is_scored_at_the_break_it_names():
    """A diagnostic at the driver's call of a package function (``GBL301``, nested) whose trace ends at the break
    inside the package is scored at that break, where Dynamo records a nested break; one whose trace ends at
    another line is a false site there, not at the call line."""
    from score import score_model
    rec = {"traced": [], "breaks": [["pkg/m.py", 3, "GB0170", "resumed", ["eval"]]], "skipped": [],
           "modes": {"eval": {"status": "ok", "graphs": 2}}}

    def doc(end_line):
        trace = [{"path": "/tmp/drv.py", "line": 28, "function": "Net.forward"},
                 {"path": "/x/site-packages/pkg/m.py", "line": end_line, "function": "helper"}]
        return {"diagnostics": [{"effect": "break", "path": "/tmp/drv.py", "line": 28, "certainty": "definite",
                                 "code": "GBL301", "trace": trace}], "coverage": {"functions": [], "regions": []}}

    named = score_model(rec, doc(3), "/tmp/drv.py")
    assert named["break sites"]["hit"] == 1 and named["definite"] == {"pred": 1, "hit": 1}
    assert named["shown"] == {"pred": 1, "hit": 1}
    other = score_model(rec, doc(9), "/tmp/drv.py")
    assert other["break sites"]["false"] == [("pkg/m.py", 9)] and other["definite"] == {"pred": 1, "hit": 0}
