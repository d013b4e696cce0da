"""Certainty across frames: a frame Dynamo compiles on its own from a call that runs only under tests
gblint cannot decide (a frame skipped or split before the call, the call under ``if flag:``) is
analysed under those tests, so that everything reported in it is ``conditional`` on them; analysed
again under fewer (the same frame also called unconditionally), what it reported is made more
certain. The certainty words are :func:`gblint.abstract.certainty.certainty_of`'s (issue: certainty, path
conditions; docs/semantics.md §0 rule 6: Dynamo traces only the branch the values take).
"""
from __future__ import annotations

import contextlib
import dataclasses
from typing import Dict, Iterator, List, Optional, Tuple

from ..abstract.certainty import certainty_of
from ..core.diagnostics import Diagnostic
from .frame_report import FrameReport


class FrameContext:
    """The walk's context: :attr:`context` (the tests on the way to the frame being analysed),
    :attr:`alone_if` (the tests on which that frame's being compiled on its own depends besides),
    per frame the context it was analysed under, and per frame the diagnostics reported in it.
    ``diagnostics`` is the region walk's list (:attr:`gblint.dynamo.consequences._RegionWalk.diagnostics`),
    whose entries :meth:`recontext` replaces when a frame turns out surer."""

    def __init__(self, diagnostics: List[Diagnostic], unsure: Tuple[str, ...] = ()):
        self.diagnostics = diagnostics
        # the region's entry is reached on every call: no tests on the way but whether it is compiled at all (unsure)
        self.context: Tuple[str, ...] = unsure
        self._contexts: Dict[tuple, Tuple[str, ...]] = {}
        self._analysing: List[tuple] = []
        self._emitted_under: Dict[tuple, List[tuple]] = {}
        # graph counts: the tests on which a frame's being compiled on its own depends besides the context (the
        # break at the call that leads to it is conditional), and per frame analysed the reports of the frames
        # entered while it was, with whether they needed more than it did to be compiled on their own
        self.alone_if: Tuple[str, ...] = ()
        self._alone_under: Dict[tuple, Tuple[str, ...]] = {}
        self._entered_under: Dict[tuple, List[Tuple[FrameReport, bool]]] = {}

    def analysing(self, key: tuple) -> int:
        """How many frames of the function of ``key`` (``(path, qualname, values)``) are being
        analysed inside one another."""
        return sum(1 for k in self._analysing if k[:2] == key[:2])

    def enter_frame(self, key: tuple, report: FrameReport) -> None:
        """Start analysing the frame ``key`` (``(path, qualname, values)``, whose report is ``report``)
        under the current context; its report is proven (:attr:`gblint.dynamo.frame_report.FrameReport.proven`)
        when nothing undecided is on the way to it."""
        self._contexts[key] = self.context
        self._alone_under[key] = self.alone_if
        report.proven = report.proven or not (self.context or self.alone_if)
        for outer in self._analysing:
            more = (len(self.context) > len(self._contexts[outer])
                    or len(self.alone_if) > len(self._alone_under[outer]))
            self._entered_under.setdefault(outer, []).append((report, more))
        self._entered_under.setdefault(key, []).append((report, False))
        self._analysing.append(key)

    def leave_frame(self) -> None:
        """Done with the innermost frame being analysed."""
        self._analysing.pop()

    def record_emitted(self, conditions: Optional[Tuple[str, ...]], index: Optional[int] = None) -> None:
        """Note the diagnostic about to be appended (or to replace the one at ``index``), for a site
        decided under ``conditions``, under every frame being analysed."""
        index = len(self.diagnostics) if index is None else index
        for key in self._analysing:
            self._emitted_under.setdefault(key, []).append((index, self.context, conditions))

    @contextlib.contextmanager
    def further(self, tests: Tuple[str, ...], alone_if: Tuple[str, ...]) -> Iterator[None]:
        """While a frame compiled on its own from a call is analysed: ``tests`` more on the way to
        it, and ``alone_if`` more on which its being compiled on its own depends."""
        outer, outer_alone = self.context, self.alone_if
        self.context = outer + tests
        self.alone_if = outer_alone + alone_if
        try:
            yield
        finally:
            self.context, self.alone_if = outer, outer_alone

    def reprove(self, key) -> None:
        """The frame ``key`` is reached again with nothing undecided on the way: it, and the frames
        compiled from it that needed nothing more, are proven to be compiled on their own."""
        if self.context or self.alone_if:
            return
        for report, more in self._entered_under.get(key, ()):
            report.proven = report.proven or not more

    def recontext(self, key) -> None:
        """The frame ``key``, analysed before under more tests than now, is compiled under fewer:
        what was reported in it (and in the frames compiled from it) holds under fewer."""
        self.reprove(key)
        old = self._contexts.get(key, ())
        if not set(self.context) < set(old):
            return
        self._contexts[key] = self.context
        for i, context, conds in self._emitted_under.get(key, ()):
            if context[:len(old)] != old:
                continue
            context = self.context + context[len(old):]
            how, condition = certainty_under(context, conds)
            d = self.diagnostics[i]
            self.diagnostics[i] = dataclasses.replace(d, certainty=how if d.certainty else "",
                                                      condition=condition if how and d.certainty else "")


def certainty_under(context: Tuple[str, ...], conditions: Optional[Tuple[str, ...]]) -> Tuple[str, str]:
    """``(certainty, condition)`` of a site decided under ``conditions`` (None: not decided by the
    walk) in a frame analysed under ``context``; ``("", "")`` when neither says anything, so that
    the trace decides (:func:`gblint.dynamo.entries.certainty`)."""
    if conditions is None and not context:
        return "", ""
    return certainty_of(context + (conditions or ()))


def eogb_value(dec) -> Optional[bool]:
    """What an ``error_on_graph_break(...)`` decorator (a :class:`gblint.core.model.Decorator`, or None)
    sets: True or False when its argument is the literal, None when absent or not a literal
    (torch/_dynamo/decorators.py ``error_on_graph_break``)."""
    if dec is None:
        return None
    if dec.args:
        return {"True": True, "False": False}.get(dec.args[0])
    if "error_on_graph_break" in dec.kwargs:
        return {"True": True, "False": False}.get(dec.kwargs["error_on_graph_break"])
    return None
