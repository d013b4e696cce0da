#!/usr/bin/env python3
"""Profile one gblint run with cProfile and print its hotspots, grouped three ways.

Usage (from the repository root)::

    python3 bench/prof.py [--top N] [--out FILE.prof] [--keep-cache] PATH...
    python3 bench/prof.py models                                # the models corpus (bench/corpus.py fetches it)
    python3 bench/prof.py bench/.corpus/generated/big_20k.py    # made by bench/run.py --corpus big

A PATH named ``models`` (and no such file or folder exists) is the models corpus of
bench/corpus.json, fetched and sha256-checked by bench/corpus.py into bench/.corpus/models.

It runs ``gblint check --format json --isolated --no-cache --jobs 1 PATH...`` under cProfile in
the project's interpreter (in the main thread: gblint's deep-stack helper thread is bypassed, since
cProfile sees one thread), then prints:

- the top functions by cumulative and by own time (``tottime``);
- own time summed per source file (gblint/*, rules/*, libcst/*, ...), which tells parse (libcst's
  native parser: ``libcst/_parser`` and the Rust extension), metadata (``libcst/metadata``),
  libcst's tree walk (``libcst/_nodes``, ``_visitors``) and gblint's own code apart.

cProfile slows pure-Python code more than native code, so read the shares, not the seconds.

``--phases`` runs gblint once more without the profiler, in one process, with timers wrapped
around its phases (by patching names in ``gblint.project.engine`` and libcst from outside: gblint's
code is not changed) and prints the wall and CPU time of each, exclusive (a phase's time leaves
out the timed phases it calls: the parse inside ``fixes`` counts as parse):

    triage        ``_lazy_candidate``: read + ``ast.parse`` of files that declare no region (they
                  are parsed with libcst only if a region reaches them)
    parse         ``parse_source`` (libcst ``parse_module``)
    positions (ast)     ``AstPositions`` + ``SummaryBuilder.fill_positions`` (where gblint has them:
                        positions from CPython's ast, matched to libcst nodes)
    positions (libcst)  libcst ``_resolve_impl`` (``PositionProvider``; gblint's fallback, or its
                        only source of positions before ``gblint/syntax/positions.py``)
    walk+rules    ``run_deep(...visit)``: libcst's walk with gblint's ``SummaryBuilder`` and rules
                  as the visitor
    fixes         ``attach_fixes`` (json/sarif output: fixes re-parse the files concerned)
    index         ``Project(...)``
    regions       ``find_regions``
    consequences  ``Consequences.walk``
    rest          everything else (start-up, imports, file discovery, noqa, output)
"""
from __future__ import annotations

import argparse
import collections
import os
import pstats
import shlex
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def group(filename: str) -> str:
    f = filename.replace(os.sep, "/")
    if f.startswith("~") or f.startswith("<"):
        return "builtins / native"
    for key in ("/gblint/", "/rules/"):
        if key in f:
            return key.strip("/") + "/" + f.rsplit("/", 1)[-1]
    if "/libcst/" in f:
        tail = f.split("/libcst/", 1)[1]
        return "libcst/" + ("/".join(tail.split("/")[:2]) if tail.startswith(("metadata/", "_parser/", "_nodes/"))
                            else tail.split("/")[0])
    if "/site-packages/" in f:
        return f.split("/site-packages/", 1)[1].split("/")[0]
    if "/lib/python3" in f:
        return "stdlib/" + f.rsplit("/", 1)[-1]
    return f


# gblint runs libcst in a helper thread with a deep stack (gblint.core.source.run_deep); cProfile sees
# only the main thread, so the profiled run calls it directly (model code is never that deep).
SAME_THREAD = r"""
import sys
try:
    import gblint.core.source as _s
    if hasattr(_s, "_local"):
        _s._local.deep = True
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
except ImportError:
    pass
"""

PROFILE = SAME_THREAD + r"""
import cProfile, io, contextlib
from gblint.frontends import cli
out = sys.argv.pop(1)
prof = cProfile.Profile()
with contextlib.redirect_stdout(io.StringIO()):
    rc = prof.runcall(cli.main, sys.argv[1:])
prof.dump_stats(out)
sys.exit(0 if rc in (0, 1) else rc)
"""

