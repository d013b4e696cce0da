"""The engine: paths in, :class:`Report` out. Every front end calls :func:`check_paths`
or :func:`check_sources`.

The pipeline runs one way, each stage reading only what the one before produced:

1. parse each file once (:mod:`gblint.core.source`, positions from :mod:`gblint.syntax.positions`);
2. summarise it in one traversal running every rule (:mod:`gblint.syntax.summary`), into the data
   classes of :mod:`gblint.core.model` (cached by :mod:`gblint.project.cache`);
3. index the project and resolve call targets to frames (:mod:`gblint.dynamo.index`), then the
   compiled regions (here);
4. consequences: what each break does to the frames around it (:mod:`gblint.dynamo.consequences`),
   as diagnostics (:mod:`gblint.core.diagnostics`), filtered by ``noqa`` and select/ignore;
5. fixes: each diagnostic's fix request becomes edits (:mod:`gblint.fixing.fixes`).

Output and applying fixes (:mod:`gblint.frontends.output`, :mod:`gblint.frontends.fix`) and the front ends (the
command line, flake8, the language server, ``confirm``) sit on top of this module.
"""
from __future__ import annotations

import dataclasses
import gc
import os
import re
import signal
import sys
import traceback
import warnings
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ..dynamo import calltree
from .cache import cached_fixes, settings_fingerprint, settle
from .mentions import Mentions
from ..settings.config import Settings
from ..settings.files import SourceFile, iter_python_files  # noqa: F401 (public here too)
from ..dynamo.consequences import Consequences
from ..core.diagnostics import Diagnostic, dedupe
from .report import Report  # noqa: F401 (public here too)
from ..fixing.fix_effects import graph_counter
from .incremental import summarize_incremental
from ..dynamo.index import Project, module_name
from ..core.model import FileSummary
from .noqa import noqa_lines
from ..core.semantics import dynamo_traces_package
from .reporting import conditional_shown, coverage_notes, select_diagnostics, unresolved_notes
from ..core.versions import describe as describe_versions, torch_of
from ..core.fs import import_roots, in_stdlib, module_findable, package_dir
from ..core.lazy_modules import Exports, LazyInit
from ..core.source import (SourceError, caused_by_recursion, check_size, describe_exception, digest, parse_source,
                           read_source, run_deep, too_deep)
from ..dynamo.entries import (certainty, entry_point_frames, find_regions, switched_off,  # noqa: F401 (public here too)
                              unresolved_reason, unresolved_regions, excluded_target)


class _OnFirstCall:
    """A function or class of another module, imported when first called. A run whose
    summaries all come from the cache reads no syntax tree, so libcst, the summary traversal
    and the rules are loaded only on a cache miss (and the fixes only when fixes are asked for).
    Module attributes all the same, so a profiler can still wrap them (bench/prof.py)."""

    def __init__(self, name: str):
        self.name, self.target = name, None

    def __call__(self, *args, **kwargs):
        if self.target is None:
            self.target = _load(self.name)
        return self.target(*args, **kwargs)


def _load(name: str):
    if name == "MetadataWrapper":
        from libcst.metadata import MetadataWrapper as found
    elif name == "AstPositions":
        from ..syntax.positions import AstPositions as found
    elif name == "SummaryBuilder":
        from ..syntax.summary import SummaryBuilder as found
    else:
        from ..fixing.fixes import attach_fixes as found
    return found


MetadataWrapper = _OnFirstCall("MetadataWrapper")
AstPositions = _OnFirstCall("AstPositions")
SummaryBuilder = _OnFirstCall("SummaryBuilder")
attach_fixes = _OnFirstCall("attach_fixes")


_RULES_BY_TYPE: Dict[tuple, Dict[type, list]] = {}


def rules_by_type(torch_version: Optional[str] = None, python_version: Optional[Tuple[int, int]] = None) -> Dict[type, list]:
    """The rules whose ``torch_versions`` hold for ``torch_version`` (default: the installed
    torch's) and ``python_versions`` for ``python_version`` (default: any), by node type."""
    from gblint.core import registry
    from gblint.rules import ALL_RULES
    key = (torch_version or torch_of(Settings()), "%d.%d" % tuple(python_version) if python_version else "")
    if key not in _RULES_BY_TYPE:
        table: Dict[type, list] = {}
        for rule in ALL_RULES:
            if registry.in_range(key[0], rule.torch_versions) and (not key[1] or registry.in_range(
                    key[1], rule.python_versions)):
                for t in rule.node_types:
                    table.setdefault(t, []).append(rule)
        _RULES_BY_TYPE[key] = table
    return _RULES_BY_TYPE[key]


