"""Match static diagnostics with runtime observations (no torch import).

A diagnostic is matched by file and line, against the innermost user line of each observed
break and the call sites of its trace, and by effect:

=========  ============================================================================
effect     confirmed when ...
=========  ============================================================================
``break``  a break was observed at its line (innermost line, or a call site of the break's
           user stack) that resumed or compiled a prefix
``skip``   a frame of that name in that file was skipped (its compile failed and it ran
           eagerly), or a break at its line skipped its frame
``error``  the run raised a compile error whose user stack holds its line
=========  ============================================================================

Otherwise it is ``refuted`` when the function holding its line was reached (a graph, a break,
a compiled frame or an error has a line inside that function, found with :mod:`ast`), and
``not_reached`` when it was not. ``info`` diagnostics are not matched.

Every observation in a checked file (a break site, a skipped frame, a compile error) that no
diagnostic explains is *missed*: a site is explained by a diagnostic at the same line (any
effect but ``info``); a skipped frame by a ``skip``/``error`` diagnostic naming that frame; an
error by an ``error`` diagnostic on a line of its stack.

precision = confirmed / (confirmed + refuted); recall = explained observations / observations
(each 1.0 when its denominator is 0).
"""
from __future__ import annotations

import ast
import dataclasses
import functools
import os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple

Site = Tuple[str, int]


def norm(path: Optional[str]) -> str:
    """Canonical form of a path for matching: absolute and with links resolved."""
    return os.path.realpath(os.path.abspath(path)) if path else ""


def frame_tail(name: Optional[str]) -> str:
    """``Class.method`` -> ``method``; ``torch_dynamo_resume_in_fn_at_12`` -> ``fn``."""
    from .observer import resume_target
    return resume_target((name or "").split(".")[-1])[0]


@functools.lru_cache(maxsize=512)
def function_spans(path: str) -> Tuple[Tuple[int, int], ...]:
    """(first line, last line) of every function and lambda of ``path`` (decorators included),
    innermost last for nested ones. Empty when the file cannot be read or parsed."""
    try:
        with open(path, "rb") as fh:
            tree = ast.parse(fh.read(), path)
    except (OSError, SyntaxError, ValueError):
        return ()
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            spans.append((first, getattr(node, "end_lineno", None) or node.lineno))
    return tuple(spans)


def enclosing_span(path: str, line: int) -> Optional[Tuple[int, int]]:
    """The innermost function span of ``path`` holding ``line``, or None (module level)."""
    best = None
    for lo, hi in function_spans(path):
        if lo <= line <= hi and (best is None or hi - lo < best[1] - best[0]):
            best = (lo, hi)
    return best


@dataclasses.dataclass
class Observed:
    """Everything a set of runs showed, indexed for matching."""

    sites: Dict[Site, Set[str]] = dataclasses.field(default_factory=dict)  # innermost line -> outcomes
    call_sites: Dict[Site, Set[str]] = dataclasses.field(default_factory=dict)  # call sites of breaks
    skipped: Dict[Tuple[str, str], Dict[str, Any]] = dataclasses.field(default_factory=dict)
    errors: List[Dict[str, Any]] = dataclasses.field(default_factory=list)
    lines: Dict[str, Set[int]] = dataclasses.field(default_factory=dict)  # every line seen, per file
    gb_ids: Dict[Site, str] = dataclasses.field(default_factory=dict)

    def see(self, path: Optional[str], line: Optional[int]) -> None:
        if path and line:
            self.lines.setdefault(norm(path), set()).add(int(line))

    @classmethod
    def from_runs(cls, runs: Iterable[Dict[str, Any]]) -> "Observed":
        obs = cls()
        for run in runs:
            for g in run.get("graphs", []):
                for ln in g.get("lines", []):
                    obs.see(ln.get("path"), ln.get("line"))
            for b in run.get("breaks", []):
                site = (norm(b["path"]), int(b["line"]))
                obs.sites.setdefault(site, set()).update(b.get("outcomes") or [b.get("outcome")])
                obs.gb_ids.setdefault(site, b.get("gb_id"))
                obs.see(b["path"], b["line"])
                for fr in b.get("stack", [])[:-1]:
                    cs = (norm(fr["path"]), int(fr["line"]))
                    obs.call_sites.setdefault(cs, set()).update(b.get("outcomes") or [b.get("outcome")])
                    obs.see(fr["path"], fr["line"])
            for s in run.get("skipped_frames", []):
                obs.skipped.setdefault((norm(s["path"]), frame_tail(s["function"])), s)
                obs.see(s["path"], s.get("line"))
                obs.see(s["path"], s.get("first_line"))
            for f in run.get("frames", []):
                obs.see(f.get("path"), f.get("line"))
            for f in run.get("declined_frames", []):
                obs.see(f.get("path"), f.get("line"))
            err = run.get("error")
            if err:
                obs.errors.append(err)
                for fr in err.get("stack") or []:
                    obs.see(fr["path"], fr["line"])
                obs.see(err.get("path"), err.get("line"))
        return obs

    def reached(self, path: str, line: int) -> bool:
        """Whether Dynamo saw the function holding ``path:line`` (module level: the file)."""
        seen = self.lines.get(path)
        if not seen:
            return False
        span = enclosing_span(path, line)
        if span is None:
            return True
        return any(span[0] <= ln <= span[1] for ln in seen)

    def error_sites(self, err: Dict[str, Any]) -> Set[Site]:
        out = {(norm(fr["path"]), int(fr["line"])) for fr in err.get("stack") or []}
        if err.get("path") and err.get("line"):
            out.add((norm(err["path"]), int(err["line"])))
        return out


