"""``gblint check --format html``: one self-contained page (inline CSS and script, nothing
fetched when it is viewed) that draws each compiled region: the call tree of the frames Dynamo
traces, coloured by predicted outcome (:mod:`gblint.dynamo.calltree`), the graph boundaries of each
frame in source order, and every diagnostic with its certainty, condition, trace, hint, fix and
rule link; a summary table on top. With ``--confirm`` the page also shows, beside each
prediction, what the runs observed (each diagnostic's status, each frame's observed graphs).

The page is rendered with Jinja2 (autoescaping on: source text and messages hold ``<``) from the
templates of ``gblint/templates/``. The tree is a flat list (one item per node, indented by its
depth) so that a region of thousands of frames stays one shallow DOM that collapses in time
linear in the nodes it hides; browsers cap element nesting, which a nested list of a deep call
chain would pass. Needs ``jinja2`` (``pip install -e ".[html]"`` in the checkout); the rest of gblint does not.
"""
from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence, TextIO, Tuple

from ..dynamo.calltree import OUTCOMES, CallNode, RegionTree, call_tree, graph_boundaries
from ..settings.config import display_path
from ..core.diagnostics import CHECKOUT, EFFECT_WORDS, GB_URL, Diagnostic
from ..project.report import Report
from .output import found_line, skip_frame, summary_counts

#: words and explanations of the outcomes, for the legend and the badges
OUTCOME_WORDS = {
    "compiled": ("compiled", "traced into one graph (inlined callees included)"),
    "pieces": ("compiled in pieces", "graph breaks split it into several graphs, or a compiled prefix and an eager tail"),
    "skipped": ("skipped", "Dynamo skips the frame: it runs eagerly"),
    "error": ("error", "a compile error (fullgraph=True or error_on_graph_break)"),
    "unresolved": ("not followed", "a call gblint could not resolve: what it runs was not analysed"),
}
#: a region tree larger than this opens with its clean subtrees folded
FOLD_ABOVE = 150

_ENV = None


class HtmlUnavailable(RuntimeError):
    """Jinja2 is not installed (``pip install -e ".[html]"`` in the checkout)."""


def environment():
    """The Jinja2 environment of the report templates (autoescaping on, undefined names an
    error). Raises :class:`HtmlUnavailable` when Jinja2 is not installed."""
    global _ENV
    if _ENV is None:
        try:
            import jinja2
        except ImportError as exc:
            raise HtmlUnavailable(f"--format html needs jinja2 ({exc}); install it in gblint's checkout "
                                  f"({CHECKOUT}) with: python3 -m pip install -e \".[html]\"") from exc
        _ENV = jinja2.Environment(loader=jinja2.PackageLoader("gblint", "templates"), autoescape=True,
                                  undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                                  keep_trailing_newline=True)
    return _ENV


def write_html(report: Report, walks: Sequence[Any], out: TextIO, confirm: Optional[Dict[str, Any]] = None,
               title: str = "gblint report") -> None:
    """Write the HTML report of ``report`` and the region walks ``walks`` (both from
    :func:`gblint.project.engine.run`) to ``out``. ``confirm`` is the ``confirm`` section of ``gblint
    check --confirm`` (:func:`gblint.runtime_check.cli.check_confirm`) or None. Raises
    :class:`HtmlUnavailable` without Jinja2."""
    out.write(render_html(report, walks, confirm, title))


def render_html(report: Report, walks: Sequence[Any], confirm: Optional[Dict[str, Any]] = None,
                title: str = "gblint report") -> str:
    """The page :func:`write_html` writes, as a string."""
    env = environment()
    return env.get_template("report.html.j2").render(**context(report, walks, confirm, title))


# ------------------------------------------------------------------ the template's data

def _key(d: Diagnostic) -> tuple:
    return (d.path, d.line, d.column, d.code, d.frame or "")


