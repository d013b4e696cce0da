"""Where a frame's graph was last cut, and what a break Dynamo cannot resume from costs after it.

After a graph break it resumes from (``docs/semantics.md`` rule 1), Dynamo goes on in a new frame, the
resume function (``torch_dynamo_resume_in_<frame>_at_<line>``, made by ``ContinueExecutionCache`` in
``torch/_dynamo/resume_execution.py``), which it compiles as a frame of its own. A later break that
cannot resume there (inside a loop, GB7000; inside a ``try`` or a ``with`` with no checkpoint before it;
a skip marker) skips that resume function, not the frame: the graphs before the earlier break are kept
and the rest of the frame runs eagerly (measured on torch 2.13: ``tests/cases/kinds/kb47_*``).
"""
from __future__ import annotations

from typing import NamedTuple, Optional, Tuple

from .compile_errors import join_hint
from ..core.model import Event, FixRequest, Frame, Outcome
from .walk_api import Reporter


class Checkpoint(NamedTuple):
    """The frame's graph at its last resumable break: the ops traced before it (``ops``) and its line
    (``line``; 0 while the frame has surely not resumed: no break yet, or one that may not happen)."""

    ops: int = 0
    line: int = 0


#: the one-line message of such a break (:func:`gblint.core.messages.short_message`; ``{line}``: the earlier break's)
TAIL_BRIEF = "{subject}{via}: `{frame}` resumed at line {line}; that resume function is skipped (runs eagerly)"


def tail_text(detail: str, place: str, frame: str, checkpoint: Checkpoint) -> str:
    """The explanation of a break at ``detail`` in ``place`` (``"inside the loop at line 7"``) that
    Dynamo cannot resume from, met in the resume function of ``frame`` after ``checkpoint``."""
    return (f"{detail}{' ' + place if place else ''}: Dynamo cannot resume there, but `{frame}` already resumed after the graph break "
            f"at line {checkpoint.line}, so Dynamo skips only the resume function that holds this: the graph "
            f"before line {checkpoint.line} is kept and the rest of `{frame}` runs eagerly.")


def nested_text(detail: str, frame: str, depth: int, traced: int, uncompiled: int, wrappers: int,
                nested_graph_breaks: bool) -> str:
    """The explanation of a break ``depth - 1`` calls below ``frame`` (``docs/semantics.md`` rule 4):
    ``traced`` frames on the way re-trace down to it, ``uncompiled`` hold no tensors, ``wrappers`` are
    ``error_on_graph_break`` wrappers with no ops (semantics.md §8.7)."""
    head = f"{detail}, reached through {depth - 1} call(s) from `{frame}`"
    if nested_graph_breaks:
        return f"{head}: with nested_graph_breaks=True Dynamo resumes inside the callee: 1 break, 2 graphs."
    if uncompiled:
        return (f"{head}: the break splits the {traced} frame(s) on the way that Dynamo compiles ({uncompiled} hold no "
                f"tensors and run uncompiled), each re-traces down to it: {traced} break(s), {2 * traced} graphs "
                "(nested_graph_breaks=False).")
    extra = f" ({wrappers} of them `error_on_graph_break` wrappers, with no ops)" if wrappers else ""
    return (f"{head}: the break splits all {depth + wrappers} frames on the way{extra}, each re-traces down to it: "
            f"{depth + wrappers} breaks, {2 * depth} graphs (nested_graph_breaks=False).")


#: where a break that cannot resume is, for the one-line message, by the code that says why
WHERE = {"GBL201": " in a loop", "GBL202": " in a `try`", "GBL203": " in a `with`"}


def resumed_tail(walk: Reporter, frame: Frame, site: Event, place: str, checkpoint: Checkpoint, path: str,
                 gb_ids: Tuple[str, ...], trace, request: Optional[FixRequest], code: str,
                 name: Optional[str] = None) -> Outcome:
    """Report through ``walk`` a break at ``site`` Dynamo cannot resume from (``place``: where it is, as
    ``"inside the loop at line 7"``; ``code``: the code that says why), met after ``frame`` surely resumed at
    ``checkpoint``: the resume function is a skipped frame (the diagnostic's effect), ``frame`` keeps its graphs
    before it (TAIL, the verdict returned)."""
    walk.emit(code, Outcome.SKIP, frame.name, path, site.span, tail_text(site.detail, place, frame.name, checkpoint),
              join_hint(site.hint, "Move the break out of the block or loop, or move it into its own function so "
                        "that only that frame runs eagerly."), gb_ids, trace, name=name, fix_request=request,
              subject=f"{site.detail}{WHERE.get(code, '')}", brief=TAIL_BRIEF.replace("{line}", str(checkpoint.line)))
    # the resume function is skipped whole: the frame's graphs end at the break it resumed after
    walk.note(frame, Outcome.TAIL, site, site.detail, None if walk.conditions else Outcome.TAIL, checkpoint.ops)
    report = walk.report_for(frame)
    report.resume_skipped = report.resume_skipped or report.outcome == Outcome.TAIL
    return Outcome.TAIL


__all__: Tuple[str, ...] = ("TAIL_BRIEF", "WHERE", "Checkpoint", "nested_text", "resumed_tail", "tail_text")
