"""LSP code actions: a diagnostic's own fix, ``# noqa: GBLnnn`` on its statement, and
``source.fixAll.gblint`` (every safe fix of a document as one edit).

Pure conversions for :mod:`gblint.frontends.lsp`, from gblint's 1-based edits to LSP text edits in the
client's position encoding.
"""
from __future__ import annotations

from typing import Iterable, List, Optional, Sequence

from lsprotocol import types as lsp
from pygls.workspace import PositionCodec

from ..core.diagnostics import DISPLAY_ONLY, Diagnostic, Edit
from .lsp_documents import to_range
from ..project.noqa_edits import noqa_insertion

FIX_ALL_KIND = "source.fixAll.gblint"


def to_text_edits(edits: Iterable[Edit], lines: Sequence[str], codec: Optional[PositionCodec] = None
                  ) -> List[lsp.TextEdit]:
    """LSP text edits from a fix's 1-based edits."""
    codec = codec or PositionCodec()
    return [lsp.TextEdit(range=to_range(lines, e.line, e.column, e.end_line, e.end_column, codec), new_text=e.text)
            for e in edits]


def fix_action(d: Diagnostic, uri: str, lines: Sequence[str], codec: Optional[PositionCodec] = None,
               lsp_diagnostic: Optional[lsp.Diagnostic] = None) -> Optional[lsp.CodeAction]:
    """The quick fix a diagnostic carries, or None when it has no fix with edits, or only a
    display-only one (no gain predicted: the hover shows it, no action applies it).

    The title is the fix's title, with `` (unsafe)`` for a fix that may change behaviour.
    """
    if d.fix is None or not d.fix.edits or d.fix.applicability == DISPLAY_ONLY:
        return None
    unsafe = d.fix.applicability != "safe"
    return lsp.CodeAction(
        title=d.fix.title + (" (unsafe)" if unsafe else ""),
        kind=lsp.CodeActionKind.QuickFix,
        diagnostics=[lsp_diagnostic] if lsp_diagnostic else None,
        is_preferred=not unsafe,
        edit=lsp.WorkspaceEdit(changes={uri: to_text_edits(d.fix.edits, lines, codec)}),
    )


def noqa_edit(d: Diagnostic, lines: Sequence[str], codec: Optional[PositionCodec] = None) -> Optional[lsp.TextEdit]:
    """The edit that silences ``d`` with ``# noqa: CODE``: the code added to the ``# noqa`` that
    already covers the diagnostic's statement, else a comment at the end of the statement's last
    physical line (never inside a string that starts on the reported line: flake8 and gblint
    read a ``# noqa`` anywhere on a multi-line statement); as ``gblint check --add-noqa`` writes
    it (:func:`gblint.project.noqa_edits.noqa_insertion`). None when the statement is silenced already,
    or when the text does not tokenize (where a comment may go is then unknown).

    Args:
        d: the diagnostic (1-based ``line``).
        lines: the document's lines, without their line breaks (:func:`split_lines`).
        codec: the client's position encoding (default UTF-16)."""
    codec = codec or PositionCodec()
    spot = noqa_insertion(lines, d.line, [d.code])
    if spot is None:
        return None
    row, start, end, text = spot
    return lsp.TextEdit(range=lsp.Range(start=lsp.Position(line=row, character=codec.client_num_units(lines[row][:start])),
                                        end=lsp.Position(line=row, character=codec.client_num_units(lines[row][:end]))),
                        new_text=text)


def noqa_action(d: Diagnostic, uri: str, lines: Sequence[str], codec: Optional[PositionCodec] = None,
                lsp_diagnostic: Optional[lsp.Diagnostic] = None) -> Optional[lsp.CodeAction]:
    """The quick fix that silences ``d`` with ``# noqa: GBLnnn`` on its statement (None: nothing
    to add, or no place for it; see :func:`noqa_edit`)."""
    edit = noqa_edit(d, lines, codec)
    if edit is None:
        return None
    return lsp.CodeAction(
        title=f"Add `# noqa: {d.code}` on line {edit.range.start.line + 1}",
        kind=lsp.CodeActionKind.QuickFix,
        diagnostics=[lsp_diagnostic] if lsp_diagnostic else None,
        edit=lsp.WorkspaceEdit(changes={uri: [edit]}),
    )


def safe_edits(diagnostics: Iterable[Diagnostic]) -> List[Edit]:
    """The edits of every safe fix, in document order, without duplicates or overlaps (the
    first of two overlapping edits wins; the next fix-all pass picks up the other)."""
    edits = sorted({e for d in diagnostics if d.fix and d.fix.applicability == "safe" for e in d.fix.edits},
                   key=lambda e: (e.line, e.column, e.end_line, e.end_column, e.text))
    out: List[Edit] = []
    for e in edits:
        if out and (e.line, e.column) < (out[-1].end_line, out[-1].end_column):
            continue
        out.append(e)
    return out


def fix_all_action(diagnostics: Iterable[Diagnostic], uri: str, lines: Sequence[str],
                   codec: Optional[PositionCodec] = None) -> Optional[lsp.CodeAction]:
    """``source.fixAll.gblint``: every safe fix of one document as one edit (None: no safe fix)."""
    edits = safe_edits(diagnostics)
    if not edits:
        return None
    return lsp.CodeAction(title="gblint: fix all safe fixes", kind=FIX_ALL_KIND,
                          edit=lsp.WorkspaceEdit(changes={uri: to_text_edits(edits, lines, codec)}))



def kind_allowed(kind: str, only: Optional[Sequence[str]]) -> bool:
    """Whether a code action of ``kind`` answers a request restricted to ``only`` (LSP kinds
    are hierarchical: ``source`` covers ``source.fixAll.gblint``)."""
    if not only:
        return True
    return any(kind == k or kind.startswith(k + ".") for k in only)
