"""A frame skipped whichever way its branches go (:mod:`gblint.dynamo.branch_cover`), as a definite diagnostic.

Each break that skips a frame only when its arm runs keeps its own condition; when every way through the frame
meets one, the frame is skipped for sure: :func:`covered_skip` (called by the region walk,
:class:`gblint.dynamo.consequences._RegionWalk`, which it reports through) reports that once, at the frame's ``def``,
naming the outermost statement whose every arm breaks (or the call that leads to it), with each reason and its
line, and records it in the frame's report so that graphs are counted from it
(:class:`gblint.dynamo.frame_report.FrameReport`).
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from .branch_cover import EVERY_WAY, Way, covering
from ..core.model import Event, Frame, Outcome, Span
from .walk_api import Reporter

# the way to a break that skips the frame when its arm runs, and where the break is (file, line)
SkipWay = Tuple[Optional[Way], str, int]


def covered_skip(walk: Reporter, frame: Frame, anchor: Event, ways: List[SkipWay], new: List[SkipWay]) -> bool:
    """Add ``new`` to ``ways`` (the breaks met so far that skip ``frame`` when their arm runs, with the
    choices on the way to each; ``anchor``: the event of ``frame`` that leads to ``new``); whether they now
    leave no way through ``frame`` without one: if so, report the frame skipped for sure through ``walk``
    (a :class:`gblint.dynamo.walk_api.Reporter`, whose diagnostics hold the conditional skips met).

    PyTorch: ``torch/_dynamo/symbolic_convert.py`` (``InstructionTranslator`` skips a frame whose break it
    cannot resume, GB7000, whichever branch holds it)."""
    if not new:
        return False
    ways.extend(new)
    key = covering(w for w, _, _ in ways)
    if key is None or key == EVERY_WAY:
        return False
    sites = {(path, line) for w, path, line in ways if w is not None}
    reasons = [d for d in walk.diagnostics if d.effect == "skip" and d.frame == frame.name
               and (d.path, d.line) in sites and d.certainty == "conditional"]
    if not reasons:
        return False
    calls, _, line, _ = key
    where = f"each arm of the test at line {line}"
    if calls:  # the test is in a function the frame calls: the call leads to a break whichever arm runs
        call = next((ev for ev in frame.info.events if id(ev) == calls[0]), anchor)
        where = f"each way through `{call.call_text}(...)` at line {call.span.line}"
    # at the frame's `def`: the frame, not one of the sites (each keeps its own diagnostic and condition)
    span = Span(frame.info.span.line, frame.info.span.column, frame.info.span.line, frame.info.span.column)
    listed = "; ".join(f"line {d.line}: {d.message.split(':')[0]} ({d.condition})" for d in reasons)
    first = reasons[0]
    walk.emit_under((), first.code, Outcome.SKIP, frame.name, frame.path, span,
                    f"{where[:1].upper()}{where[1:]} of `{frame.name}` meets a break that skips the frame, so frame "
                    f"`{frame.name}` is skipped and runs eagerly whichever arm runs: {listed}.", first.hint,
                    tuple(dict.fromkeys(g for d in reasons for g in d.gb_ids)), (), subject=f"a break in {where}")
    walk.note(frame, Outcome.SKIP, anchor, f"a break in {where}", Outcome.SKIP)
    return True
