"""Dynamo's frame semantics: what a break does to the frames around it.

This module reads like the numbered rules of ``docs/semantics.md`` (PyTorch 2.13,
``torch/_dynamo/symbolic_convert.py``):

1. a break in the top-level frame resumes (+1 graph, a ``torch_dynamo_resume_in_*`` frame);
2. a break inside a ``for``/``while`` body, or in a function called there, skips the frame
   (GB7000, ``maybe_has_backedge``);
3. a break inside ``try`` or a ``with`` whose manager cannot resume keeps the graph up to the
   last checkpoint (>= 2 ops, ``is_non_empty_graph``) and runs the rest eagerly, else skips;
4. a break reached through calls splits every frame on the way: N frames, 2N graphs, unless
   ``nested_graph_breaks=True``;
5. ``fullgraph=True`` and ``error_on_graph_break(True)`` turn any of these into an error.

Rules (``gblint.rules``) say *what* breaks; this module says *what it costs*."""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Set, Tuple

from ..core import fix_requests, versions
from ..abstract import values
from ..core.diagnostics import Diagnostic, TraceFrame
from .index import Resolved, disabled_function_break, nonstrict_break
from ..core.model import (Block, BlockFix, BlockKind, Event, EventKind, FixRequest, Frame, FunctionInfo,
                          ManagerKind, Outcome, Region)
from .branch_cover import Way, below, covering, way_to
from .calls import CallValues, call_key
from .skip_cover import SkipWay, covered_skip
from .compile_errors import CompileErrors, call_trace, join_hint
from .frame_context import FrameContext, eogb_value
from .sink import DiagnosticSink
from .frame_report import FrameReport
from .comp_frames import CompFrames, star_generator
from ..core.fixpoint import CutMemo
from .inner_breaks import MAX_CHAIN as _MAX_CHAIN, InnerBreak, distinct, in_try, too_far
from ..core.semantics import CALLERS_RESUME, DISABLE, EOGB, NONSTRICT
from ..core.fix_requests import direct_fix, loop_fix
from ..syntax.backedge import returns_first
from .resumed import Checkpoint, nested_text, resumed_tail
from . import further
from .own_call import at_own_call
from .unrebuilt import Unrebuilt, fresh_method, unrebuilt_call

_MAX_FRAME_RECURSION = 3  # frames of one function analysed inside one another, at most


