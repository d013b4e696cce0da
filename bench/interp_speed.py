#!/usr/bin/env python3
"""How long gblint takes to follow an installed package, beside how long the model itself runs.

Usage (from the repository root; torchdiffeq, transformers and torch installed)::

    python3 bench/interp_speed.py [--rounds 3] [--python PY] [--only NAME] [--no-run]

The drivers are the ecosystem harness's (``bench/ecosystem``): the first three measured
torchdiffeq models of ``truth/torchdiffeq.json`` (``spec.driver(setup)``), and a tiny Llama of
transformers (2 layers, hidden size 32). Each is checked as the harness checks it::

    gblint check --format json --exit-zero --isolated --conditional all --follow-imports PKG DRIVER.py

``cold``: a fresh, empty ``--cache-dir`` each round; ``warm``: a cache dir filled by one run
before the rounds (nothing changed: the stored report, :mod:`gblint.project.results`); ``driver edited``:
the same cache dir, a comment appended to the driver before each round (its report is analysed
again from the package's cached summaries). ``run``: the driver itself, ``python DRIVER.py`` with ``torch.compile``'s
backend set to ``"eager"`` (Dynamo traces, no code generation), on CPU. Each figure is the median
over ``--rounds`` of the CPU seconds (user + sys) of the process, which a shared, loaded machine
changes less than wall time; the wall-clock median is printed beside it.
A markdown table goes to stdout.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bench", "ecosystem"))

LLAMA = '''import torch
from transformers import LlamaConfig, LlamaModel

config = LlamaConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
model = LlamaModel(config)
model.eval()
input_ids = torch.randint(0, 128, (1, 8))
model = torch.compile(model)
out = model(input_ids)
'''

# runs a driver with torch.compile's backend "eager" (what the ecosystem harness measures with)
EAGER = '''import sys, runpy, torch
_compile = torch.compile
def _eager(model=None, **kw):
    kw["backend"] = "eager"
    return _compile(model, **kw) if model is not None else _compile(**kw)
torch.compile = _eager
runpy.run_path(sys.argv[1], run_name="__main__")
'''


def drivers(folder: str):
    """``(name, path, followed package)`` of the drivers, written into ``folder``."""
    from spec import driver
    with open(os.path.join(REPO, "bench", "ecosystem", "truth", "torchdiffeq.json")) as fh:
        truth = json.load(fh)
    out = []
    measured = [(n, r) for n, r in truth["models"].items() if r["status"] == "measured"][:3]
    for name, rec in measured:
        path = os.path.join(folder, f"torchdiffeq_{name}.py")
        with open(path, "w") as fh:
            fh.write(driver(rec["setup"]))
        out.append((f"torchdiffeq {name}", path, "torchdiffeq"))
    path = os.path.join(folder, "transformers_llama.py")
    with open(path, "w") as fh:
        fh.write(LLAMA)
    out.append(("transformers tiny Llama", path, "transformers"))
    return out


def timed(cmd, cwd: str):
    """``(cpu seconds, wall seconds, exit status)`` of running ``cmd`` to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))  # the driver runs on CPU
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.stderr.write(f"exit {proc.returncode}: {' '.join(cmd)}\n{proc.stderr.decode()[-800:]}\n")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall, proc.returncode


def gblint_cmd(python: str, driver: str, follow: str, cache: str):
    return [python, "-m", "gblint", "check", "--format", "json", "--exit-zero", "--isolated", "--conditional", "all",
            "--cache-dir", cache, "--follow-imports", follow, driver]


def median(rows, ok=(0, 1)):
    """Median CPU and wall seconds, and whether a run failed (an exit status not in ``ok``; gblint
    exits 2 on an internal error)."""
    return statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows), \
        any(r[2] not in ok for r in rows)


def cell(m) -> str:
    return f"{m[0]:.2f} s ({m[1]:.2f})" + (" failed" if m[2] else "")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--python", default=sys.executable, help="the interpreter that runs gblint and the drivers")
    ap.add_argument("--only", help="only the drivers whose name contains this")
    ap.add_argument("--no-run", action="store_true", help="leave out running the drivers themselves")
    args = ap.parse_args(argv)
    scratch = tempfile.mkdtemp(prefix="gblint-interp-speed-")
    try:
        rows = []
        for name, path, follow in drivers(scratch):
            if args.only and args.only not in name:
                continue
            cold = []
            for _ in range(args.rounds):
                cache = tempfile.mkdtemp(dir=scratch)
                cold.append(timed(gblint_cmd(args.python, path, follow, cache), scratch))
                shutil.rmtree(cache)
            cache = tempfile.mkdtemp(dir=scratch)
            timed(gblint_cmd(args.python, path, follow, cache), scratch)
            warm = [timed(gblint_cmd(args.python, path, follow, cache), scratch) for _ in range(args.rounds)]
            edited = []
            for i in range(args.rounds):  # the driver edited: its report is analysed again, the package's summaries read
                with open(path, "a") as fh:
                    fh.write(f"# edit {i}\n")
                edited.append(timed(gblint_cmd(args.python, path, follow, cache), scratch))
            run = [] if args.no_run else \
                [timed([args.python, "-c", EAGER, path], scratch) for _ in range(args.rounds)]
            rows.append((name, median(cold), median(warm), median(edited), median(run, ok=(0,)) if run else None))
            sys.stderr.write(f"{name}: done\n")
        print(f"CPU seconds (user+sys), median of {args.rounds}; wall seconds in brackets; failed: a run "
              "exited with an error (gblint: exit 2, an internal error)\n")
        print("| driver | gblint, cold cache | gblint, warm cache | gblint, warm cache, driver edited "
              "| the driver run (`backend=\"eager\"`, CPU) |")
        print("|---|---:|---:|---:|---:|")
        for name, cold, warm, edited, run in rows:
            print(f"| {name} | {cell(cold)} | {cell(warm)} | {cell(edited)} | {cell(run) if run else '-'} |")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
