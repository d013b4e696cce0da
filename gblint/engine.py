"""The engine: paths in, :class:`Report` out. Every front end calls :func:`check_paths`
or :func:`check_sources`.

Pipeline (see ``docs/architecture.md``): read and parse each file once -> per-file
summary (one libcst traversal running every rule) -> project index -> compiled regions ->
consequences -> ``noqa`` and select/ignore filters.
"""
from __future__ import annotations

import dataclasses
import os
import traceback
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper

from .config import DEFAULT_EXCLUDE, Settings
from .consequences import Consequences, Frame, Region
from .diagnostics import Diagnostic
from .index import Project, module_name
from .noqa import noqa_lines, suppressed
from .source import SourceError, parse_source, read_source
from .summary import FileSummary, SummaryBuilder


@dataclasses.dataclass
class Report:
    """The result of a run: diagnostics sorted by path and line, files checked, and gblint's
    own failures (``errors``: ``{"path", "message"}``; they make the exit code 2)."""

    diagnostics: List[Diagnostic]
    files_checked: int
    errors: List[Dict[str, str]]

    def to_json(self) -> dict:
        return {"version": 1, "files_checked": self.files_checked,
                "diagnostics": [d.to_json() for d in self.diagnostics], "errors": self.errors}


def _rules_by_type():
    from gblint.rules import ALL_RULES
    table: Dict[type, list] = {}
    for rule in ALL_RULES:
        for t in rule.node_types:
            table.setdefault(t, []).append(rule)
    return table


_RULES_BY_TYPE = None


def rules_by_type():
    global _RULES_BY_TYPE
    if _RULES_BY_TYPE is None:
        _RULES_BY_TYPE = _rules_by_type()
    return _RULES_BY_TYPE


# ------------------------------------------------------------------ files

def iter_python_files(paths: Sequence[str], settings: Settings) -> List[str]:
    """Expand files and folders into ``.py``/``.pyi`` files, skipping excluded and git-ignored ones.

    A path named explicitly is always checked unless excluded by configuration.
    """
    out: List[str] = []
    seen = set()
    for path in paths:
        if os.path.isdir(path):
            spec = _gitignore(path) if settings.respect_gitignore else None
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in DEFAULT_EXCLUDE and not d.startswith(".")
                                 and not settings.excluded(os.path.join(root, d))
                                 and not (spec and spec.match_file(_rel(os.path.join(root, d), path) + "/")))
                for f in sorted(files):
                    if f.endswith((".py", ".pyi")):
                        full = os.path.join(root, f)
                        if settings.excluded(full) or (spec and spec.match_file(_rel(full, path))):
                            continue
                        if full not in seen:
                            seen.add(full)
                            out.append(full)
        elif not settings.excluded(path) and path not in seen:
            seen.add(path)
            out.append(path)
    return out