def context(report: Report, walks: Sequence[Any], confirm: Optional[Dict[str, Any]] = None,
            title: str = "gblint report") -> Dict[str, Any]:
    """The template's variables: ``regions`` (one dict each, in the order found), ``others``
    (diagnostics of no region: notes, files that do not parse), ``totals``, ``legend``,
    ``confirm`` (runs and scores, or None) and the run's ``errors``."""
    from .. import __version__
    statuses = _statuses(confirm)
    observe = _Observations(confirm) if confirm else None
    regions = []
    placed = set()
    for i, walk in enumerate(walks):
        tree = call_tree(walk)
        mine = {_key(d) for d in walk.diagnostics}
        diags = [d for d in report.diagnostics if _key(d) in mine]
        placed.update(_key(d) for d in diags)
        regions.append(_region(f"r{i + 1}", tree, diags, statuses, observe, open_=len(walks) <= 8))
    others = [_diagnostic(f"o-d{j + 1}", d, {}, statuses) for j, d in
              enumerate(d for d in report.diagnostics if _key(d) not in placed)]
    totals = {k: sum(r[k] for r in regions) for k in ("frames", "dynamo_frames", "graphs", "graphs_at_most", "breaks", "followed")}
    # a frame or a call two regions reach counts once, as the text summary and JSON count it
    totals["skipped"] = summary_counts(report, [d for d in report.diagnostics if _key(d) in placed])["skipped_frames"]
    totals["unresolved"] = len(set().union(*(r["unresolved_calls"] for r in regions)))
    totals["diagnostics"] = sum(len(r["diagnostics"]) for r in regions)
    reached = totals["followed"] + totals["unresolved"]
    totals["coverage"] = _percent(totals["followed"] / reached if reached else None)
    if observe is not None:
        for k in ("observed_graphs", "confirmed", "refuted", "not_reached"):
            totals[k] = sum(r[k] for r in regions)
    python = {f"{w.region.python_version[0]}.{w.region.python_version[1]}" for w in walks}
    return {"title": title, "version": __version__, "files_checked": report.files_checked,
            "python": ", ".join(sorted(python)), "regions": regions, "others": others, "totals": totals,
            "legend": [(k,) + OUTCOME_WORDS[k] for k in OUTCOMES], "outcome_words": OUTCOME_WORDS,
            "errors": [{"path": _path(e["path"]), "message": e["message"]} for e in report.errors],
            "confirm": _confirm_summary(confirm) if confirm else None, "hidden": report.hidden,
            "conditional_hidden": report.conditional_hidden, "summary": summary_counts(report),
            "found": found_line(summary_counts(report)) if report.diagnostics else ""}


def _path(path: Optional[str]) -> str:
    """A path as the page shows it: :func:`display_path`, and a file of an installed package
    from its package folder on (``transformers/models/bert/modeling_bert.py``)."""
    shown = display_path(path or "")
    for marker in ("/site-packages/", "/dist-packages/"):
        if marker in shown:
            return shown.rsplit(marker, 1)[1]
    return shown


def _percent(value: Optional[float]) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"


def _region(rid: str, tree: RegionTree, diags: List[Diagnostic], statuses, observe, open_: bool) -> Dict[str, Any]:
    region = tree.region
    first: Dict[Tuple[str, str], str] = {}
    for n in tree.nodes:
        if n.key is not None and n.key not in first:
            first[n.key] = f"{rid}-n{n.index}"
    by_node: Dict[str, List[str]] = {}
    rows = []
    for j, d in enumerate(diags):
        did = f"{rid}-d{j + 1}"
        row = _diagnostic(did, d, first, statuses)
        rows.append(row)
        if row["node"]:
            by_node.setdefault(row["node"], []).append(did)
    nodes = _nodes(rid, tree, by_node, {r["id"]: r for r in rows}, observe)
    entry = region.entry
    out = {"id": rid, "name": entry.name, "path": _path(entry.path), "line": entry.info.span.line,
           "spelling": region.spelling, "fullgraph": region.fullgraph,
           "nested_graph_breaks": region.nested_graph_breaks,
           "python": f"{region.python_version[0]}.{region.python_version[1]}",
           "outcome": tree.outcome, "outcome_word": OUTCOME_WORDS[tree.outcome][0], "open": open_,
           "frames": tree.frames, "dynamo_frames": tree.dynamo_frames, "graphs": tree.graphs,
           "graphs_at_most": tree.graphs_at_most, "breaks": tree.breaks,
           "skipped": len({skip_frame(d) for d in diags if d.effect == "skip"}),
           "unresolved": len(tree.unresolved_calls), "unresolved_calls": tree.unresolved_calls,
           "followed": tree.followed,
           "coverage": _percent(tree.coverage), "failed": tree.walk.region_failed,
           "nodes": nodes, "diagnostics": rows,
           "boundaries": [{"node": first.get((fr.frame.path, fr.frame.name)), "name": fr.frame.name,
                           "where": f"{_path(fr.frame.path)}:{fr.frame.info.span.line}",
                           "outcome": _report_outcome(fr), "graphs": fr.graphs,
                           "graphs_at_most": fr.graphs_at_most, "parts": _parts(fr)}
                          for fr in tree.walk.frames]}
    if observe is not None:
        out["observed_graphs"] = sum(n["observed"]["graphs"] for n in nodes if n["observed"] and not n["repeat"])
        for k in ("confirmed", "refuted", "not_reached"):
            out[k] = sum(1 for r in rows if r["status"] == k)
    return out


