"""Measure what PyTorch does with the programs of tests/fixtures/measured (or of another folder of
programs with a ``main()``: tests/cases/found, tests/cases/real) and write the folder's observation
file, the runtime truth that tests/test_measured.py scores gblint's predictions against.

Usage:
    python3 scripts/measure_fixtures.py                  # measure every program, write its observation file
    python3 scripts/measure_fixtures.py --check          # measure, compare with that file, exit 1 on a change
    python3 scripts/measure_fixtures.py b01_callable_object.py ...   # only these programs (--check, -o or --update)
    python3 scripts/measure_fixtures.py --update v30_x.py ...        # measure these, keep the others' records
    python3 scripts/measure_fixtures.py --folder tests/cases/found --python .venv-t215/bin/python

The observation file is named after the torch and Python the programs ran under
(:func:`observation_name`): ``observed.json`` for torch 2.13 on Python 3.11 (the reference),
``observed-2.14.json`` for torch 2.14 on 3.11, ``observed-2.15-py3.12.json`` for torch 2.15 on 3.12,
as the truth files of tests/cases/examples are named. ``--python`` runs the programs under another
interpreter (a virtual environment with another torch, or another Python); that interpreter needs
torch and gblint (``pip install --no-deps -e .`` in it is enough: the child imports only
``gblint.runtime_check``).

Each program runs in a fresh Python process, with ``torch.manual_seed(0)`` and the
``TORCH_LOGS``/``TORCHDYNAMO_*``/``TORCH_COMPILE_*`` variables unset: its folder is put first on
``sys.path`` (so that it imports its helper modules as it would when run as a script), its module is
loaded from the file and its ``main()`` called. Every ``torch.compile`` region is compiled with the
``eager`` backend.

What is recorded comes from gblint's runtime observer (``gblint.runtime_check.observer.Observer``,
the same hooks ``gblint confirm`` uses; its docstring names the PyTorch source of each), plus one
hook of this script's own:

- ``breaks``: one entry per line of the program where Dynamo reported a graph break (the innermost
  frame of the program in the break's stack, as in the truth of tests/cases): the function, the GB
  ids (the break's own and the one it caused, such as GB7000 for a break in a loop), the worst
  outcome (``resumed`` < ``prefix``: graph up to the last checkpoint, rest eager < ``skipped``:
  the frame falls back to eager) and the number of times it was logged (a nested break is logged
  once per frame on the stack).
- ``skipped_frames``: frames whose compilation failed and was suppressed, so that they run eagerly
  (the observer's ``format_error_msg`` hook): the function (a ``torch_dynamo_resume_in_f_at_N``
  frame counts as ``f``, with ``resume_at`` N), the line of the program where it failed, GB id and
  reason.
- ``errors``: compile errors that reached the caller (``fullgraph=True``,
  ``error_on_graph_break(True)``). ``torch._dynamo.convert_frame.exception_handler`` sees every
  exception raised while compiling a frame; one that ``format_error_msg`` then does not see was not
  suppressed. The programs catch these errors in ``main()``, so the exception itself is not seen by
  the run: this hook is what records them. ``lines`` are the lines of the program on the error's
  stack, outermost first; ``function`` is the compiled frame (or, when that is a torch wrapper such
  as the ``error_on_graph_break`` decorator's, the outermost function of the program on the stack).
- ``declined``: frames Dynamo declined at no cost (no tensors in the frame, a non-recursive
  ``torch.compiler.disable``, no ops traced), by code name.
- ``graphs``: the op count of every graph compiled, in order; ``exception``: an exception that
  escaped ``main()`` (``null`` for every program now).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
from typing import Any, Dict, List, Optional, Sequence

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEASURED = os.path.join(ROOT, "tests", "fixtures", "measured")
OBSERVED = os.path.join(MEASURED, "observed.json")
REFERENCE = ("2.13", "3.11")  # the torch and Python whose observation file is plain observed.json
BACKEND = "eager"
TIMEOUT = 300.0
SEVERITY = {"resumed": 0, "prefix": 1, "skipped": 2}
TRACED = [False]  # --traced: record the functions Dynamo traced too


def programs(folder: str = MEASURED) -> List[str]:
    """The programs of ``folder`` (``*.py``), sorted by name."""
    return sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".py"))


def observation_name(torch_version: str, python_version: str) -> str:
    """The observation file's name for programs measured under ``torch_version`` (``"2.15.0+cpu"``)
    on ``python_version`` (``"3.12.1"``): ``observed.json`` for torch 2.13 on Python 3.11,
    ``observed-2.15.json`` for 2.15 on 3.11, ``observed-2.15-py3.12.json`` for 2.15 on 3.12."""
    torch_mm = ".".join(torch_version.split("+")[0].split(".")[:2])
    py_mm = ".".join(python_version.split(".")[:2])
    if (torch_mm, py_mm) == REFERENCE:
        return "observed.json"
    return f"observed-{torch_mm}{'' if py_mm == REFERENCE[1] else '-py' + py_mm}.json"


def interpreter_versions(python: str = sys.executable) -> Dict[str, Optional[str]]:
    """``{"torch": ..., "python": ...}`` of the interpreter ``python``: its torch read from the installed
    distribution's metadata (torch is not imported; None when it has none) and its ``X.Y.Z``."""
    code = ("import importlib.metadata as m, json, sys\n"
            "try:\n    t = m.version('torch')\nexcept m.PackageNotFoundError:\n    t = None\n"
            "print(json.dumps({'torch': t, 'python': '%d.%d.%d' % sys.version_info[:3]}))")
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    return json.loads(out.stdout)


