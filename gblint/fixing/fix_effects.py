"""What a fix does to the graphs: the predicted graphs of the frame before and after a rewrite.

A fix that compiles a frame Dynamo skipped often trades one skipped frame for graph breaks
(unrolling a loop with a break gives one break per iteration). So that users can choose, the
title of a loop or block fix says the graphs of its frame before and after
(``... (`refine`: ~0 -> ~4 graphs, 3 graph breaks)``): both predicted by gblint itself, with the
file alone and the fixed function taken as the compiled entry (callees in other files are not
followed, so breaks they hold are not counted). Both count every break as happening
(:attr:`gblint.dynamo.frame_report.FrameReport.graphs_at_most`, the bound beside the proven count): a conditional
break is one the rewrite removes when it happens. :func:`graph_counter` builds the predictor
from the engine's ``run``, which this module never imports.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from ..core.diagnostics import DISPLAY_ONLY, Edit, Fix
from ..core.source import compile_error


class Effect(NamedTuple):
    """What gblint predicts for a frame compiled alone (``--entry``): the graphs and graph
    breaks of the region, the frames of it that are skipped (run eagerly: ``skipped``), those
    whose rest runs eagerly after a break it cannot resume from (``tails``), and the status of
    the frame itself (``compiled``, ``tail``, ``skipped`` or ``failed``)."""

    graphs: int
    breaks: int
    skipped: int = 0
    tails: int = 0
    status: str = "compiled"
    ops: int = 0  # the frame's own tensor ops, less one per graph break (a breaking call may count as one)
    eager: int = 0  # every region of a file together: how eagerly their frames run, summed (_EAGER)


#: ``predict(path, text, frame)``: the :class:`Effect` of ``frame`` compiled alone (``frame`` None: of every
#: compiled region of the file together, its own status and ops left at their defaults), or None
Predictor = Callable[[str, str, Optional[str]], Optional[Effect]]

#: how much of a frame runs eagerly, by its status (lower is better)
_EAGER = {"compiled": 0, "tail": 1, "skipped": 2, "failed": 2}


def gains(before: Effect, after: Effect) -> bool:
    """Whether a rewrite predicted to take ``before`` to ``after`` removes a skipped frame or a
    graph break without adding one, so that ``gblint fix`` may apply it:

    - a skipped frame added (a helper that is skipped while its frame still is, or while the
      frame was not skipped at all): never a gain;
    - a skipped frame removed (the frame, or a callee, compiled): a gain, even where the frame
      compiled now breaks where it ran eagerly (unrolling a loop with a break);
    - the frame runs less eagerly: skipped -> compiled with its loop in a skipped helper, a gain
      only when ops are left to the frame besides the helper's call (a frame with no op outside
      its loop gains nothing from giving the loop to a helper: measured, 0 graphs before and
      after); a rest run eagerly -> resumed after the break, a gain when it compiles more graphs;
    - otherwise a gain only when fewer rests run eagerly, or fewer graph breaks remain, and
      neither of the two rises."""
    if after.skipped > before.skipped:
        return False
    if after.skipped < before.skipped:
        return True
    was, now = _EAGER.get(before.status, 2), _EAGER.get(after.status, 2)
    if now != was:
        if now > was:
            return False
        return after.ops > 0 if was == 2 else after.graphs > before.graphs
    if now == 2:  # the frame still runs eagerly: its breaks are not made
        return False
    if after.tails > before.tails or after.breaks > before.breaks:
        return False
    return after.tails < before.tails or after.breaks < before.breaks


def graph_counter(run, source_file, settings, cache=None) -> Predictor:
    """A predictor that checks one file's text with ``run`` (:func:`gblint.project.engine.run`, fed
    ``source_file(path, text)`` records), the frame as its only compiled entry (``--entry
    MODULE:QUALNAME``); memoised per text and frame. ``cache`` (a summary cache) is read, never
    written: the text as it is comes from it, the fixed text (seen once) is not stored."""
    reading = _ReadOnly(cache) if cache is not None else None
    memo: Dict[Tuple[str, int, str], Optional[Effect]] = {}

    def predict(path: str, text: str, frame: Optional[str]) -> Optional[Effect]:
        key = (path, hash(text), frame)
        if key not in memo:
            memo[key] = _predict(run, source_file, settings, path, text, frame, reading)
        return memo[key]
    return predict


class _ReadOnly:
    """A summary cache that answers from what it holds and stores nothing."""

    def __init__(self, cache):
        self.cache = cache

    def key(self, *args, **kwargs):
        return self.cache.key(*args, **kwargs)

    def get(self, key, fix: bool = False):
        c = self.cache
        counts = (c.hits, c.misses, c.fix_hits, c.fix_misses)
        try:
            return c.get(key, fix)
        finally:  # the cache's counts describe the run's own reads, not the prediction's
            c.hits, c.misses, c.fix_hits, c.fix_misses = counts

    def put(self, key, value) -> None:
        pass


def _predict(run, source_file, settings, path: str, text: str, frame: Optional[str], cache=None) -> Optional[Effect]:
    from ..dynamo.index import module_name
    module = module_name(path)[0]
    alone = dataclasses.replace(settings, entry_points=(f"{module}:{frame}",) if frame is not None else (), jobs=1,
                                select=("GBL",), ignore=(), per_file_ignores={})
    try:
        _, _, _, walks = run([source_file(path, text)], alone, cache, fixes=False)
    except Exception:  # a prediction is a courtesy: never a reason for the fix, or the run, to fail
        return None
    if frame is None:  # every region of the file, as its compile calls make them
        frames = [fr for w in walks if w.region.entry.path == path for fr in w.frames]
        return Effect(*_totals(frames), eager=sum(_EAGER.get(fr.status, 2) for fr in frames))
    mine = [w for w in walks if w.region.entry.name == frame and w.region.entry.path == path]
    if not mine:
        return None
    walk = mine[0]
    own = [fr for fr in walk.frames if fr.frame.name == frame and fr.frame.path == path] or walk.frames[:1]
    # every break counted as if it happens (FrameReport.graphs_at_most): a rewrite keeps behaviour within its
    # applicability, so what it removes is what it removes when the breaks happen; a conditional break is
    # judged as a break (judged on proven breaks only, no fix on a function of unannotated parameters applied)
    return Effect(*_totals(walk.frames), own[0].status if own else "compiled",
                  max(0, _compiled_ops(own[0]) - len(own[0].splits)) if own else 0)


def _totals(frames) -> Tuple[int, int, int, int]:
    """Graphs (every break counted as happening), graph breaks, skipped frames (a skipped resume function is
    one) and frames whose rest runs eagerly, over the frame reports ``frames``."""
    return (sum(fr.graphs_at_most for fr in frames), sum(len(fr.splits) for fr in frames),
            sum(fr.status in ("skipped", "failed") or fr.resume_skipped for fr in frames),
            sum(fr.status == "tail" for fr in frames))


def _compiled_ops(report) -> int:
    """The ops of a frame that Dynamo traces: all of them, or those before the rest run eagerly (a tail)."""
    if report.status == "tail" and report.tail_ops is not None:
        return report.tail_ops
    return report.frame.info.ops_total


def apply_edit(text: str, edit: Edit) -> str:
    """``text`` with one 1-based edit applied."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        return len(text) if line - 1 >= len(lines) else starts[line - 1] + column - 1
    return text[:offset(edit.line, edit.column)] + edit.text + text[offset(edit.end_line, edit.end_column):]


