"""What one compiled frame of a region gets (:class:`FrameReport`), as the consequence model's walk records it.

A frame is counted on two tracks: what is proven (definite breaks and skips, in a frame known to be compiled
on its own) and what would happen if every conditional break did (an upper bound). The predicted graph count
is the proven one: a break under a test gblint cannot decide may not happen (Dynamo traces only the branch
the values take, docs/semantics.md §0 rule 6), so it cannot add a graph for sure.
"""
from __future__ import annotations

import dataclasses
from typing import List, Optional, Tuple

from ..core.model import Frame, Outcome


def count_graphs(outcome: Optional[Outcome], split_ops: List[int], tail_ops: Optional[int], ops_total: int) -> int:
    """The FX graphs of a frame whose verdict is ``outcome`` (None: compiled, maybe split), split at the op
    indices ``split_ops``, its rest run eagerly from op ``tail_ops`` (TAIL); ``ops_total``: the frame's ops.
    A stretch without ops makes no graph (Dynamo compiles no empty graph), except a compiled prefix before a
    checkpoint (a rest run eagerly from the last split is a skipped resume function: no prefix of its own)."""
    if outcome in (Outcome.SKIP, Outcome.ERROR):
        return 0
    bounds = [0] + split_ops + [tail_ops if tail_ops is not None else ops_total]
    segments = [b - a for a, b in zip(bounds, bounds[1:])]
    if tail_ops is not None and not (split_ops and tail_ops == split_ops[-1]):  # a resume function skipped: none
        return max(1, sum(1 for n in segments if n > 0))
    return sum(1 for n in segments if n > 0)


@dataclasses.dataclass
class FrameReport:
    """What one compiled frame of a region gets: ``outcome`` is None (compiled, maybe split),
    ``SKIP``, ``TAIL`` (a prefix compiled, the rest eager) or ``ERROR`` (:attr:`status` gives
    the word); ``splits`` lists ``(line, what)`` of its graph breaks in order, ``split_sure`` whether
    each is proven; these are the upper track (every conditional break happens). ``sure_*`` are the
    proven track: definite breaks only. ``proven``: the frame is compiled on its own for sure (reached
    under no undecided test, and the break that makes Dynamo compile it alone is definite)."""

    frame: Frame
    outcome: Optional[Outcome] = None
    reason: str = ""
    splits: List[Tuple[int, str]] = dataclasses.field(default_factory=list)
    split_ops: List[int] = dataclasses.field(default_factory=list)
    tail_ops: Optional[int] = None
    split_sure: List[bool] = dataclasses.field(default_factory=list)
    sure_outcome: Optional[Outcome] = None
    sure_split_ops: List[int] = dataclasses.field(default_factory=list)
    sure_tail_ops: Optional[int] = None
    proven: bool = False
    resume_skipped: bool = False  # the eager rest is a resume function Dynamo skipped (gblint.dynamo.resumed)

    @property
    def status(self) -> str:
        """``compiled``, ``skipped``, ``tail`` or ``failed`` (the upper track's verdict)."""
        return self.outcome.status if self.outcome is not None else Outcome.RESUME.status

    @property
    def sure_breaks(self) -> int:
        """The graph breaks that surely split the frame (0 for a frame not proven to be compiled)."""
        return len(self.sure_split_ops) if self.proven else 0

    @property
    def graphs(self) -> int:
        """The FX graphs the frame is proven to produce: definite breaks only, 0 for a frame not
        proven to be compiled on its own."""
        if not self.proven:
            return 0
        return count_graphs(self.sure_outcome, self.sure_split_ops, self.sure_tail_ops, self.frame.info.ops_total)

    @property
    def graphs_at_most(self) -> int:
        """The FX graphs if every conditional break happened (never below :attr:`graphs`)."""
        return max(self.graphs, count_graphs(self.outcome, self.split_ops, self.tail_ops, self.frame.info.ops_total))

    def split_lines(self) -> List[Tuple[int, bool]]:
        """``(line, proven)`` of each graph break recorded so far on the upper track."""
        return [(line, sure) for (line, _what), sure in zip(self.splits, self.split_sure)]

    def record(self, verdict: Outcome, line: int, ops_index: int, what: str, proven: Optional[Outcome]) -> None:
        """A break at ``line`` (op index ``ops_index``) gives the frame ``verdict`` if it happens;
        ``proven``: the verdict of the breaks there that surely happen (None: none does). A frame
        already skipped, failed or cut (on a track) takes nothing more on that track."""
        if self.outcome is None:
            if verdict == Outcome.RESUME:
                self.splits.append((line, what))
                self.split_ops.append(ops_index)
                self.split_sure.append(proven == Outcome.RESUME)
            elif verdict in (Outcome.SKIP, Outcome.TAIL, Outcome.ERROR):
                self.outcome, self.reason = verdict, f"line {line}: {what}"
                if verdict == Outcome.TAIL:
                    self.tail_ops = ops_index
        if proven is None or self.sure_outcome is not None:
            return
        if proven == Outcome.RESUME:
            self.sure_split_ops.append(ops_index)
        elif proven in (Outcome.SKIP, Outcome.TAIL, Outcome.ERROR):
            self.sure_outcome = proven
            if proven == Outcome.TAIL:
                self.sure_tail_ops = ops_index
