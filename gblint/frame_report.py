"""What one compiled frame of a region gets (:class:`FrameReport`), as the consequence model's walk records it."""
from __future__ import annotations

import dataclasses
from typing import List, Optional, Tuple

from .model import Frame, Outcome


@dataclasses.dataclass
class FrameReport:
    """What one compiled frame of a region gets: ``outcome`` is None (compiled, maybe split),
    ``SKIP``, ``TAIL`` (a prefix compiled, the rest eager) or ``ERROR`` (:attr:`status` gives
    the word); ``splits`` lists ``(line, what)`` of its graph breaks in order; ``graphs``
    estimates its FX graphs."""

    frame: Frame
    outcome: Optional[Outcome] = None
    reason: str = ""
    splits: List[Tuple[int, str]] = dataclasses.field(default_factory=list)
    split_ops: List[int] = dataclasses.field(default_factory=list)
    tail_ops: Optional[int] = None

    @property
    def status(self) -> str:
        """``compiled``, ``skipped``, ``tail`` or ``failed``."""
        return self.outcome.status if self.outcome is not None else Outcome.RESUME.status

    @property
    def graphs(self) -> int:
        """The FX graphs the frame is expected to produce."""
        if self.outcome in (Outcome.SKIP, Outcome.ERROR):
            return 0
        bounds = [0] + self.split_ops + [self.tail_ops if self.tail_ops is not None else self.frame.info.ops_total]
        segments = [b - a for a, b in zip(bounds, bounds[1:])]
        if self.tail_ops is not None:
            return max(1, sum(1 for n in segments if n > 0))
        return sum(1 for n in segments if n > 0)