def with_graphs(fix: Fix, path: str, text: str, frame: str, predict: Predictor, module_wide: bool = False) -> Fix:
    """``fix`` whose title says the graphs of ``frame`` before and after it (and the skipped
    frames, when they change), carrying both predictions (``Fix.effect``). A fix whose predicted
    effect is no gain (:func:`gains`), or cannot be predicted, becomes ``display-only``: advice that
    ``gblint fix`` never applies, with or without ``--unsafe-fixes``. ``module_wide``: the edit changes
    what every compiled region of the file does (a ``torch._dynamo.config`` line), so it is also judged
    on them all (:func:`_elsewhere`)."""
    if len(fix.edits) != 1:
        return fix
    new = apply_edit(text, fix.edits[0])
    before, after = predict(path, text, frame), predict(path, new, frame)
    if before is None or after is None:
        return dataclasses.replace(fix, title=fix.title + f" (`{frame}`: effect not predicted; not applied)",
                                   applicability=DISPLAY_ONLY)
    if before == after:
        return dataclasses.replace(fix, title=fix.title + f" (`{frame}`: no change predicted; not applied)",
                                   applicability=DISPLAY_ONLY, effect=_plain(before, after))
    note = f" ({_change(frame, before, after)}"
    worse = _elsewhere(predict, path, text, new, before, after) if module_wide else ""
    if gains(before, after) and not worse:
        return dataclasses.replace(fix, title=fix.title + note + ")", effect=_plain(before, after))
    why = worse or ("adds a skipped frame" if after.skipped > before.skipped else "removes no break or skipped frame")
    return dataclasses.replace(fix, title=fix.title + note + f"; {why}: not applied)",
                               applicability=DISPLAY_ONLY, effect=_plain(before, after))


