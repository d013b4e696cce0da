"""Where the consequence walk's verdicts become diagnostics: one per code, site and frame, the surest kept.

:class:`gblint.dynamo.consequences._RegionWalk` decides what a break does to a frame; this sink turns each
decision into a :class:`gblint.core.diagnostics.Diagnostic` (its one-line message, its certainty under the
conditions the decision was made under, the graph-break id texts of the release in force) and keeps
one diagnostic per code, site and frame, the surest of those met. A site met again on another way (the other
arm of an ``if`` around the call that leads to it) is surer when the ways met so far cover every arm
(:func:`gblint.dynamo.branch_cover.covering`): it is reached whichever arm runs.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Tuple

from ..core import messages, registry
from .branch_cover import Way, covering, merged
from ..core.codes import CODES
from ..core.diagnostics import CERTAINTY_RANK, Diagnostic, TraceFrame
from .frame_context import FrameContext, certainty_under
from ..core.model import FixRequest, Outcome


_MAX_WAYS = 64  # ways to one diagnostic compared pairwise (:meth:`DiagnosticSink._parted`), at most


class DiagnosticSink:
    """The diagnostics of one region's walk (``diagnostics``, shared with ``ctx``), for ``release``."""

    def __init__(self, release, ctx: FrameContext, diagnostics: List[Diagnostic]):
        self.release = release
        self.ctx = ctx
        self.diagnostics = diagnostics
        self.reported_sites: Dict[Tuple[str, int], int] = {}  # site -> index of its first diagnostic
        self.emitted: Dict[tuple, int] = {}  # (code, path, line, frame) -> index of its diagnostic
        self.ways: Dict[Tuple[int, tuple], List[Way]] = {}  # (index, context) -> the ways it was met on
        # (index, context) -> (way, conditions) it was met on, for ways that part at one statement (:func:`merged`)
        self.met: Dict[Tuple[int, tuple], List[Tuple[Way, Tuple[str, ...]]]] = {}
        self.conditions: Dict[int, Tuple[str, ...]] = {}  # index -> the context and conditions of its certainty

    def emit(self, code: str, outcome: Outcome, frame_name: str, path: str, span, message: str, hint: str,
             gb_ids: Tuple[str, ...], trace: Tuple[TraceFrame, ...], conditions: Optional[Tuple[str, ...]],
             subject: Optional[str], name: Optional[str] = None, fix_request: Optional[FixRequest] = None,
             brief: Optional[str] = None, way: Optional[Way] = None) -> None:
        """Report what a break does to frame ``frame_name`` (``outcome``, the diagnostic's effect), decided
        under ``conditions`` (None: none), once per code, site and frame; ``way``: those conditions as the
        choices of the arms on the way (:func:`gblint.dynamo.branch_cover.way_to`), None where they are not only that.
        ``message`` is the whole explanation; the one-line message is composed from ``subject`` (what breaks) by
        :func:`gblint.core.messages.short_message` (from ``brief`` in place of the code's, when given). A line met again for another break (a call into another
        file that leads to two) reports the surer one: how sure one break is says nothing of the other."""
        effect = outcome.effect
        key = (code, path, span.line, frame_name)
        site = (path, span.line)
        earlier = same = self.emitted.get(key)
        if earlier is None and effect == "break" and code != "GBL208":
            earlier = self.reported_sites.get(site)  # the same break, already reported from a caller's point of view
        old = self.diagnostics[earlier] if earlier is not None else None
        if old is not None and not (trace and old.trace and _end(trace) != _end(old.trace)):
            # only ways to this very diagnostic cover: a way on which the break does something else (resumes where
            # another way meets it in a loop) does not make this one happen
            self._surer(earlier, effect, self._covered(earlier, conditions, way if same is not None and
                                                       effect != "error" and old.effect == effect else None))
            return
        ids = registry.known(dict.fromkeys(gb_ids), self.release)  # the ids and texts of the release in force
        if ids and registry.gb_type(ids[0], self.release):
            message = f"{message} [{ids[0]}: {registry.gb_type(ids[0], self.release)}]"
        how, condition = certainty_under(self.ctx.context, conditions)
        short = messages.short_message(code, str(outcome), subject, frame_name, max(len(trace) - 1, 0),
                                       template=brief) \
            if subject else messages.fit(message)
        new = Diagnostic(
            path=path, line=span.line, column=span.column, end_line=span.end_line, end_column=span.end_column,
            code=code, name=name or (CODES[code].name if code in CODES else ""), effect=effect, message=short,
            explanation=message, frame=frame_name, gb_ids=ids, hint=hint, trace=trace, fix_request=fix_request,
            certainty=how if effect in ("break", "skip", "error") else "", condition=condition if how else "")
        if old is not None:
            if new.certainty and CERTAINTY_RANK[new.certainty] > CERTAINTY_RANK.get(old.certainty, -1):
                self.ctx.record_emitted(conditions, earlier)
                self.diagnostics[earlier] = new
                self.conditions[earlier] = self.ctx.context + (conditions or ())
            return
        self.reported_sites.setdefault(site, len(self.diagnostics))
        self.emitted[key] = len(self.diagnostics)
        self.conditions[len(self.diagnostics)] = self.ctx.context + (conditions or ())
        self._covered(len(self.diagnostics), conditions, way if effect != "error" else None)
        self.ctx.record_emitted(conditions)
        self.diagnostics.append(new)

    def _covered(self, index: int, conditions: Optional[Tuple[str, ...]], way: Optional[Way]):
        """``conditions``, or none when the diagnostic ``index`` has now been met, under the same context, on
        ways that cover every arm of the tests on them (one of them is met whichever arm runs). Never for a
        compile error: the first error met ends the compile, and a test on the way may be that error
        (a tensor test under fullgraph=True), so that no arm runs."""
        if not conditions or way is None:
            return conditions
        ways = self.ways.setdefault((index, self.ctx.context), [])
        ways.append(way)
        if len(ways) > 1 and covering(ways) is not None:
            self.ctx.record_emitted((), index)
            return ()
        return self._parted(index, conditions, way)

    def _parted(self, index: int, conditions: Tuple[str, ...], way: Way) -> Tuple[str, ...]:
        """``conditions``, less the test of a statement where ``way`` and a way met before part, each taking another
        arm, with the same choices after it (:func:`gblint.dynamo.branch_cover.merged`) and the same conditions but
        that test and its negation: the break is met whichever arm runs. Only ever fewer conditions, never none
        (that only :func:`gblint.dynamo.branch_cover.covering` proves)."""
        met = self.met.setdefault((index, self.ctx.context), [])
        todo = [(way, tuple(conditions))]
        best = tuple(conditions)
        while todo and len(met) < _MAX_WAYS:
            w, c = todo.pop()
            for w0, c0 in list(met):
                joined = merged(w0, w)
                if joined is None:
                    continue
                only0, only = set(c0) - set(c), set(c) - set(c0)
                if len(only0) != 1 or len(only) != 1:
                    continue
                fewer = tuple(x for x in c0 if x not in only0)
                if fewer and (joined, fewer) not in met:
                    todo.append((joined, fewer))
                    if len(fewer) < len(best):
                        best = fewer
            met.append((w, c))
        return best

    def _surer(self, index: int, effect: str, conditions: Optional[Tuple[str, ...]]) -> None:
        """The site of diagnostic ``index`` is met again: when it is surer now (definite where it was conditional)."""
        if effect not in ("break", "skip", "error"):
            return
        how, condition = certainty_under(self.ctx.context, conditions)
        d = self.diagnostics[index]
        rank, before = CERTAINTY_RANK.get(how, -1), CERTAINTY_RANK.get(d.certainty, -1)
        now, was = set(self.ctx.context + (conditions or ())), set(self.conditions.get(index, ()))
        if d.certainty and (rank > before or rank == before and conditions is not None and now < was):
            self.diagnostics[index] = dataclasses.replace(d, certainty=how, condition=condition)
            self.conditions[index] = self.ctx.context + (conditions or ())
            if rank == before:  # what a frame analysed again under another context makes of it (recontext)
                self.ctx.record_emitted(conditions, index)


def _end(trace: Tuple[TraceFrame, ...]) -> Tuple[str, int]:
    """The break a trace leads to: its last frame's path and line."""
    return trace[-1].path, trace[-1].line


__all__: Tuple[str, ...] = ("DiagnosticSink",)