def _report_outcome(fr) -> str:
    return {"failed": "error", "skipped": "skipped", "tail": "pieces"}.get(
        fr.status, "pieces" if fr.splits or fr.graphs > 1 else "compiled")


def _parts(fr) -> List[Dict[str, Any]]:
    """The graph boundaries of a frame, numbered: graphs get their ordinal."""
    parts, k = [], 0
    for b in graph_boundaries(fr):
        b = dict(b)
        if b["kind"] == "graph" and b["counted"]:
            k += 1
            b["n"] = k
        parts.append(b)
    return parts


def _nodes(rid: str, tree: RegionTree, by_node, diag_rows, observe) -> List[Dict[str, Any]]:
    """The tree's rows: ids, depth, outcome, what the info panel shows, and whether the row
    starts folded or hidden (large trees open with the subtrees that hold nothing to see folded)."""
    nodes = tree.nodes
    interesting = [False] * len(nodes)  # the subtree below a node holds a non-compiled node or a diagnostic
    for n in reversed(nodes):
        here = n.outcome != "compiled" or bool(by_node.get(f"{rid}-n{n.index}"))
        if n.parent >= 0 and (here or interesting[n.index]):
            interesting[n.parent] = True
    fold = len(nodes) > FOLD_ABOVE
    rows: List[Dict[str, Any]] = []
    hidden_until = -1
    for n in nodes:
        nid = f"{rid}-n{n.index}"
        has_children = n.end > n.index
        collapsed = fold and has_children and n.depth >= 1 and not interesting[n.index]
        hidden = n.index <= hidden_until
        if collapsed and not hidden:
            hidden_until = n.end
        row = {"id": nid, "index": n.index, "depth": n.depth, "parent": n.parent, "end": n.end,
               "label": n.label, "outcome": n.outcome, "outcome_word": OUTCOME_WORDS[n.outcome][0], "how": n.how,
               "has_children": has_children, "collapsed": collapsed, "hidden": hidden,
               "repeat": n.repeat_of is not None,
               "repeat_of": f"{rid}-n{n.repeat_of}" if n.repeat_of is not None else None,
               "where": _where(n), "call_line": n.call.span.line if n.call is not None else None,
               "call_text": n.call.call_text if n.call is not None else None,
               "caller": nodes[n.parent].label if n.parent >= 0 else None,
               "graphs": n.report.graphs if n.report is not None else None,
               "graphs_at_most": n.report.graphs_at_most if n.report is not None else None,
               "splits": [{"line": line, "what": what, "sure": sure} for (line, what), sure
                          in zip(n.report.splits, n.report.split_sure)] if n.report else [],
               "reason": n.report.reason if n.report is not None else "",
               "library": [{"line": line, "text": text, "name": name} for line, text, name in n.library],
               "diagnostics": [diag_rows[d] for d in by_node.get(nid, [])],
               "observed": observe.frame(n) if observe is not None and n.frame is not None else None}
        rows.append(row)
    return rows


def _where(n: CallNode) -> str:
    if n.frame is not None:
        return f"{_path(n.frame.path)}:{n.frame.info.span.line}"
    return ""


def _diagnostic(did: str, d: Diagnostic, first: Dict[Tuple[str, str], str], statuses) -> Dict[str, Any]:
    paying = (d.trace[0].path if d.trace else d.path, d.frame or "")
    status, why = statuses.get((_norm(d.path), d.line, d.code), (None, "")) if d.effect != "info" else (None, "")
    if statuses and d.effect != "info" and status is None:
        status, why = "not_reached", "no run reached it"
    fix = None
    if d.fix is not None:
        fix = {"title": d.fix.title, "applicability": d.fix.applicability,
               "edits": [{"at": f"{e.line}:{e.column}-{e.end_line}:{e.end_column}", "text": e.text}
                         for e in d.fix.edits]}
    return {"id": did, "code": d.code, "name": d.name, "effect": d.effect,
            "effect_word": EFFECT_WORDS.get(d.effect, d.effect), "path": _path(d.path), "line": d.line,
            "column": d.column, "message": d.message, "frame": d.frame, "node": first.get(paying),
            "certainty": d.certainty, "condition": d.condition, "hint": d.hint, "url": d.url,
            "rule_url": d.rule_url,
            "gb": [{"id": g, "url": GB_URL.format(g.lower())} for g in d.gb_ids],
            "trace": [{"function": t.function, "line": t.line, "path": _path(t.path),
                       "node": first.get((t.path, t.function))} for t in d.trace],
            "fix": fix, "status": status, "why": why}


# ------------------------------------------------------------------ --confirm

def _norm(path: Optional[str]) -> str:
    return os.path.realpath(os.path.abspath(path)) if path else ""