# ------------------------------------------------------------------ files

# ------------------------------------------------------------------ summaries

def summarize(text: str, path: str, settings: Settings, module: Optional[Tuple[str, bool]] = None,
              ast_positions: bool = True, incremental: bool = False) -> FileSummary:
    """Parse ``text`` once and build its summary. Raises SourceError for unparsable input.

    ``ast_positions=False`` takes every position from libcst's PositionProvider (slower; the
    reference that tests/test_positions.py compares the default against). ``incremental`` reuses
    the previous summary of the same path and re-reads only the edited definition
    (:mod:`gblint.project.incremental`; the editor's case)."""
    # libcst trees hold no reference cycles: the collector, paused meanwhile, would only re-walk them (1/4 of the CPU)
    gc_enabled = gc.isenabled()
    gc.disable()
    try:
        if incremental:
            key = f"{settings_fingerprint(settings)}|{module}|{ast_positions}"
            return summarize_incremental(text, path, key,
                                         lambda t: _summarize(t, path, settings, module, ast_positions))
        return _summarize(text, path, settings, module, ast_positions)
    finally:
        settle()
        if gc_enabled:
            gc.enable()


def _summarize(text: str, path: str, settings: Settings, module, ast_positions: bool) -> FileSummary:
    check_size(text, path, settings.max_file_size)  # before libcst, whose cost per token is high
    tree = parse_source(text, path, None)
    name, is_package = module if module is not None else module_name(path)
    rules = rules_by_type(torch_of(settings), settings.python_version)
    builder = SummaryBuilder(path, name, is_package, rules, settings)
    try:
        positions = AstPositions(text) if ast_positions else None
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        positions = None
    try:
        if positions is not None:
            builder.ast_positions = positions
            run_deep(builder.walk, tree)  # tree.visit(builder), without libcst's rebuilding of every node
            if builder.fill_positions():
                return builder.summary
            builder = SummaryBuilder(path, name, is_package, rules, settings)  # counts disagreed: libcst positions
        run_deep(MetadataWrapper(tree, unsafe_skip_copy=True).visit, builder)
    except Exception as exc:  # libcst reports a RecursionError in its metadata as a KeyError
        if caused_by_recursion(exc):
            raise too_deep(path)
        raise
    return builder.summary


def _still_holds(summary: Optional[FileSummary], path: str) -> Optional[FileSummary]:
    """A cached ``summary`` of the file at ``path``, or None (a miss) when a module its rules took as absent
    can now be found (installed, or created beside the file: rules/imports.py)."""
    if summary is not None and any(module_findable(path, top) for top in summary.absent_modules):
        return None
    return summary


def _module_of(src: SourceFile) -> Tuple[str, bool]:
    """The (dotted name, is_package) of a source: given, or computed from its path."""
    return src.module if src.module is not None else module_name(src.path)