# ---------------------------------------------------------------------------- child side


def install_observer(sink) -> Any:
    """Install gblint's runtime observer (eager backend, CPU) and this script's compile-failure hooks in
    this process (it imports torch); ``sink`` takes each event (a JSON-able dict). Returns ``flush()``,
    which hands ``sink`` the ``compile_failure`` records gathered since the last call (each marked
    ``suppressed`` or not) and forgets them: call it after each program. tests/soundness runs many
    programs in one process through this."""
    import torch
    from torch._dynamo import convert_frame

    from gblint.runtime_check.observer import Observer

    obs = Observer(sink, backend=BACKEND, device="cpu")
    obs.record_traced = os.environ.get("GBLINT_MEASURE_TRACED") == "1"  # --traced
    obs.install()
    sink({"ev": "ready", "torch": torch.__version__, "python": "%d.%d.%d" % sys.version_info[:3]})

    # Every exception raised while compiling a frame passes through exception_handler (convert_frame._compile);
    # the suppressed ones then pass through format_error_msg (ConvertFrame.__call__). Neither hook adds a frame
    # while Dynamo walks the stack: both are called after tracing has failed, and return.
    pending: Dict[int, Dict[str, Any]] = {}
    orig_handler = convert_frame.exception_handler
    orig_format = convert_frame.format_error_msg

    def exception_handler(e, code, *args, **kwargs):
        try:
            stack = [{"path": f.filename, "line": int(f.lineno), "function": f.name}
                     for f in (getattr(e, "real_stack", None) or ())]
            gb_type = getattr(e, "gb_type", None)
            pending[id(e)] = {"ev": "compile_failure", "function": code.co_name, "path": code.co_filename,
                              "first_line": code.co_firstlineno, "type": type(e).__qualname__,
                              "gb_type": gb_type, "gb_id": obs.gb_id(gb_type),
                              "message": (str(e).strip().splitlines() or [""])[0],
                              "user_stack": obs.user_frames(stack), "exc": e}
        except Exception:
            pass
        return orig_handler(e, code, *args, **kwargs)

    def format_error_msg(e, code, *args, **kwargs):
        rec = pending.get(id(e))
        if rec is not None and rec["exc"] is e:
            rec["suppressed"] = True
        return orig_format(e, code, *args, **kwargs)

    convert_frame.exception_handler = exception_handler
    convert_frame.format_error_msg = format_error_msg

    def flush() -> None:
        for rec in pending.values():
            rec.pop("exc", None)
            rec.setdefault("suppressed", False)
            sink(rec)
        pending.clear()

    return flush


