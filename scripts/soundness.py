"""The long run of issue 38's soundness test: generated programs under Dynamo against gblint's definite diagnostics.

Usage:
    python3 scripts/soundness.py --count 10000                  # 10,000 programs, summary to soundness-summary.json
    python3 scripts/soundness.py --count 500 --seed 3 --workers 2 -o /tmp/s.json
    python3 scripts/soundness.py --spec "Spec(kind='int', form='while')"   # one program: source, diagnostics, run

Each program is drawn by ``tests.soundness.generator.specs`` (hypothesis, seeded by ``--seed``), checked by gblint
(torch 2.13.0, Python 3.11) and run by a warm child per worker (``tests.soundness.runner``: many programs per
child, ``torch._dynamo.reset()`` between them, each killed after ``--timeout`` seconds). Every definite
break/skip/error diagnostic must match what Dynamo did; a wrong one is matched against the known fault kinds
of ``tests.soundness.known.KNOWN`` (by its predicate) or counted as new.

The summary (JSON) holds: the count, seed, wall time and seconds per program; programs that timed out, crashed
or raised; per known kind the number of programs with it and the smallest; every program with a new wrong
definite diagnostic (spec, source, diagnostics, observation); the wrong GB ids; the misses (breaks, skips and
errors gblint did not report) per value kind, arrival and form: programs, those where Dynamo broke (a break,
skipped frame or compile error) and those with a miss. Exit status 1 when
a program has a wrong definite diagnostic of no known kind, timed out, crashed or raised, else 0.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import shutil
import sys
import tempfile
import time
from typing import Any, Dict, List, Sequence, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tests.soundness.generator import Spec, draw_specs, render  # noqa: E402
from tests.soundness.known import classify  # noqa: E402
from tests.soundness.runner import Child, check_program  # noqa: E402


def run_shard(items: Sequence[Tuple[int, str]], timeout: float) -> List[Dict[str, Any]]:
    """Run the programs ``items`` (index, ``Spec.python()`` text) in one warm child; returns one result per
    program (:func:`tests.soundness.runner.check_program`, plus ``spec`` and ``kinds``)."""
    out = []
    folder = tempfile.mkdtemp(prefix="gblint-soundness-")
    try:
        with Child(timeout=timeout) as child:
            for index, text in items:
                spec = eval(text, {"Spec": Spec})  # noqa: S307 - our own Spec(...) text
                result = check_program(child, folder, index, render(spec))
                result["spec"] = text
                result["kinds"], result["new"] = classify(spec, result)
                out.append(result)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return out


def run_all(specs: Sequence[Spec], workers: int, timeout: float) -> List[Dict[str, Any]]:
    """Every spec's result, in order, run on ``workers`` processes (each with its own child)."""
    items = [(i, s.python()) for i, s in enumerate(specs)]
    if workers <= 1:
        return run_shard(items, timeout)
    shards = [items[k::workers] for k in range(workers)]
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers) as pool:
        parts = list(pool.map(run_shard, shards, [timeout] * workers))
    return sorted((r for part in parts for r in part), key=lambda r: r["name"])


def _size(text: str) -> Tuple[int, int]:
    spec = eval(text, {"Spec": Spec})  # noqa: S307
    return (len(render(spec).splitlines()), len(text))


