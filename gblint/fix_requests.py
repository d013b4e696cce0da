"""Which fix a break's consequence asks ``gblint fix`` for (:class:`gblint.model.FixRequest`): a
config setting, ``torch.where``, ``torch.compiler.disable`` on a logging helper, or the
``nested_graph_breaks`` setting. :mod:`gblint.fixes` turns a request into an edit and
:mod:`gblint.fix_effects` decides whether it gains anything."""
from __future__ import annotations

from typing import Optional

from .model import ConfigFix, DisableFix, Event, EventKind, FixRequest, Frame, Region, WhereFix
from .semantics import LOGGING_RULES

# config settings that remove a resumable break of a given source (see gblint.fixes)
CONFIG_FIXES = {"GBL102": "capture_scalar_outputs", "GBL106": "capture_dynamic_output_shape_ops"}
WHERE_FIXES = ("GBL105",)  # sources whose branch may become torch.where


def direct(site: Event) -> Optional[FixRequest]:
    """The fix request for a resumable break at ``site`` (a break :class:`Event`): the config advice
    of :data:`CONFIG_FIXES`, or ``torch.where`` when the rule found every value it selects between
    to be a tensor (``site.fixable``); None when there is none."""
    if site.code in CONFIG_FIXES:
        return ConfigFix(CONFIG_FIXES[site.code])
    if site.code in WHERE_FIXES and site.fixable:
        return WhereFix(site.span.line)
    return None


def nested(callee: Frame, region: Region) -> Optional[FixRequest]:
    """The fix request for a break nested in ``callee`` (a :class:`Frame` compiled in ``region``):
    a callee whose breaks are all logging/printing is better disabled outright (one clean break);
    otherwise the advice is the ``nested_graph_breaks`` setting (None when the region has it)."""
    breaks = [e for e in callee.info.events if e.kind == EventKind.BREAK]
    if len(breaks) >= 2 and all(e.rule_name in LOGGING_RULES for e in breaks) \
            and all(e.kind != EventKind.CALL for e in callee.info.events if e.kind != EventKind.BREAK) \
            and callee != region.entry:
        return DisableFix(callee.info.span.line, callee.name)
    return None if region.nested_graph_breaks else ConfigFix("nested_graph_breaks")
