"""``gblint`` command line: ``check``, ``fix``, ``rules``, ``rule`` (:mod:`gblint.frontends.cli_adoption`), ``lsp``,
``confirm``.

Exit codes: 0 no diagnostics, 1 diagnostics reported, 2 usage, configuration or internal error,
130 interrupted (SIGINT), 143 terminated (SIGTERM).
"""
from __future__ import annotations

import argparse
import io
import json
import os
import signal
import sys
from typing import List, Optional

from .. import __version__
from ..settings.config import (ConfigError, Settings, display_path, find_pyproject, load_settings, parse_code_list,
                               parse_python_version, parse_torch_version, settle_versions)
from .cli_adoption import write_stdout
from ..core.interrupts import Terminated
from ..core.versions import FROM_OPTION


def add_common_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by `check` and `fix`."""
    parser.add_argument("paths", nargs="*", default=["."], help="files or folders; '-' reads standard input")
    parser.add_argument("--select", help="comma-separated code prefixes to report (replaces the configured ones)")
    parser.add_argument("--extend-select", help="code prefixes to add to the selection")
    parser.add_argument("--ignore", help="comma-separated code prefixes to leave out")
    parser.add_argument("--config", help="pyproject.toml to read [tool.gblint] from")
    parser.add_argument("--isolated", action="store_true", help="ignore configuration files")
    parser.add_argument("--python-version", help="Python version whose semantics to predict (e.g. 3.11; default: the "
                                                 "running interpreter if requires-python admits it, else the oldest "
                                                 "it admits)")
    parser.add_argument("--torch-version", help="torch version whose Dynamo to predict (e.g. 2.14; default: the torch "
                                                "installed where gblint runs)")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="also print the torch and Python versions predicted for (on standard error)")
    parser.add_argument("--nested-graph-breaks", action="store_true", default=None,
                   help="predict as if torch._dynamo.config.nested_graph_breaks=True")
    parser.add_argument("--stdin-filename", help="file name to report for '-'")
    parser.add_argument("--no-respect-gitignore", action="store_true", help="check files that .gitignore lists")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when diagnostics are reported")
    parser.add_argument("--statistics", action="store_true", help="print counts per code instead of diagnostics")
    parser.add_argument("--output-file", "-o", help="write the report to this file")
    parser.add_argument("--quiet", "-q", action="store_true", help="print only diagnostics (text format)")
    parser.add_argument("--no-hints", action="store_true", help="text format: omit hints and links")
    parser.add_argument("--follow-imports", action="append", default=[], metavar="PACKAGE",
                   help="also analyse installed PACKAGE's source where checked code calls into it, and the "
                        "installed packages it imports that Dynamo traces (repeatable)")
    parser.add_argument("--entry", action="append", default=[], metavar="MODULE:QUALNAME",
                   help="treat MODULE:QUALNAME (a function, or a class's forward) as a compiled region")
    parser.add_argument("--explain", metavar="FRAME",
                   help="print the predicted graphs and breaks of the compiled entry FRAME, in call order")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the summary cache")
    parser.add_argument("--error-paths", action="store_true",
                        help="also report breaks on error paths (a branch that raises, an except body), which "
                             "a normal run never takes")
    parser.add_argument("--conditional", choices=("all", "checked", "none"), default=None,
                        help="which conditional diagnostics (a break under a test gblint cannot decide) to report: "
                             "all, checked (default: those whose break lies in the checked files, not in a package "
                             "followed with --follow-imports) or none")
    parser.add_argument("--jobs", "-j", type=_jobs, default=0,
                        help="processes for large trees (default: one per core; 1 = serial)")
    parser.add_argument("--cache-dir", help="summary cache folder (default: .gblint_cache at the config root)")


def _jobs(text: str) -> int:
    """``--jobs``: a whole number, 0 (one process per core) or more."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of processes (0 for one per core, or more)")
    return value


