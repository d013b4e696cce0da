"""What ``gblint fix`` buys on real models: each model a fix touched, measured under torch before and after.

Used by ``fixcheck.py``. A model is touched when a function its measured run went through (the
truth's ``traced`` and ``skipped`` frames, matched by file and name) is one a fix changed. Each
touched model is measured with the harness's own child (``measure.run_child``: one forked process,
``backend="eager"``, the eval and train modes) on the fixed copy of its package; "before" is the
committed truth, or (``--before fresh``) the same child on the installed package. Per model:

- ``breaks``: break sites ``(file, line)`` in either mode; ``skipped``: frames Dynamo gave up on;
  ``graphs``: graphs compiled, summed over the measured modes;
- ``rewritten``: the break sites and skipped frames inside the functions the fixes changed (in the
  fixed copy: changed or added, as a helper a fix made), the breaks of the kinds gblint rewrites
  that it found;
- ``kinds``: the codes of the applied fixes (``GBL201``, ``GBL202``...) whose functions it went through.

A model whose breaks or skipped frames rise, or that measured before and not after, is a failure.
Line numbers move under a fix, so sites are counted, not matched.
"""
from __future__ import annotations

import ast
import os
import shutil
import tempfile
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

from spec import half

Func = Tuple[str, str]  # (path relative to site-packages, function name: the qualname's last part)


