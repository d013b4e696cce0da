"""LSP documents and positions: URIs, lines, ranges, and gblint's diagnostics as LSP ones.

Pure conversions for :mod:`gblint.frontends.lsp`. Documents are keyed by their decoded file system path
(:func:`doc_key`), so a client's percent-encoded URI (``file:///c%3A/Users/...``, spaces,
non-ASCII) finds its document in every request, and the server's copy of a buffer breaks lines
only where LSP does (``\r\n``, ``\n``, ``\r``; not at a form feed or ``\u2028`` as
:meth:`str.splitlines` would, see :class:`LspTextDocument`).
"""
from __future__ import annotations

import os
from typing import List, Optional, Sequence
from urllib.parse import unquote

from lsprotocol import types as lsp
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import PositionCodec, TextDocument, Workspace

from ..core.diagnostics import EFFECT_WORDS, GB_URL, Diagnostic
from ..core.source import split_lines as _split_lines

SOURCE = "gblint"

SEVERITY_NAMES = {
    "error": lsp.DiagnosticSeverity.Error,
    "warning": lsp.DiagnosticSeverity.Warning,
    "information": lsp.DiagnosticSeverity.Information,
    "info": lsp.DiagnosticSeverity.Information,
    "hint": lsp.DiagnosticSeverity.Hint,
}


def split_lines(text: str) -> List[str]:
    """A document's lines without their line breaks, numbered as LSP numbers them (a text that
    ends in a line break has an empty last line): :func:`gblint.core.source.split_lines` without ends."""
    return _split_lines(text, keepends=False)


def severity_for(effect: str, break_severity: lsp.DiagnosticSeverity = lsp.DiagnosticSeverity.Warning,
                 certainty: str = "") -> lsp.DiagnosticSeverity:
    """LSP severity of a gblint effect: error -> Error, skip -> Warning, break ->
    ``break_severity``, info (and anything unknown) -> Information; one step lower (Error ->
    Warning -> Information -> Hint) when ``certainty`` is ``"conditional"`` or ``"error-path"``:
    it happens only when a condition gblint cannot decide holds."""
    if effect == "error":
        severity = lsp.DiagnosticSeverity.Error
    elif effect == "skip":
        severity = lsp.DiagnosticSeverity.Warning
    elif effect == "break":
        severity = break_severity
    else:
        return lsp.DiagnosticSeverity.Information
    if certainty in ("conditional", "error-path"):
        return lsp.DiagnosticSeverity(min(int(severity) + 1, int(lsp.DiagnosticSeverity.Hint)))
    return severity


def to_position(lines: Sequence[str], line: int, column: int, codec: PositionCodec) -> lsp.Position:
    """An LSP position from gblint's 1-based (line, column in code points), in the client's
    code units; out-of-range values are clamped to the document."""
    row = max(line - 1, 0)
    if row >= len(lines):
        if not lines:
            return lsp.Position(line=0, character=0)
        row = len(lines) - 1
        return lsp.Position(line=row, character=codec.client_num_units(lines[row]))
    text = lines[row]
    col = min(max(column - 1, 0), len(text))
    return lsp.Position(line=row, character=codec.client_num_units(text[:col]))


def to_range(lines: Sequence[str], line: int, column: int, end_line: int, end_column: int,
             codec: PositionCodec) -> lsp.Range:
    """An LSP range from gblint's 1-based positions (``end_column`` exclusive, as in LSP)."""
    start = to_position(lines, line, column, codec)
    end = to_position(lines, end_line, end_column, codec)
    if (end.line, end.character) < (start.line, start.character):
        end = start
    return lsp.Range(start=start, end=end)


def path_to_uri(path: str) -> str:
    """A ``file://`` URI for a file system path (made absolute first)."""
    return from_fs_path(os.path.abspath(path)) or path


def uri_to_path(uri: str) -> Optional[str]:
    """The file system path of a ``file:`` URI, percent-decoded (``file:///c%3A/a%20b.py`` ->
    ``c:/a b.py``; drive letters lower-cased, as pygls does); None for other schemes."""
    try:
        return to_fs_path(uri)
    except Exception:  # a malformed URI
        return None


def doc_key(uri: str) -> str:
    """The key under which the server keeps a document: its absolute, decoded path, so that
    every spelling of one file's URI (encoded or not) finds it; other schemes by the URI
    itself, decoded."""
    path = uri_to_path(uri)
    if path is None:
        return unquote(uri)
    return os.path.normcase(os.path.abspath(path))


