"""The command line's adoption tools: ``gblint rule``, ``check --baseline/--write-baseline`` and
``check --add-noqa`` (what a team needs to switch gblint on in a large codebase).

:mod:`gblint.frontends.cli` parses the options and calls these; the work is in :mod:`gblint.frontends.rule_pages`,
:mod:`gblint.frontends.baseline` and :mod:`gblint.project.noqa_edits`.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Dict, List, Optional, Set

from ..settings.config import ConfigError, display_path


def add_check_options(parser: argparse.ArgumentParser) -> None:
    """``check``'s options of this module."""
    parser.add_argument("--show-source", action="store_true",
                        help="text format: under each diagnostic, its source line, the whole explanation, the call "
                             "chain, the hint, the fix and the links")
    parser.add_argument("--add-noqa", action="store_true",
                        help="write `# noqa: CODE` on every reported line (merged into an existing noqa comment), "
                             "then exit 0")
    parser.add_argument("--baseline", metavar="FILE",
                        help="report only the diagnostics FILE does not record (see --write-baseline)")
    parser.add_argument("--write-baseline", metavar="FILE",
                        help="record every diagnostic reported in FILE, then exit 0")


def add_rule_parser(sub) -> None:
    """The ``rule`` command: ``gblint rule GBL201``, ``gblint rule --all``."""
    r = sub.add_parser("rule", help="print the page of a code: what it reports, why it costs, an example, what to "
                                    "write instead and the fix")
    r.add_argument("codes", nargs="*", metavar="CODE", help="codes such as GBL201")
    r.add_argument("--all", action="store_true", help="every code `gblint rules` lists")
    r.add_argument("--format", choices=("text", "json"), default="text",
                   help="text: the page in Markdown, as docs/rules/CODE.md has it; json: its fields")


def cmd_rule(args) -> int:
    """``gblint rule CODE...`` / ``--all``: the pages, in Markdown or JSON. Exit 2 for a code
    gblint does not have (the message lists the close ones)."""
    from .rule_pages import page, render, rows
    table = rows()
    codes = list(table) if args.all else [c.upper() for c in args.codes]
    if not codes:
        print("gblint: error: rule: name a code (gblint rule GBL201) or pass --all", file=sys.stderr)
        return 2
    unknown = [c for c in codes if c not in table]
    if unknown:
        import difflib
        close = difflib.get_close_matches(unknown[0], list(table), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else " (`gblint rules` lists the codes)"
        print(f"gblint: error: rule: {unknown[0]} is not a gblint code{hint}", file=sys.stderr)
        return 2
    pages = [page(c, table[c]) for c in codes]
    if args.format == "json":
        write_stdout(json.dumps(pages if args.all or len(pages) > 1 else pages[0], indent=2) + "\n")
    else:
        write_stdout("\n\n".join(render(p) for p in pages))
    return 0


def write_stdout(text: str) -> None:
    """Write ``text`` to standard output whatever its encoding (a character it cannot represent
    becomes a backslash escape, as Python writes standard error)."""
    try:
        sys.stdout.write(text)
    except UnicodeEncodeError:
        encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
        sys.stdout.write(text.encode(encoding, "backslashreplace").decode(encoding))


def apply_baseline(args, settings, report) -> Optional[str]:
    """Leave out of ``report`` what the baseline (``--baseline``, else ``baseline`` in the
    configuration) records, counting them in ``report.baselined``. Returns an error message for
    a missing or malformed baseline file, else None. Not with ``--write-baseline`` (that records
    everything found)."""
    from . import baseline
    path = getattr(args, "baseline", None) or settings.baseline
    if not path or getattr(args, "write_baseline", None):
        return None
    try:
        report.diagnostics, report.baselined = baseline.apply(report.diagnostics, path)
    except ConfigError as exc:
        return str(exc)
    return None


def write_baseline(args, report) -> int:
    """``--write-baseline FILE``: record the report's diagnostics; exit 0 (2 when it cannot be written)."""
    from . import baseline
    try:
        n = baseline.write(args.write_baseline, report.diagnostics)
    except ConfigError as exc:
        print(f"gblint: error: {exc}", file=sys.stderr)
        return 2
    print(f"Wrote {n} diagnostic{'s' if n != 1 else ''} to the baseline {display_path(args.write_baseline)}.",
          file=sys.stderr)
    return 2 if report.errors else 0


def add_noqa(report, settings) -> int:
    """``--add-noqa``: a ``# noqa: CODE`` for every diagnostic of the report, in the files it
    names (never a followed package's, never a file changed since it was read). ``GBL004``
    (unused noqa) and the codes of files gblint could not read get none. Exit 0, 2 when a file
    could not be written."""
    from ..core.fs import package_dir
    from ..core.fs import ChangedOnDiskError, UnsafeWriteError, write_atomic
    from ..project.noqa_edits import add_noqa as add
    from ..core.source import SourceError, decode_source, read_bytes
    roots = [r for r in (package_dir(p) for p in settings.follow_imports) if r]
    wanted: Dict[str, Dict[int, List[str]]] = {}
    for d in report.diagnostics:
        if d.code in ("GBL001", "GBL002", "GBL004") or d.path.startswith("<"):
            continue
        if any(os.path.commonpath([os.path.abspath(d.path), os.path.abspath(r)]) == os.path.abspath(r) for r in roots):
            continue
        wanted.setdefault(d.path, {}).setdefault(d.line, []).append(d.code)
    total, files, failed = 0, 0, False
    for path, lines in sorted(wanted.items()):
        try:
            data = read_bytes(path)
            text = decode_source(data, path)
        except SourceError as exc:
            print(f"gblint: skipped {display_path(path)}: {exc.diagnostic.message}", file=sys.stderr)
            continue
        new, n = add(text, lines)
        if not n:
            continue
        try:
            write_atomic(path, new, expected=data)
        except (ChangedOnDiskError, UnsafeWriteError, OSError) as exc:
            print(f"gblint: skipped {display_path(path)}: {exc}", file=sys.stderr)
            failed = True
            continue
        total += n
        files += 1
    print(f"Added {total} noqa comment{'s' if total != 1 else ''} in {files} file{'s' if files != 1 else ''}.",
          file=sys.stderr)
    return 2 if failed or report.errors else 0


def refused(args, paths: List[str]) -> Optional[str]:
    """Why the adoption options cannot run as given (None when they can)."""
    chosen: Set[str] = {o for o, v in (("--add-noqa", args.add_noqa), ("--write-baseline", args.write_baseline))
                        if v}
    if len(chosen) > 1:
        return "--add-noqa and --write-baseline each write files: pass one of them"
    if chosen and paths == ["-"]:
        return f"{chosen.pop()} writes files; it cannot take standard input ('-')"
    if chosen and (args.explain or args.statistics or getattr(args, "confirm", False) or args.fix or args.diff):
        return f"{chosen.pop()} is not a view of a report: leave out --explain, --statistics, --confirm and --fix"
    return None
