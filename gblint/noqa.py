"""``# noqa`` and ``# noqa: GBL201,GBL1`` comments, as flake8 and ruff read them."""
from __future__ import annotations

import re
from typing import Dict, FrozenSet, Optional

NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]*(?:[,\s]+[A-Z]+[0-9]*)*))?", re.IGNORECASE)

ALL = frozenset({"*"})
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def noqa_lines(text: str) -> Dict[int, FrozenSet[str]]:
    """1-based line -> codes suppressed on it (``{"*"}`` for a bare ``# noqa``)."""
    out: Dict[int, FrozenSet[str]] = {}
    if "noqa" not in text and "NOQA" not in text:
        return out
    for i, line in enumerate(_LINE_BREAK.split(text), 1):  # not splitlines(): \f, \v, \x1c, \u2028 do not end lines
        if "#" not in line:
            continue
        m = NOQA.search(line)
        if not m:
            continue
        codes = m.group("codes")
        out[i] = ALL if not codes else frozenset(c.upper() for c in re.split(r"[,\s]+", codes) if c)
    return out


def suppressed(code: str, line: int, table: Dict[int, FrozenSet[str]]) -> bool:
    codes: Optional[FrozenSet[str]] = table.get(line)
    if not codes:
        return False
    return codes is ALL or "*" in codes or any(code.startswith(c) for c in codes)
