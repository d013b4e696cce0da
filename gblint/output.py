"""Report formats: ``text`` (ruff-like, one diagnostic a few lines) and ``json`` (documented
in README.md, read by the evaluation tools)."""
from __future__ import annotations

import collections
import json
import os
from typing import TextIO

from .engine import Report

EFFECT_LABEL = {"break": "graph break", "skip": "frame skipped", "error": "compile error", "info": "note"}
EFFECT_PLURAL = {"break": "graph breaks", "skip": "frames skipped", "error": "compile errors", "info": "notes"}
COLORS = {"break": "33", "skip": "31", "error": "1;31", "info": "36"}


def write_text(report: Report, out: TextIO, color: bool = False, show_hints: bool = True) -> None:
    def c(code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if color else text

    for d in report.diagnostics:
        path = os.path.relpath(d.path) if os.path.isabs(d.path) else d.path
        head = f"{c('1', path)}:{d.line}:{d.column}: {c(COLORS.get(d.effect, '0'), d.code)} " \
               f"[{EFFECT_LABEL.get(d.effect, d.effect)}] {d.message}"
        out.write(head + "\n")
        if d.trace and len(d.trace) > 1:
            chain = " -> ".join(f"{t.function}:{t.line}" for t in d.trace)
            out.write(f"    trace: {chain}\n")
        if show_hints and d.hint:
            out.write(f"    hint: {d.hint}\n")
        if show_hints and (d.gb_ids or d.code[3] != "0"):
            ids = ", ".join(d.gb_ids)
            out.write(f"    {ids + ': ' if ids else ''}{d.url}\n")
    n = len(report.diagnostics)
    if n:
        by_effect = collections.Counter(d.effect for d in report.diagnostics)
        parts = ", ".join(f"{by_effect[e]} {(EFFECT_LABEL if by_effect[e] == 1 else EFFECT_PLURAL)[e]}"
                          for e in ("error", "skip", "break", "info") if by_effect.get(e))
        out.write(f"Found {n} diagnostic{'s' if n != 1 else ''} ({parts}) in {report.files_checked} "
                  f"file{'s' if report.files_checked != 1 else ''}.\n")
    else:
        out.write(f"All checks passed: {report.files_checked} file{'s' if report.files_checked != 1 else ''}, "
                  "no graph breaks predicted.\n")
    for e in report.errors:
        out.write(f"error: {e['path']}: {e['message']}\n")


def write_json(report: Report, out: TextIO) -> None:
    json.dump(report.to_json(), out, indent=2)
    out.write("\n")


def write_statistics(report: Report, out: TextIO) -> None:
    counts = collections.Counter((d.code, d.name) for d in report.diagnostics)
    for (code, name), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        out.write(f"{n:6d}  {code}  {name}\n")
