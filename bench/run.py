#!/usr/bin/env python3
"""Benchmark gblint against the tools PyTorch users have: whole-process wall time, CPU, peak memory.

Usage (from the repository root; any Python 3.9+ runs this script, it imports nothing outside
the standard library; the models corpus is downloaded once, see bench/corpus.py)::

    python3 bench/run.py                          # corpora models + big, every tool, 5 runs each
    python3 bench/run.py --corpus models --runs 3
    python3 bench/run.py --corpus torch           # the installed torch package: 1 run, fast tools only
    python3 bench/run.py --corpus torch --torch-tools all      # ... with flake8+TorchFix and Fixit (~15 min more)
    python3 bench/run.py --corpus cmi             # torch's common_methods_invocations.py (27,820 lines)
    python3 bench/run.py --corpus path/to/dir_or_file.py
    python3 bench/run.py --tools gblint,libcst --runs 9        # only these rows
    python3 bench/run.py --skip-slow              # leave out flake8+TorchFix and Fixit everywhere
    python3 bench/run.py --gblint-jobs 1,2        # a gblint row per -j value (skipped with a note if gblint has no --jobs)
    python3 bench/run.py --gblint-cache both      # cold and warm-cache gblint rows (warm: skipped with a note if unsupported)
    python3 bench/run.py --gblint-args "--nested-graph-breaks"  # extra arguments for every gblint row
    python3 bench/run.py --gblint-variant "no-hints=--no-hints" # an extra gblint row: LABEL=ARGS
    python3 bench/run.py --json out.json --markdown out.md      # raw data and the tables to files too
    python3 bench/run.py --render out.json                      # print the tables of an earlier --json again

Setup (once; the competitors live outside the project's venv)::

    python3 -m venv /work/bench-venv
    /work/bench-venv/bin/pip install flake8 torchfix fixit ruff   # TorchFix pins libcst<1.6 (1.5.1)

Rows (``--tools``, comma-separated; default all):

  gblint            ``gblint check --format json --isolated FILES`` (the project's venv: ``--gblint``);
                    cold (``--no-cache``) unless ``--gblint-cache warm``; ``--jobs 1`` when gblint
                    has ``--jobs`` (``--gblint-jobs 1,2`` for more rows). Plus a row "every file an
                    --entry" (``--no-every-file`` leaves it out): ``--entry MODULE:QUALNAME`` for
                    every file (its first class with a ``forward``, else its first function), so
                    that gblint analyses every file as if a compiled region reached it; without
                    it gblint only syntax-checks (``ast``) the files no region reaches
  flake8-torchfix   ``flake8 --isolated --select TOR -j1 FILES`` (slow)
  fixit             ``fixit lint FILES`` with its default rules, serial: Fixit has no option for
                    that, so a one-line wrapper sets trailrunner's executor to one thread (slow)
  ruff              ``ruff check --isolated --select ALL --no-cache --exit-zero --output-format
                    concise FILES`` with ``RAYON_NUM_THREADS=1``
  ast               ``python bench/floor.py ast FILES``: ``ast.parse`` of every file
  libcst            ``python bench/floor.py parse FILES``: ``libcst.parse_module`` of every file
  libcst+pos        ``python bench/floor.py pos FILES``: parse + ``MetadataWrapper(...,
                    unsafe_skip_copy=True)`` + ``resolve(PositionProvider)`` + one no-op
                    ``visit`` (what gblint does before its own rules; the phase split is reported)

The floor rows run with the project's interpreter (``--floor-python``), i.e. the same Python and
libcst gblint runs on. Every tool gets the same explicit list of ``.py`` files (sorted), so
their own exclusion rules (``site-packages``, ``.venv``, .gitignore) do not change the input;
each process runs with a scratch directory as its working directory.

Corpora (``--corpus``, comma-separated; default ``models,big``):

  models  vit-pytorch 1.26.14 and x-transformers 2.31.10 (MIT): the package folders of their
          PyPI wheels, fetched at bench time by bench/corpus.py (pinned in bench/corpus.json,
          sha256-checked, cached in bench/.corpus/models/): 108 files, 33,708 lines (5 runs)
  big     one ~20,000-line file made by concatenating models files (x_transformers first),
          written to bench/.corpus/generated/ (git-ignored)                         (5 runs)
  cmi     torch/testing/_internal/common_methods_invocations.py (27,820 lines) of the
          installed torch                                                           (3 runs)
  torch   every .py file of the installed torch package (~2,300 files, ~1.2M lines) (1 run;
          ``--torch-tools``, default gblint,ruff,ast,libcst,libcst+pos: flake8+TorchFix takes
          ~5 minutes a run there, Fixit ~8)
  PATH    any file or folder

Method: one untimed warm-up of every tool on a small file (bytecode, imports) and a read of every
corpus file (page cache); then ``--runs`` rounds, each running every tool once, in order. Each
run is its own child process, timed from outside (``time.perf_counter`` around ``Popen`` and
``os.wait4``); CPU (user+sys) and peak memory ("Maximum resident set size": the largest process
of the tree, not a sum) come from ``/usr/bin/time`` wrapped around the tool where it exists, else
from ``wait4``'s rusage (which can include this script's own peak, inherited through ``fork``). Reported: medians over rounds, lines/s = lines / median wall, and ratios
taken within each round (tool / flake8+TorchFix, tool / libcst parse) and then their median,
which survives a noisy, shared machine better than comparing medians; CPU ratios divide median
CPU times, the steadiest numbers on a busy machine. The machine, tool
versions, the gblint commit and the load average before and after are printed with the tables.
"""
from __future__ import annotations

