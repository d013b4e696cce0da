#!/usr/bin/env python3
"""``gblint fix`` over real packages: what it writes must compile, import, be stable and behave.

    python bench/ecosystem/fixcheck.py                       # every package, safe and unsafe fixes
    python bench/ecosystem/fixcheck.py --package diffusers --models 5
    python bench/ecosystem/fixcheck.py --drivers --json out.json --readme   # enter the drivers

For each measured package (``spec.PACKAGES``) and each of ``gblint fix`` and
``gblint fix --unsafe-fixes``, on a copy of the installed package:

1. the fix runs with every compiled entry the truth names (``--entry module:Class``, as the
   harness's "entry given" view), so fixes land in the code those models reach; with ``--drivers``,
   on the measured models' drivers beside the package instead (the "driver" view: a model the setup
   defines, such as an ODE function or a GP model, is entered too);
2. every ``.py`` file of the copy must compile under CPython;
3. the package and every changed module must import from the copy;
   (``--every-class PACKAGE``: every class that defines ``forward``, which reaches more code);
4. a second run must have nothing left to apply (``--diff`` reports 0 fixes);
5. for up to ``--models`` models whose measured trace (the truth's ``traced``) goes through a
   changed function, the model runs without compiling from the original and from the copy
   (same seed, one thread): the eval output and the training loss and gradients must be equal.

Prints one line per package and variant and exits 1 when any check fails. Needs torch and the
packages (``pip install -e ".[bench]"``); takes several minutes on two cores (transformers'
fix with ~200 entries is most of it).
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from typing import Dict, Iterable, List, Optional, Set, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

#: runs the named models without compiling and saves what they return (one process per copy)
RUNNER = r"""
import json, sys, torch
sys.path.insert(0, sys.argv[1])
from spec import catalog
from child import _tensors, loss_of
flat = lambda value: [t.detach() for t in _tensors(value)]
package, names, out, root = sys.argv[2], json.loads(sys.argv[3]), sys.argv[4], sys.argv[5]
torch.set_num_threads(1)
results = {}
for name in names:
    try:
        ns = {}
        torch.manual_seed(0)
        exec(compile(catalog(package).setup(name), name, "exec"), ns)
        model = ns["model"]
        mod = sys.modules[type(model).__module__]
        assert mod.__file__.startswith(root), (mod.__file__, root)
        pick = ns.get("output", loss_of)
        model.eval()
        torch.manual_seed(0)
        with torch.no_grad():
            ev = model(*ns.get("args", ()), **ns.get("kwargs", {}))
        model.train()
        torch.manual_seed(0)
        loss = pick(model(*ns.get("train_args", ns.get("args", ())), **ns.get("train_kwargs", ns.get("kwargs", {}))))
        loss.backward()
        grads = {k: p.grad for k, p in model.named_parameters() if p.grad is not None}
        results[name] = {"eval": flat(ev), "loss": loss.detach(), "grads": grads}
    except Exception as exc:
        results[name] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
torch.save(results, out)
"""


def _equal(a, b) -> bool:
    """Whether two lists (or dicts) of tensors are equal element by element, bit for bit."""
    import torch
    ta, tb = (list(v.values()) if isinstance(v, dict) else v for v in (a, b))
    return len(ta) == len(tb) and all(x.shape == y.shape and torch.equal(x, y) for x, y in zip(ta, tb))


def functions(source: str) -> Dict[str, str]:
    """qualname -> ``ast.dump`` of every function in ``source`` (nested ones dotted)."""
    out: Dict[str, str] = {}

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                if not isinstance(child, ast.ClassDef):
                    out[name] = ast.dump(child)
                walk(child, name + ".")
            else:
                walk(child, prefix)
    walk(ast.parse(source), "")
    return out


def changed_functions(original: str, fixed: str) -> Tuple[Set[str], Set[str]]:
    """(functions whose body the fix changed, functions it added) between two module sources."""
    a, b = functions(original), functions(fixed)
    return {q for q in a if q in b and a[q] != b[q]}, set(b) - set(a)


#: ``gblint fix`` as ``python -m gblint fix`` runs it, also saying which fixes it applied (one JSON
#: line each: path, code, frame, title), so that every changed function has the codes that changed it
FIX = r"""
import json, sys
import gblint.frontends.cli as cli
shown = cli._print_effects
def with_keys(result, written):
    shown(result, written)
    for key in result.applied:
        if key[0] in written:
            print("fixcheck-applied " + json.dumps(key), file=sys.stderr)
