#!/usr/bin/env python3
"""Score gblint's predictions against PyTorch's measured behaviour.

Usage: python3 scripts/score.py TRUTH.json PRED.json [--min-precision P] [--min-recall R] [--show]

For example, on the 84 example programs (PyTorch 2.13.0, Python 3.11 truth):

    gblint check --format json --python-version 3.11 tests/cases/examples > out.json
    python3 scripts/score.py tests/cases/examples/truth.json out.json --show

TRUTH.json: one of the truth files under tests/cases/ (tests/cases/README.md says which PyTorch
and Python each was measured on): {"cases": {"<case file name>": {...}}}:
  graph_breaks[].case_line   line of the case file where Dynamo reports the break
  skipped_frames[].func      frames that Dynamo gave up on and ran eagerly
  exception.user_code        "file:line" entries for a compile error (fullgraph=True,
                             error_on_graph_break(True))
PRED.json: the output of `gblint check --format json`; diagnostics are matched to cases by
the file name of their "path" (the shallowest file of that name: a helper file with the same
name in a subfolder is not the case). A diagnostic counts by its "effect":
  "break" / "skip" / "error"  a claimed break site at its line
  "skip"                      also a claimed skipped frame: the last dotted part of "frame"
  "error"                     also a claimed compile error for that case, a claimed break site at
                              each line of its "trace" in the case file (the calls on the error's
                              user stack), and a claimed skipped frame: its "frame", whose compile
                              fails, when that is the first frame of its trace (a call on the way,
                              GBL403, names the frame it is in, which is not skipped)
Other effects ("info", advice) are not scored.

A claimed break site that is not in the truth is a false positive, except a "skip"
diagnostic whose frame Dynamo really skipped (it may point at any line of that frame).
A claimed skip of a frame that Dynamo runs eagerly at no cost ("benign_skips_in_case":
no tensors in it, or a non-recursive torch.compiler.disable) is not counted either way.
Exit status: 0 when every set reaches the thresholds, 1 otherwise.
"""
import argparse
import json
import os
import re
import sys


def frame_name(name):
    """`Class.method` -> `method`; Dynamo's resume functions count as the function they resume."""
    name = (name or "").split(".")[-1]
    return re.sub(r"^torch_dynamo_resume_in_(.+)_at_\d+$", r"\1", name)


def truth_items(cases):
    """The truth as sets: (case, line) break sites, (case, frame) skipped frames, cases with a compile
    error, and (case, frame) frames Dynamo declined at no cost."""
    breaks, skips, errors, benign = set(), set(), set(), set()
    for name, c in cases.items():
        for b in c.get("benign_skips_in_case", []):
            benign.add((name, frame_name(b["co_name"])))
        for gb in c.get("graph_breaks", []):
            if gb.get("case_line"):
                breaks.add((name, gb["case_line"]))
        for sf in c.get("skipped_frames", []):
            skips.add((name, frame_name(sf["func"])))
        exc = c.get("exception")
        if exc and exc.get("user_code"):
            errors.add(name)
            for site in exc["user_code"]:
                f, _, line = site.rpartition(":")
                if os.path.basename(f) == name:
                    breaks.add((name, int(line)))
    return breaks, skips, errors, benign


def pred_items(diags, case_names):
    """gblint's diagnostics as sets: (case, line) break sites, (case, frame) skipped frames, cases
    with a compile error, and ((case, line), (case, frame)) for each "skip" diagnostic."""
    breaks, skips, errors, skip_sites = set(), set(), set(), set()
    # a case file is the shallowest file of its name: a helper of the same name in a subfolder is not the case
    depth = {}
    for d in diags:
        name = os.path.basename(d["path"])
        depth[name] = min(depth.get(name, 99), os.path.normpath(d["path"]).count(os.sep))
    for d in diags:
        name = os.path.basename(d["path"])
        if name not in case_names or os.path.normpath(d["path"]).count(os.sep) != depth[name]:
            continue
        eff = d.get("effect")
        if eff not in ("break", "skip", "error"):
            continue
        site = (name, d["line"])
        if eff == "skip":
            frame = (name, frame_name(d.get("frame")))
            skips.add(frame)
            skip_sites.add((site, frame))
        else:
            breaks.add(site)
        if eff == "error":
            errors.add(name)
            trace = d.get("trace") or []
            if not trace or trace[0].get("function") == d.get("frame"):  # the frame whose compile fails
                skips.add((name, frame_name(d.get("frame"))))
            for t in d.get("trace") or []:
                if os.path.basename(t["path"]) == name and os.path.normpath(t["path"]) == os.path.normpath(d["path"]):
                    breaks.add((name, t["line"]))
    return breaks, skips, errors, skip_sites


def compare(cases, diags):
    """The three scored sets, each as (label, truth, predicted): "break sites" ((case, line)),
    "skipped frames" ((case, frame)) and "compile errors" (case), with the rules above applied."""
    tb, ts, te, benign = truth_items(cases)
    pb, ps, pe, skip_sites = pred_items(diags, set(cases))
    # frames Dynamo runs eagerly without losing a graph (no tensors, a non-recursive disable) are neither right
    # nor wrong
    ps -= benign
    # a skip diagnostic inside a frame that really was skipped is right wherever it points
    for site, frame in skip_sites:
        if (frame in ts or frame in benign) and site not in tb:
            continue
        pb.add(site)
    return [("break sites", tb, pb), ("skipped frames", ts, ps), ("compile errors", te, pe)]


def ratio(a, b):
    """a / b, or 1.0 when b is 0 (nothing to find, nothing claimed)."""
    return a / b if b else 1.0


def main():
    """Command line: print the table (and with --show the misses and false positives); exit 1 below a threshold."""
    ap = argparse.ArgumentParser()
    ap.add_argument("truth")
    ap.add_argument("pred")
    ap.add_argument("--min-precision", type=float, default=0.0)
    ap.add_argument("--min-recall", type=float, default=0.0)
    ap.add_argument("--show", action="store_true", help="list misses and false positives")
    a = ap.parse_args()
    cases = json.load(open(a.truth))["cases"]
    try:
        pred = json.load(open(a.pred))
        diags = pred["diagnostics"] if isinstance(pred, dict) else pred
    except (ValueError, KeyError, TypeError) as e:
        sys.exit(f"{a.pred}: not gblint JSON output ({e.__class__.__name__}: {e})")
    ok = True
    rows = []
    for label, t, p in compare(cases, diags):
        tp = len(t & p)
        prec, rec = ratio(tp, len(p)), ratio(tp, len(t))
        rows.append((label, len(t), len(p), tp, prec, rec))
        if prec < a.min_precision or rec < a.min_recall:
            ok = False
        if a.show:
            for miss in sorted(t - p, key=str):
                print(f"  missed  {label}: {miss}")
            for fp in sorted(p - t, key=str):
                print(f"  false+  {label}: {fp}")
    print(f"{'set':16} {'truth':>6} {'pred':>6} {'hit':>5} {'precision':>9} {'recall':>7}")
    for label, nt, np_, tp, prec, rec in rows:
        print(f"{label:16} {nt:6d} {np_:6d} {tp:5d} {prec:9.2f} {rec:7.2f}")
    alltp = sum(r[3] for r in rows)
    allp = sum(r[2] for r in rows)
    allt = sum(r[1] for r in rows)
    print(f"overall precision {ratio(alltp, allp):.2f} recall {ratio(alltp, allt):.2f}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