import argparse
import datetime
import glob
import json
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
FLOOR = os.path.join(BENCH, "floor.py")
if BENCH not in sys.path:
    sys.path.insert(0, BENCH)
import corpus as pinned  # noqa: E402  (bench/corpus.py: the fetched, sha256-checked corpora)

ALL_TOOLS = ["gblint", "flake8-torchfix", "fixit", "ruff", "ast", "libcst", "libcst+pos"]
SLOW_TOOLS = {"flake8-torchfix", "fixit"}
DEFAULT_RUNS = {"models": 5, "big": 5, "cmi": 3, "torch": 1}
DEFAULT_TORCH_TOOLS = "gblint,ruff,ast,libcst,libcst+pos"
LABELS = {"flake8-torchfix": "flake8 + TorchFix", "fixit": "Fixit (default rules)",
          "ruff": "ruff --select ALL", "ast": "ast.parse", "libcst": "libcst parse",
          "libcst+pos": "libcst parse + PositionProvider + visit"}

FIXIT_SERIAL = ("import functools, sys, concurrent.futures as cf, trailrunner.core as tc; "
                "tc.Trailrunner.DEFAULT_EXECUTOR = functools.partial(cf.ThreadPoolExecutor, 1); "
                "from fixit.cli import main; sys.argv[0] = 'fixit'; sys.exit(main())")


# ------------------------------------------------------------------ corpora

def count_lines(path: str) -> int:
    with open(path, "rb") as fh:
        data = fh.read()
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def py_files(root: str):
    if os.path.isfile(root):
        return [os.path.abspath(root)]
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        out.extend(os.path.abspath(os.path.join(d, f)) for f in sorted(files) if f.endswith(".py"))
    return out


def make_big(models: str, out_dir: str, target_lines: int = 20000) -> str:
    """Concatenate the models corpus (root folder ``models``) into one file of at least
    ``target_lines`` lines, written to ``out_dir`` (deterministic); return its path."""
    files = py_files(models)
    # the largest real model first, then the rest of x_transformers, then vit_pytorch
    files.sort(key=lambda p: (not p.endswith("x_transformers/x_transformers.py"), "vit_pytorch" in p, p))
    future, body, n = [], [], 0
    for p in files:
        with open(p, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
        keep = []
        for line in lines:
            if line.startswith("from __future__ import"):
                if line not in future:
                    future.append(line)
            else:
                keep.append(line)
        body.append(f"# ---- {os.path.relpath(p, models)} ----")
        body.extend(keep)
        n += len(keep) + 1
        if n >= target_lines:
            break
    header = ["# Generated by bench/run.py from the models corpus (vit-pytorch and x-transformers,",
              "# MIT License, Copyright (c) 2020 Phil Wang; see the LICENSE files there). Do not edit."]
    text = "\n".join(header + future + body) + "\n"
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, f"big_{target_lines // 1000}k.py")
    if not os.path.exists(out) or open(out, encoding="utf-8").read() != text:
        with open(out, "w", encoding="utf-8") as fh:
            fh.write(text)
    return out


def torch_dir(python: str) -> str:
    hits = sorted(glob.glob(os.path.join(REPO, ".venv", "lib", "python3*", "site-packages", "torch")))
    if hits:
        return hits[0]
    code = "import importlib.util as u; s = u.find_spec('torch'); print(list(s.submodule_search_locations)[0])"
    return subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def torch_version(python: str):
    """The installed torch's version, read from its metadata with ``python`` (torch is not imported)."""
    code = "import importlib.metadata as m; print(m.version('torch'))"
    p = subprocess.run([python, "-c", code], capture_output=True, text=True)
    return p.stdout.strip() or None


def fetch_models(args) -> str:
    """The models corpus root, fetched (or found in the cache) by bench/corpus.py; exits on failure."""
    try:
        return pinned.fetch("models", cache=args.corpus_cache, offline=args.offline)
    except pinned.CorpusError as e:
        raise SystemExit(f"models corpus: {e}")


def resolve_corpus(name: str, args) -> dict:
    """Files, line and byte counts of a named corpus (models, big, cmi, torch) or of a path."""
    if name == "models":
        files = py_files(fetch_models(args))
    elif name == "big":
        files = [make_big(fetch_models(args), os.path.join(pinned.cache_dir(args.corpus_cache), "generated"),
                          args.big_lines)]
    elif name == "cmi":
        files = [os.path.join(torch_dir(args.floor_python), "testing", "_internal", "common_methods_invocations.py")]
    elif name == "torch":
        files = py_files(torch_dir(args.floor_python))
    elif os.path.exists(name):
        files = py_files(name)
    else:
        raise SystemExit(f"unknown corpus {name!r}: models, big, cmi, torch or an existing path")
    if not files:
        raise SystemExit(f"corpus {name!r} has no .py files")
    return {"name": name, "files": files, "n_files": len(files), "lines": sum(count_lines(f) for f in files),
            "bytes": sum(os.path.getsize(f) for f in files)}