class Consequences(CallValues):
    """Walks compiled regions and turns events into diagnostics. ``project`` resolves callee refs to frames
    (:class:`gblint.dynamo.index.Project`); ``torch_version`` (``"2.15.0"``, default: the newest measured) on
    ``python_version`` is what is predicted."""

    def __init__(self, project, error_paths: bool = False, torch_version: Optional[str] = None,
                 python_version: Tuple[int, int] = (3, 11)):
        self.project = project
        torch_version = torch_version or versions.NEWEST_TORCH
        self.rnn_calls_resume = versions.holds("rnn-call-resumes", torch_version, (3, 11))
        self.cached_property_locks = versions.holds("cached-property-locks", torch_version, python_version)
        self.error_paths = error_paths  # also walk code that runs only when an exception is raised
        self._inner = CutMemo()  # what inner_breaks found, per frame and relevant values
        self._reads: Dict[Tuple[str, str], Set[str]] = {}
        self._entry_envs: Dict[Tuple[str, str], values.Env] = {}
        self.visited: Dict[Tuple[str, str], Frame] = {}  # every frame a walk traced into (coverage)
        self.calls = {}  # every call resolved, with its targets (CallValues.call_targets)
        self.reasons = {}  # why a call was not followed (wholly or in part), per calls.call_key
        self.cut: Dict[int, Tuple[Frame, Event, str]] = {}  # id(call) -> (caller, call, why): not analysed past it
        self.walks = 0  # functions walked or inlined since the region walk began (gblint.dynamo.inner_breaks.too_far)
        self._resumes: Dict[int, Tuple[Event, Event]] = {}  # id(site) -> (site, the site resuming in its caller)

    def _resumed(self, site: Event) -> Event:
        """``site`` as its callers meet it, resuming after the call: one object per site (distinct() compares them)."""
        found = self._resumes.get(id(site))
        if found is None:
            found = self._resumes[id(site)] = (site, dataclasses.replace(site, outcome=Outcome.RESUME))
        return found[1]

    # ------------------------------------------------------------------ inner breaks
    def inner_breaks(self, frame: Frame, stack: Tuple[str, ...] = (), env: Optional[values.Env] = None,
                     widened: bool = False) -> List[InnerBreak]:
        """Every break met when ``frame``, its parameters holding ``env``, is inlined into a
        caller (memoised per frame and relevant values, cycle-safe)."""
        env = self.project.interp.frame_env(frame, env)
        key = (frame.path, frame.name, values.env_key(env))
        known = self._inner.get(key)
        if known is not None:
            return known
        # a closure is a different function for each frame that made it (a decorator's wrapper
        # around each method it wraps): recursion is the same function made in the same frame
        here = key[:2] + (env.outer,)
        if stack.count(here) == 1 and not widened and len(stack) <= _MAX_CHAIN:  # a recursion (`n - 1`): once more
            wide = {k: values.UNKNOWN if values.is_constant(v) else v for k, v in env.bindings.items()}
            return self.inner_breaks(frame, stack, env.replace(bindings=wide), widened=True)  # constants not known
        if (here in stack and not widened) or len(stack) > _MAX_CHAIN:
            return self._inner.cut(stack.index(here)) if here in stack else []
        with self._inner.entered(key, len(stack)) as out:
            self.walks += 1
            stack = stack + (here,)
            self.visited.setdefault(key[:2], frame)
            ends: List[Optional[Way]] = []  # the ways to breaks that end the frame's tracing when their arm runs
            for ev in frame.info.events:
                if ev.alone or self.skips(ev, env):  # inlined: a break of the frame compiled alone is none
                    continue
                found: List[InnerBreak] = []
                if ev.kind == EventKind.BREAK:
                    if ev.outcome == Outcome.RAISE and (in_try(ev.blocks) or self.uncertain(ev.blocks, env)):
                        continue
                    found = [InnerBreak(frame, ev, (), conditions=self.event_conditions(ev, env),  # capture: per region
                                        way=self.way(frame, ev, env))]
                elif ev.kind == EventKind.WITH:
                    out.append(InnerBreak(frame, ev, (), conditions=self.residual(ev.blocks, env),
                                          way=way_to(ev, env, frame.path)))
                elif ev.kind == EventKind.CALL:
                    for target, callee_env, _flat in self.call_targets(frame, ev, env):
                        found.extend(self._through_call(frame, ev, target, stack, env, callee_env))
                out.extend(found)
                if self.may_skip_frame(ev) and any(ib.conditions for ib in found):
                    ends.extend(ib.way for ib in found if ib.conditions)
                    if covering(ends) is not None:
                        break  # a break in each arm: what follows is never traced in this frame (k66, k80-k84)
            out[:] = distinct(out)
        return out

    def _through_call(self, frame: Frame, ev: Event, callee: Resolved, stack,
                      env: Optional[values.Env] = None, callee_env: Optional[values.Env] = None) -> List[InnerBreak]:
        """The breaks met when the call ``ev`` of ``frame`` (its parameters holding ``env``) is
        inlined into ``callee`` (its parameters holding ``callee_env`` when the interpreter bound them)."""
        at_call = self.residual(ev.blocks, env or values.Env()) + self.via(callee_env)  # the tests the call runs under
        at_way = None if self.via(callee_env) else way_to(ev, env, frame.path)
        if isinstance(callee, Event):  # the call itself breaks (an RNN module, a module built in the region)
            return [InnerBreak(frame, callee, (), conditions=at_call, way=at_way)]
        info = callee.info
        if info.decorator(*DISABLE):
            return [InnerBreak(frame, disabled_function_break(ev, callee), (), conditions=at_call, way=at_way)]
        why = too_far(len(stack), self.walks)
        if why:
            self.cut.setdefault(id(ev), (frame, ev, why))
            return []
        inner_env, alone = self.callee_values(ev, callee, env or values.Env(), callee_env)
        if self.project.untraced_body(callee):  # only nonstrict_trace's may break
            if info.decorator(*NONSTRICT) and any(b.event.python_value for b in self.inner_breaks(callee, stack, inner_env)):
                return [InnerBreak(frame, nonstrict_break(ev, callee), ())]
            return []
        found = []
        override, uncompiled = eogb_value(info.decorator(*EOGB)), int(alone)
        for ib in self.inner_breaks(callee, stack, inner_env):
            if ib.event.outcome == Outcome.RAISE and in_try(ev.blocks):
                continue  # caught by this frame's try
            strict = ib.strict if ib.strict is not None else override
            event = self._resumed(ib.event) if ib.event.outcome == Outcome.SKIP \
                and ib.event.code in CALLERS_RESUME else ib.event  # an RNN skips only the frame that calls it
            found.append(InnerBreak(ib.frame, event, ((frame, ev),) + ib.chain, strict, ib.uncompiled + uncompiled,
                                    at_call + ib.conditions, below(ev, at_way, ib.way)))
        return found

    # ------------------------------------------------------------------ regions
    def region(self, region: Region) -> List[Diagnostic]:
        """Diagnostics for one compiled region."""
        return self.walk(region).diagnostics

    def walk(self, region: Region) -> "_RegionWalk":
        """Walk one compiled region; the walk keeps its diagnostics and per-frame outcomes."""
        walk = _RegionWalk(self, region)
        self.walks = self.project.interp.calls.runs = 0
        walk.frame(region.entry, strict=bool(eogb_value(region.entry.info.decorator(*EOGB))),
                   env=self.relevant(region.entry, self.entry_env(region)))
        return walk


