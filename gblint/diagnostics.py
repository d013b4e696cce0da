"""Diagnostic records and gblint's code scheme.

Codes are ``GBL`` + three digits; the hundreds digit is the *consequence family*:

=======  ==========================================================================
GBL0xx   gblint itself: ``GBL000`` internal error in a rule, ``GBL001`` syntax error,
         ``GBL002`` unreadable file or undecodable text.
GBL1xx   a resumable graph break in the frame that holds it (the source kind is the
         last two digits: ``GBL101`` explicit ``graph_break()``, ``GBL102`` ``.item()``...).
GBL2xx   the frame (or its tail) runs eagerly: a break in a loop, ``try`` block,
         non-resumable ``with``, generator or comprehension, or an unsupported manager.
GBL3xx   a nested graph break reached through calls from a compiled region.
GBL4xx   a compile error: a break under ``fullgraph=True`` or
         ``torch._dynamo.error_on_graph_break(True)``.
=======  ==========================================================================

Effects (the ``effect`` field of the JSON output): ``"break"`` the frame's graph is
split and tracing resumes (a prefix compiled with the rest of the frame eager also
counts here, since the frame keeps a graph); ``"skip"`` the frame gets no compiled
code: Dynamo skips it and runs it eagerly, or its compile fails; ``"error"``
``torch.compile`` raises; ``"info"`` advice, no cost predicted.
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Optional, Tuple

from .codes import CODES, CONSEQUENCE

if TYPE_CHECKING:
    from .model import FixRequest

GB_URL = "https://meta-pytorch.github.io/compile-graph-break-site/gb/{}.html"
DOCS_URL = "https://github.com/gblint/gblint/blob/main/docs/rules.md#{}"

EFFECTS = ("break", "skip", "error", "info")
#: each effect in words, as the text output and the editor show it
EFFECT_WORDS = {"break": "graph break", "skip": "frame skipped", "error": "compile error", "info": "note"}


@dataclasses.dataclass(frozen=True)
class TraceFrame:
    """One frame of a call chain from a compiled entry to a break: path, 1-based line of
    the call (or of the break for the last frame), and the calling function's name."""

    path: str
    line: int
    function: str

    def to_json(self) -> dict:
        return {"path": self.path, "line": self.line, "function": self.function}


@dataclasses.dataclass(frozen=True)
class Edit:
    """Replace the text between two 1-based (line, column) positions with ``text``."""

    line: int
    column: int
    end_line: int
    end_column: int
    text: str

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Fix:
    """A rewrite a diagnostic offers. ``applicability`` is ``"safe"`` (behaviour unchanged)
    or ``"unsafe"`` (behaviour may change); ``edits`` may be empty for advice-only fixes."""

    title: str
    applicability: str
    edits: Tuple[Edit, ...] = ()

    def to_json(self) -> dict:
        return {
            "title": self.title,
            "applicability": self.applicability,
            "edits": [e.to_json() for e in self.edits],
        }


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    """One finding. Lines and columns are 1-based; ``end_column`` is exclusive.

    ``frame`` names the function whose graph is split, skipped or fails (``Class.method``
    or ``function``); ``trace`` runs from the compiled entry to the break.
    """

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    name: str
    effect: str
    message: str
    frame: Optional[str] = None
    gb_ids: Tuple[str, ...] = ()
    hint: str = ""
    trace: Tuple[TraceFrame, ...] = ()
    fix: Optional[Fix] = None
    # "definite" (on every path through the frames of the trace), "conditional" (under a branch
    # gblint cannot decide; ``condition`` says which), "error-path" (only when raising); "" for notes
    certainty: str = ""
    condition: str = ""
    # what a rewrite needs to build this diagnostic's fix (see gblint.fixes); not part of the output
    fix_request: Optional[FixRequest] = dataclasses.field(default=None, compare=False, repr=False)

    @property
    def url(self) -> str:
        """The PyTorch graph-break page of the first GB id, else gblint's rule reference."""
        if self.gb_ids:
            return GB_URL.format(self.gb_ids[0].lower())
        return DOCS_URL.format(self.code.lower())

    def sort_key(self):
        return (self.path, self.line, self.column, self.code, self.frame or "")

    def to_json(self) -> dict:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "code": self.code,
            "name": self.name,
            "effect": self.effect,
            "frame": self.frame,
            "gb_ids": list(self.gb_ids),
            "message": self.message,
            "hint": self.hint,
            "url": self.url,
            "trace": [t.to_json() for t in self.trace],
            "fix": self.fix.to_json() if self.fix else None,
            "certainty": self.certainty or None,
            "condition": self.condition or None,
        }


# Every code is defined once: a break source on its rule class (``gblint.rules``), every other
# code in :data:`gblint.codes.CODES`; ``gblint rules`` (:mod:`gblint.catalog`) lists both.
#: ``code -> (name, effect, summary)`` of the consequence codes (families 0, 2, 3, 4), read
#: from :data:`gblint.codes.CODES`.
CONSEQUENCE_CODES = {c.code: (c.name, c.effect, c.summary) for c in CODES.values() if c.family == CONSEQUENCE}