# ------------------------------------------------------------------ gblint variants

def module_name(path: str) -> str:
    """Dotted module name, as gblint finds it: up through the folders that have an __init__.py."""
    directory, filename = os.path.split(os.path.abspath(path))
    stem = os.path.splitext(filename)[0]
    parts = [] if stem == "__init__" else [stem]
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        directory, pkg = os.path.split(directory)
        if not pkg:
            break
        parts.insert(0, pkg)
    return ".".join(parts)


def entry_args(files) -> list:
    """``--entry MODULE:QUALNAME`` for every file, so that gblint analyses every file as if a compiled
    region reached it: the first top-level class with a ``forward``, else the first top-level
    function, else a name that does not exist (the module is still analysed)."""
    import ast
    out = []
    for f in files:
        name = "_gblint_bench_no_entry"
        try:
            with open(f, "rb") as fh:
                tree = ast.parse(fh.read())
            classes = [n for n in tree.body if isinstance(n, ast.ClassDef)
                       and any(isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)) and b.name == "forward"
                               for b in n.body)]
            funcs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
            if classes:
                name = classes[0].name
            elif funcs:
                name = funcs[0].name
        except (SyntaxError, ValueError, RecursionError, MemoryError, OSError):
            pass
        out += ["--entry", f"{module_name(f)}:{name}"]
    return out


def gblint_help(gblint: str) -> str:
    try:
        p = subprocess.run([gblint, "check", "--help"], capture_output=True, text=True, timeout=120)
        return p.stdout + p.stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"<could not run {gblint}: {e}>"


def supports(help_text: str, flag: str) -> bool:
    return re.search(r"(^|[\s,\[(])" + re.escape(flag) + r"([\s,=\])]|$)", help_text, re.M) is not None


def unsupported_flags(help_text: str, argv) -> list:
    return [a.split("=", 1)[0] for a in argv if a.startswith("-") and not supports(help_text, a.split("=", 1)[0])]


def gblint_variants(args, help_text: str, notes: list) -> list:
    """Each gblint row: {label, args, cache: None|'cold'|'warm', cache_dir}."""
    extra = shlex.split(args.gblint_args or "")
    bad = unsupported_flags(help_text, extra)
    if bad:
        notes.append(f"gblint rows skipped: this gblint does not support {', '.join(bad)} (from --gblint-args)")
        return []
    jobs_flag = "--jobs" if supports(help_text, "--jobs") else ("-j" if supports(help_text, "-j") else None)
    caches = ["cold", "warm"] if args.gblint_cache == "both" else [args.gblint_cache]
    has_no_cache, has_cache_dir = supports(help_text, "--no-cache"), supports(help_text, "--cache-dir")
    base = ["--format", "json"] + (["--isolated"] if supports(help_text, "--isolated") else [])
    def cold():
        if has_no_cache:
            return ["--no-cache"], "cold"
        if has_cache_dir:
            return [], "cold-dir"  # a fresh empty --cache-dir for every run
        return [], None  # no cache at all: every run is cold

    out = []
    for jobs in [j.strip() for j in args.gblint_jobs.split(",") if j.strip()]:
        jargs = []
        if jobs_flag:
            jargs = [jobs_flag, jobs]
        elif jobs != "1":
            notes.append(f"gblint -j {jobs} skipped: this gblint has no --jobs option")
            continue
        for cache in caches:
            if cache == "cold":
                cargs, cache_mode = cold()
            else:
                cargs = []
                if not (has_cache_dir or has_no_cache):
                    notes.append("gblint warm-cache row skipped: this gblint has no cache options "
                                 "(--cache-dir / --no-cache)")
                    continue
                cache_mode = "warm-dir" if has_cache_dir else "warm-default"
            label = "gblint" + (f" -j{jobs}" if jobs_flag else "") + ("" if cache == "cold" else " (warm cache)")
            out.append({"label": label, "args": base + jargs + cargs + extra, "cache": cache_mode})
            if args.gblint_every_file and cache == "cold":
                if supports(help_text, "--entry"):
                    out.append({"label": label + ", every file an --entry", "args": base + jargs + cargs + extra,
                                "cache": cache_mode, "entries": True})
                elif jobs == "1" or not jobs_flag:
                    notes.append("'every file an --entry' row skipped: this gblint has no --entry option")
    for spec in args.gblint_variant or []:
        label, _, rest = spec.partition("=")
        vargs = shlex.split(rest)
        bad = unsupported_flags(help_text, vargs)
        if bad:
            notes.append(f"gblint row {label!r} skipped: this gblint does not support {', '.join(bad)}")
            continue
        cargs, cache_mode = cold()
        if any(a in vargs for a in ("--cache-dir", "--no-cache")):
            cargs, cache_mode = [], None  # the variant says what it wants
        out.append({"label": f"gblint {label}", "args": base + cargs + vargs + extra, "cache": cache_mode})
    if not jobs_flag:
        notes.append("gblint has no --jobs option yet: its rows run its default (one process)")
    return out