def summarize(results: Sequence[Dict[str, Any]], seed: int, seconds: float) -> Dict[str, Any]:
    """The summary document (module docstring)."""
    failed = [r for r in results if "breaks" not in r["observation"] or r["observation"].get("exception")]
    kinds: Dict[str, List[str]] = collections.defaultdict(list)
    for r in results:
        for k in r["kinds"]:
            kinds[k].append(r["spec"])
    new = [r for r in results if r["new"]]
    missed: Dict[str, Dict[str, Dict[str, int]]] = {"by kind": {}, "by arrival": {}, "by form": {}}
    for r in results:
        spec = eval(r["spec"], {"Spec": Spec})  # noqa: S307
        obs = r["observation"]
        broke = bool(obs.get("breaks") or obs.get("skipped_frames") or obs.get("errors"))
        for table, key in (("by kind", spec.kind), ("by arrival", spec.arrival), ("by form", spec.form)):
            row = missed[table].setdefault(key, {"programs": 0, "dynamo_broke": 0, "with_a_miss": 0})
            row["programs"] += 1
            row["dynamo_broke"] += broke
            row["with_a_miss"] += bool(r["missed"])
    run_seconds = [r["seconds"] for r in results]

    def source(r):
        return render(eval(r["spec"], {"Spec": Spec}))  # noqa: S307
    return {
        "count": len(results), "seed": seed, "wall_seconds": round(seconds, 1),
        "run_seconds_per_program": round(sum(run_seconds) / max(len(run_seconds), 1), 4),
        "wall_seconds_per_program": round(seconds / max(len(results), 1), 4),
        "programs_with_a_wrong_definite": sum(1 for r in results if r["wrong"]),
        "programs_with_a_miss": sum(1 for r in results if r["missed"]),
        "known_kinds": {k: {"programs": len(v), "smallest": min(v, key=_size)} for k, v in sorted(kinds.items())},
        "new_wrong_definite": [{"spec": r["spec"], "wrong": r["wrong"], "source": source(r),
                                "diagnostics": [(d["line"], d["code"], d["effect"], d["certainty"]) for d in
                                                r["diagnostics"]], "observation": r["observation"]} for r in new],
        "wrong_gb_ids": [{"spec": r["spec"], "gb_ids": r["wrong_gb_ids"]} for r in results if r["wrong_gb_ids"]],
        "failed_runs": [{"spec": r["spec"], "observation": r["observation"]} for r in failed],
        "missed": missed,
    }


def show(text: str) -> int:
    """Print one program's source, gblint's diagnostics, what Dynamo did and the verdict."""
    spec = eval(text, {"Spec": Spec})  # noqa: S307
    result = run_shard([(0, spec.python())], 60.0)[0]
    source = render(spec)
    print("\n".join(f"{i + 1:3} {line}" for i, line in enumerate(source.splitlines())))
    for d in result["diagnostics"]:
        print(f"gblint: {d['line']} {d['code']} {d['effect']} {d['certainty']} {d['message']}")
    obs = result["observation"]
    print("dynamo: breaks", [(b["line"], b["gb_id"], b["outcome"]) for b in obs.get("breaks", [])],
          "skipped", [(s["function"], s["line"], s["gb_id"]) for s in obs.get("skipped_frames", [])],
          "errors", [(e["function"], e["lines"], e["gb_id"]) for e in obs.get("errors", [])],
          "exception", obs.get("exception"), "graphs", obs.get("graphs"))
    print("wrong definite:", result["wrong"], "known kinds:", result["kinds"], "missed:", result["missed"])
    return 0


def main(argv: Sequence[str] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=1000, help="programs to generate and run (default 1000)")
    ap.add_argument("--seed", type=int, default=0, help="hypothesis seed of the generator (default 0)")
    ap.add_argument("--workers", type=int, default=2, help="processes, each with its own child (default 2)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds one program may run (default 60)")
    ap.add_argument("-o", "--output", default="soundness-summary.json", help="summary file (JSON)")
    ap.add_argument("--spec", help="run this one Spec(...) and print everything about it")
    a = ap.parse_args(argv)
    if a.spec:
        return show(a.spec)
    start = time.perf_counter()
    specs = draw_specs(a.count, a.seed)
    generated = time.perf_counter() - start
    results = run_all(specs, a.workers, a.timeout)
    doc = summarize(results, a.seed, time.perf_counter() - start)
    doc["generation_seconds"] = round(generated, 1)
    with open(a.output, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    print(f"{doc['count']} programs in {doc['wall_seconds']} s ({doc['wall_seconds_per_program']} s each on "
          f"{a.workers} workers; Dynamo run {doc['run_seconds_per_program']} s each); "
          f"{doc['programs_with_a_wrong_definite']} with a wrong definite diagnostic, "
          f"{len(doc['new_wrong_definite'])} of no known kind; {len(doc['failed_runs'])} failed runs; "
          f"{doc['programs_with_a_miss']} with a miss. Summary: {a.output}")
    for k, v in doc["known_kinds"].items():
        print(f"  known {k}: {v['programs']} programs, smallest {v['smallest']}")
    for r in doc["new_wrong_definite"][:20]:
        print(f"  NEW {r['spec']}: {r['wrong']}")
    return 1 if doc["new_wrong_definite"] or doc["failed_runs"] else 0


if __name__ == "__main__":
    sys.exit(main())
