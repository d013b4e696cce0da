"""From the consequence model's diagnostics to the report's: the notes for compile calls that
resolve to nothing (``GBL003``), the notes on what was not analysed (``GBL005``/``GBL006``, for
flake8 and the editor), select/ignore and per-file ignores (by code and by consequence,
:meth:`gblint.settings.config.Settings.selected`), ``# noqa`` comments, unused ``# noqa`` codes (``GBL004``,
:mod:`gblint.project.noqa_edits`), each break's certainty, and the links between the diagnostics of one
break (:func:`gblint.core.diagnostics.link_related`). :func:`gblint.project.engine.run` calls these in order.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Dict, Iterable, List, Tuple

from ..core import messages
from ..abstract import values
from ..abstract.certainty import NONEMPTY_WORDS
from ..core.codes import ALWAYS_REPORTED, CODES
from ..core.diagnostics import Diagnostic, link_related
from ..dynamo.entries import certainty, excluded_target, unresolved_reason, unresolved_regions
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


#: a line that imports torch (``import torch``, ``import torch.nn as nn``, ``from torch import nn``)
_IMPORTS_TORCH = re.compile(r"^[ \t]*(?:from[ \t]+torch\b|import[ \t]+(?:[\w.]+(?:[ \t]+as[ \t]+\w+)?[ \t]*,[ \t]*)*"
                            r"torch\b)", re.M)


def imports_torch(text: str) -> bool:
    """Whether ``text`` (a module's source) imports torch or a module of it, on any line."""
    return "torch" in text and _IMPORTS_TORCH.search(text) is not None


def coverage_notes(checked: Iterable[Tuple[str, str]], summaries, regions, reached, unfollowed,
                   diagnostics: Iterable[Diagnostic]) -> List[Diagnostic]:
    """The notes that say what was not analysed, for the front ends that show diagnostics only
    (flake8, the editor; ``gblint check`` says it in its summary and JSON ``coverage``):

    - ``GBL005`` on line 1 of each checked file (``checked``: ``(path, text)``) that imports torch
      but that no compiled region reaches: none starts in it, no compile call is written in it
      and no function of it is reached (``reached``: the frames the regions traced into), and it
      was read (no ``GBL001``/``GBL002``; a ``GBL003`` already names its compile call). A file
      that does not import torch is no model file: nothing is said about it.
    - ``GBL006`` at each call a region makes in a checked file that gblint did not follow
      (``unfollowed``: :func:`gblint.dynamo.calltree.unfollowed_events`), saying why."""
    from ..dynamo.calltree import method_of, too_deep, undecided
    unread = {d.path for d in diagnostics if d.code in ("GBL001", "GBL002", "GBL003")}
    declares = {s.path for s in summaries if s.regions}
    covered = {r.entry.path for r in regions} | {f.path for f in reached}
    out: List[Diagnostic] = []
    paths = set()
    for path, text in checked:
        paths.add(path)
        if path in unread or path in declares or path in covered or not text or not imports_torch(text):
            continue
        entry = CODES["GBL005"]
        out.append(Diagnostic(
            path=path, line=1, column=1, end_line=1, end_column=1, code="GBL005", name=entry.name, effect="info",
            message=entry.brief,
            explanation="No compiled region of the checked files (`torch.compile(...)`, `@torch.compile`, "
                        "`model.compile()`, `--entry`) starts in this file or reaches its code, so nothing in it was "
                        "analysed: the absence of other diagnostics says nothing about its graph breaks.",
            hint=entry.hint))
    for frame, ev, reason in unfollowed:
        if frame.path not in paths:
            continue  # a followed package's own call, or a file found beside the checked ones
        call = f"`{ev.call_text}(...)`"
        if undecided(reason):
            message = messages.short_message("GBL006", "info", f"{call} not followed: what it runs is known only "
                                                               "at run time", "")
            hint = ("Check what it may be on its own (`--entry module:function`), then keep this note quiet with "
                    "`# noqa: GBL006`.")
        elif too_deep(reason):
            message = messages.short_message("GBL006", "info", f"{call} not followed: too deep in a chain of calls",
                                             "")
            hint = ("Check what it runs on its own (`--entry module:function`), then keep this note quiet with "
                    "`# noqa: GBL006`.")
        else:
            package = reason.split("`")[1]
            action = f": package `{package}` is not read (pass --follow-imports {package})"
            message = messages.clip(call, max(messages.LIMIT - len(action) - len(" not followed"), 16)) + \
                " not followed" + action
            hint = f"Pass --follow-imports {package} to read the package's source."
        named = method_of(ev, reason)
        named = f" `{ev.func.value}` is also a {named} method: the receiver may be one, though its kind was not " \
                "proven." if named else ""
        out.append(Diagnostic(
            path=frame.path, line=ev.span.line, column=ev.span.column, end_line=ev.span.end_line,
            end_column=ev.span.end_column, code="GBL006", name=CODES["GBL006"].name, effect="info",
            message=messages.fit(message),
            explanation=f"{call} in `{frame.name}` is not followed: {reason}. A graph break in what it runs cannot "
                        f"be reported, so the compiled region is not fully checked.{named}",
            hint=hint))
    return out


_MODE_ONLY = frozenset(values.MODE_CONDITIONS.values())


def conditional_shown(diagnostics: List[Diagnostic], which: str, followed) -> Tuple[List[Diagnostic], int]:
    """``(kept, hidden)``: ``diagnostics`` without the conditional ones ``which`` leaves out:
    ``"all"`` keeps them, ``"none"`` drops every conditional diagnostic, ``"checked"`` those whose
    break (the last frame of the trace, else the diagnostic's own line) lies in a file of
    ``followed`` (paths read from packages followed with ``--follow-imports``): a branch on a
    library's configuration the user did not write and cannot decide here, except a break that
    depends on the module's mode alone ("in training mode", "in eval mode": a model runs in both) or on inputs not
    being empty alone (``index.numel() > 0``: true for the user's data, :data:`gblint.abstract.certainty.NONEMPTY`).
    Definite and information diagnostics are always kept; ``hidden`` counts what was left out."""
    if which == "all":
        return diagnostics, 0
    kept = []
    for d in diagnostics:
        if d.certainty == "conditional":
            origin = d.trace[-1].path if d.trace else d.path
            if which == "none" or (origin in followed and d.condition not in _MODE_ONLY
                                   and not d.condition.endswith(NONEMPTY_WORDS)):
                continue
        kept.append(d)
    return kept, len(diagnostics) - len(kept)


def select_diagnostics(diagnostics: List[Diagnostic], settings, project, regions, summaries, loader, reached=(),
                       notes: Iterable[Diagnostic] = ()) -> Tuple[List[Diagnostic], int, List[Diagnostic]]:
    """``(kept, hidden, kept_notes)``: the diagnostics select/ignore, per-file ignores and ``# noqa`` let
    through (gblint's own "not checked" codes, :data:`gblint.core.codes.ALWAYS_REPORTED`, whatever
    the selection), with the unused-noqa diagnostics, each break's certainty, sorted and linked
    to the other diagnostics of its break; how many were left out; and the coverage ``notes``
    (:func:`coverage_notes`) that ``# noqa`` lets through (those it silences are not counted as
    hidden: the command line does not show them, it says the same in its summary)."""
    from .noqa_edits import project_unused_noqa
    kept = []
    hidden = 0
    found: Dict[str, List[Diagnostic]] = {}  # selected, before `# noqa`: what a noqa comment may silence
    kept_notes = []
    for d in notes:
        found.setdefault(d.path, []).append(d)
        if not suppressed(d.code, d.line, loader.noqa.get(d.path, {})):
            kept_notes.append(d)
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
    return link_related(kept), hidden + silenced, sorted(kept_notes, key=Diagnostic.sort_key)
