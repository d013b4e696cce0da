"""``gblint confirm`` and ``gblint check --confirm`` (no torch import: user code runs in
children, see :mod:`gblint.runtime_check.runner`).

Exit codes: 0 done (the user's code may have raised or exited: that is reported), 1 with
``--strict`` when a prediction is refuted or a break was missed, 2 usage or configuration error,
or nothing ran (no run got to ``torch.compile``: torch missing, an unknown backend, every region
needing inputs or failing to import, code that never called its compiled functions, no region
at all; one line on stderr says why, the report is still written, with precision and recall
``n/a``/``null``; a run the user's code ended by hanging, crashing or exiting is reported
instead, see :func:`.report.nothing_ran`), also 2 when a run did not finish (it timed out or
crashed: what it observed is reported, precision and recall are not, see
:func:`.report.incomplete`), 130/143 interrupted by
SIGINT/SIGTERM (every process started for the runs is killed first).
"""
from __future__ import annotations

import argparse
import io
import json
import math
import os
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

from gblint.settings.config import ConfigError

# The run machinery (.runner, .plan, .matching, .report) is imported by the commands, not here:
# ``gblint check`` builds its parser from this module and should stay light.

BACKENDS_HELP = "backend each recorded graph is handed to: inductor (default), eager, aot_eager, or any registered name"


#: what ``--device`` and ``[tool.gblint.confirm] device`` allow (the schema's enum)
DEVICES = ("cpu", "cuda", "auto")
#: the bounds of ``--timeout``/``timeout`` and ``--workers``/``workers`` (as in the schema)
MAX_TIMEOUT = 86400
MAX_WORKERS = 256


def seconds(text: str) -> float:
    """``--timeout``: a number of seconds greater than 0 and at most :data:`MAX_TIMEOUT`
    (``nan``, ``inf`` and ``0`` are refused: a run could never end, or never start)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= MAX_TIMEOUT:  # False for nan too
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds greater than 0 and at most "
                                         f"{MAX_TIMEOUT} (a day)")
    return value


def workers(text: str) -> int:
    """``--workers``: a whole number of child processes from 1 to :data:`MAX_WORKERS`."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of processes from 1 to {MAX_WORKERS}")
    return value


def expression(text: str) -> str:
    """``--example``: one Python expression (checked here, evaluated in the child)."""
    from gblint.settings.config import expression_problem
    problem = expression_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(f"{text!r} is not a Python expression ({problem})")
    return text


