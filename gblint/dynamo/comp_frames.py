"""Comprehensions and generators as frames of their own (docs/semantics.md §3.2, §7.2-7.3, §8.20, addendum 6).

:class:`CompFrames`, a collaborator of the region walk (:class:`gblint.dynamo.consequences._RegionWalk`), reports:

- a break inside a comprehension or generator expression (:meth:`CompFrames.comprehension`);
- code that runs eagerly (a skipped frame) still runs its comprehensions under Dynamo's frame hook: on Python
  3.11 a list, set or dict comprehension is its own code object, compiled as its own frame when it holds a tensor,
  and skipped there when it iterates anything but a range or a tuple (GB4347 Missing tp_iternext on a list, zip,
  enumerate or dict iterator); a generator expression is a generator frame, which Dynamo refuses (GB0003), unless
  the failed trace of the frame already marked its code skipped (:meth:`CompFrames.eager_comprehensions`);
- a generator expression star-unpacked into a call (``f(*(g(x) for g in gs))``) that breaks inside: Dynamo
  cannot rebuild the generator at the call, so the caller is skipped (GB8335; :func:`star_generator`,
  :meth:`CompFrames.star_generator_skip`);
- a ``@contextmanager`` generator entered in a skipped frame is a generator frame Dynamo refuses (GB0003;
  :meth:`CompFrames.contextmanager_frames`).
"""
from __future__ import annotations

from typing import Optional, Set, Tuple

from ..abstract import values
from ..core import versions
from .compile_errors import call_trace, join_hint
from ..core.model import Block, BlockKind, Event, EventKind, Frame, Outcome, Region, Span
from ..core.ops import Op
from .walk_api import Reporter, WalkFacts


def _line_span(line: int, column: int = 1) -> Span:
    return Span(line, column, line, column)


def _comp(ev: Event) -> Optional[Block]:
    """The comprehension block of a COMP event that is not inside another comprehension (whose frame runs it)."""
    if ev.kind != EventKind.COMP or not ev.blocks:
        return None
    if any(b.kind in (BlockKind.COMP, BlockKind.GENEXPR) for b in ev.blocks[:-1]):
        return None
    return ev.blocks[-1]


def _within(span: Span, outer: Span) -> bool:
    return (outer.line, outer.column) <= (span.line, span.column) and \
        (span.end_line, span.end_column) <= (outer.end_line, outer.end_column)


def star_generator(frame: Frame, ev: Event) -> Optional[Block]:
    """The generator expression the call ``ev`` of ``frame`` star-unpacks (``f(*(... for ...))``), or None."""
    if ev.args is None or not any(r.op == Op.COMP and r.value == "gen" for r in ev.args.rest):
        return None
    for other in frame.info.events:
        comp = _comp(other)
        if comp is not None and comp.kind == BlockKind.GENEXPR and _within(other.span, ev.span):
            return comp
    return None


