"""What the consequence walk's collaborators call back: the interface of
:class:`gblint.dynamo.consequences._RegionWalk` that :class:`gblint.dynamo.compile_errors.CompileErrors`,
:class:`gblint.dynamo.comp_frames.CompFrames` and :func:`gblint.dynamo.skip_cover.covered_skip` use, and the
facts of :class:`gblint.dynamo.consequences.Consequences` they read (:class:`WalkFacts`).
"""
from __future__ import annotations

from typing import Iterable, List, Optional, Protocol, Tuple

from ..abstract import values
from ..core.diagnostics import Diagnostic, TraceFrame
from .frame_report import FrameReport
from .sink import DiagnosticSink
from ..core.model import Block, Event, FixRequest, Frame, Outcome, Span


class Reporter(Protocol):
    """The walk as its collaborators report through it: ``diagnostics``, the region's list so far
    (read, and made to name each other in place), ``conditions``, those of the site being decided (None: none),
    ``sink``, where they become diagnostics, the three ways of adding to the list, and each frame's report."""

    diagnostics: List[Diagnostic]
    conditions: Optional[Tuple[str, ...]]
    sink: DiagnosticSink

    def emit(self, code: str, outcome: Outcome, frame_name: str, path: str, span: Span, message: str, hint: str,
             gb_ids: Tuple[str, ...], trace: Tuple[TraceFrame, ...], name: Optional[str] = None,
             fix_request: Optional[FixRequest] = None, subject: Optional[str] = None,
             brief: Optional[str] = None) -> None:
        """Report what a break does to a frame, certain as the site being decided is."""

    def emit_under(self, conditions: Tuple[str, ...], code: str, outcome: Outcome, frame_name: str, path: str,
                   span: Span, message: str, hint: str, gb_ids: Tuple[str, ...], trace: Tuple[TraceFrame, ...],
                   subject: Optional[str] = None) -> None:
        """:meth:`emit` for a site of its own, decided under ``conditions``."""

    def note(self, frame: Frame, verdict: Outcome, anchor: Event, what: str, proven: Optional[Outcome],
             ops: Optional[int] = None) -> None:
        """Record a verdict in ``frame``'s report."""

    def report_for(self, frame: Frame) -> FrameReport:
        """The report of ``frame`` in this walk."""


class WalkFacts(Protocol):
    """What the walk's collaborators ask of :class:`gblint.dynamo.consequences.Consequences`: which events
    the walk meets, under which undecided tests, and the calls it resolved."""

    def skips(self, ev: Event, env: Optional[values.Env] = None) -> bool:
        """Whether a test around ``ev`` is false for ``env``, or ``ev`` is on an error path not reported."""

    def residual(self, blocks: Iterable[Block], env: values.Env) -> Tuple[str, ...]:
        """The tests around an event that ``env`` does not make true."""

    def resolved_calls(self, frame: Frame) -> List[Tuple[Event, tuple]]:
        """``(call event, targets)`` for each call of ``frame`` a walk resolved, in source order."""