# ------------------------------------------------------------------ running

def code_stamp():
    """Sizes and mtimes of gblint's code: gblint's cache key includes them, so an edit empties the cache."""
    out = []
    for d in ("gblint", "rules"):
        for f in sorted(glob.glob(os.path.join(REPO, d, "**", "*.py"), recursive=True)):
            try:
                st = os.stat(f)
                out.append((f, st.st_size, st.st_mtime_ns))
            except OSError:
                pass
    return tuple(out)


class Runner:
    def __init__(self, args, scratch: str):
        self.args = args
        self.scratch = scratch
        self.venv_bin = os.path.join(args.tools_venv, "bin")
        self.entries = {}  # files -> --entry arguments (computed once per corpus)

    def command(self, tool: str, files, variant=None, cache_dir=None):
        """(argv, env) for one tool over ``files``."""
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # as users run: bytecode cached (written during the warm-up)
        if tool == "gblint":
            argv = [self.args.gblint, "check", *variant["args"]]
            if variant["cache"] in ("cold-dir", "warm-dir"):
                argv += ["--cache-dir", cache_dir]
            if variant.get("entries"):
                argv += self.entries.get(tuple(files)) or (entry_args(files) if files != ["FILES"] else ["ENTRIES"])
            env["XDG_CACHE_HOME"] = cache_dir or os.path.join(self.scratch, "xdg")
            return argv + list(files), env
        if tool == "flake8-torchfix":
            return [os.path.join(self.venv_bin, "flake8"), "--isolated", "--select", "TOR", "-j1", *files], env
        if tool == "fixit":
            return [os.path.join(self.venv_bin, "python"), "-c", FIXIT_SERIAL, "lint", *files], env
        if tool == "ruff":
            env["RAYON_NUM_THREADS"] = "1"
            return [os.path.join(self.venv_bin, "ruff"), "check", "--isolated", "--select", "ALL", "--no-cache",
                    "--exit-zero", "--output-format", "concise", *files], env
        mode = {"ast": "ast", "libcst": "parse", "libcst+pos": "pos"}[tool]
        return [self.args.floor_python, FLOOR, mode, *files], env

    def run(self, argv, env):
        out_path = os.path.join(self.scratch, "stdout")
        timing = os.path.join(self.scratch, "time.txt")
        if TIME:  # measure through /usr/bin/time: its child is forked from a small process, so the
            # peak RSS is the tool's own (a child forked from this process could inherit our RSS peak)
            argv = [TIME, "-f", "%e %U %S %M", "-o", timing, "--", *argv]
            if os.path.exists(timing):
                os.unlink(timing)
        t0 = time.perf_counter()
        with open(out_path, "wb") as out, open(os.path.join(self.scratch, "stderr"), "wb") as err:
            p = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env, cwd=self.scratch)
            deadline = t0 + self.args.timeout
            try:
                while True:
                    pid, status, ru = os.wait4(p.pid, os.WNOHANG)
                    if pid:
                        break
                    if time.perf_counter() > deadline:
                        p.kill()
                        pid, status, ru = os.wait4(p.pid, 0)
                        break
                    time.sleep(0.005)
            except BaseException:  # interrupted: take the child down with us
                p.kill()
                os.wait4(p.pid, 0)
                raise
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status >> 8
        with open(out_path, "rb") as fh:
            stdout = fh.read()
        with open(os.path.join(self.scratch, "stderr"), "rb") as fh:
            stderr = fh.read()
        cpu, rss_mb = ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0
        if TIME:
            try:
                with open(timing) as fh:
                    last = fh.read().strip().splitlines()[-1].split()
                cpu, rss_mb = float(last[1]) + float(last[2]), int(last[3]) / 1024.0
            except (OSError, IndexError, ValueError):
                pass  # killed, or time printed no line: keep wait4's numbers
            if p.returncode != 0 and stderr.startswith(b"Command exited with non-zero status"):
                stderr = stderr.split(b"\n", 1)[-1]
        return {"wall": wall, "cpu": cpu, "rss_mb": rss_mb,
                "rc": p.returncode, "timed_out": wall >= self.args.timeout, "stdout": stdout, "stderr": stderr}


TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None

OK_RC = {"gblint": {0, 1}, "flake8-torchfix": {0, 1}, "fixit": {0, 1}, "ruff": {0}, "ast": {0}, "libcst": {0},
         "libcst+pos": {0}}


def prime(runner, row, files):
    row["stamp"] = code_stamp()
    argv, env = runner.command("gblint", files, row["variant"], row["cache_dir"])
    r = runner.run(argv, env)
    print(f"  primed the cache of {row['label']}: {r['wall']:.2f}s", file=sys.stderr)