def _rel(path: str, root: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


def _gitignore(root: str):
    """A pathspec matcher for the ``.gitignore`` files at and above ``root`` (None without pathspec)."""
    try:
        import pathspec
    except ImportError:  # pragma: no cover - pathspec is a dependency
        return None
    lines: List[str] = []
    d = os.path.abspath(root)
    chain = []
    while True:
        chain.append(d)
        if os.path.isdir(os.path.join(d, ".git")):
            break
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    for directory in reversed(chain):
        gi = os.path.join(directory, ".gitignore")
        if os.path.isfile(gi) and directory == os.path.abspath(root):
            try:
                with open(gi, encoding="utf-8", errors="replace") as fh:
                    lines.extend(fh.read().splitlines())
            except OSError:
                pass
    if not lines:
        return None
    return pathspec.PathSpec.from_lines("gitwildmatch", lines)


# ------------------------------------------------------------------ summaries

def summarize(text: str, path: str, settings: Settings, module: Optional[Tuple[str, bool]] = None) -> FileSummary:
    """Parse ``text`` once and build its summary. Raises SourceError for unparsable input."""
    tree = parse_source(text, path, None)
    name, is_package = module if module is not None else module_name(path)
    builder = SummaryBuilder(path, name, is_package, rules_by_type(), settings)
    try:
        MetadataWrapper(tree, unsafe_skip_copy=True).visit(builder)
    except RecursionError:
        raise SourceError(Diagnostic(path=path, line=1, column=1, end_line=1, end_column=1, code="GBL001",
                                     name="syntax-error", effect="info", hint="",
                                     message="file is nested too deeply to analyse"))
    return builder.summary


@dataclasses.dataclass
class SourceFile:
    path: str
    text: Optional[str]
    module: Optional[Tuple[str, bool]] = None


def check_paths(paths: Sequence[str], settings: Settings) -> Report:
    """Check files and folders. Never raises for bad input: it becomes diagnostics."""
    files = iter_python_files(paths, settings)
    return check_sources([SourceFile(p, None) for p in files], settings)


def check_sources(sources: Iterable[SourceFile], settings: Settings) -> Report:
    """Check in-memory or on-disk sources as one project."""
    diagnostics: List[Diagnostic] = []
    errors: List[Dict[str, str]] = []
    summaries: List[FileSummary] = []
    noqa: Dict[str, dict] = {}
    count = 0
    for src in sources:
        count += 1
        try:
            text = src.text if src.text is not None else read_source(src.path)
            noqa[src.path] = noqa_lines(text)
            summary = summarize(text, src.path, settings, src.module)
        except SourceError as exc:
            diagnostics.append(exc.diagnostic)
            continue
        except Exception as exc:  # gblint's own failure: report it, go on with the other files
            errors.append({"path": src.path, "message": f"internal error: {type(exc).__name__}: {exc}"})
            diagnostics.append(_internal(src.path, "engine", exc))
            continue
        for rule_name, line, message in summary.rule_errors:
            diagnostics.append(Diagnostic(path=src.path, line=line, column=1, end_line=line, end_column=1,
                                          code="GBL000", name="internal-error", effect="info", hint="",
                                          message=f"rule `{rule_name}` failed here: {message}"))
        summaries.append(summary)
    project = Project(summaries)
    model = Consequences(project)
    for region in find_regions(project, settings):
        try:
            diagnostics.extend(model.region(region))
        except Exception as exc:
            errors.append({"path": region.entry.path, "message": f"internal error in region "
                                                                  f"{region.entry.name}: {type(exc).__name__}: {exc}"})
            diagnostics.append(_internal(region.entry.path, "consequences", exc, region.entry.info.span.line))
    kept = []
    for d in _dedupe(diagnostics):
        if not settings.selected(d.code, d.path) and not d.code.startswith("GBL00"):
            continue
        if suppressed(d.code, d.line, noqa.get(d.path, {})):
            continue
        kept.append(d)
    kept.sort(key=Diagnostic.sort_key)
    return Report(kept, count, errors)


def _dedupe(diags: List[Diagnostic]) -> List[Diagnostic]:
    seen = set()
    out = []
    for d in diags:
        key = (d.path, d.line, d.column, d.code, d.frame, d.effect)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def _internal(path: str, where: str, exc: BaseException, line: int = 1) -> Diagnostic:
    tb = traceback.extract_tb(exc.__traceback__)
    origin = f" at {os.path.basename(tb[-1].filename)}:{tb[-1].lineno}" if tb else ""
    return Diagnostic(path=path, line=line, column=1, end_line=line, end_column=1, code="GBL000",
                      name="internal-error", effect="info", hint="Please report this with the file that caused it.",
                      message=f"gblint internal error in {where}{origin}: {type(exc).__name__}: {exc}")


# ------------------------------------------------------------------ regions

def find_regions(project: Project, settings: Settings) -> List[Region]:
    """Every compiled entry in the project, with its options."""
    regions: List[Region] = []
    seen = set()
    for summary in project.by_path.values():
        for decl in summary.regions:
            for frame in _entry_frames(project, summary, decl.target):
                key = (frame.path, frame.name)
                if key in seen:
                    continue
                seen.add(key)
                ngb = summary.config.get("nested_graph_breaks", settings.dynamo_config.get("nested_graph_breaks", False))
                regions.append(Region(frame, decl.fullgraph, bool(ngb), settings.python_version, decl.spelling))
    return regions


def _entry_frames(project: Project, summary: FileSummary, target: tuple) -> List[Frame]:
    kind, ref = target
    dummy = Frame(summary.path, None)  # type: ignore[arg-type]
    if kind == "func":
        if ref[0] == "defined":
            f = project.function(summary, ref[1])
            return [f] if f else []
        return [t for k, t in project.resolve_ref(dummy, ref) if k == "frame"]
    if kind == "class":
        found = project.class_info(summary, ref) if ref and ref[0] == "qual" else None
        if found is None and ref and ref[0] == "instance_call":
            found = project.class_info(summary, ref[1])
        if found:
            m = project.method(found[0], found[1], "forward")
            return [m] if m else []
    return []
