"""From the consequence model's diagnostics to the report's: the notes for compile calls that
resolve to nothing (``GBL003``), select/ignore and per-file ignores (by code and by consequence,
:meth:`gblint.config.Settings.selected`), ``# noqa`` comments, unused ``# noqa`` codes (``GBL004``,
:mod:`gblint.noqa_edits`), each break's certainty, and the links between the diagnostics of one
break (:func:`gblint.diagnostics.link_related`). :func:`gblint.engine.run` calls these in order.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Tuple

from . import messages
from .codes import ALWAYS_REPORTED
from .diagnostics import Diagnostic, link_related
from .entries import certainty, excluded_target, unresolved_reason, unresolved_regions
from .noqa import suppressed


def unresolved_notes(project, summaries, settings, loader) -> List[Diagnostic]:
    """A ``GBL003`` note for each compile call of the checked files that resolves to nothing."""
    out = []
    for summary, decl in unresolved_regions(project, summaries):
        excluded = excluded_target(decl, loader.excluded)
        reason = f"`{decl.spelling}`: {unresolved_reason(project, decl, settings.follow_imports, loader.excluded)}"
        # the reason says what to do (`pass --follow-imports PKG`): the line when it fits, else the consequence
        short = reason if len(reason) <= messages.LIMIT else \
            messages.short_message("GBL003", "info", f"`{decl.spelling}`", "")
        out.append(Diagnostic(
            path=summary.path, line=decl.span.line, column=decl.span.column, end_line=decl.span.end_line,
            end_column=decl.span.end_column, code="GBL003", name="unresolved-compile", effect="info",
            message=short,
            explanation=f"{reason}; nothing it compiles is analysed, so no break there can be reported.",
            hint="Remove the file from `exclude`/`extend-exclude` to check it, or --entry module:Class to name what is "
                 "compiled." if excluded else
                 "Pass --follow-imports PACKAGE, or --entry module:Class to name what is compiled."))
    return out


def conditional_shown(diagnostics: List[Diagnostic], which: str, followed) -> Tuple[List[Diagnostic], int]:
    """``(kept, hidden)``: ``diagnostics`` without the conditional ones ``which`` leaves out:
    ``"all"`` keeps them, ``"none"`` drops every conditional diagnostic, ``"checked"`` those whose
    break (the last frame of the trace, else the diagnostic's own line) lies in a file of
    ``followed`` (paths read from packages followed with ``--follow-imports``): a branch on a
    library's configuration the user did not write and cannot decide here. Definite and
    information diagnostics are always kept; ``hidden`` counts what was left out."""
    if which == "all":
        return diagnostics, 0
    kept = []
    for d in diagnostics:
        if d.certainty == "conditional":
            origin = d.trace[-1].path if d.trace else d.path
            if which == "none" or origin in followed:
                continue
        kept.append(d)
    return kept, len(diagnostics) - len(kept)


def select_diagnostics(diagnostics: List[Diagnostic], settings, project, regions, summaries,
                       loader, reached=()) -> Tuple[List[Diagnostic], int]:
    """``(kept, hidden)``: the diagnostics select/ignore, per-file ignores and ``# noqa`` let
    through (gblint's own "not checked" codes, :data:`gblint.codes.ALWAYS_REPORTED`, whatever
    the selection), with the unused-noqa diagnostics, each break's certainty, sorted and linked
    to the other diagnostics of its break; and how many were left out."""
    from .noqa_edits import project_unused_noqa
    kept = []
    hidden = 0
    found: Dict[str, List[Diagnostic]] = {}  # selected, before `# noqa`: what a noqa comment may silence
    for d in diagnostics:
        if not settings.selected(d.code, d.path, d.effect) and d.code not in ALWAYS_REPORTED:
            hidden += 1
            continue
        found.setdefault(d.path, []).append(d)
        if suppressed(d.code, d.line, loader.noqa.get(d.path, {})):
            hidden += 1
            continue
        if d.effect in ("break", "skip", "error") and not d.certainty:  # the walk sets it where it knows the values
            how, condition = certainty(project, d.path, d.frame, d.line, d.trace)
            d = dataclasses.replace(d, certainty=how, condition=condition)
        kept.append(d)
    unused, silenced = project_unused_noqa(project, regions, summaries, loader, settings, found, reached)
    kept.extend(unused)
    kept.sort(key=Diagnostic.sort_key)
    return link_related(kept), hidden + silenced