def _statuses(confirm: Optional[Dict[str, Any]]) -> Dict[Tuple[str, int, str], Tuple[str, str]]:
    """(path, line, code) -> (status, why) of the confirm section's matches."""
    if not confirm:
        return {}
    return {(_norm(m["path"]), m["line"], m["code"]): (m["status"], m.get("why", ""))
            for m in confirm.get("matches", [])}


def _confirm_summary(confirm: Dict[str, Any]) -> Dict[str, Any]:
    counts = confirm.get("counts") or {}
    runs = [{"entry": r.get("entry"), "backend": r.get("backend"), "device": r.get("device"),
             "status": r.get("status"), "graphs": r.get("graph_count", 0), "breaks": len(r.get("breaks") or ()),
             "skipped": len(r.get("skipped_frames") or ()), "seconds": r.get("seconds") or 0.0,
             "message": r.get("message") or (r.get("exception") or {}).get("message") or ""}
            for r in confirm.get("runs", [])]
    return {"runs": runs, "precision": confirm.get("precision"), "recall": confirm.get("recall"),
            "confirmed": counts.get("confirmed", 0), "refuted": counts.get("refuted", 0),
            "not_reached": counts.get("not_reached", 0), "observed": counts.get("observed", 0),
            "missed": [{"path": _path(m.get("path")), "line": m.get("line"), "gb_id": m.get("gb_id"),
                        "outcome": m.get("outcome"), "function": m.get("function")}
                       for m in confirm.get("missed", [])],
            "unrunnable": [{"entry": u.get("entry"), "reason": u.get("reason")}
                           for u in confirm.get("unrunnable", [])],
            "nothing_ran": confirm.get("nothing_ran"), "incomplete": confirm.get("incomplete"),
            "build": {k: v for k, v in (confirm.get("build") or {}).items() if k != "runs"} or None}


class _Observations:
    """What the runs of a confirm section observed per static frame: the graphs of the code
    objects Dynamo compiled for it (its resume functions included), whether it was skipped or
    failed to compile, or whether its lines only appear inlined in other frames' graphs. Frames
    are matched by file, code name and first line (:func:`gblint.runtime_check.matching.same_frame`)."""

    def __init__(self, confirm: Dict[str, Any]):
        self.runs = confirm.get("runs", [])

    def frame(self, node: CallNode) -> Dict[str, Any]:
        """``{"outcome", "word", "graphs", "agrees"}`` for a frame node."""
        from ..runtime_check.matching import frame_defs, same_frame
        from ..runtime_check.observer import resume_target
        frame = node.frame
        path = _norm(frame.path)
        defs = [fd for fd in frame_defs(path) if fd.qualname == frame.name]
        line = frame.info.span.line
        fd = min(defs, key=lambda f: min(abs(f.line - line), abs(f.first - line))) if defs else None
        graphs = seen = 0
        skipped = error = inlined = False
        if fd is not None:
            for run in self.runs:
                ids = set()
                for rec in run.get("frames") or ():
                    code = rec.get("function") or ""
                    obs = {"path": rec.get("path"), "code_name": code, "first_line": rec.get("line"),
                           "resume_at": resume_target(code)[1]}
                    if same_frame(obs, fd):
                        seen += 1
                        ids.add(rec.get("compile_id"))
                graphs += sum(1 for g in run.get("graphs") or () if g.get("compile_id") in ids)
                skipped |= any(same_frame(s, fd) for s in run.get("skipped_frames") or ())
                for e in list(run.get("compile_errors") or ()) + ([run["error"]] if run.get("error") else []):
                    code = e.get("function") or ""
                    obs = {"path": e.get("frame_path"), "code_name": code, "first_line": e.get("first_line"),
                           "resume_at": resume_target(code)[1]}
                    error |= bool(e.get("frame_path")) and same_frame(obs, fd)
                inlined |= any(_norm(ln.get("path")) == path and fd.first <= (ln.get("line") or 0) <= fd.end
                               for g in run.get("graphs") or () for ln in g.get("lines") or ())
        if error:
            outcome = "error"
        elif skipped:
            outcome = "skipped"
        elif graphs > 1:
            outcome = "pieces"
        elif graphs == 1 or seen:
            outcome = "compiled"
        elif inlined:
            outcome = "inlined"
        else:
            outcome = "not_reached"
        words = {"inlined": "traced inline into a caller's graph", "not_reached": "not reached by the runs"}
        word = words.get(outcome) or OUTCOME_WORDS[outcome][0]
        like = "compiled" if outcome == "inlined" else outcome
        return {"outcome": outcome, "word": word, "graphs": graphs,
                "agrees": None if outcome == "not_reached" else like == node.outcome}