def bench_corpus(corpus, rows, runner: Runner, runs: int, notes: list) -> dict:
    stamp = code_stamp()
    files = corpus["files"]
    listed = os.path.join(runner.scratch, "files.txt")
    with open(listed, "w", encoding="utf-8") as fh:
        fh.write("\n".join(files) + "\n")
    for f in files:  # page cache
        with open(f, "rb") as fh:
            fh.read()
    small = min(files, key=os.path.getsize)
    if any(r.get("variant", {}).get("entries") for r in rows):
        runner.entries[tuple(files)] = entry_args(files)
        runner.entries[(small,)] = entry_args([small])
    cache_root = os.path.join(runner.scratch, "gblint-cache")
    for row in rows:  # warm-up: bytecode, imports; and the warm cache
        argv, env = runner.command(row["tool"], [small], row.get("variant"), os.path.join(cache_root, "warmup"))
        runner.run(argv, env)
        if row.get("variant") and row["variant"]["cache"] in ("warm-dir", "warm-default"):
            row["cache_dir"] = os.path.join(cache_root, "warm-" + re.sub(r"\W", "_", row["label"]))
            prime(runner, row, files)
    for row in rows:
        row["runs"] = []
    for i in range(runs):
        for row in rows:
            if row.get("stamp") is not None and row["stamp"] != code_stamp():
                notes.append(f"{corpus['name']}: gblint's code changed during the benchmark (others edit it): "
                             f"the cache of {row['label']} was primed again before run {i + 1}")
                prime(runner, row, files)
            cache_dir = row.get("cache_dir")
            if row.get("variant") and row["variant"]["cache"] == "cold-dir":
                cache_dir = os.path.join(cache_root, f"cold-{i}-{len(row['runs'])}")
            argv, env = runner.command(row["tool"], files, row.get("variant"), cache_dir)
            r = runner.run(argv, env)
            rec = {k: r[k] for k in ("wall", "cpu", "rss_mb", "rc", "timed_out")}
            if r["timed_out"] or r["rc"] not in OK_RC[row["tool"]]:
                tail = r["stderr"].decode("utf-8", "replace").strip().splitlines()[-3:]
                note = f"{row['label']}: run {i + 1} exited {r['rc']}{' (timed out)' if r['timed_out'] else ''}"
                notes.append(note + (": " + " | ".join(tail) if tail else ""))
            if row["tool"] in ("ast", "libcst", "libcst+pos"):
                try:
                    rec["floor"] = json.loads(r["stdout"].decode().strip().splitlines()[-1])
                except (ValueError, IndexError):
                    pass
            if row["tool"] == "gblint" and i == 0:
                try:
                    rep = json.loads(r["stdout"])
                    rec["report"] = {"files_checked": rep.get("files_checked"),
                                     "diagnostics": len(rep.get("diagnostics", [])),
                                     "errors": len(rep.get("errors", []))}
                    codes = {}
                    for d in rep.get("diagnostics", []):
                        codes[d.get("code")] = codes.get(d.get("code"), 0) + 1
                    rec["report"]["codes"] = dict(sorted(codes.items()))
                except ValueError:
                    rec["report"] = {"unparsable_output": r["stdout"][:200].decode("utf-8", "replace")}
            if row["tool"] == "flake8-torchfix" and i == 0:
                rec["findings"] = r["stdout"].count(b"\n")
            row["runs"].append(rec)
            print(f"  [{corpus['name']} {i + 1}/{runs}] {row['label']:<28} {r['wall']:8.2f}s  cpu {r['cpu']:7.2f}s"
                  f"  {r['rss_mb']:7.0f} MB  rc={r['rc']}", file=sys.stderr)
    if code_stamp() != stamp:
        notes.append(f"{corpus['name']}: gblint's code (gblint/, rules/) changed while this corpus ran: "
                     f"its gblint runs may come from different versions")
    return summarize(corpus, rows, runs)


def _median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def summarize(corpus, rows, runs) -> dict:
    by_tool = {r["label"]: r for r in rows}
    ref = {"flake8-torchfix": by_tool.get(LABELS["flake8-torchfix"]), "libcst": by_tool.get(LABELS["libcst"]),
           "libcst+pos": by_tool.get(LABELS["libcst+pos"])}
    result = {"corpus": corpus["name"], "files": corpus["n_files"], "lines": corpus["lines"], "bytes": corpus["bytes"],
              "runs": runs, "rows": []}
    for row in rows:
        walls = [r["wall"] for r in row["runs"]]
        med = _median(walls)
        s = {"label": row["label"], "tool": row["tool"], "command": row["command"], "wall_median": med,
             "wall_min": min(walls) if walls else None, "cpu_median": _median([r["cpu"] for r in row["runs"]]),
             "rss_mb_max": max((r["rss_mb"] for r in row["runs"]), default=None),
             "lines_per_s": corpus["lines"] / med if med else None, "walls": walls,
             "cpus": [r["cpu"] for r in row["runs"]],
             "rcs": sorted({r["rc"] for r in row["runs"]})}
        for key, other in ref.items():
            if other is not None and other is not row and other.get("runs"):
                ratios = [a["wall"] / b["wall"] for a, b in zip(row["runs"], other["runs"]) if b["wall"] > 0]
                s[f"ratio_vs_{key}"] = _median(ratios)
        if row["tool"] == "gblint":
            s["report"] = next((r["report"] for r in row["runs"] if "report" in r), None)
        if row["tool"] == "flake8-torchfix":
            s["findings"] = next((r["findings"] for r in row["runs"] if "findings" in r), None)
        floors = [r["floor"] for r in row["runs"] if "floor" in r]
        if floors:
            s["floor"] = {k: _median([f.get(k) for f in floors]) for k in ("read_s", "parse_s", "resolve_s", "visit_s",
                                                                             "files", "lines", "failed")}
            s["floor"]["libcst"] = floors[0].get("libcst")
        result["rows"].append(s)
    return result


