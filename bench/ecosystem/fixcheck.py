#!/usr/bin/env python3
"""``gblint fix`` over real packages: what it writes must compile, import, be stable and behave.

    python bench/ecosystem/fixcheck.py                       # every package, safe and unsafe fixes
    python bench/ecosystem/fixcheck.py --package diffusers --models 5

For each measured package (``spec.PACKAGES``) and each of ``gblint fix`` and
``gblint fix --unsafe-fixes``, on a copy of the installed package:

1. the fix runs with every compiled entry the truth names (``--entry module:Class``, as the
   harness's "entry given" view), so fixes land in the code those models reach;
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
from typing import Dict, List, Set, Tuple

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


def gblint_fix(root: str, pkgdir: str, entries: List[str], unsafe: bool, diff: bool) -> Tuple[int, int, str]:
    """Run ``gblint fix`` in ``root`` on ``pkgdir``; (fixes, files, output tail)."""
    cmd = [sys.executable, "-m", "gblint", "fix", "--isolated", "--no-cache", "-j", "2", "--exit-zero"]
    cmd += ["--unsafe-fixes"] if unsafe else []
    cmd += ["--diff"] if diff else []
    for e in entries:
        cmd += ["--entry", e]
    proc = subprocess.run(cmd + [pkgdir], cwd=root, capture_output=True, text=True, timeout=3600)
    m = re.search(r"(?:Applied|Would apply) (\d+) fix(?:es)? in (\d+) files?", proc.stdout + proc.stderr)
    if not m:
        raise RuntimeError(f"gblint fix said nothing countable (exit {proc.returncode}): {proc.stderr[-500:]}")
    return int(m.group(1)), int(m.group(2)), (proc.stdout + proc.stderr)[-300:]


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


def check(package: str, unsafe: bool, models: int, every_class: bool = False) -> Dict[str, object]:
    """The checks of the module docstring for one package and variant; a dict of figures.
    ``every_class``: enter every class that defines ``forward``, not only the measured models."""
    from measure import load_truth
    from score import entry_of
    from spec import PACKAGES
    pkgdir = PACKAGES[package]["follow"][0]
    src = os.path.dirname(importlib.util.find_spec(pkgdir).origin)
    truth = load_truth(package).get("models", {})
    entries = sorted({e for r in truth.values() if r.get("status") == "measured" and (e := entry_of(r))})
    work = tempfile.mkdtemp(prefix=f"gblint-fixcheck-{package}-")
    try:
        shutil.copytree(src, os.path.join(work, pkgdir), ignore=shutil.ignore_patterns("__pycache__"))
        if every_class:
            entries = forward_classes(work, pkgdir)
        fixes, files, _ = gblint_fix(work, pkgdir, entries, unsafe, diff=False)
        again, _, _ = gblint_fix(work, pkgdir, entries, unsafe, diff=True)
        rejected, changed, added, modules = [], set(), set(), []
        for dirpath, _, names in os.walk(os.path.join(work, pkgdir)):
            for n in names:
                if not n.endswith(".py"):
                    continue
                path = os.path.join(dirpath, n)
                rel = os.path.relpath(path, work)
                with open(path, "rb") as fh:
                    text = fh.read()
                try:
                    compile(text, path, "exec", dont_inherit=True)
                except SyntaxError as exc:
                    rejected.append(f"{rel}: {exc}")
                    continue
                with open(os.path.join(src, os.path.relpath(path, os.path.join(work, pkgdir))), "rb") as fh:
                    before = fh.read()
                if before != text:
                    c, a = changed_functions(before.decode("utf-8"), text.decode("utf-8"))
                    changed |= {(rel, q) for q in c}
                    added |= {(rel, q) for q in a}
                    modules.append(rel[:-3].replace(os.sep, ".").replace(".__init__", ""))
        env = dict(os.environ, PYTHONPATH=work + os.pathsep + os.environ.get("PYTHONPATH", ""))
        probe = ("import importlib, sys\n"
                 f"for m in {[pkgdir] + modules!r}:\n"
                 "    mod = importlib.import_module(m)\n"
                 f"    assert mod.__file__.startswith({work!r}), mod.__file__\n")
        imp = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=900)
        # models whose measured trace goes through a changed function
        touched = {(p, q.split(".")[-1]) for p, q in changed}
        sample = [n for n, r in sorted(truth.items()) if r.get("status") == "measured"
                  and any((p, q.split(".")[-1]) in touched for p, q, _ in r.get("traced", ()))][:models]
        unequal, errors = [], []
        if sample:
            outs = {}
            for label, root in (("original", os.path.dirname(src)), ("fixed", work)):
                out = os.path.join(work, f"{label}.pt")
                e = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""),
                         OMP_NUM_THREADS="1")
                subprocess.run([sys.executable, "-c", RUNNER, HERE, package, json.dumps(sample), out, root],
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
        return {"package": package, "variant": "unsafe" if unsafe else "safe", "entries": len(entries),
                "entered": "classes with forward" if every_class else "measured models",
                "fixes": fixes, "files": files,
                "changed_functions": len(changed), "added_functions": len(added), "rejected": rejected,
                "import_ok": imp.returncode == 0, "import_error": imp.stderr[-400:] if imp.returncode else "",
                "second_run_fixes": again, "models_compared": len(sample), "unequal": unequal,
                "errors_differ": errors}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv=None) -> int:
    from spec import PACKAGES
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--package", action="append", choices=sorted(PACKAGES))
    ap.add_argument("--models", type=int, default=10, help="models compared per package and variant")
    ap.add_argument("--every-class", action="append", default=[], choices=sorted(PACKAGES), metavar="PACKAGE",
                    help="for PACKAGE, enter every class that defines forward (more code reached, more fixes), "
                         "not only the measured models (repeatable)")
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--readme", action="store_true", help="write the table into README.md beside this file")
    a = ap.parse_args(argv)
    rows, bad = [], False
    for package in a.package or list(PACKAGES):
        for unsafe in (False, True):
            r = check(package, unsafe, a.models, package in a.every_class)
            rows.append(r)
            ok = (not r["rejected"] and r["import_ok"] and r["second_run_fixes"] == 0 and not r["unequal"]
                  and not r["errors_differ"])
            bad |= not ok
            print(f"{package:16} {r['variant']:6} {r['entries']:4} entries, fixes {r['fixes']:3} in {r['files']:3} files, "
                  f"{r['changed_functions']} functions changed (+{r['added_functions']} helpers); "
                  f"compile failures {len(r['rejected'])}; import {'ok' if r['import_ok'] else 'FAILED'}; "
                  f"second run {r['second_run_fixes']} fixes; models compared {r['models_compared']}, "
                  f"unequal {len(r['unequal'])}, errors differ {len(r['errors_differ'])}"
                  + ("" if ok else "  <-- FAIL " + json.dumps({k: r[k] for k in
                     ("rejected", "import_error", "unequal", "errors_differ")})), flush=True)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    if a.readme:
        write_readme(rows)
    return 1 if bad else 0


def write_readme(rows: List[Dict[str, object]]) -> None:
    """Put the figures between ``<!-- fixcheck:begin/end -->`` in README.md beside this file."""
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
    head, rest = text.split("<!-- fixcheck:begin -->", 1)
    _, tail = rest.split("<!-- fixcheck:end -->", 1)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(head + "<!-- fixcheck:begin -->\n" + "\n".join(lines) + "\n<!-- fixcheck:end -->" + tail)


if __name__ == "__main__":
    sys.exit(main())