class Loader:
    """Reads, parses and summarises files (through the cache), and loads modules of followed
    packages (``--follow-imports``) on first use, from their source files, never importing them."""

    def __init__(self, settings: Settings, cache=None):
        self.settings = settings
        self.cache = cache
        self.noqa: Dict[str, dict] = {}
        self.texts: Dict[str, str] = {}
        self.diagnostics: List[Diagnostic] = []
        self.errors: List[Dict[str, str]] = []
        self.followed: Dict[str, str] = {}
        # installed packages a followed package's files import: followed too on first use, as
        # Dynamo inlines them (x_transformers -> einops), unless Dynamo skips them
        self.dependencies: Set[str] = set()
        self.followed_paths: Set[str] = set()  # files read from followed packages (--follow-imports)
        self.lazy: Dict[str, SourceFile] = {}  # module -> checked file parsed only if a region reaches it
        self._missing: set = set()
        # what followed packages' modules mention, kept across runs in the cache folder (gblint.project.mentions)
        # package root -> its file stamp, taken when first used (gblint.project.mentions, gblint.project.results)
        self.stamps: Dict[str, Optional[str]] = {}
        self.mentions = Mentions(getattr(cache, "directory", None), getattr(cache, "fingerprint", ""), self.stamps)
        self.roots: List[str] = []  # where modules the checked files import are looked up (import_roots)
        self._found_nearby: Dict[str, str] = {}
        # path -> whether it was a file, for every module file looked for (gblint.project.results checks them again)
        self.probes: Dict[str, bool] = {}
        self.packages: Dict[str, Optional[str]] = {}  # top-level name -> where package_dir found it
        self.unreadable: Dict[str, str] = {}  # path -> source.digest of a file that could not be read or decoded
        self.absent: Dict[str, List[str]] = {}  # path -> modules its summary took as absent (gblint.project.results asks again)
        # module -> (absolute file, exclude pattern): project modules
        # an import names that configuration leaves out, so a GBL003 note can say so
        self.excluded: Dict[str, Tuple[str, str]] = {}
        for pkg in settings.follow_imports:
            root = self._package(pkg)
            if root is None:
                raise ValueError(f"--follow-imports: package {pkg!r} is not installed (no source found)")
            self._follow(pkg, root)

    def _package(self, name: str) -> Optional[str]:
        """:func:`gblint.core.fs.package_dir` of ``name``, the answer recorded (gblint.project.results asks it again)."""
        root = self.packages[name] = package_dir(name)
        return root

    def _follow(self, name: str, root: str) -> None:
        """Follow the package ``name`` found at ``root``. With a cache folder (what depends on the package's files
        is kept there) its files are stamped now, before any of them is read."""
        self.followed[name] = root
        if self.mentions.directory is not None:
            self.mentions.stamp(root)

    def load(self, src: SourceFile, followed: bool = False) -> Optional[FileSummary]:
        """Read, parse and summarise one file (through the cache); its problems become
        diagnostics or errors, and None is returned."""
        try:
            text = src.text if src.text is not None else read_source(src.path)
            self.noqa[src.path] = noqa_lines(text)
            self.texts[src.path] = text
            module = _module_of(src)
            key = self.cache.key(src.path, module[0], text) if self.cache is not None else None
            summary = _still_holds(self.cache.get(key) if key is not None else None, src.path)
            if summary is not None:
                summary.path = src.path  # the same file, maybe spelled from another folder when stored
            if summary is None:
                # an editor's buffer is edited a definition at a time
                summary = summarize(text, src.path, self.settings, module,
                                    incremental=self.settings.incremental and src.text is not None)
                if key is not None:
                    self.cache.put(key, summary)
            self.took(src.path, summary)
            if followed:
                self._note_dependencies(summary)
        except SourceError as exc:
            if src.text is None and src.path not in self.texts:
                self.unreadable[src.path] = digest(src.path)
            if not followed:
                self.diagnostics.append(exc.diagnostic)
            return None
        except Exception as exc:  # gblint's own failure: report it, go on with the other files
            self.errors.append({"path": src.path, "message": f"internal error: {describe_exception(exc)}"})
            self.diagnostics.append(_internal(src.path, "engine", exc))
            return None
        failures: Dict[str, List[Tuple[int, str]]] = {}
        for rule_name, line, message in summary.rule_errors:
            failures.setdefault(rule_name, []).append((line, message))
        for rule_name, found in failures.items():  # one GBL000 per rule and file, however often it failed
            line, message = found[0]
            more = f" (and {len(found) - 1} more place(s) in this file)" if len(found) > 1 else ""
            self.diagnostics.append(Diagnostic(path=src.path, line=line, column=1, end_line=line, end_column=1,
                                               code="GBL000", name="internal-error", effect="info",
                                               hint="Please report this with the file that caused it.",
                                               message=f"rule `{rule_name}` failed here{more}: {message}"))
        return summary

    def took(self, path: str, summary: FileSummary) -> None:
        """Note what the summary of the file at ``path`` took from the file system (:attr:`absent`)."""
        if summary.absent_modules:
            self.absent[path] = list(summary.absent_modules)

    def _note_dependencies(self, summary: FileSummary) -> None:
        """Remember the top-level packages that a followed file imports (see :attr:`dependencies`)."""
        for target in list(summary.imports.values()) + list(summary.star_imports):
            top = target.split(".")[0]
            if top and top not in self.followed and dynamo_traces_package(top):
                self.dependencies.add(top)

    def may_define(self, name: str, word: str) -> bool:
        """Whether module ``name`` (a file, or a package and everything under it) can bind
        ``word``: its text mentions it as a word. Cheap, to follow ``from M import *`` chains
        (transformers re-exports ~400 model packages that way) without parsing every module on
        them; True when ``name`` is not a followed package's module (the caller parses it)."""
        return self._mentions_word(name, word, word, lambda: re.compile(rf"\b{re.escape(word)}\b"))

    def _mentions_word(self, name: str, key: str, word: str, pattern) -> bool:
        root = self.followed.get(name.split(".")[0])
        if root is None:
            return True
        return self.mentions.matches(root, os.path.join(root, *name.split(".")[1:]), f"{name}\0{key}", word, pattern)

    def may_bind(self, name: str, word: str) -> bool:
        """Whether module ``name`` (a file, or a package and everything under it) may bind ``word``
        at its top level, so that ``from name import *`` binds it: a ``def``/``class``/assignment of
        it in column 0, or an import of it. Stricter than :meth:`may_define` (a mention), to tell
        whether a star import can hide a submodule of the same name (``from .act import *`` where
        ``act.py`` defines ``act``); True when ``name`` is not a followed package's module."""
        w = re.escape(word)
        return self._mentions_word(name, "=" + word, word, lambda: re.compile(
            rf"^(?:(?:async\s+)?def\s+{w}\b|class\s+{w}\b|{w}\s*[:=]|(?:from\s+\S+\s+)?import\b.*\b{w}\b)"
            rf"|^\s+(?:\w+\s+as\s+)?{w}\s*(?:,|\)|$)", re.M))

    def lazy_exporters(self, name: str, word: str) -> List[str]:
        """The modules under package ``name`` whose ``__all__`` lists ``word``, when ``name`` belongs
        to a followed package whose ``__init__`` replaces it in ``sys.modules`` with a lazy module
        built from ``define_import_structure(...)``: such a package's names are what the files under
        its folder export, as transformers' ``utils/import_utils.py`` reads them
        (``create_import_structure_from_path``: every file but ``__init__.py``, ``convert_*`` and
        ``modular_*``; ``fetch__all__``: the last ``__all__`` line), so a model package its
        ``TYPE_CHECKING`` imports leave out is still ``transformers.Name``. [] for any other module."""
        root = self.followed.get(name.split(".")[0])
        if root is None:
            return []
        folder = os.path.join(root, *name.split(".")[1:])
        if not os.path.isdir(folder) or not self._mentions_word(
                name + ".__init__", "lazy", "define_import_structure", LazyInit):
            return []
        out, seen = [], set()
        for directory, dirs, files in os.walk(folder):  # links to folders are not followed
            dirs[:] = sorted(d for d in dirs if d.isidentifier())
            for f in sorted(files):
                stem = f[:-3]
                if not f.endswith(".py") or f == "__init__.py" or f.startswith(("convert_", "modular_")) \
                        or not stem.isidentifier():
                    continue
                real = os.path.realpath(os.path.join(directory, f))
                if real in seen:
                    continue
                seen.add(real)
                module = ".".join([name] + os.path.relpath(os.path.join(directory, stem), folder).split(os.sep))
                if self._mentions_word(module, "__all__" + word, word, lambda: Exports(word)):
                    out.append(module)
        return out

    def _nearby(self, name: str) -> Optional[Tuple[str, bool]]:
        """``(path, is_package)`` of module ``name`` under one of :attr:`roots`, or None."""
        for root in self.roots:
            base = os.path.join(root, *name.split("."))
            for path, is_pkg in ((base + ".py", False), (os.path.join(base, "__init__.py"), True)):
                if not self._isfile(path):
                    continue
                pattern = self.settings.exclusion(path)
                if pattern is None:
                    return path, is_pkg
                self.excluded.setdefault(name, (os.path.abspath(path), pattern))
        return None

    def _isfile(self, path: str) -> bool:
        found = self.probes[path] = os.path.isfile(path)
        return found

    def load_module(self, name: str) -> Optional[FileSummary]:
        """The summary of module ``name`` when it is a checked file not loaded yet, or belongs to a
        followed package; else None."""
        src = self.lazy.pop(name, None)
        if src is not None:
            return self.load(src)
        top = name.split(".")[0]
        root = self.followed.get(top)
        if root is None and top in self.dependencies:
            self.dependencies.discard(top)
            root = self._package(top)
            if root is not None and in_stdlib(root):  # Python 3.9 has no sys.stdlib_module_names
                root = None
            if root is not None:
                self._follow(top, root)
        if root is None and name not in self._missing:
            nearby = self._nearby(name)
            if nearby is not None:  # a module of the user's project that was not named: checked too
                return self.load(SourceFile(nearby[0], None, (name, nearby[1])))
        if root is None or name in self._missing:
            self._missing.add(name)
            return None
        rel = name.split(".")[1:]
        base = os.path.join(root, *rel)
        for path, is_pkg in ((base + ".py", False), (os.path.join(base, "__init__.py"), True)):
            if self._isfile(path):
                self.followed_paths.add(path)
                return self.load(SourceFile(path, None, (name, is_pkg)), followed=True)
        self._missing.add(name)
        return None