# ------------------------------------------------------------------ report

def machine_info(args) -> dict:
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass

    def ver(argv):
        try:
            p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
            return (p.stdout or p.stderr).strip().splitlines()[0]
        except (OSError, subprocess.TimeoutExpired, IndexError):
            return None

    vb = os.path.join(args.tools_venv, "bin")
    libcst_code = "import importlib.metadata as m; print(m.version('libcst'))"
    git = lambda *a: subprocess.run(["git", "-C", REPO, *a], capture_output=True, text=True).stdout.strip()
    dirty = git("status", "--porcelain", "--", "gblint", "rules")
    mem = "?"
    try:
        with open("/proc/meminfo") as fh:
            mem = f"{int(fh.readline().split()[1]) / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "nproc": os.cpu_count(), "cpu": cpu, "memory": mem, "platform": platform.platform(),
        "python": ver([args.floor_python, "--version"]),
        "gblint": ver([args.gblint, "--version"]) or "?",
        "gblint_commit": (git("rev-parse", "--short", "HEAD") or "?") + (" + uncommitted changes in gblint/ rules/"
                                                                         if dirty else ""),
        "libcst (gblint, floor rows)": ver([args.floor_python, "-c", libcst_code]),
        "flake8": ver([os.path.join(vb, "flake8"), "--version"]),
        "TorchFix": ver([os.path.join(vb, "python"), "-c", "import importlib.metadata as m; print(m.version('torchfix'))"]),
        "libcst (TorchFix, Fixit)": ver([os.path.join(vb, "python"), "-c", libcst_code]),
        "fixit": ver([os.path.join(vb, "fixit"), "--version"]),
        "ruff": ver([os.path.join(vb, "ruff"), "--version"]),
    }


def fmt(x, nd=2):
    if x is None:
        return "—"
    if isinstance(x, float):
        if nd == 0 or abs(x) >= 1000:
            return f"{x:,.0f}"
        return f"{x:.{nd}f}"
    return f"{x:,}" if isinstance(x, int) else str(x)


