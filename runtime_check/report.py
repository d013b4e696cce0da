"""Render confirm results: the JSON document and the text table (no torch import)."""
from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence, TextIO


def _rel(path: Optional[str]) -> str:
    if not path:
        return "?"
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith(".." + os.sep + "..") else rel


def document(runs: Sequence[Dict[str, Any]], result: Dict[str, Any], unrunnable: Sequence[Any] = ()) -> Dict[str, Any]:
    """The ``gblint confirm --format json`` document (version 1; fields are only added)."""
    doc = {"version": 1, "runs": list(runs), "matches": result["matches"], "missed": result["missed"],
           "precision": result["precision"], "recall": result["recall"], "counts": result["counts"],
           "observations": result.get("observations", [])}
    doc["unrunnable"] = [u.to_json() if hasattr(u, "to_json") else u for u in unrunnable]
    return doc


def per_file_rows(runs: Sequence[Dict[str, Any]], result: Dict[str, Any], files: Sequence[str]) -> List[Dict[str, Any]]:
    """One row per checked file: predicted (diagnostics with a cost), observed (break sites,
    skipped frames, compile errors), confirmed, refuted, not reached, missed, and the status of
    the runs of that file."""
    from .matching import norm
    rows: Dict[str, Dict[str, Any]] = {}
    for f in files:
        rows[norm(f)] = {"path": f, "predicted": 0, "observed": 0, "confirmed": 0, "refuted": 0,
                         "not_reached": 0, "missed": 0, "runs": []}
    for m in result["matches"]:
        row = rows.get(norm(m["path"]))
        if row is not None:
            row["predicted"] += 1
            row[m["status"]] += 1
    for it in result.get("observations", []):
        row = rows.get(norm(it["path"]))
        if row is not None:
            row["observed"] += 1
            if not it["explained"]:
                row["missed"] += 1
    for run in runs:
        row = rows.get(norm(run.get("file")))
        if row is not None:
            row["runs"].append(run.get("status", "?"))
    out = []
    for row in rows.values():
        bad = [s for s in row["runs"] if s not in ("ok", "error")]
        if bad:
            row["status"] = ",".join(sorted(set(bad)))
        elif row["refuted"] or row["missed"]:
            row["status"] = "mismatch"
        elif row["predicted"] and row["not_reached"] == row["predicted"]:
            row["status"] = "not reached"
        else:
            row["status"] = "agree"
        out.append(row)
    return out


def write_table(rows: Sequence[Dict[str, Any]], result: Dict[str, Any], out: TextIO) -> None:
    """Per-file table, then totals with precision and recall."""
    names = [os.path.basename(r["path"]) for r in rows]
    width = max([len("file")] + [len(n) for n in names])
    width = min(width, 60)
    head = (f"{'file':<{width}} {'predicted':>9} {'observed':>8} {'confirmed':>9} {'refuted':>7} "
            f"{'not_reached':>11} {'missed':>6}  status")
    out.write(head + "\n")
    for name, r in zip(names, rows):
        out.write(f"{name[:width]:<{width}} {r['predicted']:>9} {r['observed']:>8} {r['confirmed']:>9} "
                  f"{r['refuted']:>7} {r['not_reached']:>11} {r['missed']:>6}  {r['status']}\n")
    tot = {k: sum(r[k] for r in rows) for k in ("predicted", "observed", "confirmed", "refuted", "not_reached", "missed")}
    out.write(f"{'total':<{width}} {tot['predicted']:>9} {tot['observed']:>8} {tot['confirmed']:>9} "
              f"{tot['refuted']:>7} {tot['not_reached']:>11} {tot['missed']:>6}\n")
    out.write(f"precision {result['precision']:.3f} (confirmed / (confirmed + refuted)), "
              f"recall {result['recall']:.3f} (observations predicted / observations)\n")


def write_text(runs: Sequence[Dict[str, Any]], result: Dict[str, Any], files: Sequence[str], out: TextIO,
               unrunnable: Sequence[Any] = (), verbose: bool = False) -> None:
    """The text report: each run (what Dynamo did), each diagnostic's status, what was missed,
    regions that could not run, then the per-file table."""
    for run in runs:
        status = run.get("status")
        line = (f"run {run['entry']} [{run['backend']}, {run['device']}]: {status}, {run['graph_count']} graph(s), "
                f"{len(run['breaks'])} break site(s), {len(run['skipped_frames'])} skipped frame(s), "
                f"{run['seconds']:.2f} s")
        out.write(line + "\n")
        if status not in ("ok", "error"):
            msg = run.get("message") or (run.get("exception") or {}).get("message") or ""
            if status == "failed" and run.get("output_tail"):
                msg = f"{msg}: {run['output_tail'].strip().splitlines()[-1]}"
            if status in ("timeout", "crashed", "exited"):
                msg = f"{msg} (time limit {run.get('time_limit', 0):g} s)"
            if run.get("exception"):
                e = run["exception"]
                msg = f"{e.get('type')}: {e.get('message')} at {_rel(e.get('path'))}:{e.get('line')}"
            out.write(f"    {status}: {msg}\n")
        if verbose or len(runs) == 1:
            for g in run["graphs"]:
                gen = f", codegen {g['codegen']}" if g.get("codegen") else ""
                out.write(f"    graph {g.get('compile_id')}: {g['ops']} op(s){gen}\n")
            for b in run["breaks"]:
                out.write(f"    break {_rel(b['path'])}:{b['line']} in {b['function']}: {b['gb_id'] or '?'} "
                          f"{b['gb_type']} -> {b['outcome']}\n")
            for s in run["skipped_frames"]:
                out.write(f"    skipped frame {s['function']} ({_rel(s['path'])}:{s['line']}): "
                          f"{s.get('gb_id') or '?'} {s.get('reason')}\n")
            for r in run["recompiles"]:
                out.write(f"    recompile {r['function']} ({_rel(r['path'])}:{r['line']}): {r['guard']}\n")
        if run.get("error"):
            e = run["error"]
            out.write(f"    compile error {e.get('type')} {e.get('gb_id') or ''} at {_rel(e.get('path'))}:"
                      f"{e.get('line')}: {e.get('message')}\n")
    shown = [m for m in result["matches"] if verbose or len(runs) == 1 or m["status"] != "confirmed"]
    for m in shown:
        out.write(f"{_rel(m['path'])}:{m['line']}: {m['code']} [{m['effect']}] {m['status']}: {m['why']}\n")
    for m in result["missed"]:
        what = f"frame `{m['function']}` skipped" if m.get("function") else m["outcome"]
        out.write(f"{_rel(m['path'])}:{m['line']}: missed: {what} ({m.get('gb_id') or '?'})\n")
    for u in unrunnable:
        u = u.to_json() if hasattr(u, "to_json") else u
        out.write(f"{_rel(u['path'])}: not run: {u['entry']}: {u['reason']}\n")
    out.write("\n")
    write_table(per_file_rows(runs, result, files), result, out)
