"""Report formats: ``text`` (ruff-like, one diagnostic a few lines) and ``json`` (documented
in README.md, read by the evaluation tools)."""
from __future__ import annotations

import collections
import json
import os
from typing import TextIO

from ..settings.config import display_path
from ..core.diagnostics import EFFECT_WORDS as EFFECT_LABEL
from ..core.diagnostics import CHECKOUT, rule_path
from ..project.report import Report

EFFECT_PLURAL = {"break": "graph breaks", "skip": "frames skipped", "error": "compile errors", "info": "notes",
                 "via": "calls leading to a compile error"}
#: a call on the way to a compile error is counted apart: the error it leads to is counted once
_COUNTED_APART = {"GBL403": "via"}
COLORS = {"break": "33", "skip": "31", "error": "1;31", "info": "36"}


def write_text(report: Report, out: TextIO, color: bool = False, show_hints: bool = True,
               quiet: bool = False, show_source: bool = False) -> None:
    """The report as text, as ruff and flake8 print it: one line per diagnostic
    (``path:line:col: CODE [*] message``, ``[*]`` on a diagnostic ``gblint fix`` fixes), then a
    summary with the counts of fixable diagnostics. "All checks passed" only when the analysis
    was complete (:attr:`gblint.project.engine.Report.complete`); otherwise the summary says what was not
    checked: no compiled region (:func:`no_region_line`), the calls not followed
    (:func:`unfollowed_text`). Paths print relative to the working
    directory. ``show_source`` (``--show-source``) adds, under each line, the source line with
    the span marked, the whole explanation, the call chain, the hint, the fix and the links
    (``show_hints=False``, ``--no-hints``: without hint, fix and links). ``quiet`` (``-q``): the
    diagnostics' lines and errors only, no summary."""
    def c(code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if color else text

    sources = _SourceLines()
    for d in report.diagnostics:
        path = display_path(d.path)
        mark = " [*]" if d.fixable == "safe" else ""
        out.write(f"{c('1', path)}:{d.line}:{d.column}: {c(COLORS.get(d.effect, '0'), d.code)}{c('32', mark)} "
                  f"{d.headline}\n")
        if show_source and not quiet:
            _write_details(d, sources, out, show_hints, c)
    n = len(report.diagnostics)
    conditional = getattr(report, "conditional_hidden", 0)  # left out by `--conditional` (gblint.project.reporting)
    if quiet:
        pass
    elif n:
        out.write(found_line(summary_counts(report)) + "\n")
        fixable = fix_counts(report.diagnostics)
        if fixable["safe"]:
            more = f" ({fixable['unsafe']} more with `gblint fix --unsafe-fixes`)" if fixable["unsafe"] else ""
            out.write(f"[*] {fixable['safe']} fixable with `gblint fix`{more}.\n")
        elif fixable["unsafe"]:
            out.write(f"{fixable['unsafe']} fixable with `gblint fix --unsafe-fixes`.\n")
    else:
        files = f"{report.files_checked} file{'s' if report.files_checked != 1 else ''}"
        hidden = _hidden_words(report)
        if not report.regions_found:  # nothing was analysed: the line below says so, never "passed"
            if hidden:
                out.write(f"Nothing reported in {files}; {hidden}.\n")
        elif not report.complete:
            out.write(f"No graph breaks predicted in {files}, but the analysis is incomplete"
                      f"{f'; {hidden}' if hidden else ''}.\n")
        elif hidden:  # not "no graph breaks predicted": some were, and were filtered out
            out.write(f"All checks passed: {files}; {hidden}.\n")
        else:
            out.write(f"All checks passed: {files}, no graph breaks predicted.\n")
    if not quiet and n and report.baselined:
        out.write(f"{report.baselined} more hidden by the baseline.\n")
    if not quiet and conditional:
        out.write(f"{conditional} conditional diagnostic{'s' if conditional != 1 else ''} in followed packages not shown (a break under "
                  "a test on the package's own configuration or state): `--conditional all` lists them.\n")
    if not quiet and not report.regions_found:
        out.write(no_region_line(report.files_checked, len(report.switched_off)) + "\n")
    if not quiet and report.unfollowed:
        out.write(unfollowed_text(report.unfollowed, incomplete_said=not n))
    for e in report.errors:
        out.write(f"error: {display_path(e['path'])}: {e['message']}\n")


def skip_frame(d) -> tuple:
    """``(path, qualname)`` of the frame a diagnostic skips (its trace's entry of that name, else
    the diagnostic's own file): two diagnostics of one frame skip it once."""
    for t in d.trace:
        if t.function == d.frame:
            return (t.path, d.frame)
    return (d.path, d.frame)


def summary_counts(report, diagnostics=None) -> dict:
    """What the summary says, counted once for every format (text, JSON ``summary``, the HTML
    page): ``diagnostics``, ``by_effect`` (diagnostics per effect; a call on the way to a compile
    error, ``GBL403``, apart as ``via``), ``skipped_frames`` (distinct frames the ``skip``
    diagnostics name: several diagnostics may skip one frame), ``unfollowed`` (calls not followed,
    each once), ``files``."""
    diags = report.diagnostics if diagnostics is None else diagnostics
    by_effect = collections.Counter(_COUNTED_APART.get(d.code, d.effect) for d in diags)
    return {"diagnostics": len(diags), "files": report.files_checked,
            "by_effect": {e: by_effect[e] for e in ("error", "skip", "break", "via", "info") if by_effect.get(e)},
            "skipped_frames": len({skip_frame(d) for d in diags if d.effect == "skip"}),
            "unfollowed": len(report.unfollowed)}


def found_line(counts: dict) -> str:
    """``Found 8 diagnostics (1 compile error, 3 diagnostics skipping 2 frames, ...) in 4 files.``:
    each effect's diagnostics, and the frames the skips name when fewer (:func:`summary_counts`)."""
    labels = dict(EFFECT_LABEL, via="call leading to a compile error")
    parts = []
    for e, k in counts["by_effect"].items():
        if e == "skip" and counts["skipped_frames"] != k:
            m = counts["skipped_frames"]
            parts.append(f"{k} diagnostics skipping {m} frame{'s' if m != 1 else ''}")
        else:
            parts.append(f"{k} {(labels if k == 1 else EFFECT_PLURAL)[e]}")
    n, files = counts["diagnostics"], counts["files"]
    return (f"Found {n} diagnostic{'s' if n != 1 else ''} ({', '.join(parts)}) in {files} "
            f"file{'s' if files != 1 else ''}.")


def _hidden_words(report) -> str:
    """What was found but left out, in words (``""`` when nothing was): ``1 hidden by
    select/ignore/per-file-ignores or noqa, 2 by the baseline (diagnostics found but not shown)``."""
    why = []
    if report.hidden:
        why.append(f"{report.hidden} hidden by select/ignore/per-file-ignores or noqa")
    if report.baselined:
        why.append(f"{report.baselined} by the baseline")
    if report.conditional_hidden:
        why.append(f"{report.conditional_hidden} conditional in followed packages")
    if not why:
        return ""
    total = report.hidden + report.baselined + report.conditional_hidden
    return f"{', '.join(why)} (diagnostic{'s' if total != 1 else ''} found but not shown)"


def no_region_line(files: int, switched_off: int = 0) -> str:
    """The summary of a run that found no compiled region: nothing was analysed, and how to name one; or, where
    ``switched_off`` of the files compile something but switch Dynamo off at their top, that Dynamo traces none of
    it."""
    if switched_off:
        return (f"Dynamo is switched off at the top of {switched_off} file{'s' if switched_off != 1 else ''} "
                "(`torch.compiler.set_stance(\"force_eager\")` or `torch._dynamo.config.disable = True`): what "
                f"{'they compile' if switched_off != 1 else 'it compiles'} runs eagerly, no graph is compiled and "
                "nothing was checked for graph breaks.")
    return (f"No compiled region found in {files} file{'s' if files != 1 else ''}, so nothing was checked for graph "
            "breaks: name one with --entry module:function.")


#: how many calls not followed the text summary names (undecided ones first); JSON lists them all
UNFOLLOWED_SHOWN = 10


def unfollowed_text(unfollowed, incomplete_said: bool = False) -> str:
    """The summary's lines about the calls not followed: :func:`unfollowed_line` (after "The
    analysis is incomplete: " unless ``incomplete_said``), then one line per call (at most
    :data:`UNFOLLOWED_SHOWN`), those whose target could not be decided (a value known only at run
    time) first, and of them those by a name no Tensor or builtin method has (``method_of``,
    :func:`gblint.dynamo.calltree.method_of`) before those by such a name, each
    ``path:line: `call(...)` in `function`: reason``."""
    # stable: call order within each kind (`method_of` is set only on an undecided call)
    ordered = sorted(unfollowed, key=lambda u: (not u["undecided"], bool(u.get("method_of"))))
    line = unfollowed_line(unfollowed)
    lines = [line if incomplete_said else f"The analysis is incomplete: {line}"]
    for u in ordered[:UNFOLLOWED_SHOWN]:
        named = f" (`{u['call'].rpartition('.')[2]}` is also a {u['method_of']} method)" if u.get("method_of") else ""
        lines.append(f"  {display_path(u['path'])}:{u['line']}: `{u['call']}(...)` in `{u['function']}`: "
                     f"{u['reason']}{named}")
    if len(ordered) > UNFOLLOWED_SHOWN:
        lines.append(f"  ... and {len(ordered) - UNFOLLOWED_SHOWN} more (--format json lists them all)")
    return "".join(line + "\n" for line in lines)


def unfollowed_line(unfollowed) -> str:
    """One line saying that the analysis is incomplete: how many calls of the compiled regions were
    not followed, how many of them have a target known only at run time, and why (the packages to
    follow first): a break behind them cannot be reported."""
    packages = sorted({u["reason"].split("`")[1] for u in unfollowed if u["reason"].startswith("package `")})
    n = len(unfollowed)
    runtime = sum(1 for u in unfollowed if u["undecided"])
    text = f"{n} call{'s' if n != 1 else ''} not followed"
    if runtime:
        text += (f", {runtime} of them to a target known only at run time" if n > 1 else
                 ", its target known only at run time")
    text += f" (no break behind {'them' if n != 1 else 'it'} can be reported"
    if packages:
        text += "; pass " + " ".join(f"--follow-imports {p}" for p in packages)
    return text + "; --format json lists them under coverage.unfollowed):"


def fix_counts(diagnostics) -> dict:
    """``{"safe": n, "unsafe": m}``: the diagnostics whose fix ``gblint fix`` applies, and those
    it applies only with ``--unsafe-fixes`` (a fix with edits; advice alone is not counted)."""
    counts = collections.Counter(d.fixable for d in diagnostics)
    return {"safe": counts.get("safe", 0), "unsafe": counts.get("unsafe", 0)}


class _SourceLines:
    """The lines of the files the report names, read once each (None for a file that cannot
    be read, such as standard input)."""

    def __init__(self):
        self.files: dict = {}

    def line(self, path: str, n: int):
        if path not in self.files:
            from ..core.source import SourceError, read_source, split_lines
            try:
                self.files[path] = split_lines(read_source(path), keepends=False)
            except (SourceError, OSError, ValueError):
                self.files[path] = None
        lines = self.files[path]
        return lines[n - 1] if lines and 0 < n <= len(lines) else None


def _write_details(d, sources: _SourceLines, out: TextIO, show_hints: bool, c) -> None:
    """The ``--show-source`` block under a diagnostic's line: the source line with the span
    marked, then ``= why``, ``= trace``, ``= related``, ``= hint``, ``= fix`` and the links."""
    text = sources.line(d.path, d.line)
    gutter = " " * len(str(d.line))
    if text is not None:
        shown = text.expandtabs(1)
        start = max(d.column - 1, 0)
        end = d.end_column - 1 if d.end_line == d.line and d.end_column > d.column else len(shown.rstrip())
        width = max(1, min(end, len(shown)) - start)
        out.write(f"{gutter} |\n{d.line} | {shown}\n{gutter} | {' ' * start}{c(COLORS.get(d.effect, '0'), '^' * width)}\n")
    out.write(f"{gutter} = {EFFECT_LABEL.get(d.effect, d.effect)}: {d.long_text}\n")
    if d.condition:
        out.write(f"{gutter} = only {d.condition}\n")
    if d.trace and len(d.trace) > 1:
        out.write(f"{gutter} = trace: {' -> '.join(f'{t.function}:{t.line}' for t in d.trace)}\n")
    for r in d.related:
        out.write(f"{gutter} = same break: {r.code} ({EFFECT_LABEL.get(r.effect, r.effect)}"
                  f"{f' in `{r.frame}`' if r.frame else ''})\n")
    if not show_hints:
        return
    if d.hint:
        out.write(f"{gutter} = hint: {d.hint}\n")
    if d.fix is not None:
        how = f"fix ({d.fix.applicability})" if d.fix.edits else "advice"
        out.write(f"{gutter} = {how}: {d.fix.title}\n")
    if d.gb_ids:
        out.write(f"{gutter} = {', '.join(d.gb_ids)}: {d.url}\n")
    page = rule_path(d.code)
    out.write(f"{gutter} = rule: `gblint rule {d.code}`{f' ({display_path(page)})' if page else ''}\n")


def report_json(report: Report) -> dict:
    """The report as ``--format json`` prints it: :meth:`Report.to_json` with every path, at
    any depth (diagnostics, their trace frames, coverage, errors), as :func:`display_path`
    prints it, and ``summary``: the counts the text summary gives (:func:`summary_counts`)."""
    return display_paths({**report.to_json(), "summary": summary_counts(report)})


def display_paths(node):
    """``node`` (JSON data) with every string under a ``"path"`` key made :func:`display_path`."""
    if isinstance(node, dict):
        return {k: display_path(v) if k == "path" and isinstance(v, str) else display_paths(v) for k, v in node.items()}
    if isinstance(node, list):
        return [display_paths(v) for v in node]
    return node


def write_json(report: Report, out: TextIO) -> None:
    """Write the report as JSON (:func:`report_json`)."""
    json.dump(report_json(report), out, indent=2)
    out.write("\n")


def write_statistics(report: Report, out: TextIO, fmt: str = "text") -> None:
    """Counts per code, most frequent first: a table (``fmt="text"``) or, as ruff's
    ``--statistics --output-format json``, a JSON list of ``{code, name, count}``."""
    counts = collections.Counter((d.code, d.name) for d in report.diagnostics)
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if fmt == "json":
        json.dump([{"code": code, "name": name, "count": n} for (code, name), n in rows], out, indent=2)
        out.write("\n")
        return
    for (code, name), n in rows:
        out.write(f"{n:6d}  {code}  {name}\n")


def write_explain(walks, name: str, out: TextIO) -> bool:
    """The static counterpart of ``torch._dynamo.explain``: for the compiled entry ``name``
    (``Class.method``, ``method`` or ``function``), its frames in call order with their
    predicted graphs and breaks. Returns False when no entry has that name. ``name`` may be
    ``path:Class.method`` to tell entries of the same name in different files apart.

    Raises ValueError when ``name`` names several entries (the message lists them)."""
    chosen = explain_candidates(walks, name)
    entries = sorted({(display_path(w.region.entry.path), w.region.entry.name, w.region.entry.info.span.line)
                      for w in chosen})
    if len(entries) > 1:
        listed = ", ".join(f"{p}:{q} (line {line})" for p, q, line in entries)
        raise ValueError(f"--explain {name}: {len(entries)} compiled entries have that name: {listed}; "
                         "name one as PATH:QUALNAME")
    for w in chosen:
        r = w.region
        out.write(f"Compiled region `{r.entry.name}` ({r.spelling}) in {display_path(r.entry.path)}:"
                  f"{r.entry.info.span.line}\n")
        out.write(f"  fullgraph={r.fullgraph} nested_graph_breaks={r.nested_graph_breaks} "
                  f"python={r.python_version[0]}.{r.python_version[1]}\n")
        total = most = breaks = most_breaks = skipped = 0
        for fr in w.frames:
            g = fr.graphs
            total, most = total + g, most + fr.graphs_at_most
            breaks, most_breaks = breaks + fr.sure_breaks, most_breaks + len(fr.splits)
            status = {"compiled": "compiled", "skipped": "SKIPPED (runs eagerly)", "tail": "prefix compiled, rest eager",
                      "failed": "FAILS TO COMPILE"}[fr.status]
            if fr.status == "tail" and fr.resume_skipped:
                status = "prefix compiled, its resume function skipped (runs eagerly)"
            skipped += fr.status == "skipped" or fr.resume_skipped
            where = f"{display_path(fr.frame.path)}:{fr.frame.info.span.line}"
            out.write(f"  frame {fr.frame.name} ({where}): {status}, {graph_count(g, fr.graphs_at_most)}"
                      f"{'' if fr.proven else ' (compiled on its own only if a conditional break happens)'}\n")
            if fr.reason:
                out.write(f"      {fr.reason}\n")
            for (line, what), sure in zip(fr.splits, fr.split_sure):
                out.write(f"      {'graph break' if sure else 'conditional graph break'} at line {line}: {what}\n")
        out.write(f"  predicted: {graph_count(total, most)}, {breaks} graph break{'s' if breaks != 1 else ''}"
                  f"{f' (up to {most_breaks})' if most_breaks > breaks else ''}, "
                  f"{skipped} skipped frame{'s' if skipped != 1 else ''}"
                  f"{'; compile error' if w.region_failed else ''}\n")
        from ..dynamo.calltree import unfollowed_events  # the explanation reads the walks: the analysis is loaded
        gaps = unfollowed_events(w.owner, [w])  # what coverage.unfollowed lists for this region
        if gaps:
            out.write(f"  not followed ({len(gaps)} call{'s' if len(gaps) != 1 else ''}, in call order):\n")
            for f, ev, why in gaps:
                out.write(f"      {display_path(f.path)}:{ev.span.line} `{ev.call_text}(...)` in {f.name}: {why}\n")
    return bool(chosen)


def graph_count(proven: int, at_most: int) -> str:
    """``~1 graph``, or ``~1 graph (up to 35 if the conditional breaks happen)`` when breaks under tests
    gblint cannot decide would add graphs (``at_most``)."""
    text = f"~{proven} graph{'s' if proven != 1 else ''}"
    return text + (f" (up to {at_most} if the conditional breaks happen)" if at_most > proven else "")


def explain_candidates(walks, name: str) -> list:
    """The walks whose entry ``name`` designates: ``Class.method``, ``method``, ``function``,
    or any of those after ``path:``. An entry whose qualified name is ``name`` wins over entries
    that only end with it (``forward`` is the function ``forward``, not ``Net.forward``, when
    both are compiled); several equally good matches are all returned (an ambiguity)."""
    path, sep, qual = name.rpartition(":")
    if sep and path:
        want = os.path.realpath(path)
        walks = [w for w in walks if os.path.realpath(w.region.entry.path) == want]
        name = qual
    exact = [w for w in walks if w.region.entry.name == name]
    if exact:
        return exact
    return [w for w in walks if w.region.entry.name.endswith("." + name)]


# ------------------------------------------------------------------ SARIF and GitHub annotations

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SARIF_LEVEL = {"error": "error", "skip": "warning", "break": "warning", "info": "note"}
GITHUB_LEVEL = {"error": "error", "skip": "warning", "break": "warning", "info": "notice"}


def _artifact(path: str) -> dict:
    """A SARIF artifactLocation: a relative URI against ``%SRCROOT%`` (the working directory)
    for files below it, an absolute ``file:`` URI otherwise."""
    import pathlib
    import urllib.parse
    full = os.path.abspath(path)
    rel = os.path.relpath(full)
    if rel == ".." or rel.startswith(".." + os.sep):
        return {"uri": pathlib.Path(full).as_uri()}
    return {"uri": urllib.parse.quote(rel.replace(os.sep, "/")), "uriBaseId": "%SRCROOT%"}


def _region(line: int, column: int, end_line: int, end_column: int) -> dict:
    line, column = max(line, 1), max(column, 1)
    end_line = max(end_line, line)
    end_column = max(end_column, 1) if end_line > line else max(end_column, column)
    return {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}


def sarif_log(report: Report) -> dict:
    """The report as a SARIF 2.1.0 log (one run): every rule of the catalogue in
    ``tool.driver.rules``, one result per diagnostic with its location, the call chain as
    ``relatedLocations``, and ``fixes`` for a diagnostic whose fix has edits."""
    import pathlib
    from .. import __version__
    from ..settings.catalog import catalog
    from ..core.diagnostics import rule_url

    rules, index = [], {}
    for row in catalog():
        index[row["code"]] = len(rules)
        full = " ".join(t for t in (row["summary"], row.get("why")) if t)
        rule = {"id": row["code"], "name": row["name"], "shortDescription": {"text": row["summary"]},
                "fullDescription": {"text": full},
                "defaultConfiguration": {"level": SARIF_LEVEL.get(row["effect"], "warning")},
                "properties": {"effect": row["effect"], "gbIds": list(row["gb_ids"]),
                               "tags": ["torch.compile", "performance"]}}
        if row.get("hint") or row.get("use_instead"):
            example = f"\n\nUse instead:\n\n```python\n{row['use_instead'].rstrip()}\n```" \
                if row.get("use_instead") else ""
            rule["help"] = {"text": row.get("hint") or row["summary"],
                            "markdown": f"{row.get('hint') or row['summary']}{example}" +
                                        (f"\n\n[{row['code']}]({rule_url(row['code'])})" if rule_url(row["code"]) else "")}
        if rule_url(row["code"]):
            rule["helpUri"] = rule_url(row["code"])
        rules.append(rule)
    results = []
    for d in report.diagnostics:
        if d.code not in index:
            index[d.code] = len(rules)
            rules.append({"id": d.code, "name": d.name, "shortDescription": {"text": d.name},
                          **({"helpUri": d.rule_url} if d.rule_url else {}),
                          "defaultConfiguration": {"level": SARIF_LEVEL.get(d.effect, "warning")}})
        result = {"ruleId": d.code, "ruleIndex": index[d.code], "level": SARIF_LEVEL.get(d.effect, "warning"),
                  "message": {"text": d.headline},
                  "locations": [{"physicalLocation": {"artifactLocation": _artifact(d.path),
                                                      "region": _region(d.line, d.column, d.end_line, d.end_column)}}],
                  "properties": {"effect": d.effect, "frame": d.frame, "gbIds": list(d.gb_ids), "hint": d.hint,
                                 "explanation": d.long_text, "url": d.url, "certainty": d.certainty or None,
                                 "condition": d.condition or None}}
        if d.trace:
            result["relatedLocations"] = [
                {"id": i, "message": {"text": f"{t.function}:{t.line}"},
                 "physicalLocation": {"artifactLocation": _artifact(t.path), "region": {"startLine": max(t.line, 1)}}}
                for i, t in enumerate(d.trace)]
        if d.fix is not None and d.fix.edits:
            result["fixes"] = [{
                "description": {"text": d.fix.title + (f" ({d.fix.applicability})" if d.fix.applicability != "safe" else "")},
                "artifactChanges": [{"artifactLocation": _artifact(d.path), "replacements": [
                    {"deletedRegion": _region(e.line, e.column, e.end_line, e.end_column),
                     "insertedContent": {"text": e.text}} for e in d.fix.edits]}]}]
        results.append(result)
    notifications = [{"level": "error", "message": {"text": e["message"]},
                      "locations": [{"physicalLocation": {"artifactLocation": _artifact(e["path"])}}]}
                     for e in report.errors]
    # the checkout's README (gblint has no published home page); left out without one
    readme = os.path.join(CHECKOUT, "README.md")
    about = {"informationUri": pathlib.Path(readme).as_uri()} if os.path.isfile(readme) else {}
    run = {"tool": {"driver": {"name": "gblint", "version": __version__, "semanticVersion": __version__,
                               **about, "rules": rules}},
           "originalUriBaseIds": {"%SRCROOT%": {"uri": pathlib.Path(os.getcwd()).as_uri() + "/"}},
           "invocations": [{"executionSuccessful": not report.errors,
                            "toolExecutionNotifications": notifications}],
           "columnKind": "unicodeCodePoints",
           "results": results}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def write_sarif(report: Report, out: TextIO) -> None:
    """Write the report as SARIF 2.1.0 JSON (see :func:`sarif_log`)."""
    json.dump(sarif_log(report), out, indent=2)
    out.write("\n")


def github_escape_data(text: str) -> str:
    """Escape a workflow command's message (``%``, CR, LF), as GitHub's toolkit does."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_escape_property(text: str) -> str:
    """Escape a workflow command's property value: the message escapes plus ``:`` and ``,``."""
    return github_escape_data(text).replace(":", "%3A").replace(",", "%2C")


def write_github(report: Report, out: TextIO) -> None:
    """Write one GitHub Actions workflow command per diagnostic
    (``::warning file=F,line=L,col=C,endLine=L2,endColumn=C2,title=GBL201 break-in-loop::message``):
    ``error`` for effect error, ``warning`` for skip and break, ``notice`` for info.
    gblint's own failures become ``::error`` commands on their file."""
    for d in report.diagnostics:
        props = [("file", display_path(d.path)), ("line", str(d.line)), ("col", str(d.column)),
                 ("endLine", str(d.end_line)), ("endColumn", str(d.end_column)), ("title", f"{d.code} {d.name}")]
        body = d.headline
        if d.explanation:
            body += f"\n{d.explanation}"
        if d.hint:
            body += f"\nhint: {d.hint}"
        body += f"\n{d.url}"
        prop_text = ",".join(f"{k}={github_escape_property(v)}" for k, v in props)
        out.write(f"::{GITHUB_LEVEL.get(d.effect, 'warning')} {prop_text}::{github_escape_data(body)}\n")
    for e in report.errors:
        out.write(f"::error file={github_escape_property(display_path(e['path']))},title=gblint internal error::"
                  f"{github_escape_data(e['message'])}\n")


class Progress:
    """A one-line progress display on a terminal (files done, rate); silent elsewhere.

    ``stream`` is written only when it is a TTY and ``enabled`` is true; at most every
    ``interval`` seconds, and cleared by :meth:`close`.
    """

    def __init__(self, stream: TextIO, enabled: bool = True, interval: float = 0.2):
        import time
        self.stream = stream
        self.enabled = enabled and hasattr(stream, "isatty") and stream.isatty()
        self.interval = interval
        self.start = self.last = time.monotonic()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        import time
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.last < self.interval and done < total:
            return
        self.last = now
        rate = done / max(now - self.start, 1e-6)
        self.stream.write(f"\rgblint: {done}/{total} files ({rate:.0f} files/s)")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