cli._print_effects = with_keys
sys.exit(cli.main(sys.argv[1:]))
"""


def gblint_fix(root: str, paths: List[str], entries: List[str], unsafe: bool, diff: bool,
               follow: Iterable[str] = ()) -> Tuple[int, int, str, List[Tuple[str, str, str, str]]]:
    """Run ``gblint fix`` in ``root`` on ``paths`` (the package's folder, and the drivers when they
    are entered), following the packages ``follow``; (fixes, files, output tail, the applied fixes'
    ``(path, code, frame, title)``). Raises ``RuntimeError`` when its output has no count."""
    cmd = [sys.executable, "-c", FIX, "fix", "--isolated", "--no-cache", "-j", "2", "--exit-zero"]
    cmd += ["--unsafe-fixes"] if unsafe else []
    cmd += ["--diff"] if diff else []
    for e in entries:
        cmd += ["--entry", e]
    for f in follow:
        cmd += ["--follow-imports", f]
    proc = subprocess.run(cmd + list(paths), cwd=root, capture_output=True, text=True, timeout=3600)
    m = re.search(r"(?:Applied|Would apply) (\d+) fix(?:es)? in (\d+) files?", proc.stdout + proc.stderr)
    if not m:
        raise RuntimeError(f"gblint fix said nothing countable (exit {proc.returncode}): {proc.stderr[-500:]}")
    applied = [tuple(json.loads(line.split(" ", 1)[1])) for line in proc.stderr.splitlines()
               if line.startswith("fixcheck-applied ")]
    return int(m.group(1)), int(m.group(2)), (proc.stdout + proc.stderr)[-300:], applied


def forward_classes(root: str, pkgdir: str) -> List[str]:
    """``module:Class`` of every class under ``root/pkgdir`` that defines ``forward`` (by ``ast``)."""
    out = []
    for dirpath, _, names in os.walk(os.path.join(root, pkgdir)):
        for n in sorted(names):
            if not n.endswith(".py"):
                continue
            path = os.path.join(dirpath, n)
            try:
                with open(path, "rb") as fh:
                    tree = ast.parse(fh.read())
            except (SyntaxError, ValueError):
                continue
            module = os.path.relpath(path, root)[:-3].replace(os.sep, ".").replace(".__init__", "")
            out += [f"{module}:{c.name}" for c in tree.body if isinstance(c, ast.ClassDef) and any(
                isinstance(f, ast.FunctionDef) and f.name == "forward" for f in c.body)]
    return sorted(out)


def package_source(package: str, pkgdir: str) -> str:
    """The folder of ``pkgdir`` as the interpreter that measures ``package`` imports it (a package
    with its own environment, such as ``transformers-4``, has its own copy)."""
    from spec import python_for
    code = f"import importlib.util, os; print(os.path.dirname(importlib.util.find_spec({pkgdir!r}).origin))"
    return subprocess.run([python_for(package), "-c", code], check=True, capture_output=True,
                          text=True).stdout.strip()


#: after-fix measurements per package, by the fixed texts of the changed files: the unsafe variant
#: that changed the same files in the same way is not measured twice
_MEASURED: Dict[Tuple[str, Tuple], Dict[str, Dict[str, object]]] = {}


def check(package: str, unsafe: bool, models: Optional[int], every_class: bool = False, measure: bool = True,
          before: str = "truth", only: Optional[Set[str]] = None, jobs: int = 2, drivers: bool = False
          ) -> Dict[str, object]:
    """The checks of the module docstring for one package and variant; a dict of figures.
    ``every_class``: enter every class that defines ``forward``, not only the measured models.
    ``drivers``: check the measured models' drivers (``spec.driver``: the setup, then
    ``torch.compile`` and a call, as the harness's driver view checks them) beside the package, so
    that models defined in the setup (an ODE function, a GP model) are entered too; the fixes
    written into the drivers are counted apart and not measured (the truth's setup is).
    ``measure``: re-measure under torch each model a fix touched (``fixmeasure``), ``before``
    ``"truth"`` (the committed truth) or ``"fresh"`` (measured now with the same child); ``only``:
    enter, measure and compare only these models (a sample: the fixes are those their classes reach);
    ``models``: compare outputs of at most this many."""
    import fixmeasure
    from measure import load_truth
    from score import entry_of
    from spec import PACKAGES
    pkgdir = PACKAGES[package]["follow"][0]
    src = package_source(package, pkgdir)
    truth = load_truth(package).get("models", {})
    if only is not None:
        truth = {n: r for n, r in truth.items() if n in only}
    entries = sorted({e for r in truth.values() if r.get("status") == "measured" and (e := entry_of(r))})
    work = tempfile.mkdtemp(prefix=f"gblint-fixcheck-{package}-")
    # a folder named site-packages: the child writes the copy's paths as the truth does (spec.site_relative)
    root = os.path.join(work, "site-packages")
    try:
        shutil.copytree(src, os.path.join(root, pkgdir), ignore=shutil.ignore_patterns("__pycache__"))
        paths, follow = [pkgdir], ()
        if every_class:
            entries = forward_classes(root, pkgdir)
        elif drivers:
            from spec import driver, driver_file
            entries, follow = [], PACKAGES[package]["follow"][1:]
            for name, rec in sorted(truth.items()):
                if rec.get("status") == "measured":
                    paths.append(driver_file(name))
                    with open(os.path.join(root, paths[-1]), "w", encoding="utf-8") as fh:
                        fh.write(driver(rec["setup"]))
        fixes, files, _, applied = gblint_fix(root, paths, entries, unsafe, False, follow)
        # nothing applied: the second run would read the same files as the first
        again = gblint_fix(root, paths, entries, unsafe, True, follow)[0] if fixes else 0
        in_drivers = [k for k in applied if not k[0].startswith(pkgdir + "/")]
        rejected, changed, added, modules = [], set(), set(), []
        spans_before: Dict[str, list] = {}
        spans_after: Dict[str, list] = {}
        fixed_texts = []
        for dirpath, _, names in os.walk(os.path.join(root, pkgdir)):
            for n in names:
                if not n.endswith(".py"):
                    continue
                path = os.path.join(dirpath, n)
                rel = os.path.relpath(path, root)
                with open(path, "rb") as fh:
                    text = fh.read()
                try:
                    compile(text, path, "exec", dont_inherit=True)
                except SyntaxError as exc:
                    rejected.append(f"{rel}: {exc}")
                    continue
                with open(os.path.join(src, os.path.relpath(path, os.path.join(root, pkgdir))), "rb") as fh:
                    old = fh.read()
                if old != text:
                    c, a = changed_functions(old.decode("utf-8"), text.decode("utf-8"))
                    changed |= {(rel, q) for q in c}
                    added |= {(rel, q) for q in a}
                    short_c, short_a = {q.split(".")[-1] for q in c}, {q.split(".")[-1] for q in c | a}
                    spans_before[rel] = [s for s in fixmeasure.spans(old.decode("utf-8")) if s[0] in short_c]
                    spans_after[rel] = [s for s in fixmeasure.spans(text.decode("utf-8")) if s[0] in short_a]
                    modules.append(rel[:-3].replace(os.sep, ".").replace(".__init__", ""))
                    fixed_texts.append((rel, text))
        # the codes of the fixes that changed each function: its own frame's, else every fix of its file
        codes: Dict[Tuple[str, str], Set[str]] = {}
        for p, q in changed:
            own = {code for path, code, frame, _ in applied if path == p and (frame or "").split(".")[-1] == q.split(".")[-1]}
            codes.setdefault((p, q.split(".")[-1]), set()).update(
                own or {code for path, code, _, _ in applied if path == p})
        env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
        probe = ("import importlib, sys\n"
                 f"for m in {[pkgdir] + modules!r}:\n"
                 "    mod = importlib.import_module(m)\n"
                 f"    assert mod.__file__.startswith({root!r}), mod.__file__\n")
        from spec import python_for
        imp = subprocess.run([python_for(package), "-c", probe], env=env, capture_output=True, text=True, timeout=900)
        hit = fixmeasure.touched(truth, codes)  # models whose measured run goes through a changed function
        sample = sorted(hit)[:models] if models is not None else sorted(hit)
        unequal, errors = compare_outputs(package, sample, src, root, work)
        rows: List[Dict[str, object]] = []
        if measure and hit:
            print(f"{package} {'unsafe' if unsafe else 'safe'}: measuring {len(hit)} touched models", flush=True)
            key = (package, tuple(sorted(fixed_texts)))
            after = _MEASURED.get(key) or fixmeasure.measure_models(package, sorted(hit), root, jobs)
            _MEASURED[key] = after
            base = truth if before == "truth" else _MEASURED.setdefault(
                (package, "fresh"), {})
            missing = [n for n in sorted(hit) if n not in base]
            if missing:
                base.update(fixmeasure.measure_models(package, missing, None, jobs))
            rows = fixmeasure.compare(package, truth, hit, base, after, spans_before, spans_after)
        return {"package": package, "variant": "unsafe" if unsafe else "safe",
                "entries": len(paths) - 1 if drivers and not every_class else len(entries),
                "entered": "classes with forward" if every_class else "drivers" if drivers else "measured models",
                "driver_fixes": len(in_drivers),
                "fixes": fixes, "files": files, "applied": [list(k) for k in applied],
                "changed_functions": len(changed), "added_functions": len(added), "rejected": rejected,
                "import_ok": imp.returncode == 0, "import_error": imp.stderr[-400:] if imp.returncode else "",
                "second_run_fixes": again, "touched_models": len(hit), "models_compared": len(sample),
                "unequal": unequal, "errors_differ": errors, "measured": rows,
                "pool": fixmeasure.pool(package, truth)}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def compare_outputs(package: str, sample: List[str], src: str, root: str, work: str) -> Tuple[List[str], List[str]]:
    """Run ``sample`` without compiling from the original package and from the fixed copy under
    ``root``; (models whose outputs differ, models whose errors differ)."""
    from spec import python_for
    unequal, errors = [], []
    if not sample:
        return unequal, errors
    outs = {}
    for label, where in (("original", os.path.dirname(src)), ("fixed", root)):
        out = os.path.join(work, f"{label}.pt")
        e = dict(os.environ, PYTHONPATH=where + os.pathsep + os.environ.get("PYTHONPATH", ""), OMP_NUM_THREADS="1")
        subprocess.run([python_for(package), "-c", RUNNER, HERE, package, json.dumps(sample), out, where],
                       env=e, check=True, timeout=3600, cwd=HERE)
        import torch
        outs[label] = torch.load(out, weights_only=False)
    for name in sample:
        a, b = outs["original"][name], outs["fixed"][name]
        if "error" in a or "error" in b:
            if a.get("error") != b.get("error"):
                errors.append(f"{name}: {a.get('error')} / {b.get('error')}")
            continue
        if not (_equal(a["eval"], b["eval"]) and _equal([a["loss"]], [b["loss"]])
                and a["grads"].keys() == b["grads"].keys() and _equal(a["grads"], b["grads"])):
            unequal.append(name)
    return unequal, errors


def main(argv=None) -> int:
    from spec import PACKAGES
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--package", action="append", choices=sorted(PACKAGES))
    ap.add_argument("--variant", choices=("safe", "unsafe", "both"), default="both", help="which fixes to apply")
    ap.add_argument("--models", type=int, default=None, help="compare the outputs of at most this many touched "
                    "models per package and variant (default: all)")
    ap.add_argument("--every-class", action="append", default=[], choices=sorted(PACKAGES), metavar="PACKAGE",
                    help="for PACKAGE, enter every class that defines forward (more code reached, more fixes), "
                         "not only the measured models (repeatable)")
    ap.add_argument("--drivers", action="store_true", help="check the measured models' drivers beside the package "
                    "(the harness's driver view) instead of entering their classes: models defined in the setup "
                    "are entered too")
    ap.add_argument("--no-measure", action="store_true", help="do not re-measure the touched models under torch")
    ap.add_argument("--before", choices=("truth", "fresh"), default="truth",
                    help="the figures before the fix: the committed truth, or measured now with the same child")
    ap.add_argument("--only", help="comma-separated model names: enter, measure and compare only these")
    ap.add_argument("--sample", type=int, help="per package, only the first N measured models that break (a "
                    "site or a skipped frame), by a stable hash of the name (a sample of both halves)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="models measured at a time")
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--readme", action="store_true", help="write the tables into README.md beside this file")
    ap.add_argument("--merge", nargs="+", metavar="JSON", help="check nothing: combine the rows of these --json "
                    "files (runs of separate packages) into --json and --readme")
    a = ap.parse_args(argv)
    if a.merge:
        rows = []
        for path in a.merge:
            with open(path) as fh:
                rows += json.load(fh)["rows"]
        figures = write_json(a.json, rows, a.before)
        if a.readme:
            write_readme(rows, figures, a.before)
        return 0
    rows, bad = [], False
    variants = {"safe": (False,), "unsafe": (True,), "both": (True, False)}[a.variant]
    only = set(a.only.split(",")) if a.only else None
    for package in a.package or list(PACKAGES):
        for unsafe in variants:
            chosen = only if not a.sample else breaking_sample(package, a.sample)
            if not unsafe and any(r["package"] == package and r["variant"] == "unsafe" and not r["fixes"] for r in rows):
                # every safe fix may be applied with --unsafe-fixes: none there, none here
                r = dict(next(r for r in rows if r["package"] == package), variant="safe")
            else:
                r = check(package, unsafe, a.models, package in a.every_class, not a.no_measure, a.before, chosen,
                          a.jobs, a.drivers)
            rows.append(r)
            worse = [f"{m['model']}: {m['failure']}" for m in r["measured"] if m["failure"]]
            ok = (not r["rejected"] and r["import_ok"] and r["second_run_fixes"] == 0 and not r["unequal"]
                  and not r["errors_differ"] and not worse)
            bad |= not ok
            b_, a_ = (sum(m[w]["breaks"] for m in r["measured"]) for w in ("before", "after"))
            print(f"{package:16} {r['variant']:6} {r['entries']:4} entries, fixes {r['fixes']:3} in {r['files']:3} files, "
                  f"{r['changed_functions']} functions changed (+{r['added_functions']} helpers); "
                  f"compile failures {len(r['rejected'])}; import {'ok' if r['import_ok'] else 'FAILED'}; "
                  f"second run {r['second_run_fixes']} fixes; models touched {r['touched_models']}, compared "
                  f"{r['models_compared']}, unequal {len(r['unequal'])}, errors differ {len(r['errors_differ'])}; "
                  f"measured {len(r['measured'])}: breaks {b_} -> {a_}, worse {len(worse)}"
                  + ("" if ok else "  <-- FAIL " + json.dumps({k: r[k] for k in
                     ("rejected", "import_error", "unequal", "errors_differ")} | {"worse": worse})), flush=True)
            figures = write_json(a.json, rows, a.before)  # after each package: a stopped run keeps its figures
    if a.readme:
        write_readme(rows, figures, a.before)
    return 1 if bad else 0


def breaking_sample(package: str, size: int) -> Set[str]:
    """The first ``size`` measured models of ``package`` that break, by a stable hash of the name."""
    import hashlib

    from measure import load_truth
    names = [n for n, r in load_truth(package).get("models", {}).items()
             if r.get("status") == "measured" and (r.get("breaks") or r.get("skipped"))]
    return set(sorted(names, key=lambda n: hashlib.sha1(n.encode()).hexdigest())[:size])


def write_json(path: Optional[str], rows: List[Dict[str, object]], before: str) -> Dict[str, object]:
    """The figures per variant and half (``fixmeasure.summary``) of ``rows``, also written with the
    rows to ``path`` when given."""
    import fixmeasure
    figures = {v: fixmeasure.summary([m for r in rows if r["variant"] == v for m in r["measured"]],
                                     _pools([r for r in rows if r["variant"] == v]))
               for v in sorted({r["variant"] for r in rows})}
    if path:
        with open(path, "w") as fh:
            json.dump({"packages": sorted({r["package"] for r in rows}), "before": before,
                       "summary": figures, "rows": rows}, fh, indent=1)
    return figures


def _pools(rows: List[Dict[str, object]]) -> Dict[str, Dict[str, int]]:
    """Per half, the breaking models and their break sites over the packages of ``rows``."""
    out = {h: {"models": 0, "breaks": 0} for h in ("dev", "test")}
    for r in rows:
        for h, p in r["pool"].items():
            out[h]["models"] += p["models"]
            out[h]["breaks"] += p["breaks"]
    return out


def _share(pair) -> str:
    before, after = pair
    return f"{before} -> {after}" + (f" ({(before - after) / before:.0%} removed)" if before else "")


def measured_lines(figures: Dict[str, Dict[str, object]], packages: List[str], before: str) -> List[str]:
    """The table of what the fixes did to the measured models, per variant and half, then per fix kind."""
    lines = [f"Packages: {', '.join(packages)}; before: {'the committed truth' if before == 'truth' else 'measured now'}.",
             "", "| fixes | half | models touched (of breaking) | breaks in rewritten code | models fully fixed | "
             "break sites | skipped frames | graphs | worse | breaks removed, of all in breaking models |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    kinds = []
    for variant, halves in figures.items():
        for h, t in halves.items():
            removed = t["breaks"][0] - t["breaks"][1]
            lines.append(f"| {variant} | {h} | {t['models']} (of {t['pool']['models']}) | {_share(t['rewritten'])} | "
                         f"{t['fully_fixed']} | {_share(t['breaks'])} | {_share(t['skipped'])} | "
                         f"{t['graphs'][0]} -> {t['graphs'][1]} | {t['failures']} | "
                         f"{removed} of {t['pool']['breaks']} |")
            for k, kt in t["kinds"].items():
                kinds.append(f"| {variant} | {h} | {k} | {kt['models']} | {_share(kt['rewritten'])} | "
                             f"{_share(kt['breaks'])} | {_share(kt['skipped'])} | {kt['graphs'][0]} -> "
                             f"{kt['graphs'][1]} | {kt['failures']} |")
    return lines + ["", "| fixes | half | fix kinds | models | breaks in rewritten code | break sites | skipped frames | "
                        "graphs | worse |", "|---|---|---|---|---|---|---|---|---|"] + kinds


def write_readme(rows: List[Dict[str, object]], figures: Dict[str, Dict[str, object]], before: str) -> None:
    """Put the figures between ``<!-- fixcheck:begin/end -->`` and ``<!-- fixmeasure:begin/end -->``
    in README.md beside this file."""
    lines = ["| package | fixes | entries | fixes applied | files | functions changed | compile failures | "
             "imports | second run | models compared | outputs equal |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['package']} | {r['variant']} | {r['entries']} {r['entered']} | {r['fixes']} | {r['files']} | "
                     f"{r['changed_functions']} | {len(r['rejected'])} | {'ok' if r['import_ok'] else 'FAILED'} | "
                     f"{r['second_run_fixes']} fixes | {r['models_compared']} | "
                     f"{r['models_compared'] - len(r['unequal']) - len(r['errors_differ'])}/{r['models_compared']} |")
    path = os.path.join(HERE, "README.md")
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    for marker, body in (("fixcheck", lines), ("fixmeasure", measured_lines(
            figures, sorted({r["package"] for r in rows}), before))):
        head, rest = text.split(f"<!-- {marker}:begin -->", 1)
        _, tail = rest.split(f"<!-- {marker}:end -->", 1)
        text = head + f"<!-- {marker}:begin -->\n" + "\n".join(body) + f"\n<!-- {marker}:end -->" + tail
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


if __name__ == "__main__":
    sys.exit(main())
