"""Every reason a frame is skipped, not only the first (issue 38).

Dynamo gives up on a frame at the first break it cannot resume from (in a loop, GB7000; in a ``try`` block or a
``with`` it cannot wrap; a skip marker): nothing after it is traced, so nothing after it is a break Dynamo reports.
A user who removes that break meets the next one, and so on. The consequence walk reports the first as usual
and, for each later break in the frame that would skip the frame on its own, a diagnostic of the same code on the
same frame that says so: a further reason, which Dynamo meets once the earlier ones no longer skip the frame.

A break in the same loop body, ``try`` block or ``with`` block as the first reason is not a further reason: Dynamo
never reaches it while that block holds the first (the block is one reason, reported once). Only breaks of the
frame's own code are further reasons (calls into helpers that break are not judged again), and none under
``fullgraph=True`` or ``error_on_graph_break``, where the first error ends the compile.
"""
from __future__ import annotations

from typing import Tuple

from ..core.model import BlockKind, Event, EventKind, Outcome
from .resumed import WHERE

#: the one-line message of a further reason (:func:`gblint.core.messages.short_message`; ``{line}``: the first reason's)
FURTHER_BRIEF = "{subject}{via}: another reason `{frame}` is skipped, met once line {line} no longer skips it"

# the blocks a break shares with the first reason when Dynamo can never reach it past that reason
_HOLDING = (BlockKind.LOOP, BlockKind.TRY, BlockKind.HANDLER, BlockKind.WITH)


class Reasons:
    """The reasons of one frame met so far, from its first (``first``): which later events are judged."""

    def __init__(self, first: Event):
        self.held = {_key(b) for b in first.blocks if b.kind in _HOLDING}

    def admit(self, ev: Event) -> bool:
        """Whether ``ev``, met after the frame was skipped, is judged as a further reason: a break or an unsupported
        ``with`` of the frame's own code (not in a comprehension, a frame of its own), not a ``raise``, and in no
        loop, ``try`` or ``with`` block that holds the first reason or one judged before (a block is one reason).
        Its blocks are held from now."""
        if ev.kind not in (EventKind.BREAK, EventKind.WITH) or ev.outcome == Outcome.RAISE:
            return False
        if any(b.kind in (BlockKind.COMP, BlockKind.GENEXPR) for b in ev.blocks):
            return False
        mine = {_key(b) for b in ev.blocks if b.kind in _HOLDING}
        if mine & self.held:
            return False
        self.held |= mine
        return True


def recast(code: str, message: str, subject: str, frame: str, line: int) -> Tuple[str, str, str]:
    """``(message, subject, brief)`` of a further reason of ``code``: the explanation ``message`` of a break that
    skips ``frame`` (``subject``: what breaks), met after the first reason, at ``line``."""
    return (f"{message} Another reason: Dynamo stops at line {line} first, which already skips `{frame}`; "
            "once that no longer does, this skips it.", f"{subject}{WHERE.get(code, '')}",
            FURTHER_BRIEF.replace("{line}", str(line)))


def _key(block) -> Tuple[object, int, int]:
    return block.kind, block.line, block.column


__all__: Tuple[str, ...] = ("FURTHER_BRIEF", "Reasons", "recast")
