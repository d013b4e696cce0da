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


def reached_dynamo(run: Dict[str, Any]) -> bool:
    """Whether anything of ``run`` got to ``torch.compile``: Dynamo tried to compile a frame
    (``dynamo_frames``), or a graph, break, skipped or declined frame, recompile or compile
    error was observed."""
    keys = ("graphs", "breaks", "skipped_frames", "frames", "declined_frames", "recompiles", "compile_errors")
    return bool(run.get("dynamo_frames") or run.get("error") or any(run.get(k) for k in keys))


def _one_line(text: Any) -> str:
    return " ".join(str(text or "").split())


def _run_reason(run: Dict[str, Any]) -> str:
    status = run.get("status") or "?"
    exc = run.get("exception") or {}
    if run.get("message"):
        why = run["message"]
    elif exc:
        why = f"{exc.get('type')}: {exc.get('message')}"
    elif status == "ok":
        why = "it ran, but Dynamo compiled no frame"
    else:
        why = status
    return f"{run.get('entry')}: {status}: {why}"


def nothing_ran(runs: Sequence[Dict[str, Any]], unrunnable: Sequence[Any] = ()) -> Optional[str]:
    """``None`` when at least one run got to ``torch.compile`` (:func:`reached_dynamo`);
    otherwise why nothing could be measured, in one line: the first failure that stopped the
    runs before anything was compiled (a child that could not start or import torch, an
    unknown backend, a region needing inputs, an import error), or that no region could be
    run at all.

    A run the user's code ended itself (``timeout``, ``crashed``, ``exited``) is a reported
    outcome, not "nothing ran" (the contract of ``gblint confirm``: whatever the user's code
    did is reported, exit 0); the scores are still ``None`` when it compiled nothing."""
    if any(reached_dynamo(r) or r.get("status") in ("timeout", "crashed", "exited") for r in runs):
        return None
    if not runs:
        items = [u.to_json() if hasattr(u, "to_json") else u for u in unrunnable]
        if not items:
            return ("nothing to run: no main() and no compiled region found (to observe a program: "
                    "gblint confirm --run -- python FILE)")
        more = f" (and {len(items) - 1} more)" if len(items) > 1 else ""
        return _one_line(f"no compiled region could be run: {items[0]['entry']}: {items[0]['reason']}{more}")
    order = ("failed", "import_error", "needs_inputs", "exception", "error", "ok")
    worst = min(runs, key=lambda r: order.index(r.get("status")) if r.get("status") in order else len(order))
    lead = "no run got to torch.compile" if len(runs) > 1 else "the run never got to torch.compile"
    if worst.get("status") == "failed":  # the same cause for every run of that child: say it once
        return _one_line(worst.get("message") or _run_reason(worst))
    return _one_line(f"{lead}; {_run_reason(worst)}")


#: run statuses that mean the run did not finish: what it observed is kept, but it is not the
#: whole run, so no score is given and the command fails (exit 2)
INCOMPLETE = ("timeout", "crashed")


def incomplete(runs: Sequence[Dict[str, Any]]) -> Optional[str]:
    """``None`` when every run finished; otherwise why the runs are incomplete, in one line:
    each run that timed out (did not finish within its time limit) or crashed (killed by a
    signal), with its limit. Its observations are kept and matched, but precision and recall
    are not given (:func:`document` makes them ``null``): they would describe part of a run as
    if it were the whole."""
    bad = [r for r in runs if r.get("status") in INCOMPLETE]
    if not bad:
        return None
    parts = []
    for r in bad[:3]:
        why = r.get("message") or r.get("status")
        if "time limit" not in why:
            why = f"{why} (time limit {r.get('time_limit', 0):g} s)"
        parts.append(f"{r.get('entry')}: {r.get('status')}: {why}")
    more = f" (and {len(bad) - 3} more)" if len(bad) > 3 else ""
    return _one_line(f"{len(bad)} of {len(runs)} run(s) did not finish, so what was observed is only part of "
                     f"the run and no precision or recall is given; " + "; ".join(parts) + more)


