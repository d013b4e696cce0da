"""``# noqa`` and ``# noqa: GBL201,GBL1`` comments, read exactly as flake8 reads them.

flake8 (``flake8/defaults.py``, ``violation.py``, ``processor.py``):

- the comment is ``# noqa`` in any case, optionally followed by ``:`` (and one whitespace) and
  codes ``[A-Z]+[0-9]+`` separated by commas or whitespace; codes are compared as written
  (case-sensitive) and each one is a prefix (``GBL2`` covers ``GBL201``);
- anything else after ``# noqa`` is not a code list: ``# noqa: E501 g`` silences ``E501`` only,
  and ``# noqa:foo`` (no valid code) or ``# noqa : E501`` is a blanket ``# noqa``;
- a statement whose tokens span several physical lines (a triple-quoted string, a ``\\``
  continuation) is one unit: a ``# noqa`` on any of its lines covers all of them, and the first
  ``# noqa`` of the joined lines decides.
"""
from __future__ import annotations

import bisect
import re
import tokenize
from typing import Dict, FrozenSet, List, Optional, Tuple

from ..core.source import split_lines

NOQA = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)

ALL = frozenset({"*"})
_ANY = re.compile(r"# noqa", re.IGNORECASE)
_SEPARATOR = re.compile(r"[,\s]")  # flake8.utils.COMMA_SEPARATED_LIST_RE


def match_codes(m: "re.Match[str]") -> FrozenSet[str]:
    """The codes a :data:`NOQA` match silences: :data:`ALL` for a blanket ``# noqa``, else the
    listed codes as written."""
    codes = m.group("codes")
    if codes is None:
        return ALL
    return frozenset(c for c in _SEPARATOR.split(codes) if c)


class NoqaTable(dict):
    """1-based line -> codes silenced there (``{"*"}`` for a blanket ``# noqa``).

    Holds the physical lines that carry a comment; the lines of multi-line statements are
    resolved on the first :meth:`lookup` (a tokenization, needed only when a diagnostic falls in
    a file that has ``# noqa`` comments)."""

    def __init__(self, direct: Dict[int, FrozenSet[str]], text: str):
        super().__init__(direct)
        self.text: Optional[str] = text

    def lookup(self, line: int) -> Optional[FrozenSet[str]]:
        """The codes silenced on 1-based ``line`` (None: nothing)."""
        if self.text is not None:
            text, self.text = self.text, None
            ranges = logical_ranges(text)
            if ranges:
                lines = split_lines(text, keepends=False)
                commented = sorted(self)
                for first, last in ranges:
                    i = bisect.bisect_left(commented, first)
                    if last > first and i < len(commented) and commented[i] <= last:
                        m = NOQA.search("\n".join(lines[first - 1:last]))
                        if m is not None:
                            codes = match_codes(m)
                            for n in range(first, last + 1):
                                self[n] = codes
        return self.get(line)


def noqa_lines(text: str) -> Dict[int, FrozenSet[str]]:
    """1-based line -> codes suppressed on it (``{"*"}`` for a bare ``# noqa``).

    Args:
        text (str): the file's source.

    Returns a plain empty dict when ``text`` has no ``# noqa``, else a :class:`NoqaTable`;
    pass either to :func:`suppressed`. Never raises for any text."""
    if _ANY.search(text) is None:
        return {}
    direct: Dict[int, FrozenSet[str]] = {}
    for i, line in enumerate(split_lines(text, keepends=False), 1):  # not str.splitlines(): see split_lines
        if "#" in line:
            m = NOQA.search(line)
            if m is not None:
                direct[i] = match_codes(m)
    return NoqaTable(direct, text) if direct else {}


def suppressed(code: str, line: int, table: Dict[int, FrozenSet[str]]) -> bool:
    """Whether ``code`` (e.g. ``"GBL201"``) reported on 1-based ``line`` is silenced by ``table``
    (from :func:`noqa_lines`): a blanket ``# noqa``, or a listed code that ``code`` starts with."""
    codes = table.lookup(line) if isinstance(table, NoqaTable) else table.get(line)
    if not codes:
        return False
    return codes is ALL or "*" in codes or code.startswith(tuple(codes))


def logical_ranges(text: str) -> Optional[List[Tuple[int, int]]]:
    """The (first, last) 1-based physical lines of each run of tokens up to a newline, as flake8
    maps ``# noqa`` comments; None when ``text`` does not tokenize."""
    parts = split_lines(text, keepends=False)
    if parts and parts[-1] == "":
        parts.pop()
    feed = iter([p + "\n" for p in parts])  # line breaks as Python reads them, normalised for tokenize
    ranges: List[Tuple[int, int]] = []
    first, last = None, -1
    try:
        for tok in tokenize.generate_tokens(lambda: next(feed, "")):
            if tok.type in (tokenize.ENDMARKER, tokenize.DEDENT):
                continue
            first = tok.start[0] if first is None else min(first, tok.start[0])
            last = max(last, tok.end[0])
            if tok.type in (tokenize.NL, tokenize.NEWLINE):
                ranges.append((first, last))
                first, last = None, -1
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    return ranges


def statement_lines(text: str, line: int) -> Optional[Tuple[int, int]]:
    """The (first, last) physical lines that a ``# noqa`` for 1-based ``line`` may sit on (the
    run of tokens containing it, see :func:`logical_ranges`); None when ``text`` does not
    tokenize. A line outside every run (past the end) is its own range."""
    ranges = logical_ranges(text)
    if ranges is None:
        return None
    i = bisect.bisect_right(ranges, (line, float("inf"))) - 1
    if i >= 0 and ranges[i][0] <= line <= ranges[i][1]:
        return ranges[i]
    return line, line
