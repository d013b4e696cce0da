"""Which fix a break asks for: the :class:`gblint.core.model.FixRequest` of a diagnostic.

:mod:`gblint.dynamo.consequences` says what a break costs; this module picks what would remove it, for
:mod:`gblint.fixing.fixes` to turn into edits: a config setting (advice), ``torch.where`` or
``torch._assert_async`` for an ``if`` on a tensor, a logging call made reorderable or guarded, or
(for a break in a loop) the loop unrolled or moved into a helper; for a nested break,
``torch.compiler.disable`` on a logging helper or the ``nested_graph_breaks`` setting.
"""
from __future__ import annotations

import dataclasses
from typing import Optional, Tuple

from .model import Block, ConfigFix, DisableFix, Event, EventKind, FixRequest, Frame, LogFix, LoopFix, Region, WhereFix
from .semantics import LOGGING_RULES

# config settings that remove a resumable break of a given source (see gblint.fixing.fixes)
CONFIG_FIXES = {"GBL102": "capture_scalar_outputs", "GBL106": "capture_dynamic_output_shape_ops"}
WHERE_FIXES = ("GBL105",)  # sources whose branch may become torch.where (or torch._assert_async)
#: sources whose call may be made reorderable or guarded (``print``, logging, ``warnings.warn``: the
#: fixes stage declines any other call these rules report, such as ``str(t)`` or ``time.time()``)
LOG_FIXES = ("GBL107", "GBL109", "GBL110")


def tensor_condition(param: str) -> str:
    """The condition under which a break that rests on parameter ``param`` being a tensor happens,
    as :meth:`gblint.dynamo.calls.Calls.kind_conditions` states it when the walk has not proven it."""
    return f"{param} is a tensor"


def rewritable(site: Event, conditions: Optional[Tuple[str, ...]] = None) -> bool:
    """Whether the rule's rewrite of ``site`` applies (``site.fixable``: every value it needs is a
    tensor) on facts: not where the break is decided under ``conditions`` that say the parameter it
    rests on must be a tensor. That the function uses a parameter as one (``d % 2``, ``d.shape``)
    is a guess: an ``int`` passed in makes ``torch.logical_not(d % 2 != 0)`` raise (measured on a
    real package: the rewrite broke four models)."""
    return site.fixable and not (site.tensor_param is not None and conditions
                                 and tensor_condition(site.tensor_param) in conditions)


def where_fix(site: Event, frame: str, conditions: Optional[Tuple[str, ...]] = None) -> Optional[WhereFix]:
    """``torch.where`` (or ``torch._assert_async``) for the branch on a tensor at ``site`` in ``frame``,
    when every value the rewrite needs is a tensor (:func:`rewritable`); None otherwise."""
    return WhereFix(site.span.line, frame) if site.code in WHERE_FIXES and rewritable(site, conditions) else None


def direct_fix(site: Event, frame: str, conditions: Optional[Tuple[str, ...]] = None) -> Optional[FixRequest]:
    """The fix request for a resumable break at ``site`` in ``frame``, decided under ``conditions``:
    the config advice of :data:`CONFIG_FIXES`; ``torch.where`` (or ``torch._assert_async``) when
    every value the rewrite needs is a tensor (:func:`rewritable`); for a logging call, the
    :class:`LogFix` (reorderable when :func:`rewritable`)."""
    if site.code in CONFIG_FIXES:
        return ConfigFix(CONFIG_FIXES[site.code])
    request = where_fix(site, frame, conditions) or log_fix(site, frame)
    if isinstance(request, LogFix) and request.reorderable and not rewritable(site, conditions):
        request = dataclasses.replace(request, reorderable=False)
    return request


def log_fix(site: Event, frame: str) -> Optional[FixRequest]:
    """For a logging call at ``site`` in ``frame``, the :class:`LogFix` (reorderable when
    ``site.fixable``); None for another break. Not asked for a nested break (a call in a callee): each
    prediction re-checks the file, and a model file holds many (measured: the gate timed out)."""
    return LogFix(site.span.line, frame, site.fixable) if site.code in LOG_FIXES else None


def loop_fix(frame: Frame, loop: Block, site: Event, anchor: Event, direct: bool) -> FixRequest:
    """The fix request for a break in ``loop`` of ``frame`` (``anchor``: the statement of the frame
    that leads to it; ``direct``: the site is in the frame itself): the loop's :class:`LoopFix`,
    unless the site is the loop's only break and a ``print`` or logging call: then that call's own
    fix, the config line that lets Dynamo reorder it (its output kept) or else the guard that drops it
    under compile (both unsafe), which compiles the loop as it is written. Issue 40: the safe loop fix
    unrolled a `print("i", i)` loop into one print per step, or nested the loop in a helper, and the
    fix a reviewer expects was not offered; a loop that holds a logging call is never unrolled
    (:func:`gblint.fixing.fixes._loop`)."""
    if direct and site.code in LOG_FIXES and (site.fixable or site.rule_name in ("print-call", "logging-call")):
        breaks = [e for e in frame.info.events if e.kind == EventKind.BREAK and loop in e.blocks]
        if len(breaks) == 1 and breaks[0].span == site.span:
            return LogFix(site.span.line, frame.name, site.fixable)
    return LoopFix(loop.line, anchor.span.line, frame.name)


def nested(callee: Frame, region: Region, site: Optional[Event] = None,
           conditions: Optional[Tuple[str, ...]] = None) -> Optional[FixRequest]:
    """The fix request for a break nested in ``callee`` (a :class:`Frame` compiled in ``region``) at
    ``site``, decided under ``conditions``: a branch on a tensor the rule can rewrite
    (:func:`rewritable`) is rewritten where it is, in
    the callee, as in a compiled frame (the callee's code is inlined into the caller's graph: without
    the branch, nothing breaks there; issue 40: the breaks of real models are mostly in callees); a
    callee whose breaks are all logging/printing is better disabled outright (one clean break);
    otherwise the advice is the ``nested_graph_breaks`` setting (None when the region has it)."""
    request = where_fix(site, callee.name, conditions) if site is not None else None
    if request is not None:
        return request
    breaks = [e for e in callee.info.events if e.kind == EventKind.BREAK]
    if len(breaks) >= 2 and all(e.rule_name in LOGGING_RULES for e in breaks) \
            and all(e.kind != EventKind.CALL for e in callee.info.events if e.kind != EventKind.BREAK) \
            and callee != region.entry:
        return DisableFix(callee.info.span.line, callee.name)
    return None if region.nested_graph_breaks else ConfigFix("nested_graph_breaks")