def _backend(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not a backend name ({BACKENDS_HELP})")
    return text


def add_run_options(p: argparse.ArgumentParser) -> None:
    """Options shared by ``confirm`` and ``check --confirm``."""
    p.add_argument("--backend", type=_backend, help=BACKENDS_HELP)
    p.add_argument("--device", choices=DEVICES, help="device for the runs (default cpu; auto: CUDA "
                                                     "when available)")
    p.add_argument("--timeout", type=seconds, help="seconds one run may take before it is killed (default 120, "
                                                   f"at most {MAX_TIMEOUT})")
    p.add_argument("--build-timeout", type=seconds,
                   help="under inductor: seconds the build stage may take per run, after the breaks were found with "
                        "eager (default: --timeout)")
    p.add_argument("--workers", type=workers,
                   help=f"child processes run side by side (default 1, at most {MAX_WORKERS})")
    p.add_argument("--example", action="append", metavar="EXPR", type=expression,
                   help="a Python expression for one positional argument of the entry (repeat for each)")
    p.add_argument("--strict", action="store_true", help="exit 1 when a prediction is refuted or a break was missed")
    p.add_argument("--env", action="append", default=[], metavar="NAME",
                   help="pass this environment variable to the runs (besides PATH, HOME, LANG, CUDA_VISIBLE_DEVICES...)")


def add_confirm_parser(sub) -> argparse.ArgumentParser:
    """Register the ``confirm`` subcommand on ``sub`` (the ``add_subparsers`` object)."""
    p = sub.add_parser("confirm", help="run the code under torch.compile and confirm or refute each prediction",
                       description="Compile and run code in a child process, observe what Dynamo does, and "
                                   "match it with gblint's static predictions.")
    p.add_argument("paths", nargs="*", help="files or folders (each file's main() is run, else its compiled "
                                            "regions); with --run, the command after '--'")
    p.add_argument("--entry", help="module:function (or function) to call; with FILE, the file is loaded under "
                                   "that module name")
    p.add_argument("--run", action="store_true", help="observe a whole program: gblint confirm --run -- python "
                                                      "train.py ARGS")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--output-file", "-o", help="write the report to this file")
    p.add_argument("--config", help="pyproject.toml to read [tool.gblint] and [tool.gblint.confirm] from")
    p.add_argument("--isolated", action="store_true", help="ignore configuration files")
    p.add_argument("--verbose", "-v", action="store_true", help="text: show every run's graphs and breaks")
    add_run_options(p)
    return p


def add_check_options(p: argparse.ArgumentParser) -> None:
    """Add ``--confirm`` and the run options to the ``check`` parser."""
    p.add_argument("--confirm", action="store_true",
                   help="also compile and run every compiled region found, and give each diagnostic a status "
                        "(confirmed/refuted/not_reached); needs torch (pip install -e \".[runtime]\" in gblint's checkout)")
    add_run_options(p)


def _settings(args, paths: Sequence[str]):
    from gblint.settings.config import Settings, find_pyproject, load_settings
    if getattr(args, "isolated", False):
        return Settings(), None
    cfg = getattr(args, "config", None) or find_pyproject(paths[0] if paths else os.getcwd())
    return load_settings(cfg), cfg


def _options(args, config):
    from .runner import Options
    opts = Options()

    def pick(option, key, default):  # an option given wins, even a falsy one; the parsers checked both
        return option if option is not None else (key if key is not None else default)
    opts.backend = pick(args.backend, config.backend, "inductor")
    opts.device = pick(args.device, config.device, "cpu")
    opts.timeout = float(pick(args.timeout, config.timeout, 120.0))
    opts.workers = int(pick(args.workers, config.workers, 1))
    opts.env = tuple(args.env or ())
    opts.build_timeout = getattr(args, "build_timeout", None)
    return opts


def confirm(jobs, options, settings, checked: Sequence[str],
            roots: Sequence[str]) -> Tuple[List[Dict[str, Any]], Dict[str, Any], List[str], Optional[Dict[str, Any]]]:
    """Run ``jobs`` (:class:`.runner.Job`) with ``options`` (:class:`.runner.Options`), statically
    check ``checked`` plus the files under ``roots`` that the runs touched, and match. Returns
    ``(runs, match result, checked files, build)``: under a build backend the runs of the eager
    breaks stage and the build stage's result (:mod:`.stages`), else the runs and None."""
    from gblint.project.engine import check_paths, iter_python_files

    from .matching import match
    from .plan import user_files
    from .stages import run_stages
    runs, build = run_stages(jobs, options)
    paths = list(dict.fromkeys([os.path.abspath(p) for p in checked] + user_files(runs, roots)))
    files = iter_python_files(paths, settings) if paths else []
    diags = check_paths(files, settings).diagnostics if files else []
    return runs, match(diags, runs, checked_paths=files), files, build


def _emit(text: str, args) -> None:
    if getattr(args, "output_file", None):
        with open(args.output_file, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)


def cmd_confirm(args) -> int:
    """``gblint confirm``. See the module doc for exit codes."""
    from .plan import check_examples, entry_job, load_confirm_config, plan_files, program_job
    from .report import document, write_text
    paths = list(args.paths or [])
    try:
        if args.run:
            settings, cfg_path = _settings(args, [])
            config = load_confirm_config(cfg_path)
            options = _options(args, config)
            job, options.python = program_job(paths)
            jobs, unrunnable = [job], []
            checked = [job.file] if job.file and os.path.isfile(job.file) else []
            roots = [os.getcwd()]
        else:
            for p in paths:
                if not os.path.exists(p):
                    print(f"gblint: error: {p}: no such file or directory", file=sys.stderr)
                    return 2
            settings, cfg_path = _settings(args, paths)
            config = load_confirm_config(cfg_path)
            options = _options(args, config)
            from gblint.project.engine import iter_python_files
            if args.entry:
                files = iter_python_files(paths, settings) if paths else []
                if paths and not files:
                    print("gblint: error: no Python files in the given paths", file=sys.stderr)
                    return 2
                jobs = [entry_job(f, args.entry, args.example, config) for f in files] or [
                    entry_job(None, args.entry, args.example, config)]
                unrunnable = []
                checked = files
            else:
                if not paths:
                    print("gblint: error: confirm needs FILE..., --entry module:function, or --run -- COMMAND",
                          file=sys.stderr)
                    return 2
                jobs, unrunnable = plan_files(paths, settings, config, args.example)
                checked = paths
            check_examples(config, jobs, unrunnable, iter_python_files(paths, settings) if paths else [], settings)
            # (--run calls no entry: its examples are not read)
            roots = [os.getcwd()] + [p if os.path.isdir(p) else os.path.dirname(os.path.abspath(p)) for p in paths]
    except (ValueError, ConfigError) as exc:
        print(f"gblint: error: {exc}", file=sys.stderr)
        return 2
    if not jobs and not unrunnable:
        print("gblint: error: nothing to run: no main() and no compiled region found; pass --entry module:function, "
              "or observe a program with gblint confirm --run -- python FILE", file=sys.stderr)
        return 2
    from .reaper import contained
    with contained():  # Ctrl-C, SIGTERM or not: nothing started for the runs outlives this command
        runs, result, files, build = confirm(jobs, options, settings, checked, roots)
    buf = io.StringIO()
    doc = document(runs, result, unrunnable, build)
    if args.format == "json":
        json.dump(doc, buf, indent=2, default=str)
        buf.write("\n")
    else:
        write_text(runs, result, files, buf, unrunnable, verbose=args.verbose, build=build)
    _emit(buf.getvalue(), args)
    if doc["nothing_ran"]:
        print(f"gblint: error: nothing ran: {doc['nothing_ran']}", file=sys.stderr)
        return 2
    if doc["incomplete"]:
        print(f"gblint: error: incomplete run: {doc['incomplete']}", file=sys.stderr)
        return 2
    from .report import build_problem
    if build_problem(build):
        print(f"gblint: error: incomplete build: {build_problem(build)}", file=sys.stderr)
        return 2
    if args.strict and (result["counts"]["refuted"] or result["missed"]):
        return 1
    return 0


def check_confirm(args, paths: Sequence[str], settings, report, regions=None) -> Tuple[Dict[str, Any], int]:
    """``gblint check --confirm``: run the regions of ``paths`` and return ``(confirm section,
    strict failure 0/1)``. The section is ``{"runs", "matches", "missed", "precision",
    "recall", "unrunnable", "nothing_ran"}`` (see :func:`.report.document`); ``report.diagnostics`` are matched as they are. ``regions``: the
    static pass's :class:`gblint.dynamo.consequences.Region` list (found again when None)."""
    from gblint.settings.config import find_pyproject

    from .matching import match
    from .plan import check_examples, load_confirm_config, plan_files
    from .report import document
    from .stages import run_stages
    cfg_path = None if getattr(args, "isolated", False) else (
        getattr(args, "config", None) or find_pyproject(paths[0] if paths else os.getcwd()))
    config = load_confirm_config(cfg_path)
    options = _options(args, config)
    found = None if regions is None else [(r.entry.path, r.entry.name, bool(r.fullgraph)) for r in regions]
    jobs, unrunnable = plan_files(paths, settings, config, getattr(args, "example", None), found)
    from gblint.project.engine import iter_python_files
    files = iter_python_files(list(paths), settings)
    check_examples(config, jobs, unrunnable, files, settings)
    runs, build = run_stages(jobs, options) if jobs else ([], None)
    result = match(report.diagnostics, runs, checked_paths=files)
    section = document(runs, result, unrunnable, build)
    section.pop("version", None)
    failed = 1 if getattr(args, "strict", False) and (result["counts"]["refuted"] or result["missed"]) else 0
    return section, failed


def statuses(section: Dict[str, Any]) -> Dict[Tuple[str, int, str], str]:
    """(path, line, code) -> status, from a confirm section."""
    from .matching import norm
    return {(norm(m["path"]), m["line"], m["code"]): m["status"] for m in section.get("matches", [])}


def write_check_confirm_text(section: Dict[str, Any], paths: Sequence[str], out) -> None:
    """The text appended to ``gblint check`` output by ``--confirm``."""
    from .report import write_text
    out.write("\nRuntime confirmation (torch.compile):\n")
    write_text(section["runs"], section, paths, out, section.get("unrunnable", ()), build=section.get("build"))


def cmd_check_with_confirm(args, settings, report, regions, write_report, write_html=None) -> int:
    """Run the static report through ``--confirm``: JSON gains ``status`` on each diagnostic
    and a ``confirm`` section; text gains a confirmation section; HTML (``write_html(buf,
    section)``) shows the observations beside the predictions. ``write_report(buf)`` writes
    the ordinary report. Returns the exit code (as ``check``, or 1 under ``--strict``, or 2 with
    one line on stderr when nothing ran: see :func:`.report.nothing_ran`)."""
    paths = list(args.paths or ["."])
    if paths == ["-"]:
        print("gblint: error: --confirm needs files, not standard input", file=sys.stderr)
        return 2
    from .reaper import contained
    try:
        with contained():
            section, strict_failed = check_confirm(args, paths, settings, report, regions)
    except (ValueError, ConfigError) as exc:
        print(f"gblint: error: {exc}", file=sys.stderr)
        return 2
    from gblint.project.engine import iter_python_files
    files = iter_python_files(paths, settings)
    buf = io.StringIO()
    if args.format == "json":
        st = statuses(section)
        from gblint.frontends.output import display_paths, report_json

        from .matching import norm
        doc = report_json(report)  # paths as every output prints them (relative below the working directory)
        for d in doc["diagnostics"]:
            if d["effect"] in ("break", "skip", "error"):
                d["status"] = st.get((norm(d["path"]), d["line"], d["code"]), "not_reached")
        doc["confirm"] = display_paths(section)
        json.dump(doc, buf, indent=2, default=str)
        buf.write("\n")
    elif args.format == "html" and write_html is not None:
        write_html(buf, section)
    else:
        write_report(buf)
        write_check_confirm_text(section, files, buf)
    _emit(buf.getvalue(), args)
    if report.errors:
        return 2
    if section.get("nothing_ran"):
        print(f"gblint: error: --confirm: nothing ran: {section['nothing_ran']}", file=sys.stderr)
        return 2
    if section.get("incomplete"):
        print(f"gblint: error: --confirm: incomplete run: {section['incomplete']}", file=sys.stderr)
        return 2
    from .report import build_problem
    if build_problem(section.get("build")):
        print(f"gblint: error: --confirm: incomplete build: {build_problem(section['build'])}", file=sys.stderr)
        return 2
    if strict_failed:
        return 1
    if report.diagnostics and not getattr(args, "exit_zero", False):
        return 1
    return 0
