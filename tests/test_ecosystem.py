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
    """Every gated model has a measured truth record, and the gate covers every package."""
    spec = gate.load()
    assert len(spec["models"]) >= 12
    from measure import load_truth
    from spec import PACKAGES
    packages = {m.split("/")[0] for m in spec["models"]}
    assert packages == set(PACKAGES)
    for m in spec["models"]:
        package, name = m.split("/", 1)
        assert load_truth(package)["models"][name]["status"] == "measured", m


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
    figures = {"reach": 0.5, "sets": {"break sites": {"precision": 1.0, "recall": 0.5}}}
    lower = json.loads(json.dumps(figures))
    lower["sets"]["break sites"]["recall"] = 0.25
    assert gate.drops(figures, lower) == ["break sites recall: 0.25 < 0.5"]
    assert gate.drops(figures, figures) == []


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
    from gblint.fs import package_dir
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
                       "shown": {"pred": 1, "hit": 1},
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
    assert merge([a, a], str(tmp_path / "out2"), readme=False, quiet=True) == 2
    assert merge([str(tmp_path / "missing")], str(tmp_path / "out3"), readme=False, quiet=True) == 2
    assert "already merged" in capsys.readouterr().err