class CompFrames:
    """See the module docstring: the comprehension and generator frames of one ``region``, reported
    through ``walk`` (a :class:`gblint.dynamo.walk_api.Reporter`), the events that run decided by ``tests``
    (the walk's :class:`gblint.dynamo.consequences.Consequences`). ``traced_generators``: ``(path, line,
    column)`` of the generator expressions whose code a failed trace marked skipped."""

    def __init__(self, region: Region, tests: WalkFacts, walk: Reporter):
        self.region = region
        self.tests = tests
        self.walk = walk
        self.traced_generators: Set[Tuple[str, int, int]] = set()

    def _inlined(self) -> bool:
        return versions.holds("comprehension-inlined", self.region.torch_version or versions.NEWEST_TORCH,
                              self.region.python_version)

    def _traced_generator(self, path: str, block: Block) -> None:
        """A generator expression whose code the failed trace marked skipped: no GB0003 frame when it runs."""
        self.traced_generators.add((path, block.line, block.column))

    def comprehension(self, frame, site, comp: Block, chain, site_frame, trace, depth) -> Outcome:
        """Comprehensions and generator expressions (docs/semantics.md §3.2, addenda 2-3)."""
        path = site_frame.path
        py = self.region.python_version
        inlined = self._inlined()
        caller_skips = comp.kind == BlockKind.GENEXPR or comp.over_items or (inlined and comp.comp_kind == "set")
        if caller_skips:
            what = "generator expression" if comp.kind == BlockKind.GENEXPR else f"{comp.comp_kind} comprehension"
            gb = ("GB8335",) if comp.kind == BlockKind.GENEXPR else ("GB0092",)
            if comp.kind == BlockKind.GENEXPR:
                self._traced_generator(frame.path, comp)
            self.walk.emit("GBL206", Outcome.SKIP, frame.name, frame.path, _line_span(comp.line, comp.column),
                           f"{site.detail} inside the {what} at line {comp.line}: Dynamo cannot reconstruct it after "
                           f"the break, so frame `{frame.name}` is skipped and runs eagerly.",
                           join_hint(site.hint, f"Replace the {what} with an explicit loop-free computation, or move "
                                      "the break out of it."), site.gb_ids + gb, trace)
            return Outcome.SKIP
        if not inlined and comp.holds_tensor:
            comp_frame = f"<{comp.comp_kind}comp>"
            self.walk.emit("GBL206", Outcome.SKIP, comp_frame, path, site.span,
                           f"{site.detail} inside the {comp.comp_kind} comprehension at line {comp.line} of "
                           f"`{frame.name}`: on Python {py[0]}.{py[1]} the comprehension is its own frame and a break "
                           f"in its loop skips it (GB7000); `{frame.name}` breaks at the comprehension and resumes.",
                           join_hint(site.hint, "Move the breaking call out of the comprehension."),
                           site.gb_ids + ("GB7000",), trace)
            return Outcome.RESUME
        msg = (f"{site.detail} inside the {comp.comp_kind} comprehension at line {comp.line}: `{frame.name}` "
               "breaks at the comprehension, which runs eagerly, and resumes after it.")
        self.walk.emit("GBL301" if chain else site.code, Outcome.RESUME, frame.name, path, site.span, msg,
                       join_hint(site.hint, "Move the breaking call out of the comprehension."), site.gb_ids, trace,
                       name=None if chain else site.rule_name)
        return Outcome.RESUME

    def eager_comprehensions(self, frame: Frame, env, after: int = 0) -> None:
        """``frame`` is skipped (after line ``after``: its rest, after a tail): each comprehension it runs there
        is met by Dynamo as a frame of its own."""
        if self.region.fullgraph:
            return
        inlined = self._inlined()
        done = self.traced_generators
        for ev in frame.info.events:
            comp = _comp(ev)
            if comp is None or ev.span.line <= after or self.tests.skips(ev, env):
                continue
            conditions = self.tests.residual(ev.blocks[:-1], env or values.Env())
            if comp.kind == BlockKind.GENEXPR:
                if (frame.path, comp.line, comp.column) in done:
                    continue
                self.walk.emit_under(
                    conditions, "GBL205", Outcome.SKIP, "<genexpr>", frame.path, ev.span,
                    f"the generator expression at line {comp.line} runs in `{frame.name}`, which Dynamo skipped: "
                    "Dynamo does not trace a generator frame on its own (GB0003); it runs eagerly.",
                    "Keep the skipped frame's work in tensor ops, or fix what skips the frame.", ("GB0003",), (),
                    subject=f"generator expression in skipped `{frame.name}`")
                continue
            if inlined or not (comp.holds_tensor or comp.reads_unknown) or comp.eager_ok:
                continue
            gb = ("GB9493",) if versions.holds("comp-frame-gb9493", self.region.torch_version
                                               or versions.NEWEST_TORCH, self.region.python_version) else ("GB4347",)
            name = f"<{comp.comp_kind}comp>"
            self.walk.emit_under(
                conditions, "GBL206", Outcome.SKIP, name, frame.path, ev.span,
                f"the {comp.comp_kind} comprehension at line {comp.line} runs in `{frame.name}`, which Dynamo "
                f"skipped: on Python 3.11 it is a frame of its own holding a tensor, compiled alone, and "
                f"Dynamo cannot iterate the iterator it is given there ({gb[0]}): `{name}` is skipped too.",
                "Iterate a tuple or a range, or fix what skips the enclosing frame.", gb, (),
                subject=f"{comp.comp_kind} comprehension in skipped `{frame.name}`")

    def contextmanager_frames(self, frame: Frame, blocker: Block) -> None:
        """A @contextmanager generator entered in a skipped frame is itself skipped (addendum 6): the
        generator frames the interpreter resolved the ``with`` item's call ``blocker`` builds its
        manager with to (the walk's targets of that call, :meth:`gblint.dynamo.calls.CallValues.resolved_calls`)."""
        head = blocker.manager.label.split("(", 1)[0]
        calls = [(ev, targets) for ev, targets in self.tests.resolved_calls(frame)
                 if ev.call_text == head and ev.span.line >= blocker.line and not any(b is blocker for b in ev.blocks)]
        for callee in (min(calls, key=lambda c: c[0].span.line)[1] if calls else ()):
            if isinstance(callee, Frame) and callee.info.is_generator:
                self.walk.emit("GBL205", Outcome.SKIP, callee.name, callee.path, callee.info.span,
                               f"`{callee.name}` is a generator (@contextmanager) entered by the skipped frame "
                               f"`{frame.name}`: Dynamo does not trace generator frames (GB0003); it runs eagerly.",
                               "Use a supported manager, or keep the break out of the `with` block.", ("GB0003",), (),
                               subject=f"@contextmanager `{callee.name}`, entered in skipped `{frame.name}`")

    def star_generator_skip(self, frame: Frame, ev: Event, gen: Block, first, conditions: Tuple[str, ...]) -> None:
        """A call star-unpacking ``gen`` breaks inside (``first``, an inner break, under ``conditions``):
        the caller is skipped."""
        self._traced_generator(frame.path, gen)
        self.walk.emit_under(
            conditions, "GBL206", Outcome.SKIP, frame.name, frame.path, ev.span,
            f"`{ev.call_text}(*...)` star-unpacks the generator expression at line {gen.line} and reaches "
            f"{first.event.detail} (line {first.line}): Dynamo cannot rebuild the generator at the call, "
            f"so frame `{frame.name}` is skipped and runs eagerly (the callee is compiled on its own).",
            "Unpack a list instead (`f(*[... for ...])`), or remove the break from the callee.",
            ("GB8335",), (), subject=f"`{ev.call_text}(*generator)` reaching a break")
        self.walk.note(frame, Outcome.SKIP, ev, f"star-unpacks a generator into `{ev.call_text}`, which breaks",
                       None if conditions else Outcome.SKIP)

    def inlined_generator_skip(self, frame: Frame, ev: Event, callee: Frame, first, conditions: Tuple[str, ...]) -> None:
        """The call ``ev`` consumes the generator ``callee``, which breaks inside (``first``, an inner break, the
        tests on the way to it ``conditions``): a break inside an inlined generator cannot resume, the caller is
        skipped."""
        trace = call_trace(first.chain, first.frame, first.event)
        self.walk.emit("GBL205", Outcome.SKIP, frame.name, first.frame.path, first.event.span,
                       f"{first.event.detail} inside generator `{callee.name}`, consumed by `{frame.name}` "
                       f"at line {ev.span.line}: a break inside an inlined generator cannot resume, so frame "
                       f"`{frame.name}` is skipped and runs eagerly.",
                       "Move the break out of the generator, or build the list in a plain loop-free helper.",
                       first.event.gb_ids, trace, subject=f"{first.event.detail} inside generator `{callee.name}`")
        self.walk.note(frame, Outcome.SKIP, ev, f"consumes generator `{callee.name}` that breaks",
                       None if conditions else Outcome.SKIP)