# text that can declare a compiled region: torch.compile / T.compile(...) / model.compile() /
# `from torch import compile`; `re.compile(` alone cannot
_REGION_LINE = re.compile(r"(?<![\w])(?!re\.)(?:\w+\.)+compile\b|import.*\bcompile\b|^\s*compile\s*\(")


def declares_region(text: str) -> bool:
    """Whether some line of ``text`` can declare a compiled region (only lines with `compile` are tried)."""
    i = text.find("compile")
    while i != -1:
        start = text.rfind("\n", 0, i) + 1
        end = text.find("\n", i)
        end = len(text) if end == -1 else end
        if _REGION_LINE.search(text, start, end):
            return True
        i = text.find("compile", end)
    return False


PARALLEL_THRESHOLD = 24  # below this many files a process pool costs more than it saves (pre-commit)


def _summarize_worker(sources: List[SourceFile], settings: Settings) -> list:
    """Process-pool worker: for each source, ``(src, summary, diagnostics, errors, noqa, text)``
    (summary None when the file produced a diagnostic or error instead)."""
    settings = dataclasses.replace(settings, follow_imports=())
    out = []
    for src in sources:
        loader = Loader(settings, None)
        summary = loader.load(src)
        out.append((src, summary, loader.diagnostics, loader.errors, loader.noqa.get(src.path, {}),
                    loader.texts.get(src.path)))
    return out


PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _worker_init(parent: int) -> None:
    """Pool initializer: on Linux, the kernel sends this worker SIGKILL when its parent dies
    (SIGKILL or any other way), so no worker outlives ``gblint check`` holding its stderr open.
    A parent that died before the request took effect is noticed here. ``parent`` is the pid
    of the process that forked the worker."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # no libc prctl: the parent's cleanup still stops workers
            pass
    if os.getppid() != parent:
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in a terminal reaches the whole group: the parent decides
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)  # blocked while the parent forked


def _stop_workers(pool) -> None:
    """Kill a pool's workers now (an interrupted run). The pool's manager thread then finds them
    dead and fails the queued work. No future is cancelled (no ``cancel_futures``, no
    ``Executor.map``, whose generator cancels on close): with the pending work cancelled the
    manager takes its orderly-exit path, which waits for the call queue to drain into workers
    that no longer exist (a hang at exit), and Python 3.11's manager fails on a cancelled
    future with ``InvalidStateError``."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            process.kill()
        except (OSError, ValueError, AttributeError):
            pass
    pool.shutdown(wait=False)


def _load_parallel(eager: List[SourceFile], loader: "Loader", jobs: int) -> List[FileSummary]:
    """Summarise files in a process pool; cached summaries are read here, misses go to workers.

    The workers die with this process: killed here when the run is interrupted (SIGINT, SIGTERM
    turned into an exception by the command line, any error), and by the kernel when this
    process is killed (:func:`_worker_init`)."""
    import concurrent.futures
    import multiprocessing

    out: List[FileSummary] = []
    todo = []
    for src in eager:
        if loader.cache is not None:
            try:
                text = src.text if src.text is not None else read_source(src.path)
            except SourceError as exc:
                loader.diagnostics.append(exc.diagnostic)
                continue
            src = SourceFile(src.path, text, src.module)
            module = _module_of(src)
            hit = _still_holds(loader.cache.get(loader.cache.key(src.path, module[0], text)), src.path)
            if hit is not None:
                hit.path = src.path  # stored under the absolute path: keep this run's spelling
                loader.noqa[src.path] = noqa_lines(text)
                loader.texts[src.path] = text
                loader.took(src.path, hit)
                out.append(hit)
                continue
        todo.append(src)
    if not todo:
        return out
    # fork, so that the worker's parent is this process (the check in _worker_init)
    context = multiprocessing.get_context("fork") if sys.platform.startswith("linux") else None
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=context,
                                                  initializer=_worker_init, initargs=(os.getpid(),))
    try:
        chunk = max(1, len(todo) // (jobs * 8))
        # The first submit forks the workers. A signal handled inside fork's callbacks (logging
        # registers one) has its KeyboardInterrupt/Terminated printed and dropped, and the run
        # would go on: SIGINT and SIGTERM wait until the forks are done.
        masked = hasattr(signal, "pthread_sigmask")
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS) if masked else None
        try:
            futures = [pool.submit(_summarize_worker, todo[i:i + chunk], loader.settings)
                       for i in range(0, len(todo), chunk)]
        finally:
            if masked:
                signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        for src, summary, diags, errors, noqa, text in (item for f in futures for item in f.result()):
            loader.diagnostics.extend(diags)
            loader.errors.extend(errors)
            loader.noqa[src.path] = noqa
            if text is not None:
                loader.texts[src.path] = text
            if summary is not None:
                out.append(summary)
                loader.took(src.path, summary)
                if loader.cache is not None and text is not None:
                    module = _module_of(src)
                    loader.cache.put(loader.cache.key(src.path, module[0], text), summary)
    except BaseException:
        _stop_workers(pool)
        raise
    pool.shutdown(wait=True)
    return out


