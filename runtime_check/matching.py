"""Match static diagnostics with runtime observations (no torch import).

A diagnostic is matched by file and line, against the innermost user line of each observed
break and the call sites of its trace, and by effect:

=========  ============================================================================
effect     confirmed when ...
=========  ============================================================================
``break``  a break was observed at its line (innermost line, or a call site of the break's
           user stack) that resumed or compiled a prefix
``skip``   the diagnostic's frame was skipped (its compile failed and it ran eagerly), or a
           break at its line skipped its frame. Frames are matched by file, qualified name
           and first line (see below), never by bare name
``error``  a compile error whose user stack holds its line reached the caller (it ended
           the run, or the user's code caught it: ``compile_errors``)
=========  ============================================================================

A diagnostic's frame (``frame``: ``Class.method``, ``function``, ``outer.inner``,
``<listcomp>``) is found in the source with :mod:`ast`: the definition of that name that holds
the frame's entry of ``trace`` (else the diagnostic's own line). An observed skipped frame is
that frame when its file is the same, its ``co_qualname`` (``<locals>`` dropped, a resume
function counted as the function it continues) is the same, and its ``co_firstlineno`` is the
line of the definition's first decorator or of its ``def`` (a resume function: a line inside
the definition).

Otherwise it is ``refuted`` when the function holding its line was reached (a graph, a break,
a compiled frame or an error has a line inside that function, found with :mod:`ast`), and
``not_reached`` when it was not, or when the diagnostic is ``conditional`` (or ``error-path``):
its branch was not taken in the runs. ``info`` diagnostics are not matched.

A conditional (or error-path) diagnostic is confirmed only by what the runs observed at its own
line for its own reason: a break there whose GB ids (its own and its cause's) include one of the
diagnostic's, a skipped frame whose failing break was at that line, a compile error raised
there or of its GB id. A break of another kind at its line, or its frame skipped by a break at
another line, makes it ``not_reached``: its condition did not hold, whatever else broke.

Every observation (a break site, a skipped frame, a compile error), wherever it lies (a checked
file, or a module of an installed or imported package the static pass did not follow), that no
diagnostic explains is *missed*: a site is explained by a diagnostic at the same line (any
effect but ``info``), or by an ``error`` diagnostic whose trace has a call there (a compile
error is one diagnostic at its break; its trace is the error's user stack); a skipped frame by
a ``skip``/``error`` diagnostic naming that frame; an error by an ``error`` diagnostic on a line
of its stack.

precision = confirmed / (confirmed + refuted); recall = explained observations / observations
(each ``None`` when its denominator is 0: there was nothing to measure).
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


@dataclasses.dataclass(frozen=True)
class FrameDef:
    """A function (or comprehension, lambda) definition of a file: ``qualname`` as gblint
    spells frames (``Class.method``, ``outer.inner``, ``f.<listcomp>``: Python's
    ``__qualname__`` without ``<locals>``), ``name`` (its own name, ``<listcomp>``...),
    ``first`` (its first decorator's line, else ``line``), ``line`` (the ``def``), ``end``."""

    path: str
    qualname: str
    name: str
    first: int
    line: int
    end: int


_COMPREHENSIONS = {ast.ListComp: "<listcomp>", ast.SetComp: "<setcomp>", ast.DictComp: "<dictcomp>",
                   ast.GeneratorExp: "<genexpr>", ast.Lambda: "<lambda>"}


@functools.lru_cache(maxsize=512)
def frame_defs(path: str) -> Tuple[FrameDef, ...]:
    """Every function, lambda and comprehension of ``path`` as a :class:`FrameDef`. Empty when
    the file cannot be read or parsed."""
    try:
        with open(path, "rb") as fh:
            tree = ast.parse(fh.read(), path)
    except (OSError, SyntaxError, ValueError):
        return ()
    out: List[FrameDef] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qual = prefix + child.name
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                out.append(FrameDef(path, qual, child.name, first, child.lineno, child.end_lineno or child.lineno))
                outer = child.decorator_list + child.args.defaults + [k for k in child.args.kw_defaults if k]
                for expr in outer:  # evaluated in the enclosing scope
                    visit_expr(expr, prefix)
                for stmt in child.body:
                    visit_stmt(stmt, qual + ".")
            elif isinstance(child, ast.ClassDef):
                for expr in child.decorator_list + child.bases + [k.value for k in child.keywords]:
                    visit_expr(expr, prefix)
                for stmt in child.body:
                    visit_stmt(stmt, prefix + child.name + ".")
            elif type(child) in _COMPREHENSIONS:
                name = _COMPREHENSIONS[type(child)]
                qual = prefix + name
                out.append(FrameDef(path, qual, name, child.lineno, child.lineno, child.end_lineno or child.lineno))
                visit(child, qual + ".")
            else:
                visit(child, prefix)

    def visit_stmt(stmt: ast.AST, prefix: str) -> None:
        wrapper = ast.Module(body=[stmt], type_ignores=[])
        visit(wrapper, prefix)

    def visit_expr(expr: ast.AST, prefix: str) -> None:
        wrapper = ast.Expression(body=expr)
        visit(wrapper, prefix)

    visit(tree, "")
    return tuple(out)


def normal_qualname(qualname: Optional[str]) -> Optional[str]:
    """``co_qualname`` as gblint spells frames: ``<locals>`` dropped, a resume function
    (``Net.torch_dynamo_resume_in_forward_at_12``) named as the function it continues."""
    if not qualname:
        return None
    from .observer import resume_target
    parts = [p for p in qualname.split(".") if p != "<locals>"]
    if parts:
        parts[-1] = resume_target(parts[-1])[0]
    return ".".join(parts)


def _names_frame(fd: FrameDef, frame: str) -> bool:
    if fd.qualname == frame:
        return True
    last = frame.split(".")[-1]
    if last.startswith("<"):  # a comprehension or lambda, named by its kind only
        return fd.name == last and (fd.qualname.endswith("." + frame) or "." not in frame)
    return fd.qualname.endswith("." + frame)


def diagnostic_frame(d: Any) -> Optional[FrameDef]:
    """The definition of a diagnostic's ``frame`` (see the module doc), or None when it cannot
    be found in the source."""
    frame = _get(d, "frame")
    path = _get(d, "path")
    if not frame or not path:
        return None
    anon = frame.split(".")[-1].startswith("<")
    anchors = []
    for t in _get(d, "trace") or ():
        tf, tp, tl = _get(t, "function"), _get(t, "path"), _get(t, "line")
        if tp and tl and (anon or tf == frame):
            anchors.append((norm(tp), int(tl)))
    anchors.append((norm(path), int(_get(d, "line"))))
    for apath, aline in anchors:
        inside = [fd for fd in frame_defs(apath) if _names_frame(fd, frame) and fd.first <= aline <= fd.end]
        if inside:
            return min(inside, key=lambda fd: fd.end - fd.first)
    exact = [fd for fd in frame_defs(norm(path)) if fd.qualname == frame]
    return exact[0] if len(exact) == 1 else None


def same_frame(skip: Dict[str, Any], fd: FrameDef) -> bool:
    """Whether the observed skipped frame ``skip`` (a run's ``skipped_frames`` entry) is the
    definition ``fd``: same file, same qualified name (the code name when the observation has
    no qualname: Python < 3.11, or a metrics record only), and its first line is ``fd``'s
    first decorator or ``def`` line (a resume function's: inside ``fd``)."""
    if norm(skip.get("path")) != fd.path:
        return False
    qual = normal_qualname(skip.get("qualname"))
    if qual is not None:
        if qual != fd.qualname:
            return False
    else:
        from .observer import resume_target
        if resume_target(skip.get("code_name") or skip.get("function") or "")[0] != fd.name:
            return False
    first = skip.get("first_line")
    if first is None:
        return qual is not None
    if skip.get("resume_at") is not None:
        return fd.first <= int(first) <= fd.end
    return int(first) in (fd.first, fd.line)


def _explains_skip(d: Any, fd: Optional[FrameDef], skip: Dict[str, Any]) -> bool:
    if fd is not None:
        return same_frame(skip, fd)
    # the frame's definition was not found: only an exact file and qualified name will do
    qual = normal_qualname(skip.get("qualname"))
    return qual is not None and qual == _get(d, "frame") and norm(skip.get("path")) == norm(_get(d, "path"))


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
    # (file, first line, code name) -> the skipped frame's record
    skipped: Dict[Tuple[str, Any, Any], Dict[str, Any]] = dataclasses.field(default_factory=dict)
    errors: List[Dict[str, Any]] = dataclasses.field(default_factory=list)
    lines: Dict[str, Set[int]] = dataclasses.field(default_factory=dict)  # every line seen, per file
    gb_ids: Dict[Site, str] = dataclasses.field(default_factory=dict)
    # site or call site -> the GB ids (the break's and its cause's) of the breaks seen there; None: unknown
    reasons: Dict[Site, Set[Optional[str]]] = dataclasses.field(default_factory=dict)

    def see(self, path: Optional[str], line: Optional[int]) -> None:
        """Record that Dynamo saw ``path:line``."""
        if path and line:
            self.lines.setdefault(norm(path), set()).add(int(line))

    @classmethod
    def from_runs(cls, runs: Iterable[Dict[str, Any]]) -> "Observed":
        """Index the observations of ``runs`` (run records of :func:`.runner.build_run`)."""
        obs = cls()
        for run in runs:
            for g in run.get("graphs", []):
                for ln in g.get("lines", []):
                    obs.see(ln.get("path"), ln.get("line"))
            for b in run.get("breaks", []):
                site = (norm(b["path"]), int(b["line"]))
                obs.sites.setdefault(site, set()).update(b.get("outcomes") or [b.get("outcome")])
                obs.gb_ids.setdefault(site, b.get("gb_id"))
                ids = set(b.get("gb_ids") or [b.get("gb_id")])
                obs.reasons.setdefault(site, set()).update(ids)
                for fr in b.get("stack", [])[:-1]:
                    obs.reasons.setdefault((norm(fr["path"]), int(fr["line"])), set()).update(ids)
                obs.see(b["path"], b["line"])
                for fr in b.get("stack", [])[:-1]:
                    cs = (norm(fr["path"]), int(fr["line"]))
                    obs.call_sites.setdefault(cs, set()).update(b.get("outcomes") or [b.get("outcome")])
                    obs.see(fr["path"], fr["line"])
            for s in run.get("skipped_frames", []):
                obs.skipped.setdefault((norm(s["path"]), s.get("first_line"), s.get("code_name") or s["function"]), s)
                obs.see(s["path"], s.get("line"))
                obs.see(s["path"], s.get("first_line"))
            for f in run.get("frames", []):
                obs.see(f.get("path"), f.get("line"))
            for f in run.get("declined_frames", []):
                obs.see(f.get("path"), f.get("line"))
            errs = list(run.get("compile_errors") or [])
            err = run.get("error")
            if err and not any((e.get("path"), e.get("line"), e.get("type")) ==
                               (err.get("path"), err.get("line"), err.get("type")) for e in errs):
                errs.append(err)
            for err in errs:
                obs.errors.append(err)
                for fr in err.get("stack") or []:
                    obs.see(fr["path"], fr["line"])
                obs.see(err.get("path"), err.get("line"))
                obs.see(err.get("frame_path"), err.get("first_line"))
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
        """The user lines of a compile error: its stack and its site."""
        out = {(norm(fr["path"]), int(fr["line"])) for fr in err.get("stack") or []}
        if err.get("path") and err.get("line"):
            out.add((norm(err["path"]), int(err["line"])))
        return out


def _get(d: Any, key: str, default: Any = None) -> Any:
    return d.get(key, default) if isinstance(d, dict) else getattr(d, key, default)


def _trace_get(t: Any, key: str) -> Any:
    """A field of a trace frame (a :class:`gblint.core.diagnostics.TraceFrame` or its JSON form)."""
    return t.get(key) if isinstance(t, dict) else getattr(t, key)


def _other_reason(d: Any, obs: Observed, site: Site) -> Optional[str]:
    """For a conditional diagnostic: the GB ids of the breaks observed at ``site`` when none is
    one of the diagnostic's (another cause broke there: this one's condition did not hold),
    else None (same reason, or a reason unknown on either side)."""
    want = set(_get(d, "gb_ids") or ())
    seen = obs.reasons.get(site, set())
    if not want or not seen or None in seen or seen & want:
        return None
    return ", ".join(sorted(seen))


def _skip_caused_at(d: Any, s: Dict[str, Any], obs: Observed, site: Site) -> bool:
    """Whether the skipped frame ``s`` was skipped by what happened at ``site``: its failing line
    is there, or a break that skipped a frame was observed there (innermost line or call site)
    for one of the diagnostic's reasons."""
    if (norm(s.get("path")), s.get("line")) == site:
        return True
    here = obs.sites.get(site, set()) | obs.call_sites.get(site, set())
    return "skipped" in here and _other_reason(d, obs, site) is None


def diagnostic_status(d: Any, obs: Observed) -> Tuple[str, str]:
    """``(status, why)`` for one diagnostic (a :class:`gblint.core.diagnostics.Diagnostic` or its
    JSON form) against the observations; status is ``confirmed``, ``refuted`` or ``not_reached``.
    A conditional (or error-path) diagnostic is confirmed only by what happened at its own line
    for its own reason: a break observed there for another reason (a GB id none of its own), or
    its frame skipped for a break elsewhere, means its condition did not hold: ``not_reached``."""
    path, line, effect = norm(_get(d, "path")), int(_get(d, "line")), _get(d, "effect")
    site = (path, line)
    outcomes = obs.sites.get(site, set()) | obs.call_sites.get(site, set())
    certainty = _get(d, "certainty")
    conditional = certainty in ("conditional", "error-path")
    condition = _get(d, "condition") or ("on an error path" if certainty == "error-path" else "")
    if conditional and outcomes:
        other = _other_reason(d, obs, site)
        if other:
            return "not_reached", (f"a break of another kind ({other}) was observed here, not this one: its condition "
                                   f"({condition or 'its condition'}) did not hold in the runs")
    if effect == "break":
        if outcomes & {"resumed", "prefix"}:
            return "confirmed", "break observed here (" + ", ".join(sorted(outcomes)) + ")"
        if outcomes:
            return "refuted", "a break was observed here, but it skipped the frame"
    elif effect == "skip":
        fd = diagnostic_frame(d)
        elsewhere = None
        for s in obs.skipped.values():
            if _explains_skip(d, fd, s) and conditional and not _skip_caused_at(d, s, obs, site):
                elsewhere = s  # skipped, but for what happened at another line
                continue
            if _explains_skip(d, fd, s):
                name = normal_qualname(s.get("qualname")) or s.get("function")
                return "confirmed", (f"frame `{name}` (line {s.get('first_line')}) skipped "
                                     f"({s.get('reason') or 'compile failed'})")
        if "skipped" in obs.sites.get(site, set()):
            return "confirmed", "a break here skipped its frame"
        if outcomes:
            return "refuted", "a break was observed here, but the frame kept compiled code (" + \
                ", ".join(sorted(outcomes)) + ")"
        if elsewhere is not None:
            name = normal_qualname(elsewhere.get("qualname")) or elsewhere.get("function")
            return "not_reached", (f"frame `{name}` was skipped, but by what happened at line {elsewhere.get('line')} "
                                   f"({elsewhere.get('gb_id') or elsewhere.get('reason')}), not here: this one's "
                                   f"condition ({condition or 'its condition'}) did not hold in the runs")
    elif effect == "error":
        for err in obs.errors:
            at = (norm(err.get("path")), int(err.get("line") or 0))
            if conditional and at != site and not (err.get("gb_id") in set(_get(d, "gb_ids") or ())):
                continue  # a conditional error is confirmed by its own line or reason only
            if site in obs.error_sites(err):
                caught = " and caught by the caller" if err.get("caught") else ""
                return "confirmed", f"{err.get('type')} raised{caught} ({err.get('gb_id') or err.get('message')})"
        if outcomes:
            return "refuted", "a break was observed here, but no compile error"
    if obs.reached(path, line) and conditional:
        # predicted only under a condition: nothing observed means the runs did not take that branch
        return "not_reached", f"the function ran, but not this branch ({condition or 'its condition'} did not hold)"
    if obs.reached(path, line):
        return "refuted", "the function was compiled and nothing of this kind was observed here"
    return "not_reached", "Dynamo never saw this function in the runs"


def match(diagnostics: Sequence[Any], runs: Sequence[Dict[str, Any]],
          checked_paths: Optional[Iterable[str]] = None) -> Dict[str, Any]:
    """Match ``diagnostics`` (non-``info`` ones) against ``runs``. Every observation counts,
    wherever it lies: one outside ``checked_paths`` (the files the static pass read; default:
    the diagnostics' files), in a package the check did not follow, is missed unless a
    diagnostic explains it (``outside`` says how many observations lie there). Returns ``{"matches", "missed",
    "observations" (every counted observation with ``explained``), "precision", "recall",
    "counts"}``; precision and recall are ``None`` when their denominator is 0."""
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
    for d in diags:  # a compile error is one diagnostic: the calls of its trace are its user stack
        if _get(d, "effect") == "error":
            at_line |= {(norm(_trace_get(t, "path")), int(_trace_get(t, "line"))) for t in _get(d, "trace") or ()}
    skip_diags = [(d, diagnostic_frame(d)) for d in diags if _get(d, "effect") in ("skip", "error")]
    error_lines = {(norm(_get(d, "path")), int(_get(d, "line"))) for d in diags if _get(d, "effect") == "error"}
    missed, items, outside = [], [], 0
    for site, outcomes in sorted(obs.sites.items()):
        outside += site[0] not in checked
        items.append({"path": site[0], "line": site[1], "kind": "break", "explained": site in at_line})
        if site not in at_line:
            worst = max(outcomes, key=lambda o: {"resumed": 0, "prefix": 1, "skipped": 2}.get(o, 0))
            missed.append({"path": site[0], "line": site[1], "gb_id": obs.gb_ids.get(site), "outcome": worst})
    for (path, _first, _code), s in sorted(obs.skipped.items(), key=lambda kv: tuple(map(str, kv[0]))):
        outside += path not in checked
        explained = any(_explains_skip(d, fd, s) for d, fd in skip_diags)
        items.append({"path": path, "line": s.get("line"), "kind": "skipped_frame", "explained": explained,
                      "function": normal_qualname(s.get("qualname")) or s.get("function"),
                      "first_line": s.get("first_line")})
        if not explained:
            missed.append({"path": path, "line": s.get("line"), "gb_id": s.get("gb_id"), "outcome": "skipped",
                           "function": normal_qualname(s.get("qualname")) or s.get("function"),
                           "first_line": s.get("first_line")})
    seen_errors = set()
    for err in obs.errors:
        sites = obs.error_sites(err)
        key = (err.get("path"), err.get("line"), err.get("type"))
        if key in seen_errors:
            continue
        seen_errors.add(key)
        outside += not any(s[0] in checked for s in sites)
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
            "precision": round(confirmed / (confirmed + refuted), 4) if confirmed + refuted else None,
            "recall": round(explained / total, 4) if total else None, "counts": counts}