class _RegionWalk:
    """The state of one region's walk: frames compiled, diagnostics emitted; ``ctx``, ``errors`` and ``comps``
    its collaborators (:mod:`gblint.dynamo.frame_context`, :mod:`gblint.dynamo.compile_errors`, :mod:`gblint.dynamo.comp_frames`)."""

    def __init__(self, owner: Consequences, region: Region):
        self.owner = owner
        self.region = region
        self.release = versions.release_for(region.torch_version or versions.NEWEST_TORCH)
        self.diagnostics: List[Diagnostic] = []
        self.seen_frames: Set[tuple] = set()  # (path, qualname, values of its parameters)
        self.conditions: Optional[Tuple[str, ...]] = None  # of the site being decided (see certainty.certainty_of)
        self.loop_unsure = False  # its loop skip depends on what the loop iterates (gblint.syntax.backedge)
        self.way: Optional[Way] = None  # those conditions as arms chosen (gblint.dynamo.branch_cover), when only that
        self.further: Optional[int] = None  # the line of a frame's first skip reason, while judging another (further)
        self.subject: Optional[str] = None  # what breaks at the site being decided, for the one-line message
        self.frames: List[FrameReport] = []
        self._current: Dict[Tuple[str, str], FrameReport] = {}
        self.last_call_resumed = False
        self.call_ways: List[SkipWay] = []  # of the last call: the breaks that skip the frame only when their arm runs
        self.ctx = FrameContext(self.diagnostics, region.unsure)
        self.sink = DiagnosticSink(self.release, self.ctx, self.diagnostics)
        self.errors = CompileErrors(region, self)
        self.comps = CompFrames(region, owner, self)

    @property
    def region_failed(self) -> bool:
        """Whether the region's compile fails (a compile error was reported)."""
        return self.errors.failed

    @property
    def unresolved(self) -> List[Tuple[Frame, Event]]:
        """The calls this region reaches that gblint could not follow, wholly or in part (Gaps.partly_unfollowed):
        ``(caller frame, call event)``, in the order of :meth:`Consequences.reached_calls`."""
        return [(f, ev) for f, ev, targets in self.owner.reached_calls(self.region.entry)
                if not targets or self.owner.reasons.get(call_key(f, ev))]

    def report_for(self, frame: Frame) -> FrameReport:
        """The report of ``frame`` in this walk, created on first use."""
        key = (frame.path, frame.name)
        if key not in self._current:
            self._current[key] = FrameReport(frame)
            self.frames.append(self._current[key])
        return self._current[key]

    def note(self, frame: Frame, verdict: Outcome, anchor: Event, what: str, proven: Optional[Outcome],
             ops: Optional[int] = None) -> None:
        """Record a verdict in ``frame``'s report (for ``--explain`` and graph counts): ``verdict`` if
        the break happens, ``proven`` the verdict of what surely happens there (None: nothing does;
        graphs are counted from proven verdicts, :class:`gblint.dynamo.frame_report.FrameReport`); ``ops``: the
        frame's ops before it (default: the anchor's)."""
        if self.further is None:  # a further reason changes nothing Dynamo does
            self.report_for(frame).record(verdict, anchor.span.line, anchor.ops_index if ops is None else ops, what,
                                          proven)

    # -------------------------------------------------------------- emitting
    def emit(self, code: str, outcome: Outcome, frame_name: str, path: str, span, message: str, hint: str,
             gb_ids: Tuple[str, ...], trace: Tuple[TraceFrame, ...], name: Optional[str] = None,
             fix_request: Optional[FixRequest] = None, subject: Optional[str] = None,
             brief: Optional[str] = None) -> None:
        """:meth:`gblint.dynamo.sink.DiagnosticSink.emit` under the conditions of the site being decided; ``subject``
        (what breaks, for the one-line message) defaults to that site's. While a further reason is judged, only
        what skips the frame is reported, as such (:func:`gblint.dynamo.further.recast`)."""
        subject = subject if subject is not None else self.subject
        if self.further is not None:
            if outcome != Outcome.SKIP:
                return
            message, subject, brief = further.recast(code, message, subject or "", frame_name, self.further)
        self.sink.emit(code, outcome, frame_name, path, span, message, hint, gb_ids, trace, self.conditions,
                       subject, name, fix_request, brief, self.way)

    def emit_under(self, conditions: Tuple[str, ...], *args, **kwargs) -> None:
        """:meth:`emit` for a site of its own, decided under ``conditions`` (not the site being decided)."""
        self.conditions = conditions
        try:
            self.emit(*args, **kwargs)
        finally:
            self.conditions = None

    # -------------------------------------------------------------- frames
    def frame(self, frame: Frame, strict: bool, env: Optional[values.Env] = None) -> None:
        """Analyse ``frame`` compiled as a top-level Dynamo frame, its parameters holding ``env``."""
        env = self.owner.project.interp.frame_env(frame, env)
        key = (frame.path, frame.name, values.env_key(env))
        if key in self.seen_frames:
            self.ctx.recontext(key)
            return
        if self.ctx.analysing(key) >= _MAX_FRAME_RECURSION:
            return  # a recursive function run eagerly, called with new values at each level: nothing new below
        self.seen_frames.add(key)
        self.owner.walks += 1
        self.ctx.enter_frame(key, self.report_for(frame))
        try:
            self._frame(frame, key, strict, env)
        finally:
            self.ctx.leave_frame()

    def frame_from(self, caller: Frame, caller_env: Optional[values.Env], call: Event, frame: Frame, strict: bool,
                   env: Optional[values.Env] = None, via: Tuple[str, ...] = (), alone_if: Tuple[str, ...] = ()) -> None:
        """Analyse ``frame`` compiled on its own when the ``call`` of a frame whose parameters hold
        ``caller_env`` runs: what is reported in it holds only under the tests on the way to the call
        (and ``via``: the call runs ``frame`` only when the called value is the one that leads there).
        ``alone_if``: the tests under which the call breaks, so that ``frame`` is compiled on its own
        at all (its graphs are counted only when there are none)."""
        why = too_far(0, self.owner.walks)
        if why:
            self.owner.cut.setdefault(id(call), (caller, call, why))
            return
        with self.ctx.further(self.owner.residual(call.blocks, caller_env or values.Env()) + via, alone_if):
            self.frame(frame, strict, env)

    def _frame(self, frame: Frame, key, strict: bool, env: values.Env) -> None:
        self.owner.visited.setdefault(key[:2], frame)
        self.report_for(frame)
        info = frame.info
        fullgraph = self.region.fullgraph
        if info.is_generator:
            if fullgraph or strict:
                self.errors.error_at(frame, _def_event(info), (), "the compiled function is a generator",
                                     ("GB0003",), "Return a list or tensor instead of yielding.", strict)
            else:
                self.emit("GBL205", Outcome.SKIP, frame.name, frame.path, info.span,
                          f"`{frame.name}` is a generator function: Dynamo does not trace generator frames (GB0003), "
                          "so the whole function runs eagerly.", "Return a tensor or a list instead of yielding, "
                          "or compile the code that consumes the generator.", ("GB0003",), (),
                          subject=f"`{frame.name}` is a generator function")
            self.note(frame, Outcome.SKIP, _def_event(info), "generator function (GB0003)", Outcome.SKIP)
            return
        skipped = False
        checkpoint = Checkpoint()  # the frame's graph at the last resumable break
        eager_after = 0  # once skipped, the frame runs eagerly after this line (its rest, after a tail)
        traced: List[Event] = []  # the calls met before the frame is known to be skipped
        ways: List[SkipWay] = []  # the breaks that skip the frame only when their arm runs (gblint.dynamo.skip_cover)
        last = reasons = None  # the event met last before the frame was known to be skipped: its first reason
        for ev in info.events:
            if self.owner.skips(ev, env):
                continue
            if skipped:
                reasons = reasons or (further.Reasons(last) if last is not None else None)
                if ev.kind == EventKind.CALL:
                    self.fresh_callees(frame, ev, env)
                elif reasons is not None and not eager_after and not fullgraph \
                        and not self.strict_at(ev.blocks, strict) and reasons.admit(ev):
                    self.further_reason(frame, ev, env, last)
                continue
            last = ev
            ev_strict = self.strict_at(ev.blocks, strict)
            if ev.kind == EventKind.WITH and ev.manager is not None and ev.manager.kind == ManagerKind.FAILS:
                return self.errors.internal_error(frame, ev, ())  # the call raises: nothing after it runs
            if ev.kind == EventKind.WITH:
                if fullgraph or ev_strict:
                    self.errors.error_at(frame, ev, (), ev.detail + " is an unsupported context manager",
                                         ev.gb_ids, "Enter the manager outside the compiled function.", ev_strict)
                    continue
                if checkpoint.line and not self.owner.residual(ev.blocks, env):  # only the resume function skipped
                    resumed_tail(self, frame, ev, "", checkpoint, frame.path, ev.gb_ids, (), None, "GBL204")
                    skipped, eager_after = True, checkpoint.line
                    continue
                self.unsupported_with(frame, ev, env)
                skipped = True
                continue
            if ev.kind == EventKind.BREAK:
                if not self.breaks_here(ev):
                    continue
                if ev.outcome == Outcome.RAISE and in_try(ev.blocks):
                    continue
                if ev.outcome == Outcome.RAISE and self.owner.uncertain(ev.blocks, env):
                    if self.owner.error_paths:  # reported, but the usual path goes on being traced
                        self._decide(frame, ev, ev.blocks, ev, checkpoint, (), strict_override=ev_strict,
                                     conditions=self.owner.event_conditions(ev, env))
                    continue  # a `raise` not known to run is a validation path, not a compile cost
                verdict = self.decide(frame, ev, ev.blocks, ev, checkpoint, (), strict_override=ev_strict,
                                      conditions=(conditions := self.owner.event_conditions(ev, env)),
                                      way=self.owner.way(frame, ev, env))
                if verdict == Outcome.RESUME:
                    checkpoint = Checkpoint(ev.ops_index, checkpoint.line if conditions else ev.span.line)
                elif verdict == Outcome.SKIP and not conditions:
                    skipped = True
                elif verdict == Outcome.TAIL and not conditions:  # Dynamo traces no further in this frame
                    skipped, eager_after = True, self._eager_after(frame, checkpoint, ev)
                elif verdict == Outcome.SKIP:  # one in each arm of an `if`: skipped whichever runs (k66)
                    way = self.owner.way(frame, ev, env)
                    skipped = covered_skip(self, frame, ev, ways, [(way, frame.path, ev.span.line)])
                continue
            if ev.kind == EventKind.CALL:
                skips = self.call(frame, ev, strict, checkpoint, env)
                if self.last_call_tail:
                    skips, eager_after = True, self._eager_after(frame, checkpoint, ev)
                skips = skips or covered_skip(self, frame, ev, ways, self.call_ways)
                if not skips:  # a call that skips the frame has had its callee's frame decided
                    traced.append(ev)
                skipped = skips or skipped
                if not skipped and self.last_call_resumed:
                    checkpoint = Checkpoint(ev.ops_index, ev.span.line if self.last_call_sure else checkpoint.line)
        if skipped:
            # the whole frame runs eagerly, the calls before the break included (a loop body runs them again
            # after it): each function they call is compiled on its own (measured, tests/cases/kinds/k53_*)
            for ev in traced:
                if ev.span.line > eager_after:
                    self.fresh_callees(frame, ev, env)
            self.comps.eager_comprehensions(frame, env, eager_after)

    def unsupported_with(self, frame: Frame, ev: Event, env: Optional[values.Env]) -> None:
        """Report the ``with`` of a manager Dynamo cannot wrap at ``ev``: it skips ``frame``."""
        self.emit("GBL204", Outcome.SKIP, frame.name, frame.path, ev.span,
                  f"{ev.detail}: Dynamo cannot wrap this context manager ({', '.join(ev.gb_ids)}), so frame "
                  f"`{frame.name}` is skipped and runs eagerly even without a break inside.",
                  "Enter the manager outside the compiled function, or create it inside with a supported "
                  "constructor (`torch.no_grad()`, `torch.autocast(...)`, `contextlib.nullcontext()`).",
                  ev.gb_ids, (), subject=ev.detail)
        self.note(frame, Outcome.SKIP, ev, ev.detail + " (unsupported context manager)",
                  None if self.owner.residual(ev.blocks, env or values.Env()) else Outcome.SKIP)

    def further_reason(self, frame: Frame, ev: Event, env: Optional[values.Env], first: Event) -> None:
        """Report ``ev`` if it skips ``frame`` on its own, which ``first`` already skipped (:mod:`gblint.dynamo.further`)."""
        if ev.kind == EventKind.BREAK and not self.breaks_here(ev):
            return
        self.further = first.span.line
        try:
            if ev.kind == EventKind.WITH:
                self.unsupported_with(frame, ev, env)
            else:
                self._decide(frame, ev, ev.blocks, ev, Checkpoint(), (), strict_override=False,
                             conditions=self.owner.event_conditions(ev, env), way=self.owner.way(frame, ev, env))
        finally:
            self.further = None

    def _eager_after(self, frame: Frame, checkpoint: Checkpoint, ev: Event) -> int:
        """The line after which ``frame`` runs eagerly once the break at ``ev`` ended its tracing: the break it
        resumed after, when its resume function is skipped; else (a checkpoint's tail) the break's own line."""
        return checkpoint.line if self.report_for(frame).resume_skipped else ev.span.line - 1

    def breaks_here(self, ev: Event) -> bool:
        """fullgraph=True captures `.item()` symbolically (measured on 2.13): the read is no break,
        but a Python branch on its value is a data-dependent guard that fails."""
        if self.region.fullgraph:
            return not ev.capturable
        return not ev.needs_capture

    def strict_at(self, blocks: Tuple[Block, ...], strict: bool) -> bool:
        """Whether a break inside ``blocks`` raises: the innermost ``error_on_graph_break(...)``
        manager around it decides, else ``strict``."""
        for b in blocks:
            if b.kind == BlockKind.WITH and b.manager is not None and b.manager.strict is not None:
                strict = b.manager.strict
        return strict

    def fresh_callees(self, frame: Frame, ev: Event, env: Optional[values.Env] = None) -> None:
        """``frame`` runs eagerly here; each function it calls is compiled as its own frame."""
        for callee, callee_env, _flat in self.owner.call_targets(frame, ev, env):
            if isinstance(callee, Frame) and not callee.info.decorator(*DISABLE):
                inner_env, alone = self.owner.callee_values(ev, callee, env or values.Env(), callee_env)
                if not alone:
                    self.frame_from(frame, env, ev, callee, strict=False, env=inner_env, via=self.owner.via(callee_env))

    # -------------------------------------------------------------- calls
    def call(self, frame: Frame, ev: Event, strict: bool, checkpoint: Checkpoint, env: Optional[values.Env] = None) -> bool:
        """Handle a call event of ``frame`` (parameters holding ``env``): True if it skips ``frame`` for any values."""
        env = env or values.Env()
        self.last_call_resumed = self.last_call_sure = self.last_call_tail = False
        self.call_ways = []
        skipped = sure = False
        at_call = self.owner.residual(ev.blocks, env)  # the tests around the call not known to hold
        for callee, callee_env, flat in self.owner.call_targets(frame, ev, env):
            via = self.owner.via(callee_env)
            if isinstance(callee, Event):  # at the call, or where it reads the module first (rnn_first_read)
                blocks = ev.blocks if callee.span == ev.span else callee.blocks
                conditions = at_call + via
                verdict = self.decide(frame, callee, blocks, callee, checkpoint, (), conditions=conditions)
                skipped |= verdict == Outcome.SKIP
                sure |= verdict == Outcome.SKIP and not conditions
                self.last_call_tail |= verdict == Outcome.TAIL and not conditions
                self.last_call_resumed |= verdict == Outcome.RESUME
                self.last_call_sure |= verdict == Outcome.RESUME and not conditions
                continue
            info = callee.info
            dec = info.decorator(*DISABLE)
            if dec is not None:
                brk = disabled_function_break(ev, callee)
                conditions = at_call + via
                verdict = self.decide(frame, brk, ev.blocks, brk, checkpoint, (), conditions=conditions)
                skipped |= verdict == Outcome.SKIP
                sure |= verdict == Outcome.SKIP and not conditions
                self.last_call_tail |= verdict == Outcome.TAIL and not conditions
                self.last_call_resumed |= verdict == Outcome.RESUME
                self.last_call_sure |= verdict == Outcome.RESUME and not conditions
                if brk.gb_ids == ("GB0099",) and not self.region_failed:
                    inner_env = self.owner.callee_values(ev, callee, env, callee_env)[0]
                    for sub in info.events:
                        if sub.kind == EventKind.CALL and not self.owner.skips(sub, inner_env):
                            self.fresh_callees(callee, sub, inner_env)
                continue
            inner_env, alone = self.owner.callee_values(ev, callee, env, callee_env)
            if self.owner.project.untraced_body(callee):
                inner = self.owner.inner_breaks(callee, (), inner_env) if info.decorator(*NONSTRICT) else ()
                if any(b.event.python_value for b in inner):
                    brk = nonstrict_break(ev, callee)
                    conditions = at_call + via
                    verdict = self.decide(frame, brk, ev.blocks, brk, checkpoint, (), conditions=conditions)
                    skipped |= verdict == Outcome.SKIP
                    sure |= verdict == Outcome.SKIP and not conditions
                    self.last_call_tail |= verdict == Outcome.TAIL and not conditions
                    if not self.region_failed:
                        self.frame_from(frame, env, ev, callee, strict=False, env=inner_env, via=via)
                continue
            # a callee's `raise` counts only where every test on the way is known to hold: otherwise
            # it is an error path (a model that runs does not raise out of the compiled call)
            inner = [ib for ib in self.owner._through_call(frame, ev, callee, stack=(), env=env, callee_env=callee_env)
                     if self.breaks_here(ib.event) and not (
                         ib.event.outcome == Outcome.RAISE and not self.owner.error_paths
                         and (ib.conditions or at_call))]
            if not inner:
                continue
            if info.is_generator:
                first = inner[0]
                if self.region.fullgraph or self.strict_at(ev.blocks, strict):
                    self.errors.error_at(frame, first.event, first.chain, f"the generator `{callee.name}` breaks",
                                         first.event.gb_ids, first.event.hint, strict, site_frame=first.frame)
                    continue
                self.comps.inlined_generator_skip(frame, ev, callee, first, at_call + first.conditions)
                skipped = sure = True
                continue
            gen = star_generator(frame, ev)
            if gen is not None and not self.region.nested_graph_breaks and not any(
                    self.is_error_only(ib, ev, strict) for ib in inner):
                self.comps.star_generator_skip(frame, ev, gen, inner[0], conditions := at_call + via + inner[0].conditions)
                skipped, sure = True, sure or not conditions
                if not self.region_failed and not flat and not alone:
                    self.frame_from(frame, env, ev, callee, strict=False, env=inner_env, via=via, alone_if=conditions)
                continue
            rebuilt = None if flat or self.region.nested_graph_breaks else fresh_method(  # GB0092
                self.owner.project.interp, frame, ev, env, self.report_for(frame).split_lines())
            if rebuilt:  # Dynamo breaks at the call whichever site it meets first: the surest decides the report
                inner = sorted(inner, key=lambda ib: len(ib.conditions))
            site_ways: Dict[Tuple[str, int], list] = {}  # each site's ways through this call, in order met
            for ib in inner:
                site_ways.setdefault((ib.frame.path, ib.line), []).append(ib.way)
            seen_sites, verdicts = set(), []
            for ib in inner:
                site = (ib.frame.path, ib.line)
                if site in seen_sites:
                    continue
                seen_sites.add(site)  # met on ways that cover each arm on them: whichever arm runs (branch_cover)
                conds = () if not self.is_error_only(ib, ev, strict) and covering(site_ways[site]) is not None \
                    else at_call + ib.conditions
                # a higher-order op's body (checkpoint) breaking is one break of this frame; a break
                # met in what an attribute read runs (a property) is not at a call Dynamo can resume
                # after: the frame is skipped (measured, tests/fixtures/reach/o09_methods.py); an
                # item store's __setitem__ (a read event with arguments) resumes after its
                # STORE_SUBSCR like a call (tests/fixtures/reach/o14_dataclass_output_and_item_store.py)
                property_read = (ev.read and ev.args is None) or (callee_env is not None and callee_env.read)
                site = dataclasses.replace(ib.event, outcome=Outcome.SKIP) if property_read else ib.event
                conds += rebuilt.unsure if rebuilt and not property_read else ()  # a break before: resumed
                verdict = self._decide(frame, site, ev.blocks, ev, checkpoint, () if flat else ib.chain,
                                       site_frame=ib.frame,
                                       strict_override=self.is_error_only(ib, ev, strict), uncompiled=ib.uncompiled,
                                       conditions=conds, way=ib.way, unrebuilt=None if property_read else rebuilt)
                verdicts.append((verdict.severity, verdict, ib))
                sure |= verdict == Outcome.SKIP and not conds
                self.last_call_tail |= verdict == Outcome.TAIL and not conds
                if verdict == Outcome.SKIP and conds and not (rebuilt and rebuilt.unsure):  # no branch choice
                    self.call_ways.append((ib.way, ib.frame.path, ib.line))
                if not ib.conditions[len(at_call) + len(via):] and not self.region.nested_graph_breaks:
                    break  # met whenever the call runs: what lies after is traced (if at all) in the callee's frame
            # the call splits the caller once, at the first break met while inlining; the worst verdict wins
            _, verdict, first = max(verdicts, key=lambda v: v[0])
            sure_verdicts = [v for v in verdicts if not at_call + v[2].conditions]
            if not sure_verdicts and covering(v[2].way for v in verdicts) is not None:
                sure_verdicts = [min(verdicts, key=lambda v: v[0])]  # one in each arm: the mildest happens for sure
            self.note(frame, verdict, ev, f"`{ev.call_text}(...)` reaches {first.event.detail} (line {first.line})",
                      max(sure_verdicts, key=lambda v: v[0])[1] if sure_verdicts else None)
            skipped |= verdict == Outcome.SKIP
            self.last_call_resumed |= verdict == Outcome.RESUME
            self.last_call_sure |= verdict == Outcome.RESUME and bool(sure_verdicts) and not at_call
            if not self.region_failed and not flat and not (self.region.nested_graph_breaks and not skipped):
                if not all(self.is_error_only(ib, ev, strict) for ib in inner) and not alone:
                    self.frame_from(frame, env, ev, callee, strict=False, env=inner_env, via=via,
                                    alone_if=() if sure_verdicts else ("the call breaks",))
        return sure

    def is_error_only(self, ib: InnerBreak, ev: Event, strict: bool) -> bool:
        """Whether a break reached through the call ``ev`` raises: fullgraph, else the innermost
        error_on_graph_break decorator on the way, else the managers around the call."""
        return self.region.fullgraph or bool(ib.strict if ib.strict is not None else self.strict_at(ev.blocks, strict))

    # -------------------------------------------------------------- the decision
    def decide(self, frame: Frame, site: Event, blocks: Tuple[Block, ...], anchor: Event, checkpoint: Checkpoint,
               chain, site_frame: Optional[Frame] = None, strict_override: Optional[bool] = None,
               conditions: Optional[Tuple[str, ...]] = None, way: Optional[Way] = None) -> Outcome:
        """Decide and report what a break at ``site`` does to ``frame``; see :meth:`_decide`."""
        verdict = self._decide(frame, site, blocks, anchor, checkpoint, chain, site_frame, strict_override,
                               conditions=conditions, way=way)
        self.note(frame, verdict, anchor, site.detail, None if conditions or self.loop_unsure else verdict)
        return verdict

    def _decide(self, frame: Frame, site: Event, blocks: Tuple[Block, ...], anchor: Event, checkpoint: Checkpoint,
                chain, site_frame: Optional[Frame] = None, strict_override: Optional[bool] = None,
                uncompiled: int = 0, conditions: Optional[Tuple[str, ...]] = None,
                way: Optional[Way] = None, unrebuilt: Optional[Unrebuilt] = None) -> Outcome:
        """Decide and report what a break at ``site`` (reached from ``anchor`` in ``frame`` on ``way``, under
        ``conditions``; through ``unrebuilt``, :func:`gblint.dynamo.unrebuilt.fresh_method`) does; returns the verdict:
        ``RESUME``, ``TAIL``, ``SKIP`` or ``ERROR``."""
        self.conditions, self.way, self.loop_unsure = conditions, way, False
        try:
            return self._verdict(frame, site, blocks, anchor, checkpoint, chain, site_frame, strict_override,
                                 uncompiled, unrebuilt)
        finally:
            self.conditions = self.subject = self.way = None

    def _verdict(self, frame: Frame, site: Event, blocks: Tuple[Block, ...], anchor: Event, checkpoint: Checkpoint,
                 chain, site_frame: Optional[Frame], strict_override: Optional[bool], uncompiled: int,
                 unrebuilt: Optional[Unrebuilt] = None) -> Outcome:
        if site.origin_line:
            site = dataclasses.replace(site, detail=f"{site.detail} (line {site.origin_line}), used here")
        self.subject = site.detail
        site_frame = site_frame or frame
        if site.kind == EventKind.WITH and site.manager is not None and site.manager.kind == ManagerKind.FAILS:
            self.errors.internal_error(frame, site, chain, site_frame)
            return Outcome.ERROR
        strict = strict_override if strict_override is not None else self.strict_at(blocks, False)
        if self.region.fullgraph or strict or site.outcome == Outcome.ERROR:
            self.errors.error_at(frame, site, chain, site.detail, site.gb_ids, site.hint, strict, site_frame=site_frame)
            return Outcome.ERROR
        trace = call_trace(chain, site_frame, site) if chain else ()
        path = site_frame.path
        depth = len(chain) + 1
        traced = depth - uncompiled  # frames that re-trace down to the break: callees without tensors do not
        # comprehensions and generator expressions (docs/semantics.md §3.2, addenda 2-3)
        comp = next((b for b in reversed(blocks) if b.kind in (BlockKind.COMP, BlockKind.GENEXPR)), None)
        loop = None if site.loop_tail and site.outcome == Outcome.TAIL else \
            next((b for b in blocks if b.kind == BlockKind.LOOP), None)
        unless = returns_first(blocks, anchor.span.line) if loop and self.region.python_version == (3, 11) else None
        if unless is not None:  # Dynamo's loop test meets a `return` first: the break resumes (gblint.syntax.backedge)
            loop, self.conditions = (None, self.conditions) if not unless else (loop, (self.conditions or ()) + (unless,))
            self.loop_unsure = bool(unless)  # unless the loop's iterator cannot be rebuilt
        if comp is not None and loop is None:
            return self.comps.comprehension(frame, site, comp, chain, site_frame, trace, depth)
        if loop is not None:
            where = "in a function called inside" if chain else "inside"
            request = loop_fix(frame, loop, site, anchor, not chain) if frame.path == path else None
            if checkpoint.line:
                return resumed_tail(self, frame, site, f"inside the loop at line {loop.line}", checkpoint, path,
                                          site.gb_ids + ("GB7000",), trace, request, "GBL201")
            self.emit("GBL201", Outcome.SKIP, frame.name, path, site.span,
                      f"{site.detail} {where} the loop at line {loop.line} of `{frame.name}`: Dynamo cannot resume "
                      f"inside a loop (GB7000), so the whole frame `{frame.name}` is skipped and runs eagerly, "
                      f"including the work before the loop.",
                      join_hint(site.hint, "Move the break out of the loop, unroll a constant-range loop, or "
                                 "move the loop into its own function so that only that frame is skipped."),
                      site.gb_ids + ("GB7000",), trace, fix_request=request)
            return Outcome.SKIP
        if site.outcome == Outcome.SKIP and checkpoint.line and not chain:
            return resumed_tail(self, frame, site, "", checkpoint, path, site.gb_ids, trace, None, site.code,
                                      site.rule_name)
        if site.outcome in (Outcome.SKIP, Outcome.RAISE):
            why = ("an exception that leaves the compiled frame makes Dynamo give up on it (GB0088)"
                   if site.outcome == Outcome.RAISE else "Dynamo cannot resume after this")
            if site.outcome == Outcome.RAISE and any(b.kind in (BlockKind.BRANCH, BlockKind.ERROR_PATH,
                                                                 BlockKind.AFTER_RETURN) for b in site.blocks):
                why = "when this branch runs, the exception leaving the compiled frame makes Dynamo give up on it (GB0088)"
            self.emit(site.code, Outcome.SKIP, frame.name, path, site.span,
                      f"{site.detail}: {why}, so frame `{frame.name}` is skipped and runs eagerly.",
                      site.hint, site.gb_ids, trace, name=site.rule_name)
            return Outcome.SKIP
        wt = next((b for b in blocks if b.kind == BlockKind.WHILE_TEST), None)
        if wt is not None and self.region.python_version >= (3, 12):
            self.emit("GBL201", Outcome.SKIP, frame.name, path, site.span,
                      f"{site.detail} in the `while` condition at line {wt.line}: on Python 3.12+ the resume "
                      f"frame that holds the loop is skipped (GB7000).", site.hint, site.gb_ids + ("GB7000",), trace)
            return Outcome.SKIP
        blocker = next((b for b in blocks if b.kind in (BlockKind.TRY, BlockKind.HANDLER) or
                        (b.kind == BlockKind.WITH and b.manager is not None
                         and b.manager.kind != ManagerKind.RESUMABLE)), None)
        if blocker is not None or (site.outcome == Outcome.TAIL and not chain):  # a callee's: nested, below
            ops = (blocker.ops_at_entry if blocker is not None else anchor.ops_index) - checkpoint.ops
            if blocker is None:
                label, code, gb = "this point", site.code, site.gb_ids
            elif blocker.kind in (BlockKind.TRY, BlockKind.HANDLER):
                part = "block" if blocker.kind == BlockKind.TRY else "statement's except/else/finally clause"
                label, code, gb = f"the `try` {part} at line {blocker.line}", "GBL202", site.gb_ids
            else:
                label, code, gb = (f"`with {blocker.manager.label}` at line {blocker.line}", "GBL203",
                                   site.gb_ids + (blocker.manager.gb_id,))
            how = "in a function called inside " if chain else "inside "
            if blocker is None:
                how = ""
            request = None
            if blocker is not None and blocker.kind != BlockKind.HANDLER and frame.path == path:
                request = BlockFix(blocker.kind, blocker.line, anchor.span.line, frame.name)
            if ops >= 2:
                self.emit("GBL208" if blocker is not None else site.code, Outcome.TAIL, frame.name, path, site.span,
                          f"{site.detail} {how}{label}: Dynamo cannot resume here; it compiles the graph up to the "
                          f"last checkpoint before it (about {ops} ops) and runs the rest of `{frame.name}` eagerly.",
                          join_hint(site.hint, "Move the break out of the block, or move the block into its own "
                                     "function so that only that frame runs eagerly."), gb, trace,
                          name=None if blocker is not None else site.rule_name, fix_request=request)
                return Outcome.TAIL
            if blocker is not None and blocker.manager is not None and blocker.manager.kind == ManagerKind.GENERIC \
                    and self.further is None:  # a further reason changes nothing Dynamo does
                self.comps.contextmanager_frames(frame, blocker)
            if checkpoint.line:
                return resumed_tail(self, frame, site, f"{how}{label}", checkpoint, path, gb, trace, request, code,
                                          None if blocker is not None else site.rule_name)
            self.emit(code, Outcome.SKIP, frame.name, path, site.span,
                      f"{site.detail} {how}{label}: Dynamo cannot resume here and no checkpoint (>= 2 ops) precedes "
                      f"it, so frame `{frame.name}` is skipped and runs eagerly.",
                      join_hint(site.hint, "Move the break out of the block, or move the block into its own "
                                 "function so that only that frame is skipped."), gb, trace,
                      name=None if blocker is not None else site.rule_name, fix_request=request)
            return Outcome.SKIP
        if chain and unrebuilt:
            return unrebuilt_call(self, frame, site, site.span.line, anchor, checkpoint, trace, unrebuilt)
        if chain:
            # each error_on_graph_break decorator on the way adds a wrapper frame with no ops (semantics.md §8.7)
            wrappers = sum(1 for f in [c for c, _ in chain[1:]] + [site_frame] if f.info.decorator(*EOGB))
            msg = nested_text(site.detail, frame.name, depth, traced, uncompiled, wrappers,
                              self.region.nested_graph_breaks)
            self.emit("GBL301", Outcome.RESUME, frame.name, path, site.span, msg,
                      join_hint(site.hint, "Remove the break from the callee, decorate the callee with "
                                 "`@torch.compiler.disable` so it is one clean break, or set "
                                 "`torch._dynamo.config.nested_graph_breaks = True`."), site.gb_ids, trace,
                      fix_request=fix_requests.nested(site_frame, self.region, site, self.conditions))
            at_own_call(self, self.owner.project.loader, frame, chain, site_frame, site, trace)
            return Outcome.RESUME
        self.emit(site.code, Outcome.RESUME, frame.name, path, site.span,
                  f"{site.detail}: graph break in `{frame.name}`; Dynamo compiles the graph so far, runs this in "
                  "Python and resumes in a new frame (+1 graph).", site.hint, site.gb_ids, trace, name=site.rule_name,
                  fix_request=direct_fix(site, frame.name, self.conditions))
        return Outcome.RESUME


def _def_event(info: FunctionInfo) -> Event:
    return Event(EventKind.BREAK, info.span, (), 0, detail=f"`{info.name}` is a generator", gb_ids=("GB0003",))
