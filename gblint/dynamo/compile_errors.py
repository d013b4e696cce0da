"""Compile errors of a region: what the consequence walk reports when a break raises.

Under ``fullgraph=True`` or ``torch._dynamo.error_on_graph_break(True)`` a graph break is a compile
error (``docs/semantics.md`` rule 5), an op that fails while traced raises whatever the settings,
and some constructs make Dynamo fail internally (GBL404). One diagnostic at the break says it all;
the calls on the way (``GBL403``) and the frame left without compiled code (``GBL409``) are shown
as diagnostics that name it. :class:`CompileErrors` is a collaborator of the walk
(``gblint.dynamo.consequences._RegionWalk``), reporting through it (:class:`gblint.dynamo.walk_api.Reporter`).
"""
from __future__ import annotations

from typing import Optional, Tuple

from ..core import versions
from ..core.diagnostics import TraceFrame, name_each_other
from ..core.model import Event, Frame, Outcome, Region
from .walk_api import Reporter


def call_trace(chain, site_frame: Frame, site: Event) -> Tuple[TraceFrame, ...]:
    """The call chain from the frame that pays for a break down to its ``site`` in ``site_frame``
    (``chain``: the ``(caller frame, call event)`` pairs on the way)."""
    out = [TraceFrame(f.path, ev.span.line, f.info.qualname) for f, ev in chain]
    out.append(TraceFrame(site_frame.path, site.span.line, site_frame.info.qualname))
    return tuple(out)


class CompileErrors:
    """Reports the compile errors of one ``region`` (a :class:`gblint.core.model.Region`) through
    ``walk`` (a :class:`gblint.dynamo.walk_api.Reporter`); ``failed``: whether the region's compile fails,
    ``first_error``: ``(path, line)`` of its first compile error."""

    def __init__(self, region: Region, walk: Reporter):
        self.region = region
        self.walk = walk
        self.failed = False
        self.first_error: Optional[Tuple[str, int]] = None

    def error_at(self, frame: Frame, site: Event, chain, detail: str, gb_ids, hint: str, strict: bool,
                 site_frame: Optional[Frame] = None, failure: str = "") -> None:
        """Report a break that is a compile error here (fullgraph or error_on_graph_break; with
        ``failure``, a construct whose trace raises inside Dynamo, GBL404; an op that fails while
        traced, its rule's own code): one diagnostic at the break, whose trace holds the calls
        leading to it and whose frame is the one that gets no compiled code."""
        site_frame = site_frame or frame
        trace = call_trace(chain, site_frame, site) if chain else ()
        entry = self.region.entry.name
        calls = "; ".join(f"`{call.call_text}(...)` at line {call.span.line} of `{caller.name}` leads to it"
                          for caller, call in chain)
        calls = f" ({calls})" if calls else ""
        first = self.first_error
        if first is None:
            self.first_error = first = (site_frame.path, site.span.line)
            region_note = f"`{frame.name}` gets no compiled graph: its compile fails"
        else:
            region_note = f"the first call already fails at line {first[1]}"
        self.failed = True
        if site.outcome == Outcome.ERROR and not failure:  # fails while traced, whatever the settings (rules/trace_errors.py)
            self.walk.emit(site.code, Outcome.ERROR, frame.name, site_frame.path, site.span,
                           f"{detail}: if the op fails, it fails while Dynamo traces it, the `except` clause does not "
                           f"run and calling `{entry}` raises torch._dynamo.exc.TorchRuntimeError{calls}, and "
                           f"{region_note}.",
                           hint, tuple(gb_ids), trace, name=site.rule_name, subject=detail)
            self._error_parts(len(self.walk.diagnostics) - 1, frame, site, chain, site.code, trace, gb_ids)
            return
        why = "fullgraph=True" if self.region.fullgraph else "torch._dynamo.error_on_graph_break(True)"
        code = "GBL404" if failure else "GBL401" if self.region.fullgraph else "GBL402"
        exc = ("torch._dynamo.exc.UserError (could not guard on a data-dependent expression)" if site.needs_capture
               else "torch._dynamo.exc.InternalTorchDynamoError" if failure else "torch._dynamo.exc.Unsupported")
        lead = f"{failure}, so this is a compile error" if failure else f"under {why} this graph break is a compile error"
        before = len(self.walk.diagnostics)
        self.walk.emit(code, Outcome.ERROR, frame.name, site_frame.path, site.span,
                       f"{detail}: {lead}; calling `{entry}` raises {exc}{calls}, and {region_note}.",
                       hint if failure else join_hint(hint, "Remove the break, or drop fullgraph=True / "
                                                       "error_on_graph_break(True) for this code."),
                       tuple(gb_ids), trace, subject=detail)
        self._error_parts(before, frame, site, chain, code, trace, gb_ids)

    def _error_parts(self, before: int, frame: Frame, site: Event, chain, code: str, trace, gb_ids) -> None:
        """The places a compile error reported at ``site`` (``code``, the diagnostic emitted from
        index ``before``) also shows, as diagnostics that name it and each other: each call on the
        way to it (``GBL403``) and, for the region's first error, the frame that gets no compiled
        code (``GBL409``, a skipped frame)."""
        what = f"the compile error at line {site.span.line} ({code})"
        for caller, call in chain:
            self.walk.emit("GBL403", Outcome.ERROR, caller.name, caller.path, call.span,
                           f"`{call.call_text}(...)` leads to {what}: the error is raised through this call.",
                           "Fix the break in the callee (see the related diagnostic).", tuple(gb_ids), trace,
                           subject=f"`{call.call_text}(...)`")
        if not any(d.code == "GBL409" for d in self.walk.diagnostics[:before]):  # once per region: its first error
            entry = self.region.entry
            self.walk.emit("GBL409", Outcome.SKIP, entry.name, entry.path, entry.info.span,
                           f"`{entry.name}` gets no compiled graph: its first call raises {what}.",
                           "Fix the reported compile error.", tuple(gb_ids), (), subject=f"`{entry.name}`")
        if len(self.walk.diagnostics) - before > 1:
            name_each_other(self.walk.diagnostics, range(before, len(self.walk.diagnostics)))

    def internal_error(self, frame: Frame, site: Event, chain, site_frame: Optional[Frame] = None) -> None:
        """A manager whose trace raises an internal Dynamo error here (ManagerKind.FAILS, §8.13)."""
        where = f"torch {self.region.torch_version or versions.NEWEST_TORCH} on Python %d.%d" % self.region.python_version
        self.error_at(frame, site, chain, site.detail, (), "Use `torch.autocast(\"cpu\")` instead.", False, site_frame,
                      failure=f"Dynamo fails while tracing this manager on {where} (KeyError: 'dtype')")


def join_hint(a: str, b: str) -> str:
    """Two hints as one, the second left out when the first already says it."""
    if not a:
        return b
    if not b or b in a:
        return a
    return f"{a} {b}"
