"""Writing and checking ``# noqa`` comments: ``--add-noqa`` and unused-noqa detection (``GBL004``).

Where a comment goes is where flake8 reads it (:mod:`gblint.project.noqa`): on any physical line of the
statement that holds the diagnostic. A code joins the ``# noqa`` that already covers the
statement; otherwise a comment is added at the end of the statement's last physical line, so a
diagnostic inside a triple-quoted string gets its comment after the string, never in it. An
edit that would change anything but comments (compared with :func:`ast.dump`) is not made.

A ``# noqa`` that names a gblint code which reports nothing on its statement is reported as
``GBL004`` (as ruff's ``RUF100``), with a safe fix that removes the code (or the comment). Only
real comments count (a ``# noqa`` inside a string is text), only in code a compiled region
reaches (elsewhere no diagnostic could be found, so none can be said to be missing), and only
for codes the selection reports.
"""
from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from ..core.diagnostics import Diagnostic, Edit, Fix
from .noqa import ALL, NOQA, match_codes, statement_lines
from ..core.source import split_lines

#: (0-based row, start column, end column, new text): replace ``lines[row][start:end]``
Insertion = Tuple[int, int, int, str]
_GBL_CODE = re.compile(r"GBL[0-9]*$")


def noqa_insertion(lines: Sequence[str], line: int, codes: Iterable[str]) -> Optional[Insertion]:
    """Where and what to write so that ``codes`` reported on 1-based ``line`` are silenced:
    the codes added to the ``# noqa`` that covers the statement, else ``  # noqa: CODES`` at the
    end of the statement's last physical line. None when the statement silences them already,
    when its first ``# noqa`` is text inside a string (it decides, and cannot take a code
    without changing the string), or when the text does not tokenize.

    Args:
        lines: the file's lines without their line breaks (:func:`gblint.core.source.split_lines`).
        line: the 1-based line of the diagnostics.
        codes: the codes to silence (``GBL201``)."""
    if not 0 < line <= len(lines):
        return None
    span = statement_lines("\n".join(lines), line)
    if span is None:
        return None
    first, last = span[0], min(span[1], len(lines))
    joined = "\n".join(lines[first - 1:last])
    m = NOQA.search(joined)
    if m is not None:
        have = match_codes(m)
        if have is ALL:
            return None
        missing = [c for c in dict.fromkeys(codes) if not c.startswith(tuple(have))]
        if not missing:
            return None
        if not _in_comment(joined, m.start()):
            return None
        listed = m.group("codes").split("\n")[0].rstrip(", \t\f\v\r")  # the list on the comment's own line
        offset = m.start("codes") + len(listed)
        row = first - 1 + joined.count("\n", 0, offset)
        column = offset - (joined.rfind("\n", 0, offset) + 1)
        return row, column, column, "".join(f",{c}" for c in missing)
    missing = list(dict.fromkeys(codes))
    if not missing:
        return None
    row = last - 1
    text = lines[row]
    body = text.rstrip()
    return row, len(body), len(text), f"  # noqa: {','.join(missing)}"


def _in_comment(fragment: str, offset: int) -> bool:
    """Whether ``offset`` of ``fragment`` (whole statements) falls inside a comment token."""
    row = fragment.count("\n", 0, offset) + 1
    column = offset - (fragment.rfind("\n", 0, offset) + 1)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(fragment + "\n").readline):
            if tok.type == tokenize.COMMENT and tok.start[0] == row and tok.start[1] <= column < tok.end[1]:
                return True
    except (tokenize.TokenError, SyntaxError):
        pass
    return False


def add_noqa(text: str, wanted: Dict[int, Iterable[str]]) -> Tuple[str, int]:
    """``text`` with a ``# noqa`` for every ``line -> codes`` of ``wanted`` (1-based lines), and
    how many comments were written or extended. Line endings are kept. Returns ``text``
    unchanged (and 0) when it does not parse, or when the result would differ from it in
    anything but comments."""
    try:
        before = ast.dump(ast.parse(text))
    except (SyntaxError, ValueError):
        return text, 0
    physical = split_lines(text)
    lines = split_lines(text, keepends=False)
    count = 0
    for line in sorted(wanted):
        spot = noqa_insertion(lines, line, wanted[line])
        if spot is None:
            continue
        row, start, end, new = spot
        lines[row] = lines[row][:start] + new + lines[row][end:]
        ending = physical[row][len(physical[row].rstrip("\r\n")):] if row < len(physical) else ""
        physical[row] = lines[row] + ending
        count += 1
    result = "".join(physical)
    try:
        if ast.dump(ast.parse(result)) != before:
            return text, 0
    except (SyntaxError, ValueError):
        return text, 0
    return result, count


def _noqa_comments(text: str) -> List[Tuple[int, int, str]]:
    """``(line, column, comment)`` of every comment token that holds a ``# noqa`` (0-based column)."""
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT and NOQA.search(tok.string):
                out.append((tok.start[0], tok.start[1], tok.string))
    except (tokenize.TokenError, SyntaxError, ValueError):
        return []
    return out