def _lazy_candidate(src: SourceFile, loader: "Loader", entry_modules) -> Optional[str]:
    """The module name under which ``src`` can wait until a compiled region reaches it, or None
    when it must be analysed now. Only code reachable from a region can be reported, and a file
    that never mentions ``compile`` declares no region; such files are syntax-checked with
    :mod:`ast` (cheap) and parsed with libcst only when a call leads into them."""
    import ast
    import symtable
    try:
        text = src.text if src.text is not None else read_source(src.path)
    except SourceError:
        return None  # let load() report it
    if declares_region(text):
        return None
    module = _module_of(src)
    if module[0] in entry_modules or module[0].rsplit(".", 1)[-1] in entry_modules:
        return None
    cache = loader.cache
    key = cache.key(src.path, module[0] + "#syntax-ok", text) if cache is not None else None
    if key is None or cache.get(key) is None:
        gc_enabled = gc.isenabled()
        gc.disable()  # the tree is freed by reference counting; the collector would only re-walk the heap
        try:
            with warnings.catch_warnings():  # the file's invalid escapes are not gblint's to report
                warnings.simplefilter("ignore")
                try:
                    # CPython's parser, as ast.parse, without building the tree's Python objects
                    # (a quarter faster); symtable is stricter, so only its success decides
                    symtable.symtable(text, src.path, "exec")
                except Exception:
                    ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None  # load() reports the syntax error with libcst's position
        finally:
            if gc_enabled:
                gc.enable()
        if key is not None:
            cache.put(key, True)  # the syntax check of an unchanged file is not repeated
    src.text = text
    loader.noqa[src.path] = noqa_lines(text)
    return module[0]


def check_paths(paths: Sequence[str], settings: Settings, cache=None) -> Report:
    """Check files and folders. Never raises for bad input: it becomes diagnostics."""
    files = iter_python_files(paths, settings)
    return check_sources([SourceFile(p, None) for p in files], settings, cache)


def check_sources(sources: Iterable[SourceFile], settings: Settings, cache=None, fixes: bool = True) -> Report:
    """Check in-memory or on-disk sources as one project.

    ``cache`` is an optional :class:`gblint.project.cache.SummaryCache`; ``fixes=False`` leaves
    ``Diagnostic.fix`` empty (faster).
    """
    return run(sources, settings, cache, fixes)[0]