def together(fixes: Sequence[Fix], path: str, text: str, frame: str, predict: Predictor,
             module_wide: bool = False) -> Optional[Fix]:
    """The fixes of one frame that gain nothing one at a time (each ``display-only``, judged by
    :func:`with_graphs`), judged applied together: a frame skipped for two reasons (a ``print`` in a
    loop and a ``.item()`` in a ``try``) is compiled only when both go. ``fixes``: their rewrites as
    built, before any prediction, one edit each. Returns one :class:`Fix` holding every edit that does
    not overlap an earlier one (by line), with the strictest applicability of them, when that set is
    at least two fixes, CPython compiles the result and :func:`gains` holds for the frame; else None.
    ``module_wide``: one of them changes every compiled region of the file (judged on them all, as in
    :func:`with_graphs`). Issue 40: a forward with ``assert not t``, a print loop and ``try: t.item()`` got
    no fix at all."""
    chosen: List[Fix] = []
    spans: List[Tuple[int, int]] = []
    for fix in sorted(fixes, key=lambda f: (f.edits[0].line, f.edits[0].column)):
        e = fix.edits[0]
        span = (e.line, max(e.end_line, e.line + 1))
        if any(span[0] < b and a < span[1] for a, b in spans):
            continue
        chosen.append(fix)
        spans.append(span)
    if len(chosen) < 2:
        return None
    new = text
    for fix in reversed(chosen):  # bottom up: the lines above each edit stay where they are
        new = apply_edit(new, fix.edits[0])
    if compile_error(new, path) is not None:
        return None
    before, after = predict(path, text, frame), predict(path, new, frame)
    if before is None or after is None or not gains(before, after):
        return None
    if module_wide and _elsewhere(predict, path, text, new, before, after):  # one of them is (see with_graphs)
        return None
    safe = all(f.applicability == "safe" for f in chosen)
    title = "; ".join(f.title for f in chosen) + \
        f" (the {len(chosen)} fixes together, each no gain alone: {_change(frame, before, after)})"
    return Fix(title, "safe" if safe else "unsafe", tuple(f.edits[0] for f in chosen), effect=_plain(before, after))


def _change(frame: str, before: Effect, after: Effect) -> str:
    """```frame``: ~1 -> ~4 graphs, 3 graph breaks, 1 -> 0 skipped frames`` (the skipped frames only when they
    change): graphs are estimated from the ops between breaks, as --explain shows them (~); breaks are counted."""
    graphs, breaks = after.graphs, after.breaks
    note = f"`{frame}`: ~{before.graphs} -> ~{graphs} graph{'s' if graphs != 1 else ''}, " \
           f"{breaks} graph break{'s' if breaks != 1 else ''}"
    if before.skipped != after.skipped:
        note += f", {before.skipped} -> {after.skipped} skipped frame{'s' if after.skipped != 1 else ''}"
    return note


def _elsewhere(predict: Predictor, path: str, text: str, new: str, before: Effect, after: Effect) -> str:
    """Why an edit that changes every compiled region of ``path`` (``text`` -> ``new``) is no gain there,
    or "": the frames of the file's regions together (``predict(path, text, None)``) run more eagerly
    (:data:`_EAGER`, summed) than the fixed frame's own change accounts for (``before`` -> ``after``). Measured: listing ``print``
    as reorderable made another function's ``try: return t.item()`` its first break, skipping it whole."""
    whole, fixed = predict(path, text, None), predict(path, new, None)
    if whole is None or fixed is None:
        return "its effect on the file's other compiled regions is not predicted"
    if fixed.eager - whole.eager > _EAGER.get(after.status, 2) - _EAGER.get(before.status, 2):
        return "another compiled region of the file runs more eagerly"
    return ""


def _plain(before: Effect, after: Effect) -> tuple:
    """Both predictions as plain tuples (what the summary cache stores); :func:`effects` reads them."""
    return tuple(before), tuple(after)


def effects(fix: Fix) -> Optional[Tuple[Effect, Effect]]:
    """The predictions ``fix`` carries (before, after), or None."""
    return (Effect(*fix.effect[0]), Effect(*fix.effect[1])) if fix.effect else None


def describe(effect: Effect) -> str:
    """``~4 graphs, 3 graph breaks, 0 skipped frames``."""
    g, b, s = effect.graphs, effect.breaks, effect.skipped
    return (f"~{g} graph{'s' if g != 1 else ''}, {b} graph break{'s' if b != 1 else ''}, "
            f"{s} skipped frame{'s' if s != 1 else ''}")


def measured_line(before: Effect, after: Effect, fresh: Optional[Effect]) -> str:
    """The prediction a fix was applied on, beside a fresh check of its frame once every fix is
    in: ``predicted: ~0 -> ~4 graphs, 0 -> 3 graph breaks, 1 -> 0 skipped frames; after the fix:
    ~4 graphs, 3 graph breaks, 0 skipped frames``."""
    def pair(a: int, b: int, word: str, tilde: str = "") -> str:
        return f"{tilde}{a} -> {tilde}{b} {word}{'s' if b != 1 else ''}"
    text = (f"predicted: {pair(before.graphs, after.graphs, 'graph', '~')}, "
            f"{pair(before.breaks, after.breaks, 'graph break')}, {pair(before.skipped, after.skipped, 'skipped frame')}")
    return text + "; after the fix: " + (describe(fresh) if fresh is not None else "the frame is no longer found")
