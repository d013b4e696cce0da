"""Diagnostic records and gblint's code scheme.

Codes are ``GBL`` + three digits; the hundreds digit is the *consequence family*:

=======  ==========================================================================
GBL0xx   gblint itself: ``GBL000`` internal error in a rule, ``GBL001`` syntax error,
         ``GBL002`` unreadable file or undecodable text, ``GBL003`` unresolved compile call,
         ``GBL004`` unused ``# noqa`` code.
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
code: Dynamo skips it and runs it eagerly; ``"error"`` ``torch.compile`` raises (the
diagnostic's frame gets no compiled code; its trace is the error's user stack); ``"info"``
advice, no cost predicted.
"""
from __future__ import annotations

import dataclasses
import os
import pathlib
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from . import messages
from .codes import CODES, CONSEQUENCE

if TYPE_CHECKING:
    from .model import FixRequest

GB_URL = "https://meta-pytorch.github.io/compile-graph-break-site/gb/{}.html"
#: gblint's own page of a code, in its repository (written by ``scripts/gen_rule_docs.py``;
#: ``gblint rule CODE`` prints the same page wherever gblint is installed)
RULE_DOC = "docs/rules/{}.md"
#: the checkout gblint runs from (``pip install -e .``): where its ``docs/rules/`` lies
CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def rule_path(code: str) -> Optional[str]:
    """The file of ``code``'s page in the checkout gblint runs from; None when it has none (an
    installation without the repository's ``docs/``)."""
    path = os.path.join(CHECKOUT, RULE_DOC.format(code.upper()))
    return path if os.path.isfile(path) else None


def rule_url(code: str) -> Optional[str]:
    """The page of ``code`` in gblint's rule reference: a ``file://`` URI of :func:`rule_path`
    (what editors, SARIF and the HTML report link), None without one."""
    path = rule_path(code)
    return pathlib.Path(path).as_uri() if path else None

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


#: the applicability of a rewrite shown as advice and never applied (``gblint fix`` predicts no
#: gain from it: :func:`gblint.fixing.fix_effects.gains`)
DISPLAY_ONLY = "display-only"


@dataclasses.dataclass(frozen=True)
class Fix:
    """A rewrite a diagnostic offers. ``applicability`` is ``"safe"`` (behaviour unchanged),
    ``"unsafe"`` (behaviour may change) or ``"display-only"`` (shown, never applied: no gain is
    predicted); ``edits`` may be empty for advice-only fixes. ``effect``: gblint's prediction
    for the fixed frame before and after the rewrite (:class:`gblint.fixing.fix_effects.Effect`), when made."""

    title: str
    applicability: str
    edits: Tuple[Edit, ...] = ()
    effect: Optional[tuple] = dataclasses.field(default=None, compare=False)

    def to_json(self) -> dict:
        return {
            "title": self.title,
            "applicability": self.applicability,
            "edits": [e.to_json() for e in self.edits],
        }


@dataclasses.dataclass(frozen=True)
class Related:
    """Another diagnostic of the same break: its code, the frame it is about, its effect and line."""

    code: str
    frame: Optional[str]
    effect: str
    line: int

    def to_json(self) -> dict:
        return {"code": self.code, "frame": self.frame, "effect": self.effect, "line": self.line}


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    """One finding. Lines and columns are 1-based; ``end_column`` is exclusive.

    ``message`` is one line of at most :data:`gblint.core.messages.LIMIT` characters (what breaks
    and what it costs); ``explanation`` the whole text (why, with the numbers). A longer
    ``message`` given without an explanation becomes the explanation and the message is cut
    to fit (:func:`gblint.core.messages.fit`), so every diagnostic, wherever it is built, keeps the
    limit. ``frame`` names the function whose graph is split, skipped or fails
    (``Class.method`` or ``function``); ``trace`` runs from the compiled entry to the break;
    ``related`` names the other diagnostics of the same break (a nested break that splits the
    caller and skips the callee's frame).
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
    explanation: str = ""
    related: Tuple[Related, ...] = ()
    # what a rewrite needs to build this diagnostic's fix (see gblint.fixing.fixes); not part of the output
    fix_request: Optional[FixRequest] = dataclasses.field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if len(self.message) > messages.LIMIT or "\n" in self.message:
            if not self.explanation:
                object.__setattr__(self, "explanation", self.message)
            object.__setattr__(self, "message", messages.fit(self.message))

    @property
    def url(self) -> Optional[str]:
        """The PyTorch graph-break page of the first GB id, else gblint's rule page (None without one)."""
        if self.gb_ids:
            return GB_URL.format(self.gb_ids[0].lower())
        return self.rule_url

    @property
    def rule_url(self) -> Optional[str]:
        """gblint's page of this diagnostic's code (what editors link the code to), :func:`rule_url`."""
        return rule_url(self.code)

    @property
    def headline(self) -> str:
        """The message with its condition, as one-line outputs show it (at most
        :data:`gblint.core.messages.LIMIT` characters)."""
        return messages.headline(self.message, self.condition)

    @property
    def long_text(self) -> str:
        """The explanation, or the message when there is nothing more to say."""
        return self.explanation or self.message

    @property
    def fixable(self) -> Optional[str]:
        """``"safe"`` or ``"unsafe"`` when the diagnostic has a fix with edits, else None."""
        return self.fix.applicability if self.fix is not None and self.fix.edits else None

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
            "explanation": self.long_text,
            "hint": self.hint,
            "url": self.url,
            "rule_url": self.rule_url,
            "trace": [t.to_json() for t in self.trace],
            "fix": self.fix.to_json() if self.fix else None,
            "certainty": self.certainty or None,
            "condition": self.condition or None,
            "related": [r.to_json() for r in self.related],
        }


