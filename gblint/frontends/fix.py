"""``gblint fix``: apply fixes in rounds and re-check, until nothing changes.

:func:`fix_sources` checks the project (:mod:`gblint.project.engine`, whose fixes stage,
:mod:`gblint.fixing.fixes`, attaches each diagnostic's fix), applies fixes in rounds (at most one per
frame and file per round, edits that do not overlap) and re-checks after each round (a fix may
expose another), until nothing changes. Every applied fix is checked: CPython compiles the
result, the fixed diagnostic is gone on re-check (else the fix is reverted), and a second run
changes nothing.
"""
from __future__ import annotations

import dataclasses
import difflib
from typing import Dict, List, Optional, Sequence, Tuple

from ..settings.config import Settings
from ..core.diagnostics import DISPLAY_ONLY, Diagnostic, Edit
from ..project.engine import SourceFile, check_sources, run
from ..fixing.fix_effects import Effect, effects, graph_counter
from ..fixing.fixes import attach_fixes
from ..core.source import compile_error, split_lines

#: Rounds of fixes (each: apply, then re-check the project) before ``fix_sources`` gives up and
#: says so (``FixResult.complete`` False). A round fixes every frame it can, so chains of fixes
#: that expose one another (the loops of one function, one after the other) set the count.
MAX_ROUNDS = 200


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """Apply non-overlapping edits (1-based positions; a line past the end means end of file)."""
    lines = split_lines(text)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def offset(line: int, col: int) -> int:
        if line - 1 >= len(lines):
            return len(text)
        return offsets[line - 1] + col - 1

    out = text
    for e in sorted(edits, key=lambda e: (e.line, e.column), reverse=True):
        a, b = offset(e.line, e.column), offset(e.end_line, e.end_column)
        out = out[:a] + e.text + out[b:]
    return out


Key = Tuple[str, str, Optional[str], str]  # (path, code, frame, fix title)


@dataclasses.dataclass
class FixResult:
    """What ``fix_sources`` did: new texts by path, applied fixes ``(path, code, frame, title)``,
    fixes reverted because the re-check still reported their diagnostic, the report of a fresh
    check of the final texts, and whether the fixes reached a fixpoint (``complete``; False when
    :data:`MAX_ROUNDS` rounds ran out with fixes still to apply). ``effects``: for an applied
    fix, gblint's prediction for its frame before and after it, and a fresh check of the frame
    in the final text (``None`` where the frame is no longer found); ``effect_frames``: that frame
    (the callee, for a rewrite of a break nested in it)."""

    texts: Dict[str, str]
    original: Dict[str, str]
    applied: List[Key]
    reverted: List[Key]
    report: object
    complete: bool = True
    effects: Dict[Key, Tuple[Effect, Effect, Optional[Effect]]] = dataclasses.field(default_factory=dict)
    effect_frames: Dict[Key, Optional[str]] = dataclasses.field(default_factory=dict)

    def changed(self) -> List[str]:
        """The paths whose text the fixes changed."""
        return [p for p in self.texts if self.texts[p] != self.original[p]]

    def diff(self) -> str:
        """A unified diff of every changed file."""
        out = []
        for p in self.changed():
            out.extend(difflib.unified_diff(split_lines(self.original[p]), split_lines(self.texts[p]),
                                            fromfile=p, tofile=p))
        return "".join(out)


@dataclasses.dataclass
class _Applied:
    """A fix applied in the current round: its key, the line its diagnostic was on, and the lines
    (``start`` inclusive, ``end`` exclusive) its edit spans in the old text, then in the new one."""

    key: Key
    line: int
    old: Tuple[int, int]
    new: Tuple[int, int] = (0, 0)


def fix_sources(paths_texts: Dict[str, str], settings: Settings, unsafe: bool = False) -> FixResult:
    """Apply fixes to in-memory texts until nothing changes; returns a :class:`FixResult`.

    ``paths_texts`` maps paths to texts: only those files are fixed (files read through
    ``--follow-imports`` are checked, never edited). ``unsafe`` also applies fixes whose
    applicability is ``unsafe``. A loop or block fix is applied only when gblint predicts a gain
    from it (:func:`gblint.fixing.fix_effects.gains`: it removes a skipped frame or a graph break and
    adds none); the others are ``display-only``. A fix is kept only if CPython compiles its
    result and the re-check no longer reports its diagnostic. Raises nothing for bad input.
    """
    texts = dict(paths_texts)
    applied: List[Key] = []
    reverted: List[Key] = []
    refused: set = set()
    pending: Dict[str, Tuple[str, List[_Applied]]] = {}  # path -> (text before the round, its fixes)
    rounds = 0
    predict = graph_counter(run, SourceFile, settings)
    predicted: Dict[Key, Tuple[Effect, Effect]] = {}
    frames: Dict[Key, Optional[str]] = {}
    while True:
        report = check_sources([SourceFile(p, t) for p, t in texts.items()], settings, fixes=False)
        # fixes are built from `texts` only: files read through --follow-imports get none
        diags = attach_fixes(report.diagnostics, texts, settings, predict=predict)
        for d in diags:
            if d.fix is not None and d.fix.effect is not None:
                key = (d.path, d.code, d.frame, d.fix.title)
                predicted[key] = effects(d.fix)
                # the frame the prediction was made on: a nested break's rewrite is predicted on its callee
                frames[key] = getattr(d.fix_request, "frame", None) or d.frame
        if _revert_failed(pending, diags, texts, refused, applied, reverted):
            pending = {}
            continue  # re-check without the reverted fixes (each revert refuses a fix: this ends)
        if rounds == MAX_ROUNDS:
            complete = not any(_applicable(d, unsafe, refused) for d in diags)
            break
        rounds += 1
        pending = _apply_round(diags, texts, unsafe, refused, applied)
        if not pending:
            complete = True
            break
    report.diagnostics = list(diags)  # with their fixes, as `gblint check` shows them ([*], fixable counts)
    measured = {}
    for key in applied:
        if key in predicted:  # the fresh figures: the frame in what the file holds after every round
            measured[key] = predicted[key] + (predict(key[0], texts[key[0]], frames[key]),)
    return FixResult(texts, dict(paths_texts), applied, reverted, report, complete, measured,
                     {k: frames[k] for k in measured})


