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