# Every code is defined once: a break source on its rule class (``gblint.rules``), every other
# code in :data:`gblint.core.codes.CODES`; ``gblint rules`` (:mod:`gblint.settings.catalog`) lists both.
#: ``code -> (name, effect, summary)`` of the consequence codes (families 0, 2, 3, 4), read
#: from :data:`gblint.core.codes.CODES`.
CONSEQUENCE_CODES = {c.code: (c.name, c.effect, c.summary) for c in CODES.values() if c.family == CONSEQUENCE}


def name_each_other(diagnostics: List[Diagnostic], indices) -> None:
    """Make the diagnostics at ``indices`` of the list ``diagnostics`` (changed in place) name each
    other in ``related``: the places one break, reported at different lines, is shown (a compile
    error and the calls on its way, a nested break and the call into its file)."""
    indices = list(indices)
    parts = [diagnostics[i] for i in indices]
    for i, d in zip(indices, parts):
        others = tuple(Related(o.code, o.frame, o.effect, o.line) for o in parts if o is not d)
        diagnostics[i] = dataclasses.replace(d, related=tuple(dict.fromkeys(d.related + others)))


def link_related(diagnostics: List[Diagnostic]) -> List[Diagnostic]:
    """The diagnostics, each naming the others reported at the same break (same file, line and
    column, another code or frame): a nested break that splits the caller (``GBL301``) and
    skips the callee's frame (``GBL202``) is two diagnostics that name each other, in
    ``related``, in the explanation and, where it fits, in the one-line message. Order is kept."""
    groups: Dict[tuple, List[int]] = {}
    for i, d in enumerate(diagnostics):
        groups.setdefault((d.path, d.line, d.column), []).append(i)
    out = list(diagnostics)
    for members in groups.values():
        if len(members) < 2:
            continue
        for i in members:
            d = diagnostics[i]
            others = [diagnostics[j] for j in members if j != i and
                      (diagnostics[j].code, diagnostics[j].frame) != (d.code, d.frame)]
            if not others:
                continue
            related = tuple(dict.fromkeys(d.related + tuple(Related(o.code, o.frame, o.effect, o.line)
                                                            for o in others)))
            said = "; ".join(f"{o.code} ({EFFECT_WORDS.get(o.effect, o.effect)}"
                             f"{f' in `{o.frame}`' if o.frame else ''})" for o in others)
            message = d.message
            for short in (False, True):  # "GBL301 in `pipeline`", else "GBL301"; "in `<setcomp>`" for its own code
                names = [(f"in `{o.frame}`" if o.code == d.code else o.code if short or not o.frame
                          else f"{o.code} in `{o.frame}`") for o in others]
                message = messages.also(d.message, names)
                if message != d.message:
                    break
            out[i] = dataclasses.replace(d, related=related, message=message,
                                         explanation=f"{d.long_text} The same break is also reported as {said}.")
    return out


CERTAINTY_RANK = {"definite": 2, "conditional": 1, "error-path": 0}  # how sure each certainty word is


def dedupe(diags: List[Diagnostic]) -> List[Diagnostic]:
    """One diagnostic per site, frame and effect: the first, or the surest of them (a break met
    under a condition through one call and on every path through another is definite)."""
    seen: Dict[tuple, int] = {}
    out: List[Diagnostic] = []
    for d in diags:
        key = (d.path, d.line, d.column, d.code, d.frame, d.effect)
        if key not in seen:
            seen[key] = len(out)
            out.append(d)
        elif CERTAINTY_RANK.get(d.certainty or "", -1) > CERTAINTY_RANK.get(out[seen[key]].certainty or "", -1):
            out[seen[key]] = d
    return out
