"""The breaks met while a function is inlined into its caller (:class:`InnerBreak`), as
:meth:`gblint.dynamo.consequences.Consequences.inner_breaks` finds them."""
from __future__ import annotations

import dataclasses
from typing import Iterable, List, Optional, Tuple

from .branch_cover import Way
from ..core.model import Block, BlockKind, Event, Frame


@dataclasses.dataclass
class InnerBreak:
    """A break met while a function is inlined: the site and the calls that lead to it."""

    frame: Frame  # the function holding the site
    event: Event
    chain: Tuple[Tuple[Frame, Event], ...]  # (caller, call event) pairs below the inlined function
    strict: Optional[bool] = None  # error_on_graph_break(...) decorator on the way, innermost wins
    uncompiled: int = 0  # callee frames on the way that Dynamo does not compile alone (no tensors in them)
    conditions: Tuple[str, ...] = ()  # the tests on the way gblint cannot decide (see certainty.certainty_of)
    way: Optional[Way] = ()  # the same tests as choices, None where something else is undecided (branch_cover)

    @property
    def line(self) -> int:
        """The line of the break site."""
        return self.event.span.line


MAX_CHAIN = 40  # calls inlined inside one another, at most: a deeper call is not analysed, and said so
MAX_WALKS = 25_000  # functions walked or inlined for one region, at most (harness drivers: under 2,500); then the same


def too_far(depth: int, walks: int) -> str:
    """Why a call ``depth`` calls deep, met after ``walks`` functions were walked for the region, is not
    analysed; "" when it is."""
    if depth > MAX_CHAIN:  # a solver's chain of hundreds of calls: bounded, and stated (GBL006)
        return f"the call chain is deeper than {MAX_CHAIN} calls here, and gblint does not analyse past it"
    if walks > MAX_WALKS:  # a call graph that forks at every level: exponentially many ways through it
        return f"gblint analysed {MAX_WALKS} functions for this compiled region and does not analyse past here"
    return ""


#: ways to one break site kept per frame: only the first is reported; the others only tell whether a break in each
#: arm of a test is met whatever it decides (gblint.dynamo.branch_cover.covering), and fewer ways can only make that "no"
MAX_WAYS = 16


def distinct(found: List[InnerBreak]) -> List[InnerBreak]:
    """``found`` without the breaks that differ from an earlier one only by the calls leading to them (every
    reader takes the first of those, with its trace), and with at most :data:`MAX_WAYS` ways to each site: the
    ways through a call graph that forks and joins again (``h(x) + h(x * 2)``, or a call in each arm of an
    ``if``, at every level) are exponentially many (issue 39)."""
    seen, ways, out = set(), {}, []
    for ib in found:
        site = (ib.frame.path, ib.frame.name, id(ib.event))
        way = None if ib.way is None else tuple((key, id(arm)) for key, arm in ib.way)
        key = site + (ib.strict, ib.uncompiled, ib.conditions, way)
        if key in seen or ways.get(site, 0) >= MAX_WAYS:
            continue
        seen.add(key)
        ways[site] = ways.get(site, 0) + 1
        out.append(ib)
    return out


def in_try(blocks: Iterable[Block]) -> bool:
    """Whether an event inside ``blocks`` is in a ``try`` block (a ``raise`` there may be caught)."""
    return any(b.kind == BlockKind.TRY for b in blocks)