class LspTextDocument(TextDocument):
    """A pygls document whose lines end where LSP ends them: at ``\r\n``, ``\n`` or ``\r``
    only. pygls splits with :meth:`str.splitlines`, which also breaks at a form feed, ``\v``,
    ``\x1c``-``\x1e``, ``\x85``, ``\u2028`` and ``\u2029``, so its positions, and the
    incremental edits applied through them, drift from the editor's buffer."""

    @property
    def lines(self) -> Sequence[str]:
        """The document's lines, each with its line break, split where LSP splits them."""
        return tuple(_split_lines(self.source))


class LspWorkspace(Workspace):
    """A pygls workspace whose documents are :class:`LspTextDocument`."""

    def _create_text_document(self, doc_uri: str, source: Optional[str] = None, version: Optional[int] = None,
                              language_id: Optional[str] = None) -> TextDocument:
        return LspTextDocument(doc_uri, source=source, version=version, language_id=language_id,
                               sync_kind=self._sync_kind, position_codec=self._position_codec)


def to_lsp_diagnostic(d: Diagnostic, lines: Sequence[str], codec: Optional[PositionCodec] = None,
                      break_severity: lsp.DiagnosticSeverity = lsp.DiagnosticSeverity.Warning,
                      uri_for_path=path_to_uri) -> lsp.Diagnostic:
    """Convert one gblint diagnostic, reported on the document whose text is ``lines``.

    ``uri_for_path`` maps a trace frame's path to the URI of its ``relatedInformation``.
    """
    codec = codec or PositionCodec()
    related = []
    n = len(d.trace)
    for i, t in enumerate(d.trace, 1):
        pos = lsp.Position(line=max(t.line - 1, 0), character=0)
        where = "break" if i == n else "call"
        related.append(lsp.DiagnosticRelatedInformation(
            location=lsp.Location(uri=uri_for_path(t.path), range=lsp.Range(start=pos, end=pos)),
            message=f"trace {i}/{n}: {where} in `{t.function}` (line {t.line})"))
    return lsp.Diagnostic(
        range=to_range(lines, d.line, d.column, d.end_line, d.end_column, codec),
        message=d.headline,
        severity=severity_for(d.effect, break_severity, d.certainty),
        code=d.code,
        code_description=lsp.CodeDescription(href=d.rule_url) if d.rule_url else None,
        source=SOURCE,
        related_information=related or None,
        data={"name": d.name, "effect": d.effect, "fixable": has_fix(d), "certainty": d.certainty or None},
    )


def has_fix(d: Diagnostic) -> bool:
    """Whether ``d`` carries a fix with edits, or a request the engine may turn into edits on
    demand (advice alone, such as a config setting, is no fix)."""
    from ..core.model import ConfigFix
    return bool(d.fix and d.fix.edits) or (d.fix is None and d.fix_request is not None
                                          and not isinstance(d.fix_request, ConfigFix))


def hover_markdown(diagnostics: Sequence[Diagnostic]) -> str:
    """Markdown explaining what Dynamo will do for each diagnostic (message, frame, call
    chain, hint and the graph-break page)."""
    parts = []
    for d in diagnostics:
        head = f"**{d.code}** `{d.name}`: {EFFECT_WORDS.get(d.effect, d.effect)}"
        if d.frame:
            head += f" in `{d.frame}`"
        block = [head, "", d.long_text]
        if d.condition:
            block += ["", f"Only {d.condition}."]
        if d.trace and len(d.trace) > 1:
            block += ["", "Call chain: " + " → ".join(f"`{t.function}:{t.line}`" for t in d.trace)]
        if d.hint:
            block += ["", f"**Rewrite:** {d.hint}"]
        if d.fix is not None and d.fix.edits:
            block += ["", f"**Fix available:** {d.fix.title} ({d.fix.applicability})"]
        elif d.fix is not None:
            block += ["", f"**Advice:** {d.fix.title}"]
        elif has_fix(d):
            block += ["", "**Fix available:** see the quick fixes"]
        links = [f"[{gb}]({GB_URL.format(gb.lower())})" for gb in d.gb_ids]
        block += ["", " · ".join(links + ([f"[{d.code} rule page]({d.rule_url})"] if d.rule_url else []))]
        parts.append("\n".join(block))
    return "\n\n---\n\n".join(parts)