def markdown(results, machine, notes, load) -> str:
    out = [f"Machine: {machine['nproc']} cores ({machine['cpu']}), {machine['memory']}, {machine['python']}, "
           f"{machine['platform']}; {machine['date']}; load average {load[0]} before, {load[1]} after.",
           "Versions: " + "; ".join((v if v.lower().startswith(k.split()[0].lower()) else f"{k} {v}")
                                    for k, v in machine.items()
                                    if k not in ("date", "nproc", "cpu", "memory", "platform", "python") and v),
           ""]
    for res in results:
        out.append(f"### {res['corpus']}: {res['files']:,} files, {res['lines']:,} lines, "
                   f"{res['bytes'] / 1e6:.1f} MB ({res['runs']} run{'s' if res['runs'] != 1 else ''})")
        out.append("")
        out.append("| tool | median wall s | min s | median CPU s | lines/s (wall) | lines/s (CPU) | peak MB "
                   "| ÷ flake8+TorchFix (wall) | ÷ flake8+TorchFix (CPU) | ÷ libcst parse (wall) "
                   "| ÷ libcst parse (CPU) | ÷ libcst+pos (CPU) |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        cpu_of = {r["tool"]: r["cpu_median"] for r in res["rows"] if r["tool"] != "gblint"}

        def cpu_ratio(r, other):
            o = cpu_of.get(other)
            return r["cpu_median"] / o if o and r["tool"] != other and r["cpu_median"] is not None else None

        for r in res["rows"]:
            rc = "" if set(r["rcs"]) <= OK_RC[r["tool"]] else f" (exit {','.join(map(str, r['rcs']))})"
            lps_cpu = res["lines"] / r["cpu_median"] if r["cpu_median"] else None
            out.append(f"| {r['label']}{rc} | {fmt(r['wall_median'])} | {fmt(r['wall_min'])} | {fmt(r['cpu_median'])} "
                       f"| {fmt(r['lines_per_s'], 0)} | {fmt(lps_cpu, 0)} | {fmt(r['rss_mb_max'], 0)} "
                       f"| {fmt(r.get('ratio_vs_flake8-torchfix'))} | {fmt(cpu_ratio(r, 'flake8-torchfix'))} "
                       f"| {fmt(r.get('ratio_vs_libcst'))} | {fmt(cpu_ratio(r, 'libcst'))} "
                       f"| {fmt(cpu_ratio(r, 'libcst+pos'))} |")
        out.append("")
        out.append("Wall ratios are medians of per-round ratios (both tools timed in the same round); CPU ratios "
                   "divide median CPU times (user + sys of the child), which move less with the machine's other load.")
        for r in res["rows"]:
            if r["tool"] == "gblint" and r.get("report"):
                out.append(f"{r['label']} output: {json.dumps(r['report'])}.")
            if r.get("findings") is not None:
                out.append(f"{r['label']} output: {r['findings']} lines of findings.")
        pos = next((r for r in res["rows"] if r["tool"] == "libcst+pos" and r.get("floor")), None)
        if pos:
            f = pos["floor"]
            total = (f["read_s"] or 0) + (f["parse_s"] or 0) + (f["resolve_s"] or 0) + (f["visit_s"] or 0)
            out.append(f"Inside the libcst+pos process (medians of CPU s, libcst {f['libcst']}): read {fmt(f['read_s'])} s, "
                       f"`parse_module` {fmt(f['parse_s'])} s, `resolve(PositionProvider)` {fmt(f['resolve_s'])} s, "
                       f"no-op `visit` {fmt(f['visit_s'])} s; {int(f['failed'])} of {int(f['files'])} files failed to parse.")
            gs = [r for r in res["rows"] if r["tool"] == "gblint" and "warm" not in r["label"]]
            g = next((r for r in gs if "every file" in r["label"]), gs[0] if gs else None)
            parse = next((r for r in res["rows"] if r["tool"] == "libcst"), None)
            if g and g["cpu_median"] and pos["cpu_median"]:
                out.append(f"{g['label']}: {fmt(g['cpu_median'])} s CPU = "
                           + (f"{g['cpu_median'] / parse['cpu_median']:.2f}× the bare libcst parse and "
                              if parse and parse["cpu_median"] else "")
                           + f"{g['cpu_median'] / pos['cpu_median']:.2f}× parse + PositionProvider + one walk "
                           f"(the floor of a libcst linter that takes positions from libcst; its in-process "
                           f"phases sum to {fmt(total)} s).")
        out.append("")
    cmds = {}
    for res in results:
        for r in res["rows"]:
            cmds.setdefault(r["label"], r["command"])
    out.append("Commands (FILES: the corpus's .py files, sorted):")
    out.append("")
    for label, cmd in cmds.items():
        out.append(f"- {label}: `{cmd}`")
    if notes:
        out.append("")
        out.append("Notes:")
        out.append("")
        out.extend(f"- {n}" for n in dict.fromkeys(notes))
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ main

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="See the module docstring (bench/run.py) or bench/README.md for details.")
    ap.add_argument("--corpus", default="models,big", help="models,big,cmi,torch or paths (comma-separated)")
    ap.add_argument("--tools", default="all", help="comma-separated rows: " + ",".join(ALL_TOOLS) + " (default all)")
    ap.add_argument("--torch-tools", default=DEFAULT_TORCH_TOOLS,
                    help=f"rows for the torch corpus (default {DEFAULT_TORCH_TOOLS}; 'all' for every --tools row)")
    ap.add_argument("--skip-slow", action="store_true", help="leave out flake8-torchfix and fixit")
    ap.add_argument("--runs", type=int, help="runs per corpus (default: models 5, big 5, cmi 3, torch 1, paths 5)")
    ap.add_argument("--torch-runs", type=int, help="runs for the torch corpus (default 1; overrides --runs there)")
    ap.add_argument("--big-lines", type=int, default=20000, help="size of the generated big file (default 20000)")
    ap.add_argument("--corpus-cache", default=None, help="where bench/corpus.py keeps the fetched corpora (default "
                                                         "$GBLINT_BENCH_CORPUS_CACHE or bench/.corpus)")
    ap.add_argument("--offline", action="store_true", help="use only an already fetched models corpus; never download")
    ap.add_argument("--gblint", default=None, help="gblint executable (default: the project's .venv/bin/gblint)")
    ap.add_argument("--gblint-args", default="", help="extra arguments for every gblint row (quoted string)")
    ap.add_argument("--gblint-jobs", default="1", help="comma-separated -j values, one gblint row each (default 1)")
    ap.add_argument("--gblint-cache", choices=["cold", "warm", "both"], default="cold",
                    help="cold: no cache or an empty one each run (default); warm: primed once, untimed")
    ap.add_argument("--no-every-file", dest="gblint_every_file", action="store_false",
                    help="leave out the gblint row that names every file as an --entry (all files analysed)")
    ap.add_argument("--gblint-variant", action="append", metavar="LABEL=ARGS",
                    help="an extra gblint row with these arguments (repeatable)")
    ap.add_argument("--tools-venv", default="/work/bench-venv", help="venv with flake8, torchfix, fixit, ruff")
    ap.add_argument("--floor-python", default=None, help="interpreter for the ast/libcst rows (default: the "
                                                         "project's .venv/bin/python, i.e. gblint's libcst)")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per process (default 3600)")
    ap.add_argument("--json", help="write all raw data here")
    ap.add_argument("--markdown", help="write the tables here (they are printed to stdout too)")
    ap.add_argument("--render", metavar="JSON", help="run nothing: print the tables of an earlier --json file")
    args = ap.parse_args(argv)
    if args.render:
        with open(args.render, encoding="utf-8") as fh:
            data = json.load(fh)
        print(markdown(data["results"], data["machine"], data["notes"], data["load"]))
        return 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that `kill` ends the running tool too

    venv = os.path.join(REPO, ".venv", "bin")
    args.gblint = args.gblint or (os.path.join(venv, "gblint") if os.path.exists(os.path.join(venv, "gblint"))
                                  else shutil.which("gblint"))
    args.floor_python = args.floor_python or (os.path.join(venv, "python") if os.path.exists(os.path.join(venv, "python"))
                                              else sys.executable)
    notes: list = []
    tools = ALL_TOOLS if args.tools == "all" else [t.strip() for t in args.tools.split(",") if t.strip()]
    for t in tools:
        if t not in ALL_TOOLS:
            ap.error(f"unknown tool {t!r}; choose from {', '.join(ALL_TOOLS)}")
    if args.skip_slow:
        tools = [t for t in tools if t not in SLOW_TOOLS]
    missing = [t for t, exe in (("flake8-torchfix", "flake8"), ("fixit", "fixit"), ("ruff", "ruff"))
               if t in tools and not os.path.exists(os.path.join(args.tools_venv, "bin", exe))]
    for t in missing:
        notes.append(f"{t} skipped: {os.path.join(args.tools_venv, 'bin')} has no {t.split('-')[0]} "
                     f"(see the setup in bench/README.md)")
    tools = [t for t in tools if t not in missing]
    if "gblint" in tools and not args.gblint:
        notes.append("gblint skipped: no gblint executable (install the project: pip install -e .)")
        tools.remove("gblint")

    help_text = gblint_help(args.gblint) if "gblint" in tools else ""
    variants = gblint_variants(args, help_text, notes) if "gblint" in tools else []
    names = [c.strip() for c in args.corpus.split(",") if c.strip()]
    corpora = [resolve_corpus(name, args) for name in names]  # fetch and verify before anything is timed
    load = [" ".join(f"{x:.2f}" for x in os.getloadavg())]
    machine = machine_info(args)
    if {"models", "big"} & set(names):
        machine["models corpus"] = pinned.describe("models")
    if {"torch", "cmi"} & set(names):
        installed = torch_version(args.floor_python)
        machine["torch (installed; torch, cmi corpora)"] = installed
        pin = pinned.load_manifest().get("torch", {}).get("version")
        if pin and installed and installed.split("+")[0] != pin:
            notes.append(f"installed torch is {installed}, bench/corpus.json names {pin}: torch/cmi figures are "
                         f"not comparable with runs on {pin}")
    results = []
    with tempfile.TemporaryDirectory(prefix="gblint-bench-") as scratch:
        runner = Runner(args, scratch)
        for name, corpus in zip(names, corpora):
            ctools = tools
            if name == "torch" and args.torch_tools != "all":
                wanted = [t.strip() for t in args.torch_tools.split(",")]
                dropped = [t for t in tools if t not in wanted]
                if dropped:
                    notes.append(f"torch corpus: {', '.join(dropped)} not run (slow there; "
                                 f"--torch-tools all to include them)")
                ctools = [t for t in tools if t in wanted]
            runs = (args.torch_runs if name == "torch" and args.torch_runs else None) or args.runs \
                or DEFAULT_RUNS.get(name, 5)
            rows = []
            for t in ctools:
                if t == "gblint":
                    for v in variants:
                        argv, _ = runner.command("gblint", ["FILES"], v, "CACHE_DIR")
                        rows.append({"tool": "gblint", "label": v["label"], "variant": v,
                                     "command": " ".join(shlex.quote(os.path.relpath(a, REPO) if a.startswith(REPO) else a)
                                                         for a in argv).replace(
                                         "ENTRIES", "--entry MODULE:QUALNAME (one per file: its first class with a "
                                                    "forward, else its first function)")})
                else:
                    argv, env = runner.command(t, ["FILES"])
                    prefix = "RAYON_NUM_THREADS=1 " if t == "ruff" else ""
                    suffix = " (serial: trailrunner's executor set to one thread)" if t == "fixit" else ""
                    shown = [os.path.relpath(a, REPO) if a.startswith(REPO) else a for a in argv]
                    if t == "fixit":
                        shown = [os.path.join(args.tools_venv, "bin", "fixit"), "lint", "FILES"]
                    rows.append({"tool": t, "label": LABELS.get(t, t), "command": prefix + " ".join(
                        shlex.quote(a) if a != "FILES" else a for a in shown) + suffix})
            print(f"{name}: {corpus['n_files']} files, {corpus['lines']} lines, {runs} run(s), "
                  f"{len(rows)} rows", file=sys.stderr)
            results.append(bench_corpus(corpus, rows, runner, runs, notes))
    load.append(" ".join(f"{x:.2f}" for x in os.getloadavg()))
    md = markdown(results, machine, notes, load)
    print(md)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as fh:
            fh.write(md)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"machine": machine, "load": load, "notes": notes, "results": results}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