PHASES = r"""
import collections, sys, time
pc = time.perf_counter
T0 = pc()
import libcst.metadata.wrapper as W
from gblint.project import engine
from gblint.frontends import cli
C0 = time.process_time()
T = collections.OrderedDict((k, 0.0) for k in ("triage", "parse", "positions (ast)", "positions (libcst)", "visit",
                                                 "index", "regions", "consequences", "fixes"))
C = collections.OrderedDict((k, 0.0) for k in T)
STACK = []  # exclusive timing: a phase's time excludes the timed phases it calls
def timed(name, fn):
    def w(*a, **k):
        t, c = pc(), time.process_time()
        STACK.append([0.0, 0.0])
        try:
            return fn(*a, **k)
        finally:
            dt, dc = pc() - t, time.process_time() - c
            inner = STACK.pop()
            T[name] += dt - inner[0]
            C[name] += dc - inner[1]
            if STACK:
                STACK[-1][0] += dt
                STACK[-1][1] += dc
    return w
if hasattr(engine, "_lazy_candidate"):
    engine._lazy_candidate = timed("triage", engine._lazy_candidate)
engine.parse_source = timed("parse", engine.parse_source)
W._resolve_impl = timed("positions (libcst)", W._resolve_impl)
if hasattr(engine, "AstPositions"):
    engine.AstPositions = timed("positions (ast)", engine.AstPositions)
    from gblint.syntax import summary as _summary
    if hasattr(_summary.SummaryBuilder, "fill_positions"):
        _summary.SummaryBuilder.fill_positions = timed("positions (ast)", _summary.SummaryBuilder.fill_positions)
engine.run_deep = timed("visit", engine.run_deep)
engine.Project = timed("index", engine.Project)
engine.find_regions = timed("regions", engine.find_regions)
engine.Consequences.walk = timed("consequences", engine.Consequences.walk)
engine.attach_fixes = timed("fixes", engine.attach_fixes)
import io, contextlib
with contextlib.redirect_stdout(io.StringIO()):
    rc = cli.main(sys.argv[1:])
total, ctotal = pc() - T0, time.process_time() - C0
for D, tot in ((T, total), (C, ctotal)):
    D["walk+rules"] = D.pop("visit")
    D["rest (imports, discovery, noqa, output)"] = tot - sum(D.values())
print("| phase | wall s | CPU s | % of CPU |")
print("|---|---:|---:|---:|")
for k, v in T.items():
    print(f"| {k} | {v:.2f} | {C[k]:.2f} | {100 * C[k] / ctotal:.0f} |")
print(f"| total (in process, after interpreter start) | {total:.2f} | {ctotal:.2f} | 100 |")
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="cProfile one gblint run")
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--out", help="keep the .prof file here (default: a temporary file)")
    ap.add_argument("--keep-cache", action="store_true", help="do not pass --no-cache")
    venv_python = os.path.join(REPO, ".venv", "bin", "python")
    ap.add_argument("--python", default=venv_python if os.path.exists(venv_python) else sys.executable,
                    help="interpreter that runs gblint (default: the project's .venv, else this one)")
    ap.add_argument("--phases", action="store_true", help="time gblint's phases without the profiler (no cProfile)")
    ap.add_argument("--every-file", action="store_true",
                    help="name every file as an --entry (all files analysed), as run.py's 'every file' row does")
    ap.add_argument("--gblint-args", default="", help="extra gblint arguments (quoted string)")
    args = ap.parse_args(argv)
    if "models" in args.paths and not os.path.exists("models"):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import corpus as pinned
        try:
            root = pinned.fetch("models")
        except pinned.CorpusError as e:
            print(f"models corpus: {e}", file=sys.stderr)
            return 2
        args.paths = [root if p == "models" else p for p in args.paths]

    out = args.out or tempfile.mktemp(suffix=".prof")
    help_text = subprocess.run([args.python, "-m", "gblint", "check", "--help"], capture_output=True, text=True).stdout
    extra = ["--isolated"] if "--isolated" in help_text else []
    if not args.keep_cache and "--no-cache" in help_text:
        extra.append("--no-cache")
    if "--jobs" in help_text:
        extra += ["--jobs", "1"]  # everything in this process
    extra += shlex.split(args.gblint_args)
    if args.every_file:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import run as bench_run
        files = [f for p in args.paths for f in bench_run.py_files(p)]
        extra += bench_run.entry_args(files)
    if args.phases:
        cmd = [args.python, "-c", SAME_THREAD + PHASES, "check", "--format", "json", *extra, *args.paths]
        print("$ python -c PHASES " + " ".join(a for a in cmd[3:])[:300], file=sys.stderr)
        return subprocess.run(cmd).returncode
    cmd = [args.python, "-c", PROFILE, out, "check", "--format", "json", *extra, *args.paths]
    print("$ python -c PROFILE " + " ".join(a for a in cmd[3:] if not a.startswith("--entry"))[:300], file=sys.stderr)
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        print(p.stderr, file=sys.stderr)
        return p.returncode
    st = pstats.Stats(out)
    total = st.total_tt
    print(f"total {total:.2f} s under cProfile ({out})\n")
    for key, title in (("cumulative", "cumulative"), ("tottime", "own time (tottime)")):
        print(f"## top {args.top} by {title}\n")
        print("| function | calls | tottime s | cumtime s | cum % |")
        print("|---|---:|---:|---:|---:|")
        rows = sorted(st.stats.items(), key=lambda kv: kv[1][3] if key == "cumulative" else kv[1][2], reverse=True)
        for (fn, line, name), (cc, nc, tt, ct, _) in rows[:args.top]:
            where = group(fn) if not fn.startswith("~") else "native"
            print(f"| `{where}:{line}({name})` | {nc:,} | {tt:.2f} | {ct:.2f} | {100 * ct / total:.0f} |")
        print()
    print(f"## top {args.top} gblint / rules functions by cumulative time\n")
    print("| function | calls | tottime s | cumtime s | cum % |")
    print("|---|---:|---:|---:|---:|")
    own = [kv for kv in st.stats.items() if group(kv[0][0]).startswith(("gblint/", "rules/"))
           and kv[0][2] not in ("<module>",) and not group(kv[0][0]).startswith(("gblint/cli", "gblint/__main__"))]
    for (fn, line, name), (cc, nc, tt, ct, _) in sorted(own, key=lambda kv: kv[1][3], reverse=True)[:args.top]:
        print(f"| `{group(fn)}:{line}({name})` | {nc:,} | {tt:.2f} | {ct:.2f} | {100 * ct / total:.0f} |")
    print()
    hot_builtins = [kv for kv in st.stats.items() if kv[0][0] == "~" or "contextlib" in kv[0][0]
                    or "abc.py" in kv[0][0]]
    print("## callers of the busiest built-ins and helpers (own time of the callee, per caller)\n")
    print("| callee | caller | calls | tottime s |")
    print("|---|---|---:|---:|")
    for (fn, line, name), (cc, nc, tt, ct, callers) in sorted(hot_builtins, key=lambda kv: kv[1][2], reverse=True)[:6]:
        for (cfn, cline, cname), edge in sorted(callers.items(), key=lambda kv: kv[1][2], reverse=True)[:4]:
            print(f"| `{name}` | `{group(cfn)}:{cline}({cname})` | {edge[1]:,} | {edge[2]:.2f} |")
    print()
    by = collections.Counter()
    for (fn, line, name), (cc, nc, tt, ct, _) in st.stats.items():
        g = group(fn)
        if fn == "~":  # built-in functions: name the native parser apart
            g = "libcst native parser" if "libcst" in name or "parse_module" in name else "builtins / native"
        by[g] += tt
    print("## own time per file / package\n")
    print("| where | tottime s | % |")
    print("|---|---:|---:|")
    for g, tt in by.most_common(args.top):
        print(f"| {g} | {tt:.2f} | {100 * tt / total:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