def spans(source: str) -> List[Tuple[str, int, int]]:
    """``(name, first line, last line)`` of every function in ``source`` (decorators included; the
    name is the qualname's last part, as the truth's frames give it). Raises ``SyntaxError``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            out.append((node.name, first, node.end_lineno or node.lineno))
    return out


def touched(truth: Dict[str, Any], changed: Dict[Func, Set[str]]) -> Dict[str, Set[str]]:
    """``{model: fix codes}`` of the measured models whose traced or skipped frames include a
    changed function. ``changed``: ``(path, name)`` -> the codes of the fixes that changed it."""
    out: Dict[str, Set[str]] = {}
    for name, rec in sorted(truth.items()):
        if rec.get("status") != "measured":
            continue
        frames = {(p, q.split(".")[-1]) for p, q, *_ in rec.get("traced", ())}
        frames |= {(p, f) for p, f, *_ in rec.get("skipped", ())}
        codes = set().union(*(changed[f] for f in frames if f in changed)) if frames & set(changed) else set()
        if codes:
            out[name] = codes
    return out


def figures(rec: Dict[str, Any], rewritten: Dict[str, List[Tuple[str, int, int]]]) -> Dict[str, Any]:
    """The counts of one truth record (``measure.summarise``'s form). ``rewritten``: path -> spans
    ``(name, first, last)`` of the functions the fixes changed in that version of the file."""
    sites = {(p, line) for p, line, *_ in rec.get("breaks", ())}
    frames = {(p, f, line) for p, f, line, *_ in rec.get("skipped", ())}
    ran = {m: v for m, v in rec.get("modes", {}).items() if v.get("status") in ("ok", "compile-error")}

    def inside(path, line, name=None):
        return any(a <= (line or 0) <= b and (name is None or n == name or name.startswith("<"))
                   for n, a, b in rewritten.get(path, ()))
    return {"status": rec.get("status"), "modes": {m: v.get("status") for m, v in rec.get("modes", {}).items()},
            "breaks": len(sites), "skipped": len(frames), "graphs": sum(v.get("graphs", 0) for v in ran.values()),
            "compile_errors": sum(v.get("status") == "compile-error" for v in ran.values()),
            "rewritten": sum(inside(p, line) for p, line in sites) + sum(inside(p, line, f) for p, f, line in frames)}


def failure(before: Dict[str, Any], after: Dict[str, Any]) -> Optional[str]:
    """Why the fixed model is worse than before (more breaks or skipped frames, a mode measured
    before and not after, a compile error more), or None."""
    if before["status"] == "measured" and after["status"] != "measured":
        return f"measured before, {after['status']} after"
    lost = [m for m, s in before["modes"].items() if s in ("ok", "compile-error")
            and after["modes"].get(m) not in ("ok", "compile-error")]
    if lost:
        return f"mode {', '.join(lost)} not measured after the fix"
    worse = [f"{k} {before[k]} -> {after[k]}" for k in ("breaks", "skipped", "compile_errors") if after[k] > before[k]]
    return "; ".join(worse) or None


def measure_models(package: str, names: Iterable[str], path_first: Optional[str], jobs: int,
                   log=print) -> Dict[str, Dict[str, Any]]:
    """Measure ``names`` of ``package`` with the harness's child; ``path_first``: a folder put first
    on the children's ``PYTHONPATH`` (the fixed copy), or None for the installed package. The truth
    file is not written. Returns ``{name: record}``."""
    from concurrent.futures import ThreadPoolExecutor

    from measure import Zygote, run_child
    names = list(names)
    if not names:
        return {}
    workdir = tempfile.mkdtemp(prefix=f"gblint-fixmeasure-{package}-")
    old = os.environ.get("PYTHONPATH")
    if path_first:
        os.environ["PYTHONPATH"] = path_first + (os.pathsep + old if old else "")
    try:
        zygote = Zygote(package, workdir)
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old
    out: Dict[str, Dict[str, Any]] = {}
    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for name, rec in pool.map(lambda n: (n, run_child(package, n, workdir, zygote)), names):
                out[name] = rec
                log(f"  measured {package} {name} ({'fixed' if path_first else 'original'}): {rec['status']} "
                    f"{len(rec['breaks'])} breaks, {len(rec['skipped'])} skipped {rec['message'][:100]}")
    finally:
        zygote.close()
        shutil.rmtree(workdir, ignore_errors=True)
    return out


def compare(package: str, truth: Dict[str, Any], models: Dict[str, Set[str]], before: Dict[str, Dict[str, Any]],
            after: Dict[str, Dict[str, Any]], spans_before, spans_after) -> List[Dict[str, Any]]:
    """One row per measured touched model: its half, fix codes, figures before and after, failure."""
    rows = []
    for name in sorted(models):
        if name not in after or name not in before:
            continue
        b, a = figures(before[name], spans_before), figures(after[name], spans_after)
        rows.append({"package": package, "model": name, "half": half(package, name), "kinds": sorted(models[name]),
                     "before": b, "after": a, "failure": failure(b, a)})
    return rows


def summary(rows: List[Dict[str, Any]], pools: Dict[str, Dict[str, int]]) -> Dict[str, Any]:
    """Figures per half (and per fix kind within it): models, breaks, skipped frames, graphs before and
    after, the breaks in rewritten code removed, models fully fixed, failures. ``pools``: half ->
    ``{"models", "breaks"}`` of every measured model that breaks (touched or not)."""
    def total(sel):
        t = {"models": len(sel), "failures": sum(r["failure"] is not None for r in sel),
             "fully_fixed": sum(r["before"]["breaks"] + r["before"]["skipped"] > 0
                                and r["after"]["breaks"] + r["after"]["skipped"] == 0 for r in sel),
             "rewritten_fixed": sum(r["before"]["rewritten"] > 0 and r["after"]["rewritten"] == 0 for r in sel)}
        for k in ("breaks", "skipped", "graphs", "rewritten"):
            t[k] = [sum(r["before"][k] for r in sel), sum(r["after"][k] for r in sel)]
        return t
    out: Dict[str, Any] = {}
    for h in ("dev", "test"):
        sel = [r for r in rows if r["half"] == h]
        t = total(sel)
        t["pool"] = pools.get(h, {"models": 0, "breaks": 0})
        kinds = sorted({"+".join(r["kinds"]) for r in sel})
        t["kinds"] = {k: total([r for r in sel if "+".join(r["kinds"]) == k]) for k in kinds}
        out[h] = t
    return out


def pool(package: str, truth: Dict[str, Any]) -> Dict[str, Dict[str, int]]:
    """Per half: the measured models of ``package`` that break (a site or a skipped frame) and their sites."""
    out = {h: {"models": 0, "breaks": 0} for h in ("dev", "test")}
    for name, rec in truth.items():
        if rec.get("status") != "measured" or not (rec.get("breaks") or rec.get("skipped")):
            continue
        o = out[half(package, name)]
        o["models"] += 1
        o["breaks"] += len({(p, line) for p, line, *_ in rec.get("breaks", ())})
    return out