def run(sources: Iterable[SourceFile], settings: Settings, cache=None, fixes: bool = True, progress=None,
        coverage: bool = False):
    """Check sources; return ``(Report, Project, regions, walks)`` for front ends that need more.

    ``progress(done, total)`` is called as files are read and summarised (for a terminal display).

    ``fixes`` computes each diagnostic's ``fix`` (a re-parse of the files concerned); output that
    shows no fixes can skip it. ``coverage`` fills ``Report.coverage`` (a walk over every call
    the regions reach), which only the JSON output shows.
    """
    loader = Loader(settings, cache)
    summaries: List[FileSummary] = []
    count = 0
    entry_modules = {spec.partition(":")[0] for spec in settings.entry_points}
    eager: List[SourceFile] = []
    sources = list(sources)
    total = len(sources)
    loader.roots = import_roots([src.path for src in sources], settings)
    for src in sources:
        count += 1
        if progress is not None and count % 25 == 0:
            progress(count, total)
        lazy = _lazy_candidate(src, loader, entry_modules)
        if lazy is not None:
            loader.lazy.setdefault(lazy, src)
        else:
            eager.append(src)
    jobs = settings.jobs if settings.jobs else (os.cpu_count() or 1)
    if jobs > 1 and len(eager) >= PARALLEL_THRESHOLD:
        summaries.extend(_load_parallel(eager, loader, jobs))
    else:
        for src in eager:
            summary = loader.load(src)
            if summary is not None:
                summaries.append(summary)
    if progress is not None:
        progress(total, total)
    project = Project(summaries, loader)
    model = Consequences(project, error_paths=settings.error_paths, torch_version=torch_of(settings),
                         python_version=settings.python_version)
    diagnostics = loader.diagnostics
    errors = loader.errors
    regions = find_regions(project, settings, summaries)
    loader.diagnostics.extend(unresolved_notes(project, summaries, settings, loader))
    walks = []
    for region in regions:
        try:
            walk = model.walk(region)
            walks.append(walk)
            diagnostics.extend(walk.diagnostics)
        except Exception as exc:
            errors.append({"path": region.entry.path, "message": f"internal error in region "
                                                                  f"{region.entry.name}: {describe_exception(exc)}"})
            diagnostics.append(_internal(region.entry.path, "consequences", exc, region.entry.info.span.line))
    unfollowed = calltree.unfollowed_events(model, walks)
    notes = coverage_notes([(src.path, src.text if src.text is not None else loader.texts.get(src.path, ""))
                            for src in sources], summaries, regions, model.visited.values(), unfollowed, diagnostics)
    kept, hidden, notes = select_diagnostics(dedupe(diagnostics), settings, project, regions, summaries, loader,
                                             list(model.visited.values()), notes)
    kept, conditional_hidden = conditional_shown(kept, settings.conditional, loader.followed_paths)
    # a fix is made only where `gblint fix` may write it: never in a followed package's files (read, not changed)
    own = {p: t for p, t in loader.texts.items() if p not in loader.followed_paths}
    if fixes and any(d.fix_request and d.path in own for d in kept):  # fixes re-parse, walk deep trees: cached
        kept = cached_fixes(kept, own, settings, loader.cache,
                            lambda todo: run_deep(attach_fixes, todo, own, settings,
                                                  predict=graph_counter(run, SourceFile, settings, loader.cache)))
    loader.mentions.save()
    report = Report(kept, count, errors, hidden=hidden, versions=describe_versions(settings),
                    conditional_hidden=conditional_hidden, regions_found=len(regions), notes=notes)
    report.unfollowed = calltree.unfollowed_records(unfollowed)
    report.switched_off = sorted(s.path for s in summaries if s.regions and switched_off(s) is True)
    if coverage:
        report.coverage = {
            "regions": [{"path": r.entry.path, "line": r.entry.info.span.line, "function": r.entry.name,
                         "spelling": r.spelling, **calltree.region_graphs(walks, r)} for r in regions],
            "functions": [{"path": f.path, "line": f.info.span.line, "function": f.name}
                          for f in model.visited.values()],
            "unfollowed": report.unfollowed, "switched_off": report.switched_off}
    return report, project, regions, walks


def _internal(path: str, where: str, exc: BaseException, line: int = 1) -> Diagnostic:
    tb = traceback.extract_tb(exc.__traceback__)
    origin = f" at {os.path.basename(tb[-1].filename)}:{tb[-1].lineno}" if tb else ""
    return Diagnostic(path=path, line=line, column=1, end_line=line, end_column=1, code="GBL000",
                      name="internal-error", effect="info", hint="Please report this with the file that caused it.",
                      message=f"gblint internal error in {where}{origin}: {describe_exception(exc)}")
