"""The one-line message of a diagnostic, derived in one place from its structured fields.

Every diagnostic carries two texts: ``message``, one line of at most :data:`LIMIT` characters
that says what breaks and what it costs (what editors show inline, flake8 prints and the JSON
``message`` holds), and ``explanation``, the whole story (the verbose text output, the editor's
hover, SARIF and the rule page). The consequence model (:mod:`gblint.dynamo.consequences`) states what
breaks (the site's ``subject``, such as ``"`.item()` turns a tensor into a Python scalar"``),
the code, the verdict for the frame and the frame; :func:`short_message` composes the line from
them, with the code's ``brief`` template from :data:`gblint.core.codes.CODES` when it has one, else
the template of the verdict (:data:`DEFAULT_BRIEF`). A diagnostic built anywhere else with a
longer message is cut to fit by :func:`fit` (see :class:`gblint.core.diagnostics.Diagnostic`), its
whole text kept as the explanation.
"""
from __future__ import annotations

import re
from typing import List, Optional

from .codes import CODES

#: the most characters a one-line message (with its condition) may take
LIMIT = 120

#: the short message's template for a verdict (``gblint.core.model.Outcome`` words), used for every
#: code whose entry in ``CODES`` has no ``brief`` (the break sources of ``rules/``).
#: ``{subject}`` is what breaks, ``{frame}`` the frame that pays, ``{via}`` `` via N calls``
#: when the break is reached through calls.
DEFAULT_BRIEF = {
    "resume": "{subject}{via}: graph break in `{frame}` (+1 graph)",
    "tail": "{subject}{via}: the rest of `{frame}` runs eagerly (after the last checkpoint)",
    "skip": "{subject}{via}: frame `{frame}` is skipped (runs eagerly)",
    "raise": "{subject}{via}: frame `{frame}` is skipped (runs eagerly)",
    "error": "{subject}{via}: compile error, calling `{frame}` raises",
}
_ELLIPSIS = "…"
#: the units a message is shortened by: a code span (backticks, spaces inside it and all) with the
#: characters attached to it, or a word; never cut (a lone backtick counts as a character)
_ATOM = re.compile(r"(?:`[^`]*`|[^\s`]|`)+")


def via(calls: int) -> str:
    """`` via N calls`` for a break reached through ``calls`` calls, ``""`` for none."""
    if calls <= 0:
        return ""
    return f" via {calls} call{'s' if calls != 1 else ''}"


def short_message(code: str, outcome: str, subject: str, frame: str, calls: int = 0,
                  limit: int = LIMIT, template: Optional[str] = None) -> str:
    """The one-line message of a consequence: the ``brief`` template of ``code`` (or of the
    verdict ``outcome``, :data:`DEFAULT_BRIEF`) filled with ``subject`` (what breaks), ``frame``
    (the function that pays) and ``calls`` (how many calls lead from ``frame`` to the break).
    ``subject`` is shortened first when the line would exceed ``limit`` characters, in its
    middle (:func:`clip`: its construct, the code span it starts with, stays whole), so the
    consequence is always read in full; the result is at most ``limit`` characters. ``template``: a
    brief of the same form in place of the code's (for a consequence the code's brief does not state)."""
    entry = CODES.get(code)
    template = template or (entry.brief if entry is not None and entry.brief else "") or \
        DEFAULT_BRIEF.get(outcome, DEFAULT_BRIEF["resume"])
    rest = template.replace("{frame}", frame or "?").replace("{via}", via(calls))
    room = limit - (len(rest) - len("{subject}"))
    if len(subject) <= room:
        return rest.replace("{subject}", subject)
    construct = " ".join(_head(atoms(subject)))
    if room >= min(len(construct) + 2, 12):  # the construct and " …", or a few words at least
        return rest.replace("{subject}", clip(subject, room))
    # a frame name so long that the consequence leaves no room: the construct and the consequence,
    # the line shortened in its middle
    return fit(rest.replace("{subject}", construct), limit)