def unused_noqa(path: str, text: str, found: Sequence[Diagnostic], reached: Callable[[int], bool],
                selected: Callable[[str], bool]) -> List[Diagnostic]:
    """``GBL004`` for each gblint code of a ``# noqa`` comment of ``path`` (text ``text``) that
    silences none of ``found`` (the file's diagnostics, before ``# noqa`` is applied).

    ``reached(line)``: whether a compiled region reaches the code at 1-based ``line`` (outside
    it nothing is reported, so nothing is missing); ``selected(code)``: whether the selection
    reports ``code`` (a code left out by select/ignore is never called unused). Only the first
    ``# noqa`` of a statement counts, as flake8 reads them: a later one on the same statement
    silences nothing. ``GBL00x`` codes (a file that does not parse has no diagnostics to
    silence) and ``GBL004`` itself are never reported."""
    comments = _noqa_comments(text)
    if not comments:
        return []
    lines = split_lines(text, keepends=False)
    out: List[Diagnostic] = []
    seen_statements = set()
    for line, column, comment in comments:
        m = NOQA.search(comment)
        codes = match_codes(m)
        if codes is ALL:
            continue
        span = statement_lines(text, line) or (line, line)
        first_of_statement = span not in seen_statements
        seen_statements.add(span)
        gbl = [c for c in codes if _GBL_CODE.match(c) and not c.startswith("GBL00") and c != "GBL"]
        if not gbl or not reached(line):
            continue
        here = [d for d in found if span[0] <= d.line <= span[1]]
        unused = [c for c in sorted(gbl) if (not first_of_statement or not any(d.code.startswith(c) for d in here))
                  and selected(c)]
        if not unused:
            continue
        listed = ", ".join(unused)
        fix = _removal(lines, line, column, comment, set(unused))
        out.append(Diagnostic(
            path=path, line=line, column=column + 1, end_line=line, end_column=column + len(comment) + 1,
            code="GBL004", name="unused-noqa", effect="info",
            message=f"unused `# noqa` code{'s' if len(unused) > 1 else ''} {listed}: nothing reported here",
            explanation=(f"The `# noqa` comment names {listed}, but gblint reports no such diagnostic on this "
                         "statement" + ("" if first_of_statement else
                                        " (an earlier `# noqa` of the same statement is the one flake8 reads)")
                         + "; a stale suppression would hide the next one without a word."),
            hint="Remove the unused code from the comment (`gblint fix` does).", fix=fix))
    return out


def _removal(lines: Sequence[str], line: int, column: int, comment: str, unused: set) -> Optional[Fix]:
    """The safe fix that drops ``unused`` from the ``# noqa`` comment at ``line``/``column``: the
    codes that remain are kept; with none left, the ``# noqa`` goes (the rest of the comment
    stays a comment), and a comment that held only it goes with the spaces before it."""
    m = NOQA.search(comment)
    codes = [c for c in re.split(r"[,\s]", m.group("codes") or "") if c]
    keep = [c for c in codes if c not in unused]
    rest = comment[m.end():].strip()
    before = comment[:m.start()].rstrip()
    if keep:
        new = f"{comment[:m.start()]}# noqa: {', '.join(keep)}{' ' + rest if rest else ''}"
    elif before or rest:
        new = (before + (" " + rest if rest else "")) if before else f"# {rest}"
    else:
        new = ""
    text = lines[line - 1]
    start = column
    if not new:
        start = len(text[:column].rstrip())
    end = column + len(comment)
    title = f"Remove the unused `# noqa` code{'s' if len(unused) > 1 else ''} {', '.join(sorted(unused))}"
    return Fix(title, "safe", (Edit(line, start + 1, line, end + 1, new),))


def project_unused_noqa(project, regions, summaries, loader, settings,
                       found: Dict[str, List[Diagnostic]], reached=()) -> Tuple[List[Diagnostic], int]:
    """``GBL004`` for the gblint codes of ``# noqa`` comments that silence nothing
    (:func:`unused_noqa`), in the checked files (not a followed package's),
    where a compiled region reaches (``reached``: the frames the walks traced into); and how many of them a ``# noqa: GBL004`` silenced.
    Costs nothing when no checked file has a ``# noqa`` naming a gblint code."""
    if not settings.selected("GBL004"):
        return [], 0
    candidates = [path for path, table in loader.noqa.items()
                  if table and any(any(c.startswith("GBL") for c in codes) for codes in table.values())
                  and not any(_under(path, root) for root in loader.followed.values())]
    if not candidates:
        return [], 0
    spans: Dict[str, List[Tuple[int, int]]] = {}
    for frame in reached:
        spans.setdefault(frame.path, []).append((frame.info.span.line, frame.info.span.end_line))
    by_path = {s.path: s for s in summaries}
    out, silenced = [], 0
    for path in candidates:
        summary = by_path.get(path)
        if summary is None or path not in loader.texts:
            continue
        defs = [(f.span.line, f.span.end_line) for f in summary.functions.values()]
        here = spans.get(path, [])

        def reached(line: int) -> bool:
            if any(a <= line <= b for a, b in here):
                return True  # inside a function a region reaches
            return bool(summary.regions) and not any(a <= line <= b for a, b in defs)  # module level

        for d in unused_noqa(path, loader.texts[path], found.get(path, []), reached,
                             lambda code: settings.selected(code, path)):
            if not settings.selected(d.code, path):
                continue
            codes = loader.noqa[path].get(d.line, frozenset())
            if any(len(c) > 3 and "GBL004".startswith(c) for c in codes):  # `# noqa: GBL004`
                silenced += 1
                continue
            out.append(d)
    return out, silenced


def _under(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([os.path.abspath(path), os.path.abspath(root)]) == os.path.abspath(root)
    except ValueError:
        return False