def _ratio(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def document(runs: Sequence[Dict[str, Any]], result: Dict[str, Any], unrunnable: Sequence[Any] = (),
             build: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The ``gblint confirm --format json`` document (version 1; fields are only added).
    ``precision``/``recall`` are ``null`` when there was nothing to measure or a run did not
    finish; ``nothing_ran`` is the reason (one line) when no run got to ``torch.compile``
    (:func:`nothing_ran`), else ``null``; ``incomplete`` the reason when a run timed out or
    crashed (:func:`incomplete`), else ``null``; ``build`` the build stage's result under a
    build backend (:func:`.stages.build_summary`: the runs are then the eager breaks stage's), else
    ``null``."""
    partial = incomplete(runs)
    doc = {"version": 1, "runs": list(runs), "matches": result["matches"], "missed": result["missed"],
           "precision": None if partial else result["precision"], "recall": None if partial else result["recall"],
           "counts": result["counts"], "observations": result.get("observations", [])}
    doc["unrunnable"] = [u.to_json() if hasattr(u, "to_json") else u for u in unrunnable]
    doc["nothing_ran"] = nothing_ran(runs, unrunnable)
    doc["incomplete"] = partial
    doc["build"] = build
    return doc


def per_file_rows(runs: Sequence[Dict[str, Any]], result: Dict[str, Any], files: Sequence[str]) -> List[Dict[str, Any]]:
    """One row per checked file, and per other file where something was observed (a package's
    module the check did not read): predicted (diagnostics with a cost), observed (break sites,
    skipped frames, compile errors), confirmed, refuted, not reached, missed, and the status of
    the runs of that file."""
    from .matching import norm
    rows: Dict[str, Dict[str, Any]] = {}
    def new_row(path: str) -> Dict[str, Any]:
        return {"path": path, "predicted": 0, "observed": 0, "confirmed": 0, "refuted": 0,
                "not_reached": 0, "missed": 0, "runs": []}
    for f in files:
        rows[norm(f)] = new_row(f)
    for it in result.get("observations", []):  # a file the check did not read (a package's module): its own row
        if it.get("path") and norm(it["path"]) not in rows:
            rows[norm(it["path"])] = new_row(it["path"])
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
    partial = result.get("incomplete")
    if partial:
        out.write(f"precision n/a, recall n/a: the run was incomplete ({partial}); the counts above are only "
                  f"what was observed before it ended\n")
        return
    out.write(f"precision {_ratio(result['precision'])} (confirmed / (confirmed + refuted)), "
              f"recall {_ratio(result['recall'])} (observations predicted / observations)\n")


def write_text(runs: Sequence[Dict[str, Any]], result: Dict[str, Any], files: Sequence[str], out: TextIO,
               unrunnable: Sequence[Any] = (), verbose: bool = False, build: Optional[Dict[str, Any]] = None) -> None:
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
            if status == "failed" and run.get("output_tail", "").strip():
                last = run["output_tail"].strip().splitlines()[-1].strip()
                if last not in msg:
                    msg = f"{msg}: {last}"
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
        for e in run.get("compile_errors") or ():
            if e.get("caught"):
                out.write(f"    compile error {e.get('type')} {e.get('gb_id') or ''} at {_rel(e.get('path'))}:"
                          f"{e.get('line')}, caught by the caller: {e.get('message')}\n")
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
    write_table(per_file_rows(runs, result, files), dict(result, incomplete=incomplete(runs)), out)
    write_build(build, out)


def build_problem(build: Optional[Dict[str, Any]]) -> Optional[str]:
    """Why the build stage is incomplete (timed out, crashed, not run), else None."""
    if not build or build["status"] in ("ok", "error", "exception", "exited"):
        return None
    return f"the {build['backend']} build {build['status']}: {build.get('message') or build['status']}"


def write_build(build: Optional[Dict[str, Any]], out) -> None:
    """The build stage's line of the text report (nothing when there was no build stage; see
    :mod:`.stages`)."""
    if not build:
        return
    head = f"build [{build['backend']}, {build['device']}]: {build['status']}"
    if build["status"] == "not_run":
        out.write(f"{head}: {build['message']}\n")
        return
    gens = ", ".join(build["codegen"]) or "no generated code"
    out.write(f"{head}, {build['kernels']} kernel(s) in {build['compiled_graphs']} of {build['graphs']} graph(s) "
              f"({gens}), {build['seconds']:.2f} s (time limit {build['time_limit']:g} s)\n")
    if build_problem(build):
        out.write(f"    {build['message']}\n    the breaks above are complete: they were found with the eager "
                  f"backend before the build\n")
