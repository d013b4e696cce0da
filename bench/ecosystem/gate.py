#!/usr/bin/env python3
"""The regression gate over a sample of measured models (``gate.json``), run by
``tests/test_ecosystem.py`` in CI.

    python bench/ecosystem/gate.py           # score the gated models, compare, exit 1 on a drop
    python bench/ecosystem/gate.py --write   # store the current figures as the new floor

The models are chosen to cover every package installed by the test dependencies and the kinds of
break the truth holds, from both halves of the harness (``spec.half``); the figures are pooled
per half (drivers as users write them): reach, precision and recall of each set (break sites,
skipped frames, compile errors), the precision of what gblint says is definite and of what its
default output shows, the default output's recall, the share of breaking drivers that do not
get a false all-clear (the default output shows at least one of their breaks) and the share on which
it does not print "All checks passed". A drop in either half fails.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
from typing import Any, Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)
GATE = os.path.join(HERE, "gate.json")


def load() -> Dict[str, Any]:
    with open(GATE, encoding="utf-8") as fh:
        return json.load(fh)


def missing_packages(spec: Dict[str, Any]) -> List[str]:
    """Follow targets of the gated packages, and the modules installed beside them when their
    truth was measured (``beside``), that are not installed."""
    from spec import PACKAGES
    out = []
    for package in sorted({m.split("/")[0] for m in spec["models"]}):
        for mod in PACKAGES[package]["follow"] + PACKAGES[package].get("beside", []):
            if importlib.util.find_spec(mod) is None:
                out.append(mod)
    return out


def measure_gate(spec: Dict[str, Any], out_dir: str) -> Dict[str, Any]:
    """Score the gated models; return ``{HALF: {"reach", "definite precision", "default precision",
    "default recall", "no false all-clear", "no false 'All checks passed'", "sets": {SET: {"precision", "recall"}}}}``."""
    from score import HALVES, SETS, ratio, score
    packages = sorted({m.split("/")[0] for m in spec["models"]})
    status = score(packages, 2, out_dir, set(spec["models"]), readme=False, quiet=True, views=("driver",),
                   cache=None)
    if status:
        raise RuntimeError(f"scoring failed with status {status}")
    with open(os.path.join(out_dir, "results.json"), encoding="utf-8") as fh:
        results = json.load(fh)

    def figures(o):
        sure = o.get("definite") or {"pred": 0, "hit": 0}
        shown = o.get("shown") or {"pred": 0, "hit": 0}
        drivers = o["drivers"]
        truth = sum(o["sets"][s]["truth"] for s in SETS)
        return {"reach": o["reach"], "definite precision": ratio(sure["hit"], sure["pred"]),
                "default precision": ratio(shown["hit"], shown["pred"]),
                "default recall": ratio(shown["hit"], truth),
                "no false all-clear": ratio(drivers["breaking"] - drivers["false_all_clear"], drivers["breaking"]),
                "no false 'All checks passed'": ratio(drivers["breaking"] - drivers["false_passed"], drivers["breaking"]),
                "sets": {s: {"precision": ratio(o["sets"][s]["hit"], o["sets"][s]["pred"]),
                             "recall": ratio(o["sets"][s]["hit"], o["sets"][s]["truth"])} for s in SETS}}

    return {h: figures(results["overall"]["halves"][h]) for h in HALVES}


def drops(floor: Dict[str, Any], got: Dict[str, Any]) -> List[str]:
    """Every figure of ``got`` below ``floor``, as ``"NAME: got < floor"`` lines; groups (halves,
    such as ``dev`` and ``test``) are compared one by one, prefixed with their name."""
    if "reach" not in floor:
        return [f"{group}: {line}" for group in sorted(floor) for line in drops(floor[group], got.get(group, {}))]
    out = []
    for key in ("reach", "definite precision", "default precision", "default recall", "no false all-clear"):
        if key in floor and got.get(key, 0) < floor[key] - 1e-9:
            out.append(f"{key}: {got.get(key)} < {floor[key]}")
    for label, want in floor.get("sets", {}).items():
        for key, value in want.items():
            have = got.get("sets", {}).get(label, {}).get(key, 0)
            if have < value - 1e-9:
                out.append(f"{label} {key}: {have} < {value}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", action="store_true", help="store the current figures as the new floor")
    a = ap.parse_args(argv)
    spec = load()
    missing = missing_packages(spec)
    if missing:
        print(f"gate.py: not installed: {', '.join(missing)} (pip install -e '.[bench]')", file=sys.stderr)
        return 2
    got = measure_gate(spec, tempfile.mkdtemp(prefix="gblint-gate-"))
    print(json.dumps(got, indent=2, sort_keys=True))
    if a.write:
        spec["figures"] = got
        with open(GATE, "w", encoding="utf-8") as fh:
            json.dump(spec, fh, indent=2, sort_keys=True)
            fh.write("\n")
        return 0
    bad = drops(spec["figures"], got)
    for line in bad:
        print(f"gate.py: dropped: {line}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
