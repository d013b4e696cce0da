"""The rule catalogue: every code gblint can report, for ``gblint rules``, docs/rules.md, SARIF
and the configuration's code check. It only assembles: a break source is defined on its rule
class (``gblint.rules``), every other code in :data:`gblint.core.codes.CODES`."""
from __future__ import annotations

from typing import Dict, List

from ..core.codes import BREAK_SOURCE, CODES


def catalog() -> List[Dict[str, object]]:
    """One row per code, sorted: code, name, effect, gb_ids, summary, why, hint, source,
    family, examples_fire (whole modules it is reported on, the page's example first),
    examples_clean, use_instead, measured, docs, no_example, and the versions it holds for:
    ``torch_versions``, ``python_versions`` (PEP 440 specifiers, ``""`` for every version),
    ``versions`` (the same in words) and ``facts`` (the version-dependent facts that change what it
    reports: :func:`gblint.core.versions.facts_for`, each ``{name, torch, python, versions, text, section}``)."""
    from gblint.rules import ALL_RULES
    rows: List[Dict[str, object]] = [
        {"code": c.code, "name": c.name, "effect": c.effect, "gb_ids": list(c.gb_ids), "summary": c.summary,
         "why": c.why, "hint": c.hint, "source": c.source, "family": c.family,
         "examples_fire": [c.example] if c.example else [], "examples_clean": [],
         "use_instead": c.use_instead, "measured": c.measured, "docs": list(c.docs), "no_example": c.no_example,
         **_versions(c.code, c.torch_versions, c.python_versions)} for c in CODES.values()]
    for rule in ALL_RULES:
        fire = sorted(rule.examples_fire, key=lambda ex: f"# expect: {rule.code}" not in ex)  # its own code first
        rows.append({"code": rule.code, "name": rule.name, "effect": rule.effect, "gb_ids": list(rule.gb_ids),
                     "summary": rule.summary, "why": rule.why, "hint": rule.hint, "source": rule.source,
                     "family": BREAK_SOURCE, "examples_fire": fire,
                     "examples_clean": list(rule.examples_clean), "use_instead": rule.use_instead,
                     "measured": rule.measured, "docs": list(rule.docs), "no_example": "",
                     **_versions(rule.code, rule.torch_versions, rule.python_versions)})
    rows.sort(key=lambda r: r["code"])
    return rows


def _versions(code: str, torch: str, python: str) -> Dict[str, object]:
    """A row's version fields (see :func:`catalog`)."""
    from ..core.versions import facts_for, range_words
    return {"torch_versions": torch, "python_versions": python, "versions": range_words(torch, python),
            "facts": [{"name": f.name, "torch": f.torch, "python": f.python, "versions": f.versions, "text": f.text,
                       "section": f.section} for f in facts_for(code)]}