def atoms(text: str) -> List[str]:
    """The units ``text`` is shortened by (:data:`_ATOM`): its words, a code span being one."""
    return _ATOM.findall(text)


def _head(parts: List[str]) -> List[str]:
    """The leading atoms a shortened text keeps: through its first code span (the construct, as
    in ``"`.item()` turns a tensor into a Python scalar"``), else its first word."""
    first = next((i for i, a in enumerate(parts) if "`" in a), 0)
    return parts[:first + 1]


def clip(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters: a closing parenthetical remark goes first
    (``"`if` on a tensor value (data-dependent branching)"`` -> ``"`if` on a tensor value"``),
    else words are left out of its middle, in their place one ``…``: its head (through the first
    code span, :func:`_head`) and as much of its end as fits stay. A cut never falls inside a word
    or a code span (backticks): a span that does not fit is left out whole."""
    if len(text) <= limit:
        return text
    if text.endswith(")") and " (" in text:
        head = text[:text.rindex(" (")]
        if head.count("`") % 2 == 0 and head.count("(") == head.count(")") and len(head) >= 8:
            return clip(head, limit)
    parts = atoms(text)
    if len(" ".join(parts)) <= limit:
        return " ".join(parts)
    return _elide(parts, limit)


def _elide(parts: List[str], limit: int) -> str:
    """``parts`` joined, whole atoms left out of the middle for one ``…``, in at most ``limit``
    characters: the head (:func:`_head`, fewer of its words when it does not fit), then the end,
    then more of the beginning, as much as fits."""
    def width(h: List[str], t: List[str]) -> int:
        return sum(len(a) + 1 for a in h + t) + len(_ELLIPSIS)

    head = _head(parts)
    while head and width(head, []) > limit:
        head = head[:-1]
    tail: List[str] = []
    rest = parts[len(head):]
    while rest and width(head, [rest[-1]] + tail) <= limit:
        tail.insert(0, rest.pop())
    while rest and width(head + [rest[0]], tail) <= limit:
        head.append(rest.pop(0))
    if not head and not tail:
        return _ELLIPSIS[:limit]
    return " ".join(head + [_ELLIPSIS] + tail)


def fit(text: str, limit: int = LIMIT) -> str:
    """``text`` as one line of at most ``limit`` characters: its lines joined, shortened in the
    middle at word boundaries when longer (:func:`clip`)."""
    return clip(" ".join(text.split()), limit)


_WHOLE = 16  # the longest condition that names no test ("in training mode") headline keeps whole


def headline(message: str, condition: Optional[str], limit: int = LIMIT) -> str:
    """The message as front ends show it on one line: with its condition (``(when `x`)``) when
    it has one, in at most ``limit`` characters. A condition that does not fit makes the message
    drop its closing remark first (``(runs eagerly, GB7000)``, ``(+1 graph)``: what breaks and
    what it costs stay); then the condition is shortened in its middle (:func:`clip`; ``(when …)``
    at least, so that a conditional diagnostic never reads as a definite one)."""
    if not condition:
        return message
    while len(message) + len(condition) + 3 > limit and message.endswith(")") and " (" in message:
        head = message[:message.rindex(" (")]
        if head.count("`") % 2 or head.count("(") != head.count(")"):
            break
        message = head
    # a short condition ("in training mode") is kept whole: the message gives way instead
    least = f" ({condition})" if len(condition) <= _WHOLE and not condition.startswith("when") \
        else f" (when {_ELLIPSIS})"
    if len(message) + len(least) > limit:  # no room for the condition at all: the message's middle gives way
        message = clip(message, limit - len(least))
    return f"{message} ({clip(condition, limit - len(message) - 3)})"


def also(message: str, others) -> str:
    """``message`` naming the other diagnostics of the same break (``(also GBL202)``) when that
    fits in :data:`LIMIT`; ``others`` are their codes."""
    codes = ", ".join(dict.fromkeys(others))
    if not codes:
        return message
    longer = f"{message} (also {codes})"
    return longer if len(longer) <= LIMIT else message
