"""The static side: run gblint on each measured model's driver and score it against the truth.

For every model whose truth says ``measured``, the driver (``spec.driver(setup)``: the setup
source as users write it, then ``model = torch.compile(model)`` and a call) is written to a
scratch folder and checked with::

    gblint check --follow-imports PKG --format json --exit-zero DRIVER.py

(one process per model, a summary cache shared by all). gblint never imports the package or
torch; it reads the installed sources. Scores, pooled over the models of a package:

- ``reach``: functions Dynamo traced (compiled or inlined, either mode, in the package's files)
  that gblint reached / functions Dynamo traced. A comprehension, generator expression or
  lambda counts as the function it is written in.
- break sites: ``(file, line)`` of every break Dynamo hit (either mode) against every
  diagnostic of effect ``break``/``skip``/``error``; a ``skip`` diagnostic whose frame Dynamo
  really skipped is right wherever it points (as the project scores its example programs).
- skipped frames: ``(file, function)`` Dynamo gave up on against ``skip`` diagnostics' frames
  and the frames of ``error`` diagnostics that are the first frame of their trace (their compile
  fails; the calls of an error's trace count as break sites, the error's user stack).
- compile errors: models whose compiled call raised where the eager one did not, against
  models with an ``error`` diagnostic.
- ``precision``/``recall``: the three sets pooled.

Writes ``results.json`` (the table), ``details.json`` (per set, per GB id and per code, and every
miss and false positive with file:line and model) and the table in ``README.md``.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

from spec import frame_name, half, sample, site_relative

HERE = os.path.dirname(os.path.abspath(__file__))
SETS = ("break sites", "skipped frames", "compile errors")


def norm_qualname(qualname: str) -> str:
    """``f.<locals>.g.<locals>.<listcomp>`` -> ``f.g``: Python's qualified name as gblint
    writes functions (nested functions dotted, comprehensions and lambdas as their function)."""
    parts = [p for p in (qualname or "").split(".") if p != "<locals>"]
    while parts and parts[-1].startswith("<"):
        parts.pop()
    return ".".join(parts)


def entry_of(rec: Dict[str, Any]) -> Optional[str]:
    """``module:Class`` of the measured model's class (``model = Class(...)`` in the setup),
    located by the ``Class.forward`` Dynamo traced; None when the truth does not show it."""
    m = re.search(r"^model = (\w+)\(", rec.get("setup") or "", re.M)
    if not m:
        return None
    for path, qualname, _line in rec["traced"]:
        if qualname == f"{m.group(1)}.forward" and path.endswith(".py"):
            return path[:-3].replace("/", ".").replace(".__init__", "") + ":" + m.group(1)
    return None


def run_gblint(driver: str, follow: List[str], cache_dir: str, entry: Optional[str] = None,
               python: Optional[str] = None) -> Dict[str, Any]:
    """``gblint check --format json`` on one driver (with ``--entry entry`` when given), run by
    ``python`` (default: this interpreter); the parsed document, or ``{"error": ...}``."""
    cmd = [python or sys.executable, "-m", "gblint", "check", "--format", "json", "--exit-zero", "--cache-dir",
           cache_dir, "--isolated", "--conditional", "all"]
    for pkg in follow:
        cmd += ["--follow-imports", pkg]
    if entry:
        cmd += ["--entry", entry]
    cmd.append(driver)
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=os.path.dirname(driver),
                              timeout=600)
    except subprocess.TimeoutExpired:
        return {"error": "gblint ran over 600 s"}
    try:
        return json.loads(proc.stdout)
    except ValueError:
        return {"error": f"exit {proc.returncode}: {proc.stderr.decode('utf-8', 'replace')[-500:]}"}


def gblint_fingerprint(python: Optional[str] = None) -> str:
    """A hash of the sources and data of the gblint that ``python`` (default: this interpreter) runs
    as ``python -m gblint`` (its ``gblint``, ``gblint.rules`` and ``gblint.runtime_check`` packages,
    wherever they are installed): a scored document is reused only while this is unchanged."""
    code = ("import json, os, gblint, gblint.rules, gblint.runtime_check as r\n"
            "print(json.dumps([os.path.dirname(m.__file__) for m in (gblint, gblint.rules, r)]))")
    folders = json.loads(subprocess.run([python or sys.executable, "-c", code], check=True, stdout=subprocess.PIPE,
                                        text=True, cwd=tempfile.gettempdir()).stdout)
    h = hashlib.sha256()
    for top in folders:
        for folder, dirs, files in sorted(os.walk(top)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith((".py", ".json", ".j2", ".css", ".js")):
                    path = os.path.join(folder, name)
                    h.update(os.path.relpath(path, os.path.dirname(top)).encode() + b"\0")
                    with open(path, "rb") as fh:
                        h.update(fh.read())
    return h.hexdigest()[:16]


#: scored documents, keyed by driver, view, package environment and gblint's fingerprint
CACHE = os.path.join(HERE, ".cache")


class DocCache:
    """gblint's JSON documents of earlier runs, reused when nothing that made them changed: the
    driver's text, the ``--entry``, the followed packages and their versions, the interpreter and
    gblint's own sources (:func:`gblint_fingerprint`). ``folder=None`` disables it."""

    def __init__(self, folder: Optional[str]):
        self.folder = folder
        self.fingerprint = gblint_fingerprint()
        self.hits = self.misses = 0

    def key(self, *parts: Any) -> str:
        return hashlib.sha256(json.dumps([self.fingerprint, *parts], sort_keys=True).encode()).hexdigest()[:24]

    def get(self, key: str) -> Optional[Dict[str, Any]]:
        if self.folder is None:
            return None
        try:
            with open(os.path.join(self.folder, "docs", key + ".json"), encoding="utf-8") as fh:
                doc = json.load(fh)
        except (OSError, ValueError):
            self.misses += 1
            return None
        self.hits += 1
        return doc

    def put(self, key: str, doc: Dict[str, Any]) -> None:
        if self.folder is None or "error" in doc:  # a failed run is run again next time
            return
        folder = os.path.join(self.folder, "docs")
        os.makedirs(folder, exist_ok=True)
        tmp = os.path.join(folder, f"{key}.{os.getpid()}.{threading.get_ident()}.tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(doc, fh)
        os.replace(tmp, os.path.join(folder, key + ".json"))


def truth_sets(rec: Dict[str, Any]):
    traced = {(p, norm_qualname(q)) for p, q, _ in rec["traced"]}
    breaks = {(p, line): gb for p, line, gb, _outcome, _modes in rec["breaks"]}
    skipped = {(p, frame_name(f)) for p, f, _line, _modes in rec["skipped"]}
    error = any(m.get("status") == "compile-error" for m in rec["modes"].values())
    return traced, breaks, skipped, error


def _named_site(d: Dict[str, Any], driver: str) -> Optional[Tuple[str, int]]:
    """The break a diagnostic at a call line names: where its trace ends (``GBL301`` at the user's call of a
    package function whose break lies inside it). Dynamo records a nested break at its innermost line, so the
    diagnostic is scored there; None when the trace is the diagnostic's own line or leaves the scored files."""
    trace = d.get("trace") or []
    if len(trace) < 2:
        return None
    end = site_relative(trace[-1]["path"], driver)
    return (end, trace[-1]["line"]) if end is not None else None


def predicted_sets(doc: Dict[str, Any], driver: str):
    reached = set()
    for f in (doc.get("coverage") or {}).get("functions", []):
        path = site_relative(f["path"], driver)
        if path is not None:
            reached.add((path, f["function"]))
    sites: Dict[Tuple[str, int], Dict[str, Any]] = {}
    skips: Dict[Tuple[str, str], Dict[str, Any]] = {}
    skip_sites = []
    error = False
    for d in doc.get("diagnostics", []):
        if d.get("effect") not in ("break", "skip", "error"):
            continue
        path = site_relative(d["path"], driver)
        if path is None:
            continue
        site = (path, d["line"])
        if d["effect"] == "skip":
            fpath = path
            for t in d.get("trace") or []:
                if t.get("function") == d.get("frame"):
                    fpath = site_relative(t["path"], driver) or path
            frame = (fpath, frame_name(d.get("frame")))
            skips[frame] = _surer(skips.get(frame), d)
            skip_sites.append((site, frame, d))
        else:
            site = (_named_site(d, driver) or site) if d["effect"] == "break" else site
            sites[site] = _surer(sites.get(site), d)
        if d["effect"] == "error":
            error = True
            # one diagnostic per compile error: its frame fails to compile (no compiled code, as a
            # skip) and the calls of its trace are the error's user stack
            trace = d.get("trace") or []
            if not trace or trace[0].get("function") == d.get("frame"):  # not a call on the way (GBL403)
                fpath = site_relative(trace[0]["path"], driver) if trace else path
                skips.setdefault((fpath or path, frame_name(d.get("frame"))), d)
            for t in trace[:-1]:
                tpath = site_relative(t["path"], driver)
                if tpath is not None:
                    sites.setdefault((tpath, t["line"]), d)
    return reached, sites, skips, skip_sites, error


_RANK = {"definite": 0, "conditional": 1, "error-path": 2}


def _surer(old: Optional[Dict[str, Any]], new: Dict[str, Any]) -> Dict[str, Any]:
    """Of two diagnostics of one site or frame, the surer (``certainty`` definite first; the
    earlier on a tie), so that a conditional one listed later does not hide a definite one."""
    if old is None:
        return new
    return new if _RANK.get(new.get("certainty"), 3) < _RANK.get(old.get("certainty"), 3) else old


def score_model(rec: Dict[str, Any], doc: Dict[str, Any], driver: str) -> Dict[str, Any]:
    """One model's hits, misses and false positives per set, and its reach counts."""
    traced, tbreaks, tskips, terror = truth_sets(rec)
    reached, psites, pskips, skip_sites, perror = predicted_sets(doc, driver)
    for site, frame, d in skip_sites:
        if frame in tskips and site not in tbreaks:
            continue  # a skip diagnostic inside a frame that really was skipped is right wherever it points
        psites[site] = _surer(psites.get(site), d)
    out = {"traced": len(traced), "reached": len(traced & reached),
           "unreached": sorted("%s:%s" % t for t in traced - reached)}
    pairs = {"break sites": (set(tbreaks), set(psites)), "skipped frames": (tskips, set(pskips)),
             "compile errors": ({"model"} if terror else set(), {"model"} if perror else set())}
    for label, (t, p) in pairs.items():
        out[label] = {"truth": len(t), "pred": len(p), "hit": len(t & p),
                      "missed": sorted(t - p, key=str), "false": sorted(p - t, key=str)}
    # what gblint is sure of: the predictions whose diagnostic is `definite` (issue: certainty)
    sure = [(s in tbreaks) for s, d in psites.items() if d.get("certainty") == "definite"]
    sure += [(f in tskips) for f, d in pskips.items() if d.get("certainty") == "definite"]
    out["definite"] = {"pred": len(sure), "hit": sum(sure)}
    out["definite_false"] = sorted(
        [f"{s[0]}:{s[1]} {d.get('code')}" for s, d in psites.items()
         if d.get("certainty") == "definite" and s not in tbreaks]
        + [f"{f[0]}:{f[1]} {d.get('code')} (skip)" for f, d in pskips.items()
           if d.get("certainty") == "definite" and f not in tskips])
    # what a plain `gblint check` prints (`--conditional checked`): conditional diagnostics only where
    # their break lies in the checked file (the driver), not in the followed package
    shown = [(s in tbreaks) for s, d in psites.items() if _shown(d, driver)]
    shown += [(f in tskips) for f, d in pskips.items() if _shown(d, driver)]
    out["shown"] = {"pred": len(shown), "hit": sum(shown)}
    # what a user feels of one driver: a false all-clear (Dynamo breaks, the default output shows none
    # of its breaks), a false alarm (no break, the default output shows one), the graph count
    breaks = bool(tbreaks or tskips or terror)
    # "All checks passed": the default output shows nothing and the analysis says it was complete
    passed = not out["shown"]["pred"] and bool((doc.get("coverage") or {}).get("complete"))
    out["driver"] = {"breaks": breaks, "false_all_clear": breaks and not out["shown"]["hit"],
                     "false_passed": breaks and passed, "clean_passed": not breaks and passed,
                     "false_alarm": not breaks and out["shown"]["pred"] > 0,
                     "graphs_observed": observed_graphs(rec), "graphs_predicted": predicted_graphs(doc),
                     "graphs_at_most": predicted_graphs(doc, "graphs_at_most")}
    out["gb_truth"] = {f"{p}:{l}": gb for (p, l), gb in tbreaks.items()}
    out["code_pred"] = {f"{p}:{l}": d["code"] for (p, l), d in psites.items()}
    return out


def observed_graphs(rec: Dict[str, Any]) -> Optional[int]:
    """Graphs Dynamo compiled in the driver's first, cold call (the eval mode; the train mode when
    eval did not run); None when neither ran."""
    for mode in ("eval", "train"):
        info = rec["modes"].get(mode) or {}
        if info.get("status") == "ok":
            return info.get("graphs", 0)
    return None


def predicted_graphs(doc: Dict[str, Any], key: str = "graphs") -> Optional[int]:
    """The graphs gblint predicts for the driver: the sum over its compiled regions (``coverage``) of
    ``key`` (``graphs``: from what is proven; ``graphs_at_most``: if every conditional break happened);
    None when it found no region or could not count one."""
    regions = (doc.get("coverage") or {}).get("regions") or []
    counts = [r.get(key) for r in regions]
    if not counts or any(c is None for c in counts):
        return None
    return sum(counts)


#: the conditions of a diagnostic that depends on the module's mode alone: the default output shows
#: it wherever its break lies (gblint.abstract.values.MODE_CONDITIONS, gblint.project.reporting.conditional_shown)
MODE_ONLY = ("in training mode", "in eval mode")
#: the end of the condition of a diagnostic behind tests that inputs are not empty alone: shown wherever it lies too
#: (gblint.abstract.certainty.NONEMPTY_WORDS)
NONEMPTY_WORDS = " (true for inputs that are not empty)"


def _shown(d: Dict[str, Any], driver: str) -> bool:
    """Whether gblint's default output shows the diagnostic ``d`` (JSON) of a run on ``driver``."""
    if d.get("certainty") != "conditional" or d.get("condition") in MODE_ONLY \
            or (d.get("condition") or "").endswith(NONEMPTY_WORDS):
        return True
    trace = d.get("trace") or []
    return site_relative(trace[-1]["path"] if trace else d["path"], driver) == "<driver>"


def ratio(a: int, b: int) -> float:
    return round(a / b, 3) if b else 1.0


#: the views a run scores (``run.py --views``) and the key of ``results.json`` each fills
VIEWS = {"driver": "packages", "entry": "entry_given"}


def score(packages: Iterable[str], jobs: int, out_dir: str, only: Optional[Set[str]] = None,
          readme: bool = True, quiet: bool = False, views: Iterable[str] = tuple(VIEWS),
          cache: Optional[str] = CACHE, full: bool = False) -> int:
    """Score every measured model of ``packages`` (or those of ``only``, ``package/name``);
    write results.json and details.json into ``out_dir`` and, with ``readme``, the table into
    README.md. gblint runs ``jobs`` at a time over all packages; a document whose inputs and gblint
    are unchanged comes from ``cache`` (a folder; None runs everything). A package with a ``sample``
    entry is scored on that stable sample of its models unless ``full``. Returns the exit status
    (0; 2 when a package has no truth or its environment is missing)."""
    from measure import load_truth
    from spec import PACKAGES, driver, driver_file, python_for
    results: Dict[str, Any] = {"torch": None, "packages": {}, "entry_given": {}}
    details: Dict[str, Any] = {"packages": {}, "entry_given": {}}
    work = tempfile.mkdtemp(prefix="gblint-eco-score-")
    docs_cache = DocCache(cache)
    summaries = os.path.join(cache, "summaries", docs_cache.fingerprint) if cache else os.path.join(work, "cache")
    status = 0
    plan = {}  # package -> (truth, models, paths, python)
    for package in packages:
        if only is not None and not any(m.startswith(package + "/") for m in only):
            continue
        truth = load_truth(package)
        if not truth.get("models"):
            print(f"run.py: no truth for {package}: run `run.py measure --package {package}` first", file=sys.stderr)
            status = 2
            continue
        try:
            python = python_for(package)
        except FileNotFoundError as exc:
            print(f"run.py: {exc}", file=sys.stderr)
            status = 2
            continue
        results["torch"] = (truth.get("torch") or "").split("+")[0]
        models = {n: r for n, r in truth["models"].items() if r["status"] == "measured"
                  and (only is None or f"{package}/{n}" in only)}
        if only is None:
            models = {n: models[n] for n in sample(package, sorted(models), full)}
        folder = os.path.join(work, re.sub(r"\W", "_", package))
        os.makedirs(folder)
        paths = {}
        for name, rec in models.items():
            path = os.path.join(folder, driver_file(name))
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(driver(rec["setup"]))
            paths[name] = path
        plan[package] = (truth, models, paths, python)
    tasks = [(view, package, name) for view in VIEWS if view in views for package in plan for name in plan[package][1]]

    def check(task):
        view, package, name = task
        truth, models, paths, python = plan[package]
        entry = entry_of(models[name]) if view == "entry" else None
        follow = PACKAGES[package]["follow"]
        with open(paths[name], encoding="utf-8") as fh:
            text = fh.read()
        key = docs_cache.key(text, entry, follow, truth.get("version"), package, os.path.realpath(python))
        doc = docs_cache.get(key)
        if doc is None:
            # gblint prints paths below its working directory (the driver's folder) relative to it
            doc = _absolute(run_gblint(paths[name], follow, summaries, entry, python), os.path.dirname(paths[name]))
            # the document names this run's scratch driver: stored with a placeholder for it
            docs_cache.put(key, _rebase(doc, paths[name], "<DRIVER>"))
        else:
            doc = _rebase(doc, "<DRIVER>", paths[name])
        return task, doc

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        docs = dict(pool.map(check, tasks))
    for view, key in VIEWS.items():
        if view not in views:
            continue
        for package, (truth, models, paths, _python) in plan.items():
            per_model = {}
            for name, rec in models.items():
                doc = docs[(view, package, name)]
                per_model[name] = score_model(rec, doc, paths[name])
                per_model[name]["half"] = half(package, name)
                if "error" in doc:
                    per_model[name]["gblint_error"] = doc["error"]
            results.setdefault(key, {})[package] = summary_row(truth, per_model)
            details.setdefault(key, {})[package] = {h: detail({n: m for n, m in per_model.items() if m["half"] == h})
                                                    for h in HALVES}
    if not quiet and cache:
        print(f"score: {docs_cache.hits} gblint runs reused, {docs_cache.misses} run", file=sys.stderr)
    failed = sorted(f"{package}/{name}: {doc['error']}" for (_view, package, name), doc in docs.items()
                    if "error" in doc)
    for line in failed:
        print(f"score: gblint failed on {line}", file=sys.stderr)
    if failed:
        status = status or 1
    shutil.rmtree(work, ignore_errors=True)  # the scratch drivers, scored by now
    if status and readme:
        # a run that skipped a package or lost a driver never replaces the committed tables
        print("score: not writing the tables: the run was incomplete (see above)", file=sys.stderr)
        return status
    _write(results, details, out_dir, readme, quiet)
    return status


def _absolute(node, folder: str):
    """``node`` (JSON data) with every relative ``"path"`` made absolute against ``folder``."""
    if isinstance(node, dict):
        return {k: (os.path.join(folder, v) if k == "path" and isinstance(v, str) and v and not v.startswith("<")
                    and not os.path.isabs(v) else _absolute(v, folder)) for k, v in node.items()}
    if isinstance(node, list):
        return [_absolute(v, folder) for v in node]
    return node


def _rebase(node, old: str, new: str):
    """``node`` (JSON data) with every string equal to ``old`` replaced by ``new``."""
    if isinstance(node, dict):
        return {k: _rebase(v, old, new) for k, v in node.items()}
    if isinstance(node, list):
        return [_rebase(v, old, new) for v in node]
    return new if node == old else node


#: the harness's halves: work is tuned on dev; test is reported beside it (spec.half)
HALVES = ("dev", "test")


def merge(parts: Iterable[str], out_dir: str, readme: bool = True, quiet: bool = False) -> int:
    """Combine the ``results.json``/``details.json`` that runs of one package each wrote
    (``run.py --package P --out DIR``) into one of every package: the folders ``parts`` in,
    ``out_dir`` out, and with ``readme`` the tables as :func:`score` writes them. A package found
    twice, or runs of two torch versions, are an error (exit 2); so is a folder without results."""
    results: Dict[str, Any] = {"torch": None, "packages": {}, "entry_given": {}}
    details: Dict[str, Any] = {"packages": {}, "entry_given": {}}
    for folder in parts:
        try:
            with open(os.path.join(folder, "results.json"), encoding="utf-8") as fh:
                got = json.load(fh)
            with open(os.path.join(folder, "details.json"), encoding="utf-8") as fh:
                more = json.load(fh)
            if os.path.exists(os.path.join(folder, "details-test.json")):
                with open(os.path.join(folder, "details-test.json"), encoding="utf-8") as fh:
                    for view, packages in json.load(fh).items():
                        for p, d in packages.items():
                            more.setdefault(view, {}).setdefault(p, {}).update(d)
        except (OSError, ValueError) as exc:
            print(f"run.py merge: {folder}: no results ({exc})", file=sys.stderr)
            return 2
        if not isinstance(got, dict) or not isinstance(more, dict):
            print(f"run.py merge: {folder}: results.json or details.json is not an object", file=sys.stderr)
            return 2
        if results["torch"] not in (None, got.get("torch")):
            print(f"run.py merge: {folder}: torch {got.get('torch')}, the others {results['torch']}", file=sys.stderr)
            return 2
        results["torch"] = got.get("torch")
        for key in ("packages", "entry_given"):
            twice = set(got.get(key, {})) & set(results[key])
            if twice:
                print(f"run.py merge: {folder}: {', '.join(sorted(twice))} already merged", file=sys.stderr)
                return 2
            results[key].update(got.get(key, {}))
            details[key].update(more.get(key, {}))
    _write(results, details, out_dir, readme, quiet)
    return 0


def _write(results: Dict[str, Any], details: Dict[str, Any], out_dir: str, readme: bool, quiet: bool) -> None:
    """Add the pooled rows to ``results``; write ``results.json`` and ``details.json`` into
    ``out_dir``, print the table (unless ``quiet``) and, with ``readme``, put it in the READMEs."""
    os.makedirs(out_dir, exist_ok=True)
    results["overall"] = overall(results.get("packages", {}))
    results["entry_given_overall"] = overall(results.get("entry_given", {}))
    with open(os.path.join(out_dir, "results.json"), "w", encoding="utf-8") as fh:
        json.dump(results, fh, indent=2, sort_keys=True)
        fh.write("\n")
    # the test half's per-item lists go to their own file, which work on a change does not open
    dev = {view: {p: {"dev": d.get("dev", {}), "test": {k: v for k, v in d.get("test", {}).items()
                                                        if k in ("gb_ids", "codes")}}
                  for p, d in packages.items()} for view, packages in details.items()}
    test = {view: {p: {"test": d.get("test", {})} for p, d in packages.items()} for view, packages in details.items()}
    for name, data in (("details.json", dev), ("details-test.json", test)):
        with open(os.path.join(out_dir, name), "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1, sort_keys=True)
            fh.write("\n")
    table = render_table(results)
    if not quiet:
        print(table)
    if readme:
        update_readme(os.path.join(HERE, "README.md"), table, results, details)
        replace_between(os.path.join(HERE, "..", "..", "README.md"), "<!-- ecosystem:begin -->",
                        "<!-- ecosystem:end -->", table)


def replace_between(path: str, begin: str, end: str, body: str) -> None:
    """Put ``body`` between the ``begin`` and ``end`` markers of the file at ``path`` (no-op
    when the file or a marker is missing)."""
    if not os.path.exists(path):
        return
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    if begin not in text or end not in text:
        return
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text.split(begin)[0] + begin + "\n" + body.rstrip("\n") + "\n" + end + text.split(end, 1)[1])


def _sum(per_model: Dict[str, Any], label: str, key: str) -> int:
    return sum(m[label][key] for m in per_model.values())


def summary_row(truth: Dict[str, Any], per_model: Dict[str, Any]) -> Dict[str, Any]:
    """One package's row over every scored model, with the same row for each half of the harness
    under ``halves`` (a model without a ``half`` counts in neither)."""
    row = _row(truth, per_model)
    row["halves"] = {h: _row(truth, {n: m for n, m in per_model.items() if m.get("half") == h}) for h in HALVES}
    return row


def _row(truth: Dict[str, Any], per_model: Dict[str, Any]) -> Dict[str, Any]:
    models = truth["models"]
    measured = {mode: sum(1 for n in per_model
                          if models[n]["modes"].get(mode, {}).get("status") in ("ok", "compile-error"))
                for mode in ("eval", "train")}
    hit = sum(_sum(per_model, s, "hit") for s in SETS)
    traced = sum(m["traced"] for m in per_model.values())
    reached = sum(m["reached"] for m in per_model.values())
    return {"version": truth.get("version"), "models": len(per_model), "attempted": len(models),
            "measured": measured, "traced": traced, "reached": reached, "reach": ratio(reached, traced),
            "precision": ratio(hit, sum(_sum(per_model, s, "pred") for s in SETS)),
            "recall": ratio(hit, sum(_sum(per_model, s, "truth") for s in SETS)),
            "definite": {k: sum(m.get("definite", {}).get(k, 0) for m in per_model.values()) for k in ("pred", "hit")},
            "shown": {k: sum(m.get("shown", {}).get(k, 0) for m in per_model.values()) for k in ("pred", "hit")},
            "drivers": driver_figures(m.get("driver") for m in per_model.values()),
            "gblint_errors": sum(1 for m in per_model.values() if "gblint_error" in m),
            "sets": {s: {"truth": _sum(per_model, s, "truth"), "pred": _sum(per_model, s, "pred"),
                         "hit": _sum(per_model, s, "hit")} for s in SETS}}


DRIVER_KEYS = ("models", "breaking", "false_all_clear", "false_passed", "clean", "clean_passed", "false_alarm",
               "graphs_compared", "graphs_exact")


def driver_figures(drivers: Iterable[Optional[Dict[str, Any]]]) -> Dict[str, int]:
    """Counts over drivers (``score_model``'s ``driver``): how many break under Dynamo, how many
    of those the default output gives a false all-clear (it shows none of their breaks) and on how many
    it prints "All checks passed" (it shows nothing and says the analysis was complete); how many are
    break-free, how many of those it raises a false alarm on and on how many it prints "All checks
    passed"; for how many the observed graph count is known and how many
    gblint predicts exactly."""
    out = dict.fromkeys(DRIVER_KEYS, 0)
    for d in drivers:
        if not d:
            continue
        out["models"] += 1
        out["breaking"] += d["breaks"]
        out["false_all_clear"] += d["false_all_clear"]
        out["false_passed"] += d.get("false_passed", False)
        out["clean_passed"] += d.get("clean_passed", False)
        out["clean"] += not d["breaks"]
        out["false_alarm"] += d["false_alarm"]
        if d["graphs_observed"] is not None:
            out["graphs_compared"] += 1
            out["graphs_exact"] += d["graphs_predicted"] == d["graphs_observed"]
    return out


def _tally(table: Dict[str, Dict[str, int]], listed: Dict[str, List[str]], labels: Dict[str, str],
           bad: Set[str], total: str, model: str) -> None:
    """Count each ``site -> label`` of ``labels`` under its label (``total`` and ``hit``), and
    list the sites in ``bad`` under their label, with ``model``."""
    for site, label in labels.items():
        row = table.setdefault(label, {total: 0, "hit": 0})
        row[total] += 1
        row["hit"] += site not in bad
        if site in bad:
            listed.setdefault(label, []).append(f"{site} ({model})")


def detail(per_model: Dict[str, Any]) -> Dict[str, Any]:
    """Per GB id recall, per code precision, every miss and false positive with its model, and the drivers
    whose default output is a false all-clear (Dynamo breaks, the default output shows none of its breaks)."""
    by_gb: Dict[str, Dict[str, int]] = {}
    by_code: Dict[str, Dict[str, int]] = {}
    misses: Dict[str, List[str]] = {}
    false: Dict[str, List[str]] = {}
    unreached: Dict[str, int] = {}
    false_definite: List[str] = []
    for name, m in sorted(per_model.items()):
        false_definite += [f"{item} ({name})" for item in m.get("definite_false", [])]
        missed = {"%s:%s" % s for s in m["break sites"]["missed"]}
        _tally(by_gb, misses, m["gb_truth"], missed, "truth", name)
        wrong = {"%s:%s" % s for s in m["break sites"]["false"]}
        _tally(by_code, false, m["code_pred"], wrong, "pred", name)
        for f in m["skipped frames"]["missed"]:
            misses.setdefault("skipped frame", []).append(f"{f[0]}:{f[1]} ({name})")
        for f in m["skipped frames"]["false"]:
            false.setdefault("skipped frame", []).append(f"{f[0]}:{f[1]} ({name})")
        for fn in m["unreached"]:
            unreached[fn] = unreached.get(fn, 0) + 1
    return {"gb_ids": {k: dict(v, recall=ratio(v["hit"], v["truth"])) for k, v in sorted(by_gb.items())},
            "codes": {k: dict(v, precision=ratio(v["hit"], v["pred"])) for k, v in sorted(by_code.items())},
            "missed": misses, "false_positives": false, "false_definite": false_definite,
            "unreached_most_common": dict(sorted(unreached.items(), key=lambda kv: (-kv[1], kv[0]))[:60]),
            "errors": {n: m["gblint_error"] for n, m in per_model.items() if "gblint_error" in m},
            "false_all_clear": sorted(n for n, m in per_model.items() if m.get("driver", {}).get("false_all_clear"))}


def overall(rows: Dict[str, Any]) -> Dict[str, Any]:
    """The table's last rows: every set and the reach pooled over all packages' models, and the
    same for each half (``halves``)."""
    out = _pool(list(rows.values()))
    out["halves"] = {h: _pool([r["halves"][h] for r in rows.values() if "halves" in r]) for h in HALVES}
    return out


def _pool(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    sets = {s: {k: sum(r["sets"][s][k] for r in rows) for k in ("truth", "pred", "hit")} for s in SETS}
    hit = sum(v["hit"] for v in sets.values())
    return {"models": sum(r["models"] for r in rows),
            "reach": ratio(sum(r["reached"] for r in rows), sum(r["traced"] for r in rows)),
            "precision": ratio(hit, sum(v["pred"] for v in sets.values())),
            "recall": ratio(hit, sum(v["truth"] for v in sets.values())), "sets": sets,
            "definite": {k: sum(r.get("definite", {}).get(k, 0) for r in rows) for k in ("pred", "hit")},
            "shown": {k: sum(r.get("shown", {}).get(k, 0) for r in rows) for k in ("pred", "hit")},
            "drivers": {k: sum(r.get("drivers", {}).get(k, 0) for r in rows) for k in DRIVER_KEYS}}


def render_table(results: Dict[str, Any]) -> str:
    """Markdown: the headline table (drivers as users write them) and the same models with the
    compiled entry given (``--entry module:Class``), which separates finding the region from
    following its calls; one row per package and half, then the pooled rows of each half."""
    out = [f"torch {results.get('torch')}, CPU, `backend=\"eager\"`; a site is true if the eval or the train run "
           "hit it (a diagnostic at a call line whose trace leads to a break in a callee is scored at that break, "
           "where Dynamo records a nested break). Each package is split into halves by a stable hash of `package/model`: `dev` is what work is "
           "tuned on, `test` is scored beside it and its per-item lists are not read while working. Cells of the three "
           "set columns: truth/predicted/hit (every diagnostic, `--conditional all`); \"definite\" counts the break "
           "sites and skipped frames gblint is sure of (`certainty` \"definite\") and how many of them are true; "
           "\"default output\" the same for what a plain `gblint check` prints (conditional diagnostics only where "
           "the break lies in the checked file), with its precision, and its recall over every true site, frame and "
           "error. Per driver: \"false all-clear\" counts the drivers Dynamo breaks on whose default output shows none "
           "of their breaks (of all that break), \"'All checks passed'\" those on which it prints \"All checks passed\" "
           "(it shows nothing and says the analysis was complete; beside it, the break-free drivers on which it "
           "does), \"false alarm\" the break-free drivers whose default output shows "
           "anything (of all break-free), \"graphs\" the drivers whose predicted graph count equals the count "
           "Dynamo compiled in the first call (of all with a count).", ""]
    for title, rows, total in (("Drivers as users write them", results.get("packages", {}), results.get("overall")),
                               ("Same models, compiled entry given (`--entry module:Class`)",
                                results.get("entry_given", {}), results.get("entry_given_overall"))):
        if not rows:  # a view not scored this run (run.py --views)
            continue
        out += [f"**{title}**", "",
                "| package | version | half | models | reach | precision | recall | break sites | skipped frames "
                "| compile errors | definite: predicted/hit | default output: predicted/hit (precision) | default recall "
                "| false all-clear | 'All checks passed' | false alarm | graphs exact |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for name, r in sorted(rows.items()):
            for h in HALVES:
                sub = (r.get("halves") or {}).get(h)
                if sub and sub["models"]:
                    out.append(f"| {name} | {r['version']} | {h} | {sub['models']} | {_cells(sub)}")
        if total and total.get("models"):
            for h in HALVES:
                sub = (total.get("halves") or {}).get(h)
                if sub and sub["models"]:
                    out.append(f"| **all** | | **{h}** | {sub['models']} | {_cells(sub)}")
            out.append(f"| **all** | | both | {total['models']} | {_cells(total)}")
        out.append("")
    return "\n".join(out)


def _frac(k: int, n: int) -> str:
    return f"{k}/{n} ({k / n:.2f})" if n else "0/0"


def _cells(r: Dict[str, Any]) -> str:
    s = r["sets"]
    sets = " | ".join(f"{s[k]['truth']}/{s[k]['pred']}/{s[k]['hit']}" for k in SETS)
    # nothing predicted is no evidence of precision: say so instead of printing 1.00
    precision = f"{r['precision']:.2f}" if sum(s[k]["pred"] for k in SETS) else "n/a"
    sure = r.get("definite") or {"pred": 0, "hit": 0}
    shown = r.get("shown") or {"pred": 0, "hit": 0}
    shown_p = f"{shown['hit'] / shown['pred']:.2f}" if shown["pred"] else "n/a"
    truth = sum(s[k]["truth"] for k in SETS)
    d = r.get("drivers") or dict.fromkeys(DRIVER_KEYS, 0)
    return (f"{r['reach']:.2f} | {precision} | {r['recall']:.2f} | {sets} | {sure['pred']}/{sure['hit']} | "
            f"{shown['pred']}/{shown['hit']} ({shown_p}) | {ratio(shown['hit'], truth):.2f} | "
            f"{_frac(d['false_all_clear'], d['breaking'])} | {_frac(d.get('false_passed', 0), d['breaking'])}; clean "
            f"{_frac(d.get('clean_passed', 0), d['clean'])} | "
            f"{_frac(d['false_alarm'], d['clean'])} | "
            f"{_frac(d['graphs_exact'], d['graphs_compared'])} |")


BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"


def update_readme(path: str, table: str, results: Dict[str, Any], details: Dict[str, Any]) -> None:
    """Write ``table``, the per GB id rows and the model list into the harness README's markers."""
    gb_rows: Dict[str, Dict[str, int]] = {}
    view = "compiled entry given" if details.get("entry_given") else "drivers as users write them"
    for halves in (details.get("entry_given") or details["packages"]).values():
        for gb, v in (item for d in halves.values() for item in d["gb_ids"].items()):
            row = gb_rows.setdefault(gb, {"truth": 0, "hit": 0})
            row["truth"] += v["truth"]
            row["hit"] += v["hit"]
    block = [table, f"Break sites per GB id, all packages, {view}:", "",
             "| GB id | truth | found | recall |", "|---|---|---|---|"]
    for gb, v in sorted(gb_rows.items(), key=lambda kv: -kv[1]["truth"]):
        block.append(f"| {gb} | {v['truth']} | {v['hit']} | {ratio(v['hit'], v['truth']):.2f} |")
    replace_between(path, BEGIN, END, "\n".join(block))
    replace_between(path, MODELS_BEGIN, MODELS_END, model_list(results))


MODELS_BEGIN, MODELS_END = "<!-- models:begin -->", "<!-- models:end -->"


def model_list(results: Dict[str, Any]) -> str:
    """Every model of every truth file with its status, one collapsible table per package."""
    from measure import load_truth
    out = []
    for package in sorted(results.get("packages", {})):
        truth = load_truth(package)
        models = truth.get("models", {})
        ok = sum(1 for r in models.values() if r["status"] == "measured")
        out += [f"<details><summary>{package} {truth.get('version')}: {ok} of {len(models)} measured</summary>", "",
                "| model | half | status | eval | train | breaks | skipped frames | CPU s | reason |",
                "|---|---|---|---|---|---|---|---|---|"]
        for name in sorted(models):
            r = models[name]
            modes = [r["modes"].get(m, {}) for m in ("eval", "train")]
            cells = [f"{m.get('status', '-')} ({m.get('graphs', 0)} graphs)" if m.get("status") == "ok"
                     else m.get("status", "-") for m in modes]
            reason = (r.get("message") or "").replace("|", "\\|").replace("\n", " ")[:90]
            out.append(f"| {name} | {half(package, name)} | {r['status']} | {cells[0]} | {cells[1]} | {len(r['breaks'])} | "
                       f"{len(r['skipped'])} | {r.get('cpu_s') or '-'} | {reason} |")
        out += ["", "</details>", ""]
    return "\n".join(out)