def run_main(program: str) -> Optional[Dict[str, str]]:
    """Load ``program`` as a module (its folder first on ``sys.path``) and call its ``main()``; returns the
    exception that escaped (``{"type", "message"}``) or None."""
    import importlib.util

    sys.path.insert(0, os.path.dirname(os.path.abspath(program)))
    name = os.path.splitext(os.path.basename(program))[0]
    try:
        spec = importlib.util.spec_from_file_location(name, program)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        module.main()
    except BaseException as exc:  # noqa: B902 - whatever the program does is an observation
        return {"type": type(exc).__qualname__, "message": (str(exc).strip().splitlines() or [""])[0]}
    return None


def _child(program: str, events_path: str) -> None:
    """Run ``program``'s ``main()`` under the observer; write one JSON event per line to ``events_path``."""
    out = open(events_path, "w", encoding="utf-8")

    def sink(ev: Dict[str, Any]) -> None:
        out.write(json.dumps(ev, default=str) + "\n")
        out.flush()

    flush = install_observer(sink)
    import torch

    torch.manual_seed(0)
    escaped = run_main(program)
    flush()
    sink({"ev": "end", "exception": escaped})
    out.close()


# ---------------------------------------------------------------------------- parent side


def _same(path: Optional[str], program: str) -> bool:
    return bool(path) and os.path.realpath(path) == os.path.realpath(program)


def _resume(name: str):
    from gblint.runtime_check.observer import resume_target
    return resume_target(name or "")


def summarize(events: Sequence[Dict[str, Any]], program: str) -> Dict[str, Any]:
    """Turn the child's events for ``program`` into its observation (see the module docstring). Reasons
    are kept to their first line, with the program's folder removed, so that the observation does not
    depend on where the checkout is."""
    folders = {os.path.dirname(os.path.abspath(program)) + os.sep, os.path.dirname(os.path.realpath(program)) + os.sep}

    def clean(text: Any) -> Any:
        if not isinstance(text, str):
            return text
        text = (text.strip().splitlines() or [""])[0]
        for folder in folders:
            text = text.replace(folder, "")
        return text

    traced: set = set()  # functions of the program Dynamo traced (with --traced), as gblint names them
    breaks: Dict[int, Dict[str, Any]] = {}
    skipped: Dict[tuple, Dict[str, Any]] = {}
    errors: List[Dict[str, Any]] = []
    declined = set()
    graphs: List[int] = []
    exception = None
    for ev in events:
        kind = ev.get("ev")
        if kind == "graph":
            graphs.append(int(ev.get("ops", 0)))
        elif kind == "break":
            here = [f for f in (ev.get("user_stack") or []) if _same(f["path"], program)]
            if not here:
                continue
            site = here[-1]
            b = breaks.setdefault(site["line"], {"line": site["line"], "function": _resume(site["function"])[0],
                                                 "gb_id": ev.get("gb_id"), "gb_ids": [], "outcome": "resumed",
                                                 "events": 0})
            b["events"] += 1
            for gid in (ev.get("gb_id"), ev.get("cause_gb_id")):
                if gid and gid not in b["gb_ids"]:
                    b["gb_ids"].append(gid)
            if SEVERITY.get(ev.get("outcome"), 0) > SEVERITY[b["outcome"]]:
                b["outcome"] = ev.get("outcome")
        elif kind == "frame_failed":
            if not _same(ev.get("path"), program):
                continue
            fn, resume_at = _resume(ev.get("function"))
            here = [f for f in (ev.get("user_stack") or []) if _same(f["path"], program)]
            skipped[(ev.get("function"), ev.get("first_line"))] = {
                "function": fn, "resume_at": resume_at, "line": here[-1]["line"] if here else ev.get("first_line"),
                "gb_id": ev.get("gb_id"), "reason": clean(ev.get("gb_type") or ev.get("message"))}
        elif kind == "compile_failure" and not ev.get("suppressed"):
            here = [f for f in ev.get("user_stack") or [] if _same(f["path"], program)]
            if _same(ev.get("path"), program):
                fn = _resume(ev.get("function"))[0]
            else:
                fn = _resume(here[0]["function"])[0] if here else ev.get("function")
            errors.append({"function": fn, "lines": [f["line"] for f in here], "type": ev.get("type"),
                           "gb_id": ev.get("gb_id"), "reason": clean(ev.get("gb_type") or ev.get("message"))})
        elif kind == "decline":
            from gblint.runtime_check.runner import FAILURE_SKIP_REASONS  # failed frames, recorded above
            if _same(ev.get("path"), program) and ev.get("reason") not in FAILURE_SKIP_REASONS:
                declined.add((ev.get("function"), clean(ev.get("reason"))))
        elif kind == "traced" and _same(ev.get("path"), program):
            traced.add(_qualname(ev.get("qualname") or ev.get("function") or ""))
        elif kind == "end" and ev.get("exception"):
            exception = {k: clean(v) for k, v in ev["exception"].items()}
    for b in breaks.values():
        b["gb_ids"].sort()
    more = {"traced": sorted(t for t in traced if t)} if traced else {}
    return {**more, "graphs": graphs,
            "breaks": [breaks[k] for k in sorted(breaks)],
            "skipped_frames": sorted(skipped.values(), key=lambda s: (s["line"] or 0, s["function"])),
            "errors": errors,
            "declined": [{"function": f, "reason": r} for f, r in sorted(declined)],
            "exception": exception}