def _get(d: Any, key: str, default: Any = None) -> Any:
    return d.get(key, default) if isinstance(d, dict) else getattr(d, key, default)


def diagnostic_status(d: Any, obs: Observed) -> Tuple[str, str]:
    """``(status, why)`` for one diagnostic (a :class:`gblint.diagnostics.Diagnostic` or its
    JSON form) against the observations; status is ``confirmed``, ``refuted`` or ``not_reached``."""
    path, line, effect = norm(_get(d, "path")), int(_get(d, "line")), _get(d, "effect")
    site = (path, line)
    outcomes = obs.sites.get(site, set()) | obs.call_sites.get(site, set())
    frame = frame_tail(_get(d, "frame"))
    if effect == "break":
        if outcomes & {"resumed", "prefix"}:
            return "confirmed", "break observed here (" + ", ".join(sorted(outcomes)) + ")"
        if outcomes:
            return "refuted", "a break was observed here, but it skipped the frame"
    elif effect == "skip":
        if (path, frame) in obs.skipped:
            s = obs.skipped[(path, frame)]
            return "confirmed", f"frame `{frame}` skipped ({s.get('reason') or 'compile failed'})"
        if "skipped" in obs.sites.get(site, set()):
            return "confirmed", "a break here skipped its frame"
        if outcomes:
            return "refuted", "a break was observed here, but the frame kept compiled code (" + \
                ", ".join(sorted(outcomes)) + ")"
    elif effect == "error":
        for err in obs.errors:
            if site in obs.error_sites(err):
                return "confirmed", f"{err.get('type')} raised ({err.get('gb_id') or err.get('message')})"
        if outcomes:
            return "refuted", "a break was observed here, but no compile error"
    if obs.reached(path, line):
        return "refuted", "the function was compiled and nothing of this kind was observed here"
    return "not_reached", "Dynamo never saw this function in the runs"


def match(diagnostics: Sequence[Any], runs: Sequence[Dict[str, Any]],
          checked_paths: Optional[Iterable[str]] = None) -> Dict[str, Any]:
    """Match ``diagnostics`` (non-``info`` ones) against ``runs``. Observations outside
    ``checked_paths`` (the files the static pass read; default: the diagnostics' files) are
    not counted as missed (``outside`` counts them). Returns ``{"matches", "missed",
    "observations" (every counted observation with ``explained``), "precision", "recall",
    "counts"}``."""
    obs = Observed.from_runs(runs)
    diags = [d for d in diagnostics if _get(d, "effect") in ("break", "skip", "error")]
    checked = {norm(p) for p in (checked_paths or [])} or {norm(_get(d, "path")) for d in diags}
    matches = []
    for d in diags:
        status, why = diagnostic_status(d, obs)
        matches.append({"code": _get(d, "code"), "path": _get(d, "path"), "line": _get(d, "line"),
                        "effect": _get(d, "effect"), "status": status, "frame": _get(d, "frame"),
                        "why": why})
    # observations and what explains them
    at_line: Set[Site] = {(norm(_get(d, "path")), int(_get(d, "line"))) for d in diags}
    skip_frames = {(norm(_get(d, "path")), frame_tail(_get(d, "frame")))
                   for d in diags if _get(d, "effect") in ("skip", "error")}
    error_lines = {(norm(_get(d, "path")), int(_get(d, "line"))) for d in diags if _get(d, "effect") == "error"}
    missed, items, outside = [], [], 0
    for site, outcomes in sorted(obs.sites.items()):
        if site[0] not in checked:
            outside += 1
            continue
        items.append({"path": site[0], "line": site[1], "kind": "break", "explained": site in at_line})
        if site not in at_line:
            worst = max(outcomes, key=lambda o: {"resumed": 0, "prefix": 1, "skipped": 2}.get(o, 0))
            missed.append({"path": site[0], "line": site[1], "gb_id": obs.gb_ids.get(site), "outcome": worst})
    for (path, fn), s in sorted(obs.skipped.items()):
        if path not in checked:
            outside += 1
            continue
        items.append({"path": path, "line": s.get("line"), "kind": "skipped_frame", "explained": (path, fn) in skip_frames})
        if (path, fn) not in skip_frames:
            missed.append({"path": path, "line": s.get("line"), "gb_id": s.get("gb_id"), "outcome": "skipped",
                           "function": fn})
    seen_errors = set()
    for err in obs.errors:
        sites = obs.error_sites(err)
        key = (err.get("path"), err.get("line"), err.get("type"))
        if key in seen_errors or not any(s[0] in checked for s in sites):
            continue
        seen_errors.add(key)
        items.append({"path": norm(err.get("path")), "line": err.get("line"), "kind": "error",
                      "explained": bool(sites & error_lines)})
        if not sites & error_lines:
            missed.append({"path": norm(err.get("path")), "line": err.get("line"), "gb_id": err.get("gb_id"),
                           "outcome": "error"})
    total = len(items)
    explained = sum(it["explained"] for it in items)
    confirmed = sum(m["status"] == "confirmed" for m in matches)
    refuted = sum(m["status"] == "refuted" for m in matches)
    counts = {"confirmed": confirmed, "refuted": refuted,
              "not_reached": sum(m["status"] == "not_reached" for m in matches),
              "observed": total, "explained": explained, "missed": len(missed), "outside": outside}
    return {"matches": matches, "missed": missed, "observations": items,
            "precision": round(confirmed / (confirmed + refuted), 4) if confirmed + refuted else 1.0,
            "recall": round(explained / total, 4) if total else 1.0, "counts": counts}