class Parser(argparse.ArgumentParser):
    """argparse with gblint's one-line usage errors: ``gblint: error: argument --timeout: '0'
    is not ...`` on standard error and exit 2, as for a bad configuration (no usage block).
    Subcommand parsers are of this class too (``add_subparsers`` takes the parent's)."""

    def error(self, message: str):
        """Print ``gblint: error: MESSAGE`` (one line) and exit 2."""
        self.exit(2, f"gblint: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The ``gblint`` argument parser with its subcommands."""
    p = Parser(prog="gblint", description="Predict torch.compile graph breaks from source.")
    p.add_argument("--version", action="version", version=f"gblint {__version__}")
    sub = p.add_subparsers(dest="command")
    c = sub.add_parser("check", help="check files and folders (default command)")
    add_common_options(c)
    c.add_argument("--format", choices=("text", "json", "sarif", "github", "html"), default="text",
                   help="html: one self-contained page of each compiled region's frames, graphs and breaks "
                        "(needs the html extra: pip install -e \".[html]\"; use with -o FILE)")
    from . import cli_adoption
    cli_adoption.add_check_options(c)
    from gblint.runtime_check.cli import add_check_options, add_confirm_parser
    add_check_options(c)  # --confirm: runs the regions under torch.compile (gblint[runtime])
    add_confirm_parser(sub)
    ls = sub.add_parser("lsp", help="run the language server on stdin/stdout (needs the lsp extra: pip install -e \".[lsp]\")")
    ls.add_argument("--stdio", action="store_true", help="use stdin/stdout (the default and only transport)")
    c.add_argument("--fix", action="store_true", help="apply safe fixes (same as `gblint fix`)")
    c.add_argument("--unsafe-fixes", action="store_true", help="with --fix: also apply unsafe fixes")
    c.add_argument("--diff", action="store_true", help="with --fix: print a unified diff, write nothing")
    f = sub.add_parser("fix", help="apply fixes that remove graph breaks and frame skips")
    add_common_options(f)
    f.add_argument("--unsafe-fixes", action="store_true", help="also apply unsafe fixes")
    f.add_argument("--diff", action="store_true", help="print a unified diff, write nothing")
    f.add_argument("--format", choices=("text", "json"), default="text",
                   help="format of the report on what is left after fixing")
    r = sub.add_parser("rules", help="list every rule with its codes and GB ids")
    r.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    cli_adoption.add_rule_parser(sub)
    return p


def settings_for(args, paths: List[str]) -> Settings:
    if args.isolated:
        settings = Settings()
    else:
        if args.config is not None and (not args.config or not os.path.isfile(args.config)):
            raise ConfigError(f"--config {args.config!r}: no such file")
        cfg = args.config or find_pyproject(paths[0] if paths and paths[0] != "-" else os.getcwd())
        settings = load_settings(cfg, required=args.config is not None)
    if args.select is not None:
        settings.select = parse_code_list(args.select, "--select")
    if args.extend_select:
        settings.select += parse_code_list(args.extend_select, "--extend-select")
    if args.ignore:
        settings.ignore += parse_code_list(args.ignore, "--ignore")
    if args.python_version:
        settings.python_version = parse_python_version(args.python_version, "--python-version")
        settings.python_source = FROM_OPTION
    if args.torch_version:
        settings.torch_version = parse_torch_version(args.torch_version, "--torch-version")
        settings.torch_source = FROM_OPTION
    memo = None
    if settings.cache and not args.no_cache:
        from ..project.cache import default_cache_dir
        memo = os.path.join(args.cache_dir or default_cache_dir(settings.root), "environment.json")
        memo = memo if os.path.isdir(os.path.dirname(memo)) else None  # written once the cache folder exists
    first = paths[0] if paths and paths[0] != "-" else (getattr(args, "stdin_filename", None) or os.getcwd())
    settle_versions(settings, first, project=not args.isolated, memo=memo)
    if args.nested_graph_breaks:
        settings.dynamo_config["nested_graph_breaks"] = True
    if args.no_respect_gitignore:
        settings.respect_gitignore = False
    if getattr(args, "jobs", 0):
        settings.jobs = args.jobs
    if getattr(args, "error_paths", False):
        settings.error_paths = True
    if getattr(args, "conditional", None):
        settings.conditional = args.conditional
    if args.follow_imports:
        settings.follow_imports += tuple(args.follow_imports)
    for spec in args.entry:
        module, _, qual = spec.partition(":")
        if not module or not qual:
            raise ConfigError(f"--entry {spec}: expected MODULE:QUALNAME, such as pkg.model:Net or train:step")
    if args.entry:
        settings.entry_points += tuple(args.entry)
    return settings


def unknown_entries(project, settings: Settings) -> List[str]:
    """The entry points (``--entry``, ``entry-points``) that name no function or class the run
    read; each is a usage error, never an empty success."""
    from ..project.engine import entry_point_frames
    return [spec for spec in settings.entry_points if not entry_point_frames(project, spec)]


def paths_and_settings(args, paths: List[str]) -> Optional[Settings]:
    """Check that the paths exist and load the settings; print the error and return None otherwise."""
    for p in paths:
        if p != "-" and not os.path.exists(p):
            print(f"gblint: error: {p}: no such file or directory", file=sys.stderr)
            return None
    try:
        settings = settings_for(args, paths)
    except ConfigError as exc:
        print(f"gblint: error: {exc}", file=sys.stderr)
        return None
    from ..core import versions
    if getattr(args, "verbose", False):
        print(f"gblint: {versions.sentence(settings)}", file=sys.stderr)
    elif not versions.is_supported(settings.torch_version):
        print(f"gblint: warning: torch {settings.torch_version} is none of the releases gblint was measured on "
              f"({', '.join(versions.SUPPORTED_TORCH)}); predicting with torch "
              f"{versions.release_for(settings.torch_version)}'s facts (--torch-version chooses)", file=sys.stderr)
    return settings


def cmd_check(args) -> int:
    from . import cli_adoption
    why = cli_adoption.refused(args, args.paths or ["."])
    if why:
        print(f"gblint: error: {why}", file=sys.stderr)
        return 2
    if args.fix or args.diff:
        return cmd_fix(args)
    from ..project.cache import maybe_cache
    from ..settings.files import SourceFile, iter_python_files
    from .output import write_explain, write_json, write_statistics, write_text

    paths = args.paths or ["."]
    refused = _output_problem(args.output_file, paths) if args.output_file else None
    if refused:
        print(f"gblint: error: -o {args.output_file}: {refused}", file=sys.stderr)
        return 2
    if args.statistics and args.format not in ("text", "json"):
        print(f"gblint: error: --statistics prints text or json, not {args.format}", file=sys.stderr)
        return 2
    settings = paths_and_settings(args, paths)
    if settings is None:
        return 2
    cache = maybe_cache(settings, settings.cache and not args.no_cache and paths != ["-"], args.cache_dir)
    if paths == ["-"]:
        data = sys.stdin.buffer.read()
        from ..core.source import SourceError, decode_source
        name = args.stdin_filename or "<stdin>"
        try:
            sources = [SourceFile(name, decode_source(data, name))]
        except SourceError as exc:
            sources = []
            stdin_error = exc.diagnostic
    else:
        sources = [SourceFile(p, None) for p in iter_python_files(paths, settings)]
    fixes, coverage = not args.statistics and not args.add_noqa and not args.write_baseline, args.format == "json"
    stored = None  # a report of the same code and settings, kept from an earlier run (gblint.project.results)
    if paths != ["-"] and not (args.explain or args.confirm or args.add_noqa or args.write_baseline
                               or args.format == "html"):
        from ..project.results import open_results
        stored = open_results(cache, settings, sources, (fixes, coverage))
    report = stored.get() if stored is not None else None
    missing = []
    if report is None:
        try:
            from ..project.engine import run
            from .output import Progress
            progress = Progress(sys.stderr, enabled=not args.quiet and len(sources) > 50)
            try:
                report, project, regions, walks = run(sources, settings, cache, fixes=fixes, progress=progress,
                                                      coverage=coverage)
            finally:
                progress.close()
        except ValueError as exc:  # e.g. --follow-imports of a package that is not installed
            print(f"gblint: error: {exc}", file=sys.stderr)
            return 2
        missing = unknown_entries(project, settings)
        if stored is not None and not missing:
            stored.put(report, sources, project.loader)
    if missing:
        for spec in missing:
            print(f"gblint: error: entry point {spec}: no such module, function or class among the files "
                  f"checked (an entry is MODULE:QUALNAME of a checked file or a followed package)", file=sys.stderr)
        return 2
    if paths == ["-"] and not sources:
        report.diagnostics.append(stdin_error)
        report.files_checked = 1
    if args.write_baseline:
        return cli_adoption.write_baseline(args, report)
    problem = cli_adoption.apply_baseline(args, settings, report)
    if problem:
        print(f"gblint: error: {problem}", file=sys.stderr)
        return 2
    if args.add_noqa:
        return cli_adoption.add_noqa(report, settings)
    if args.explain:
        buf = io.StringIO()
        try:
            found = write_explain(walks, args.explain, buf)
        except ValueError as exc:
            print(f"gblint: error: {exc}", file=sys.stderr)
            return 2
        write_stdout(buf.getvalue())
        if not found:
            print(f"gblint: error: no compiled entry named {args.explain!r}", file=sys.stderr)
            return 2
        return 0
    if args.format == "html" and not args.statistics:
        from .html_report import HtmlUnavailable, environment, write_html
        try:
            environment()
        except HtmlUnavailable as exc:
            print(f"gblint: error: {exc}", file=sys.stderr)
            return 2
    if args.confirm:
        from gblint.runtime_check.cli import cmd_check_with_confirm
        return cmd_check_with_confirm(args, settings, report, regions,
                                      lambda out: write_text(report, out, show_hints=not args.no_hints),
                                      write_html=(lambda out, section: write_html(report, walks, out, section))
                                      if args.format == "html" else None)
    buf = io.StringIO()
    if args.statistics:
        write_statistics(report, buf, "json" if args.format == "json" else "text")
    elif args.format == "json":
        write_json(report, buf)
    elif args.format == "sarif":
        from .output import write_sarif
        write_sarif(report, buf)
    elif args.format == "github":
        from .output import write_github
        write_github(report, buf)
    elif args.format == "html":
        write_html(report, walks, buf)
    else:
        to_tty = not args.output_file and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        write_text(report, buf, color=to_tty, show_hints=not args.no_hints, quiet=args.quiet,
                   show_source=args.show_source)
    if not emit(buf.getvalue(), args.output_file):
        return 2
    if report.errors:
        return 2
    if report.diagnostics and not args.exit_zero:
        return 1
    return 0


def _output_problem(output: str, paths: List[str]) -> Optional[str]:
    """Why ``-o output`` must be refused for a run over ``paths`` (None when it is fine): it is
    a folder, or a Python file among those checked (named, or found under a checked folder)."""
    if os.path.isdir(output):
        return "that is a folder, not a file"
    if not os.path.exists(output):
        return None
    target = os.path.realpath(output)
    for p in paths:
        if p == "-" or not os.path.exists(p):
            continue
        if os.path.samefile(p, output):
            return "that is a file being checked; it would be overwritten"
        if os.path.isdir(p) and target.endswith((".py", ".pyi")) and \
                os.path.commonpath([os.path.realpath(p), target]) == os.path.realpath(p):
            return "that is a Python file under a checked folder; it would be overwritten"
    return None


def emit(text: str, output_file: Optional[str]) -> bool:
    """Write ``text`` to ``output_file`` (``-o``) or standard output (:func:`write_stdout`).
    False, after one line on standard error, when the file cannot be written."""
    if not output_file:
        write_stdout(text)
        return True
    try:
        with open(output_file, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        print(f"gblint: error: cannot write {output_file}: {exc.strerror or exc}", file=sys.stderr)
        return False
    return True


def cmd_lsp(args) -> int:
    try:
        from .lsp import main as lsp_main
    except ImportError as exc:
        from ..core.diagnostics import CHECKOUT
        print(f"gblint: error: `gblint lsp` needs pygls and lsprotocol ({exc}); "
              f"install them in gblint's checkout ({CHECKOUT}) with: python3 -m pip install -e \".[lsp]\"",
              file=sys.stderr)
        return 2
    return lsp_main()


def cmd_fix(args) -> int:
    """``gblint fix`` / ``gblint check --fix``: apply fixes until nothing changes, then report what is left.

    A file is replaced only if it still holds the bytes that were analysed (else it is skipped:
    "changed on disk since it was read"); only fixes in files actually written are counted. The
    report comes from a check of what the files hold afterwards. Exit 0 when no diagnostic
    remains, 1 when some do, 2 on usage or internal errors, a file that could not be written,
    or fixes left when the round limit (:data:`gblint.frontends.fix.MAX_ROUNDS`) was reached.
    """
    from ..project.engine import SourceFile, check_sources, iter_python_files
    from .fix import MAX_ROUNDS, fix_sources
    from ..core.fs import ChangedOnDiskError, write_atomic
    from .output import write_text
    from ..core.source import SourceError, decode_source, read_bytes, read_source

    paths = args.paths or ["."]
    for option, given in (("--explain", getattr(args, "explain", None)), ("--statistics", getattr(args, "statistics", False)),
                          ("--confirm", getattr(args, "confirm", False))):
        if given:  # check's views of a report; fix's report is what is left after fixing
            print(f"gblint: error: {option} is an option of `gblint check`, not of `gblint fix`", file=sys.stderr)
            return 2
    refused = _output_problem(args.output_file, paths) if getattr(args, "output_file", None) else None
    if refused:
        print(f"gblint: error: -o {args.output_file}: {refused}", file=sys.stderr)
        return 2
    if "-" in paths:
        if paths != ["-"]:
            print("gblint: error: fix reads standard input ('-') alone, not with other paths", file=sys.stderr)
            return 2
        return _fix_stdin(args)
    settings = paths_and_settings(args, paths)
    if settings is None:
        return 2
    texts, data = {}, {}
    skipped = []
    for path in iter_python_files(paths, settings):
        try:
            data[path] = read_bytes(path)
            texts[path] = decode_source(data[path], path)
        except SourceError as exc:
            skipped.append((path, exc.diagnostic.message))
    result = fix_sources(texts, settings, unsafe=args.unsafe_fixes)
    failed = False
    if args.diff:
        write_stdout(result.diff())
        written = set(result.changed())
    else:
        written = set()
        try:
            for path in result.changed():
                try:
                    write_atomic(path, result.texts[path], expected=data[path])
                    written.add(path)
                except ChangedOnDiskError as exc:  # an edit saved meanwhile wins; the file is left as it is
                    skipped.append((path, str(exc)))
                except Exception as exc:  # never leave a half-written file; say which one was skipped
                    skipped.append((path, f"not written: {exc}"))
                    failed = True
        except (KeyboardInterrupt, Terminated):  # each file is whole, old or new: say which are new
            for path in result.changed():  # the signal may land between a rename and the bookkeeping
                try:
                    if path not in written and read_source(path) == result.texts[path]:
                        written.add(path)
                except SourceError:
                    pass
            n = sum(1 for key in result.applied if key[0] in written)
            print(f"gblint: interrupted: applied {n} fix{'es' if n != 1 else ''} in {len(written)} "
                  f"file{'s' if len(written) != 1 else ''} before stopping; "
                  f"{len(result.changed()) - len(written)} left unchanged", file=sys.stderr)
            for path in sorted(written):
                print(f"gblint: written {display_path(path)}", file=sys.stderr)
            raise
    report = result.report
    if not args.diff and len(written) < len(result.changed()):  # report on what the files hold now
        now = []
        for path, text in result.texts.items():
            if path in written or text == result.original[path]:
                now.append(SourceFile(path, text))
            else:
                try:
                    now.append(SourceFile(path, read_source(path)))
                except SourceError:
                    pass  # deleted meanwhile
        report = check_sources(now, settings)
    n = sum(1 for key in result.applied if key[0] in written)
    verb = "Would apply" if args.diff else "Applied"
    print(f"{verb} {n} fix{'es' if n != 1 else ''} in {len(written)} "
          f"file{'s' if len(written) != 1 else ''}.", file=sys.stderr)
    _print_effects(result, written)
    for path, code, frame, title in result.reverted:
        print(f"gblint: reverted a fix that did not remove {code} in {display_path(path)} ({title})", file=sys.stderr)
    for path, why in skipped:
        print(f"gblint: skipped {display_path(path)}: {why}", file=sys.stderr)
    if not result.complete:
        print(f"gblint: error: stopped after {MAX_ROUNDS} rounds of fixes with more fixes to apply "
              "(run `gblint fix` again to go on)", file=sys.stderr)
    if getattr(args, "format", "text") == "json" and not args.diff:
        from .output import write_json
        buf = io.StringIO()
        write_json(report, buf)
        if not emit(buf.getvalue(), args.output_file):
            return 2
    elif not args.diff and report.diagnostics and not args.quiet:
        buf = io.StringIO()
        write_text(report, buf, color=False, show_hints=False)
        if not emit(buf.getvalue(), args.output_file):
            return 2
    if report.errors or failed or not result.complete:
        return 2
    return 1 if report.diagnostics and not args.exit_zero else 0


def _print_effects(result, written) -> None:
    """One line per applied fix in ``written`` files: the graphs, breaks and skipped frames gblint
    predicted for its frame, beside a fresh check of the frame in what the file holds now."""
    from ..fixing.fix_effects import measured_line
    for key in result.applied:
        if key[0] in written and key in result.effects:
            path, code, frame, _ = key
            frame = result.effect_frames.get(key) or frame  # a nested break's rewrite: its callee
            print(f"gblint: {code} in {display_path(path)} (`{frame}`): {measured_line(*result.effects[key])}",
                  file=sys.stderr)


def _fix_stdin(args) -> int:
    """``gblint fix -``: the fixed source on standard output (all of it, changed or not), what
    is left on standard error, as ``ruff check --fix -``. Exit as ``fix``.

    Standard input is read as bytes and decoded as a file is (PEP 263: a BOM or an encoding
    cookie, else UTF-8); the output is bytes in that same encoding (the input's own bytes when
    nothing changed), whatever the encoding of standard output."""
    from .fix import fix_sources
    from ..core.fs import UnsafeWriteError, encode_text
    from .output import write_text
    from ..core.source import SourceError, decode_source

    name = args.stdin_filename or "<stdin>"
    settings = paths_and_settings(args, [name] if os.path.exists(name) else [])
    if settings is None:
        return 2
    data = sys.stdin.buffer.read()
    try:
        text = decode_source(data, name)
    except SourceError as exc:
        sys.stdout.buffer.write(data)
        print(f"{name}: {exc.diagnostic.code} {exc.diagnostic.message}", file=sys.stderr)
        return 2
    result = fix_sources({name: text}, settings, unsafe=args.unsafe_fixes)
    try:
        fixed = data if result.texts[name] == text else encode_text(result.texts[name], data, name)
    except UnsafeWriteError as exc:  # the fixed text does not fit its encoding: the input, unchanged
        sys.stdout.buffer.write(data)
        print(f"gblint: error: {exc}", file=sys.stderr)
        return 2
    sys.stdout.flush()
    sys.stdout.buffer.write(fixed)
    sys.stdout.flush()
    n = len(result.applied)
    print(f"Applied {n} fix{'es' if n != 1 else ''}.", file=sys.stderr)
    _print_effects(result, {name})
    if result.report.diagnostics:
        buf = io.StringIO()
        write_text(result.report, buf, show_hints=False, quiet=args.quiet)
        sys.stderr.write(buf.getvalue())
    if result.report.errors or not result.complete:
        return 2
    return 1 if result.report.diagnostics and not args.exit_zero else 0


def cmd_rules(args) -> int:
    from ..settings.catalog import catalog
    rows = catalog()
    if args.format == "json":
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.format == "markdown":
        from .rule_pages import render_index
        sys.stdout.write(render_index(rows))
    else:
        for r in rows:
            ids = ",".join(r["gb_ids"]) or "-"
            torch = f"torch {r['torch_versions']}" if r["torch_versions"] else "torch any"
            python = f" Python {r['python_versions']}" if r["python_versions"] else ""
            print(f"{r['code']}  {r['name']:<30} {r['effect']:<6} {ids:<16} {torch + python:<14} {r['summary']}")
            for f in r["facts"]:
                print(f"{'':8}{'':<30} on {f['versions']}: {f['text']}")
    return 0


COMMANDS = ("check", "fix", "rules", "rule", "lsp", "confirm")


def unknown_command(word: str) -> Optional[str]:
    """The message for a first argument that is neither a command, an option nor a path that
    exists but looks like a command (``gblint chek x.py``), else None: ``gblint x.py`` means
    ``gblint check x.py``, as in ruff and flake8."""
    import difflib
    if word.startswith("-") or os.path.exists(word) or not word.isidentifier():
        return None
    close = difflib.get_close_matches(word, COMMANDS, n=1)
    hint = f" (did you mean `{close[0]}`?)" if close else ""
    return f"unknown command `{word}`{hint}; commands: {', '.join(COMMANDS)}; a file or folder to check must exist"


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] not in COMMANDS + ("-h", "--help", "--version"):
        typo = unknown_command(argv[0])
        if typo:
            print(f"gblint: error: {typo}", file=sys.stderr)
            return 2
        argv = ["check"] + argv
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) if exc.code in (0, None) else 2
    if args.command is None:
        parser.print_help()
        return 2
    try:
        if args.command == "rules":
            return cmd_rules(args)
        if args.command == "rule":
            from .cli_adoption import cmd_rule
            return cmd_rule(args)
        if args.command == "fix":
            return cmd_fix(args)
        if args.command == "lsp":
            return cmd_lsp(args)
        if args.command == "confirm":
            from gblint.runtime_check.cli import cmd_confirm
            return cmd_confirm(args)
        return cmd_check(args)
    except Terminated:
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # the last line of defence: never a traceback, always exit 2
        print(f"gblint: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2


def _raise_terminated(signum, frame) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends the process at once
    raise Terminated()


def install_signal_handlers() -> None:
    """Turn SIGTERM into :class:`Terminated` in the main thread (call it from the main thread;
    ``gblint confirm`` installs its own handlers on top)."""
    signal.signal(signal.SIGTERM, _raise_terminated)


def entry() -> None:
    install_signal_handlers()
    argv = sys.argv[1:]
    if not argv or argv[0] not in ("lsp", "confirm"):  # a one-shot run: what it loads lives until exit
        from ..project.cache import keep_loaded_until_exit
        keep_loaded_until_exit()
    sys.exit(main())