def _qualname(qualname: str) -> str:
    """``f.<locals>.g.<locals>.<listcomp>`` -> ``f.g``: Python's qualified name as gblint writes
    functions (nested functions dotted; comprehensions and lambdas count as their function)."""
    parts = [p for p in qualname.split(".") if p != "<locals>"]
    while parts and parts[-1].startswith("<"):
        parts.pop()
    return ".".join(parts)


def _clean_env() -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TORCH_LOGS", "TORCHDYNAMO_", "TORCH_COMPILE_", "TORCHINDUCTOR_"))}
    env["PYTHONHASHSEED"] = "0"
    env["GBLINT_MEASURE_TRACED"] = "1" if TRACED[0] else "0"
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def measure_one(program: str, python: str = sys.executable, timeout: float = TIMEOUT) -> Dict[str, Any]:
    """Run ``program`` in a fresh process and return ``(meta, observation)``; raises
    ``RuntimeError`` when the child fails (it should not: the programs catch their own errors)."""
    with tempfile.TemporaryDirectory(prefix="gblint-measure-") as tmp:
        events_path = os.path.join(tmp, "events.jsonl")
        proc = subprocess.run([python, os.path.abspath(__file__), "--child", os.path.abspath(program), events_path],
                              cwd=tmp, env=_clean_env(), capture_output=True, text=True, timeout=timeout)
        events = []
        if os.path.exists(events_path):
            with open(events_path, encoding="utf-8") as fh:
                events = [json.loads(line) for line in fh if line.strip()]
    if proc.returncode != 0 or not events or events[-1].get("ev") != "end":
        raise RuntimeError(f"{program}: measuring failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    ready = next((e for e in events if e.get("ev") == "ready"), {})
    return {"torch": ready.get("torch"), "python": ready.get("python")}, summarize(events, program)


def measure(paths: Sequence[str], workers: int = 2, python: str = sys.executable) -> Dict[str, Any]:
    """Measure every program of ``paths``; returns the observed.json document
    ``{"meta": {...}, "programs": {file name: observation}}``."""
    metas, observed = [], {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = {pool.submit(measure_one, p, python): p for p in paths}
        for fut in concurrent.futures.as_completed(futures):
            meta, obs = fut.result()
            metas.append(meta)
            observed[os.path.basename(futures[fut])] = obs
    meta = metas[0] if metas else {}
    return {"meta": {"torch": meta.get("torch"), "python": meta.get("python"), "backend": BACKEND, "device": "cpu",
                     "method": "scripts/measure_fixtures.py: fresh process per program, main() called, "
                               "gblint.runtime_check.observer.Observer plus convert_frame.exception_handler"},
            "programs": {k: observed[k] for k in sorted(observed)}}


def dump(doc: Dict[str, Any]) -> str:
    """observed.json's text: indented, one break/frame per line where it fits."""
    return json.dumps(doc, indent=1, sort_keys=False) + "\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Command line (see the module docstring). Exit 0 when written or unchanged, 1 when --check
    finds a difference."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--child"]:
        _child(argv[1], argv[2])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="program file names in the folder (default: all)")
    ap.add_argument("--folder", default=MEASURED, help="the programs' folder (default: tests/fixtures/measured)")
    ap.add_argument("--python", default=sys.executable,
                    help="the interpreter to run them with (default: this one); it needs torch and gblint")
    ap.add_argument("--check", action="store_true", help="compare with the observation file instead of writing it")
    ap.add_argument("-o", "--output", help="where to write (default: the folder's observation file for the "
                                           "interpreter's torch and Python, observation_name)")
    ap.add_argument("--workers", type=int, default=2, help="programs measured side by side (default 2)")
    ap.add_argument("--update", action="store_true",
                    help="write the programs named into observed.json, keep the other records, drop removed programs")
    ap.add_argument("--traced", action="store_true",
                    help="also record every function of the program Dynamo traced (tests/fixtures/reach)")
    a = ap.parse_args(argv)
    TRACED[0] = a.traced
    folder = os.path.abspath(a.folder)
    python = os.path.abspath(a.python) if os.sep in a.python else a.python  # the children run elsewhere
    versions = interpreter_versions(python)
    if not versions["torch"]:
        ap.error(f"{python} has no torch installed")
    observed = os.path.join(folder, observation_name(versions["torch"], versions["python"]))
    paths = [os.path.join(folder, n) for n in a.names] if a.names else programs(folder)
    doc = measure(paths, a.workers, python)
    if a.update:
        with open(observed, encoding="utf-8") as fh:
            old = json.load(fh)
        if old["meta"] != doc["meta"]:
            ap.error(f"--update under another torch/Python ({doc['meta']}) than {observed} ({old['meta']}): "
                     "measure every program instead")
        present = {os.path.basename(p) for p in programs(folder)}
        merged = {n: o for n, o in old["programs"].items() if n in present}
        merged.update(doc["programs"])
        doc["programs"] = {k: merged[k] for k in sorted(merged)}
        with open(observed, "w", encoding="utf-8") as fh:
            fh.write(dump(doc))
        print(f"updated {observed}: {len(a.names or paths)} programs measured, {len(doc['programs'])} recorded")
        return 0
    if a.check:
        with open(observed, encoding="utf-8") as fh:
            old = json.load(fh)
        changed = sorted(n for n, obs in doc["programs"].items() if old["programs"].get(n) != obs)
        for n in changed:
            print(f"{n}: observed.json says\n  {json.dumps(old['programs'].get(n))}\nmeasured now\n  "
                  f"{json.dumps(doc['programs'][n])}")
        print(f"{len(doc['programs']) - len(changed)} of {len(doc['programs'])} programs as recorded "
              f"(torch {doc['meta']['torch']}, Python {doc['meta']['python']})")
        return 1 if changed else 0
    output = a.output or observed
    if a.names and os.path.abspath(output) == observed:
        ap.error("measuring some programs only: write them elsewhere with -o, or use --check")
    with open(output, "w", encoding="utf-8") as fh:
        fh.write(dump(doc))
    print(f"wrote {output}: {len(doc['programs'])} programs (torch {doc['meta']['torch']}, "
          f"Python {doc['meta']['python']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