def _revert_failed(pending: Dict[str, Tuple[str, List[_Applied]]], diags: Sequence[Diagnostic],
                   texts: Dict[str, str], refused: set, applied: List[Key], reverted: List[Key]) -> bool:
    """Undo the last round in each file where a fix did not work: its diagnostic is still reported
    (same code and frame, inside the rewritten lines or where it was), or the file no longer
    parses. The failed fixes are never tried again; the others are retried next round."""
    undone = False
    for path, (before, batch) in pending.items():
        here = [d for d in diags if d.path == path]
        broken = any(d.code in ("GBL001", "GBL002") for d in here)
        failed = [f for f in batch if broken or any(
            (d.code, d.frame) == f.key[1:3] and (f.new[0] <= d.line < f.new[1] or d.line == _moved(f.line, batch))
            for d in here)]
        if not failed:
            continue
        texts[path] = before
        for f in batch:
            applied.remove(f.key)
        for f in failed:
            refused.add(f.key)
            reverted.append(f.key)
        undone = True
    return undone


def _moved(line: int, batch: List[_Applied]) -> int:
    """Where old ``line`` is after the batch's edits (0 when an edit replaced it)."""
    shift = 0
    for f in batch:
        if f.old[0] <= line < f.old[1]:
            return 0
        if f.old[1] <= line:
            shift += (f.new[1] - f.new[0]) - (f.old[1] - f.old[0])
    return line + shift


def _applicable(d: Diagnostic, unsafe: bool, refused: set) -> bool:
    """Whether ``d`` has a fix with edits that may be applied: safe (or ``unsafe`` allowed), never
    display-only, not refused before."""
    return d.fix is not None and bool(d.fix.edits) and d.fix.applicability != DISPLAY_ONLY \
        and (d.fix.applicability == "safe" or unsafe) \
        and (d.path, d.code, d.frame, d.fix.title) not in refused


def _apply_round(diags: Sequence[Diagnostic], texts: Dict[str, str], unsafe: bool, refused: set,
                 applied: List[Key]) -> Dict[str, Tuple[str, List[_Applied]]]:
    """Apply every fix that can go in this round: in a file being fixed, not refused, at most one
    per frame, edits that do not overlap, and a result CPython compiles."""
    chosen: Dict[str, List[Tuple[Diagnostic, Tuple[int, int]]]] = {}
    frames = set()
    for d in diags:
        if not _applicable(d, unsafe, refused) or (d.path, d.frame) in frames:
            continue
        span = (min(e.line for e in d.fix.edits), max(max(e.end_line, e.line + 1) for e in d.fix.edits))
        if any(span[0] < b and a < span[1] for _, (a, b) in chosen.get(d.path, ())):
            continue
        chosen.setdefault(d.path, []).append((d, span))
        frames.add((d.path, d.frame))
    pending: Dict[str, Tuple[str, List[_Applied]]] = {}
    for path, fixes in chosen.items():
        before = text = texts[path]
        batch: List[_Applied] = []
        for d, span in sorted(fixes, key=lambda f: f[1], reverse=True):  # bottom up: lines above stay put
            key = (d.path, d.code, d.frame, d.fix.title)
            new_text = apply_edits(text, d.fix.edits)
            if compile_error(new_text, path) is not None:
                if compile_error(apply_edits(before, d.fix.edits), path) is not None:
                    refused.add(key)  # broken on its own, not only together with this round's others
                continue
            grown = len(split_lines(new_text)) - len(split_lines(text))
            batch.append(_Applied(key, d.line, span, (span[0], span[1] + grown)))
            text = new_text
        if not batch:
            continue
        batch.reverse()
        shift = 0
        for f in batch:  # top down: each new span moves by what the edits above it added
            f.new = (f.new[0] + shift, f.new[1] + shift)
            shift += (f.new[1] - f.new[0]) - (f.old[1] - f.old[0])
        texts[path] = text
        applied.extend(f.key for f in batch)
        pending[path] = (before, batch)
    return pending
