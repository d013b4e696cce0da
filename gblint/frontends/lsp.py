"""``gblint lsp``: a Language Server (stdio) over the engine, built on pygls and lsprotocol.

What it offers an editor:

- diagnostics of every open Python document, pushed on open, save and change (debounced,
  :data:`DEBOUNCE_S`), or pulled (``textDocument/diagnostic``) when the client supports it;
  each with ``code``, ``codeDescription`` (the graph-break page), ``source: "gblint"`` and
  ``relatedInformation`` for the call chain (``trace``); with the notes on what was not
  analysed (``GBL005``: a document that imports torch but that no compiled region of the open
  documents reaches; ``GBL006``: a call not followed), so that a document without diagnostics
  was checked;
- code actions: the diagnostic's own fix, ``# noqa: GBLnnn`` on its line, and
  ``source.fixAll.gblint`` (every safe fix of the document);
- hover on a flagged line: what Dynamo will do, the hint and the link;
- ``pyproject.toml`` changes (``workspace/didChangeWatchedFiles``) re-read the configuration.

Documents are keyed by their decoded file system path (:func:`gblint.frontends.lsp_documents.doc_key`);
the conversions to LSP live in :mod:`gblint.frontends.lsp_documents` (positions, diagnostics, hover) and
:mod:`gblint.frontends.lsp_actions` (code actions); this module wires them to the engine and the protocol.

All open documents are analysed as one project (per configuration file), so a change in one
open file refreshes the diagnostics of the others (a helper's break seen from a compiled
region in another file).

``initializationOptions`` (all optional)::

    {"breakSeverity": "warning" | "information" | "hint" | "error",   # effect "break"
     "diagnosticMode": "auto" | "push" | "pull"}

``auto`` (the default) answers pull requests when the client announces pull support and
pushes otherwise, so a client never shows the same diagnostic twice.
"""
from __future__ import annotations

import ast
import asyncio
import concurrent.futures
import dataclasses
import functools
import logging
import os
import sys
import threading
import warnings
from typing import Dict, List, Optional, Sequence, Tuple

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from .. import __version__
from ..project.cache import SummaryCache, maybe_cache
from ..settings.config import ConfigError, Settings, find_pyproject, load_settings, settle_versions
from ..core.diagnostics import Diagnostic
from ..project.engine import SourceFile, check_sources, run
from ..fixing.fix_effects import graph_counter
from ..fixing.fixes import attach_fixes
from .lsp_actions import (FIX_ALL_KIND, fix_action, fix_all_action, kind_allowed, noqa_action, noqa_edit,
                          safe_edits, to_text_edits)
from .lsp_documents import (EFFECT_WORDS, SEVERITY_NAMES, SOURCE, LspTextDocument, LspWorkspace, doc_key, has_fix,
                            hover_markdown, path_to_uri, severity_for, split_lines, to_lsp_diagnostic, to_position,
                            to_range, uri_to_path)
from ..core.source import SourceError, read_source

# the conversions are part of this module's interface (editors' tests and plugins use them from here)
__all__ = ["DEBOUNCE_S", "EFFECT_WORDS", "FIX_ALL_KIND", "SEVERITY_NAMES", "SOURCE", "GblintLanguageServer",
           "LspTextDocument", "LspWorkspace", "analyse_sources", "cache_for", "doc_key", "fix_action",
           "fix_all_action", "has_fix", "hover_markdown", "kind_allowed", "main", "noqa_action",
           "noqa_edit", "parser_limit_exceeded", "path_to_uri", "resolve_fixes", "safe_edits", "server",
           "severity_for", "split_lines", "to_lsp_diagnostic", "to_position", "to_range", "to_text_edits",
           "uri_to_path"]

log = logging.getLogger("gblint.frontends.lsp")

DEBOUNCE_S = 0.3
PYTHON_SUFFIXES = (".py", ".pyi")
MEMORY_ENTRIES = 256  # summaries the server keeps in memory (open documents, and what they import)


def parser_limit_exceeded(text: str) -> Optional[Tuple[int, str]]:
    """``(line, message)`` when ``text`` nests deeper than CPython accepts (such a file cannot
    run, and libcst's native parser can overflow the C stack on it and kill the process),
    else None. Any other syntax error is left to the engine."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (RecursionError, MemoryError):
        return 1, "the file is nested too deeply to parse"
    except SyntaxError as exc:
        msg = str(exc.msg or "")
        if any(m in msg for m in ("too many nested parentheses", "too complex", "too many levels of indentation")):
            return exc.lineno or 1, msg
    except Exception:  # e.g. ValueError for NUL bytes on older Pythons: the engine reports it
        pass
    return None


def cache_for(settings: Settings) -> SummaryCache:
    """The server's summary cache for ``settings``: the project's own (``.gblint_cache`` at the
    configuration root, the folder ``gblint check`` uses, so each reuses what the other stored)
    with a memory layer of :data:`MEMORY_ENTRIES` in front; in memory only with ``cache = false``
    or when the folder cannot be made. What the server computes for a buffer that differs from
    its file on disk (unsaved edits) stays in memory: the folder would only fill with states no
    run reads again."""
    return maybe_cache(settings, settings.cache, None, memory=MEMORY_ENTRIES, persist=_DiskText().matches)


class _DiskText:
    """Whether a buffer's text is what its file holds on disk (read again only when the file's
    size or modification time changed)."""

    def __init__(self):
        self._seen: Dict[str, Tuple[tuple, str]] = {}

    def matches(self, path: str, text: str) -> bool:
        try:
            st = os.stat(path)
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
            seen = self._seen.get(path)
            if seen is None or seen[0] != stamp:
                seen = self._seen[path] = (stamp, read_source(path))
        except (OSError, SourceError):
            return False
        return seen[1] == text


def analyse_sources(sources: List[SourceFile], settings: Settings, cache: Optional[SummaryCache] = None):
    """``check_sources`` re-reading only the edited definition of a buffer (incremental), through
    ``cache`` when given, without computing fixes (a fix re-parses its file: too slow for every
    keystroke; code actions ask for them, :func:`resolve_fixes`)."""
    settings = dataclasses.replace(settings, incremental=True)
    return check_sources(sources, settings, cache=cache, fixes=False)


def resolve_fixes(diagnostics: Sequence[Diagnostic], texts: Dict[str, str], settings: Settings) -> List[Diagnostic]:
    """The diagnostics with their deferred fixes computed (same order); unchanged when the
    engine has no deferred fixes. ``texts`` maps each diagnostic's path to the analysed text."""
    if not any(d.fix is None and d.fix_request is not None for d in diagnostics):
        return list(diagnostics)
    return list(attach_fixes(list(diagnostics), texts, settings, predict=graph_counter(run, SourceFile, settings)))


def _big_stack_executor(megabytes: int = 512) -> concurrent.futures.ThreadPoolExecutor:
    """A one-thread executor whose thread has a large stack: libcst's parser recurses natively."""
    previous = threading.stack_size()
    try:
        threading.stack_size(megabytes * 1024 * 1024)
        executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="gblint-analysis")
        executor.submit(lambda: None).result()  # start the thread while the stack size is set
    except (ValueError, RuntimeError):  # platform refuses the size: the default stack still works
        executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="gblint-analysis")
    finally:
        threading.stack_size(previous)
    return executor


# ------------------------------------------------------------------ the server

class _Snapshot:
    """The open documents one analysis ran on, by :func:`doc_key`: ``docs`` key -> (path,
    version, text), ``lines``, ``uris`` (the URI the client spelled, for what is sent back)."""

    def __init__(self, docs: Dict[str, Tuple[str, Optional[int], str]], uris: Optional[Dict[str, str]] = None):
        self.docs = docs
        self.uris = uris or {key: key for key in docs}
        self.lines = {key: split_lines(text) for key, (_, _, text) in docs.items()}
        self.key_by_path = {os.path.abspath(path): key for key, (path, _, _) in docs.items()}
        self.uri_by_path = {p: self.uris[key] for p, key in self.key_by_path.items()}

    def key(self) -> tuple:
        """What identifies the snapshot's contents: keys, versions and text hashes."""
        return tuple(sorted((key, v, hash(t)) for key, (_, v, t) in self.docs.items()))


class GblintLanguageServer(LanguageServer):
    """The gblint language server. Holds the last analysis of the open documents.

    Args:
        debounce: seconds to wait after a change before re-analysing (float).
    """

    def __init__(self, debounce: float = DEBOUNCE_S):
        super().__init__("gblint", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.debounce = debounce
        self.break_severity = lsp.DiagnosticSeverity.Warning
        self.pull_mode = False
        self.results: Dict[str, List[Diagnostic]] = {}
        self.snapshot = _Snapshot({})
        self._published: Dict[str, list] = {}
        self._key: Optional[tuple] = None
        self._config_generation = 0
        self._settings: Dict[Optional[str], Settings] = {}
        self._caches: Dict[int, SummaryCache] = {}
        self._pyproject_for_dir: Dict[str, Optional[str]] = {}
        self._reported_config_errors: set = set()
        self._lock: Optional[asyncio.Lock] = None
        self._pending: Optional[asyncio.Task] = None
        self._executor: Optional[concurrent.futures.ThreadPoolExecutor] = None
        self._guard_cache: Dict[str, Tuple[int, Optional[Tuple[int, str]]]] = {}
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._loop_thread: Optional[threading.Thread] = None

    # -------------------------------------------------------------- configuration

    def configure(self, options: object, capabilities: lsp.ClientCapabilities) -> None:
        """Apply ``initializationOptions`` (a dict or None) and pick push or pull mode."""
        opts = options if isinstance(options, dict) else {}
        sev = str(opts.get("breakSeverity", "warning")).lower()
        self.break_severity = SEVERITY_NAMES.get(sev, lsp.DiagnosticSeverity.Warning)
        mode = str(opts.get("diagnosticMode", "auto")).lower()
        client_pulls = capabilities is not None and capabilities.text_document is not None \
            and capabilities.text_document.diagnostic is not None
        self.pull_mode = mode == "pull" or (mode == "auto" and client_pulls)

    def settings_for(self, path: str) -> Settings:
        """The settings of the nearest ``pyproject.toml`` with ``[tool.gblint]`` (cached until a
        ``pyproject.toml`` changes); defaults, and a message to the user, on a ConfigError."""
        directory = os.path.dirname(os.path.abspath(path))
        if directory not in self._pyproject_for_dir:
            self._pyproject_for_dir[directory] = find_pyproject(directory) if os.path.isdir(directory) else None
        pyproject = self._pyproject_for_dir[directory]
        if pyproject not in self._settings:
            try:
                settings = settle_versions(load_settings(pyproject), directory)
            except ConfigError as exc:
                if pyproject not in self._reported_config_errors:
                    self._reported_config_errors.add(pyproject)
                    self._show(f"gblint: {exc}; using the default settings", lsp.MessageType.Error)
                settings = settle_versions(Settings(), None)
                settings.root = os.path.dirname(pyproject) if pyproject else "."
            settings.jobs = 1  # never a process pool forked from inside the server
            self._settings[pyproject] = settings
            self._caches[id(settings)] = cache_for(settings)
        return self._settings[pyproject]

    def reload_configuration(self) -> None:
        """Forget cached settings; the next analysis re-reads every ``pyproject.toml``."""
        self._settings.clear()
        self._caches.clear()
        self._pyproject_for_dir.clear()
        self._reported_config_errors.clear()
        self._config_generation += 1

    def _show(self, message: str, kind: lsp.MessageType) -> None:
        """Tell the user (window/showMessage); callable from the analysis thread too."""
        log.warning("%s", message)

        def send():
            try:
                self.window_show_message(lsp.ShowMessageParams(type=kind, message=message))
            except Exception:  # no client connected (unit use)
                pass

        loop = self._loop
        if loop is not None and threading.current_thread() is not self._loop_thread:
            loop.call_soon_threadsafe(send)
        else:
            send()

    # -------------------------------------------------------------- analysis

    def open_documents(self) -> _Snapshot:
        """The open Python documents, keyed by :func:`doc_key`."""
        docs: Dict[str, Tuple[str, Optional[int], str]] = {}
        uris: Dict[str, str] = {}
        for doc in list(self.workspace.text_documents.values()):
            uri = doc.uri
            path = uri_to_path(uri) or doc.path or uri
            if doc.language_id != "python" and not path.endswith(PYTHON_SUFFIXES):
                continue
            try:
                text = doc.source
            except Exception as exc:  # an unsaved document whose file vanished
                log.warning("cannot read %s: %s", uri, exc)
                continue
            key = doc_key(uri)
            docs[key], uris[key] = (path, doc.version, text), uri
        return _Snapshot(docs, uris)

    def analyse(self, snapshot: _Snapshot) -> Dict[str, List[Diagnostic]]:
        """Run the engine on a snapshot: one project per configuration; diagnostics by
        :func:`doc_key`. Never raises."""
        groups: Dict[int, Tuple[Settings, List[SourceFile]]] = {}
        results: Dict[str, List[Diagnostic]] = {key: [] for key in snapshot.docs}
        for key in set(self._guard_cache) - set(snapshot.docs):
            del self._guard_cache[key]
        for key, (path, _, text) in snapshot.docs.items():
            try:
                settings = self.settings_for(path)
            except Exception as exc:
                log.exception("settings for %s: %s", path, exc)
                settings = Settings()
            if settings.excluded(path):
                continue
            cached = self._guard_cache.get(key)
            if cached is None or cached[0] != hash(text):
                cached = self._guard_cache[key] = (hash(text), parser_limit_exceeded(text))
            too_deep = cached[1]
            if too_deep is not None:
                line, message = too_deep
                results[key].append(Diagnostic(path=path, line=line, column=1, end_line=line, end_column=1,
                                               code="GBL001", name="syntax-error", effect="info",
                                               message=f"syntax error: {message}; the file was not checked"))
                continue
            groups.setdefault(id(settings), (settings, []))[1].append(SourceFile(path, text))
        for settings, sources in groups.values():
            try:
                report = analyse_sources(sources, settings, self._caches.get(id(settings)))
            except Exception as exc:  # the engine reports bad input itself; this is gblint's own bug
                log.exception("analysis failed: %s", exc)
                self._show(f"gblint: internal error: {type(exc).__name__}: {exc}", lsp.MessageType.Error)
                continue
            for d in report.diagnostics + report.notes:  # notes: what was not analysed (GBL005/GBL006)
                key = snapshot.key_by_path.get(os.path.abspath(d.path))
                if key is not None:
                    results[key].append(d)
        for found in results.values():
            found.sort(key=Diagnostic.sort_key)
        return results

    async def lint(self, requested: Optional[str] = None) -> bool:
        """Analyse the open documents unless nothing changed since the last run, then publish
        (push mode) or, in pull mode, ask the client to pull again when a document other than
        ``requested`` (the :func:`doc_key` of the one being pulled) changed. Returns whether it ran."""
        if self._lock is None:
            self._lock = asyncio.Lock()
            self._loop, self._loop_thread = asyncio.get_running_loop(), threading.current_thread()
        async with self._lock:
            snapshot = self.open_documents()
            key = (self._config_generation, snapshot.key())
            if key == self._key:
                return False
            loop = asyncio.get_running_loop()
            if self._executor is None:
                self._executor = _big_stack_executor()
            results = await loop.run_in_executor(self._executor, self.analyse, snapshot)
            self.snapshot, self.results, self._key = snapshot, results, key
            try:
                self._deliver(snapshot, results, requested)
            except Exception as exc:
                log.exception("publishing diagnostics failed: %s", exc)
            return True

    def lsp_diagnostics(self, key: str) -> List[lsp.Diagnostic]:
        """The last analysis of the document ``key`` (:func:`doc_key`) as LSP diagnostics (empty
        for an unknown document)."""
        lines = self.snapshot.lines.get(key, [])
        codec = self.workspace.position_codec
        return [to_lsp_diagnostic(d, lines, codec, self.break_severity, self._uri_for_path)
                for d in self.results.get(key, [])]

    def _uri_for_path(self, path: str) -> str:
        return self.snapshot.uri_by_path.get(os.path.abspath(path)) or path_to_uri(path)

    def _deliver(self, snapshot: _Snapshot, results: Dict[str, List[Diagnostic]], requested: Optional[str]) -> None:
        """Publish (push mode) or note (pull mode) the diagnostics of every document; ``_published``
        is keyed by the URI the client spelled, ``results`` and ``requested`` by :func:`doc_key`."""
        changed = False
        current = {snapshot.uris[key] for key in results}
        for uri in list(self._published):
            if uri not in current:
                del self._published[uri]
                if not self.pull_mode:
                    self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        for key in results:
            uri = snapshot.uris[key]
            items = self.lsp_diagnostics(key)
            if self._published.get(uri) != items:
                changed = changed or key != requested
            self._published[uri] = items
            if not self.pull_mode:  # every run, so the client sees the version it matches
                self.text_document_publish_diagnostics(
                    lsp.PublishDiagnosticsParams(uri=uri, diagnostics=items, version=snapshot.docs[key][1]))
        if self.pull_mode and changed and self._client_refreshes():
            self.workspace_diagnostic_refresh(None)

    def _client_refreshes(self) -> bool:
        caps = self.client_capabilities
        return bool(caps and caps.workspace and caps.workspace.diagnostics
                    and caps.workspace.diagnostics.refresh_support)

    def schedule(self, delay: float) -> None:
        """Analyse again after ``delay`` seconds; a newer call replaces a pending one."""
        if self._pending is not None and not self._pending.done():
            self._pending.cancel()
        self._pending = asyncio.ensure_future(self._lint_later(delay))

    async def _lint_later(self, delay: float) -> None:
        try:
            if delay > 0:
                await asyncio.sleep(delay)
            # A newer change cancels the wait, never a running analysis: it queues behind it.
            await asyncio.shield(self.lint())
        except asyncio.CancelledError:
            pass
        except Exception as exc:
            log.exception("lint failed: %s", exc)

    # -------------------------------------------------------------- queries

    async def with_fixes(self, uri: str, diagnostics: List[Diagnostic]) -> Optional[List[Diagnostic]]:
        """``diagnostics`` of the document ``uri`` (a :func:`doc_key`) with their deferred fixes
        computed (off the event loop) and remembered; None when the document was re-analysed
        meanwhile (the fixes would be stale)."""
        pending = [d for d in diagnostics if d.fix is None and d.fix_request is not None]
        if not pending:
            return diagnostics
        snapshot = self.snapshot
        path, _, text = snapshot.docs[uri]
        texts = {d.path: text for d in pending}
        settings = self.settings_for(path)
        if self._executor is None:
            self._executor = _big_stack_executor()
        loop = asyncio.get_running_loop()
        fixed = await loop.run_in_executor(self._executor, resolve_fixes, pending, texts, settings)
        if self.snapshot is not snapshot:
            return None
        # a request that gave no fix must not be tried again on every code action request
        done = {id(old): new if new.fix is not None else dataclasses.replace(new, fix_request=None)
                for old, new in zip(pending, fixed)}
        self.results[uri] = [done.get(id(d), d) for d in self.results.get(uri, [])]
        return [done.get(id(d), d) for d in diagnostics]

    def diagnostics_on_lines(self, uri: str, first: int, last: int) -> List[Diagnostic]:
        """Cached diagnostics of the document ``uri`` (a :func:`doc_key`) whose lines meet 0-based
        lines ``first..last``."""
        return [d for d in self.results.get(uri, []) if d.line - 1 <= last and d.end_line - 1 >= first]


server = GblintLanguageServer()


def _safe(handler):
    """Keep a failure inside one handler from ever taking the server down."""
    if asyncio.iscoroutinefunction(handler):
        @functools.wraps(handler)
        async def wrapped(ls, params):
            try:
                return await handler(ls, params)
            except Exception as exc:
                log.exception("%s failed: %s", handler.__name__, exc)
                return None
    else:
        @functools.wraps(handler)
        def wrapped(ls, params):
            try:
                return handler(ls, params)
            except Exception as exc:
                log.exception("%s failed: %s", handler.__name__, exc)
                return None
    return wrapped


@server.feature(lsp.INITIALIZE)
@_safe
def _initialize(ls: GblintLanguageServer, params: lsp.InitializeParams):
    ls.configure(params.initialization_options, params.capabilities)
    ls.workspace.__class__ = LspWorkspace  # created by pygls just before; holds no document yet


@server.feature(lsp.INITIALIZED)
@_safe
async def _initialized(ls: GblintLanguageServer, params: lsp.InitializedParams):
    caps = ls.client_capabilities
    watched = caps.workspace.did_change_watched_files if caps and caps.workspace else None
    if watched is not None and watched.dynamic_registration:
        await ls.client_register_capability_async(lsp.RegistrationParams(registrations=[lsp.Registration(
            id="gblint-pyproject", method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=lsp.DidChangeWatchedFilesRegistrationOptions(
                watchers=[lsp.FileSystemWatcher(glob_pattern="**/pyproject.toml")]))]))


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
@_safe
def _did_open(ls: GblintLanguageServer, params: lsp.DidOpenTextDocumentParams):
    ls.schedule(0)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
@_safe
def _did_change(ls: GblintLanguageServer, params: lsp.DidChangeTextDocumentParams):
    ls.schedule(ls.debounce)


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
@_safe
def _did_save(ls: GblintLanguageServer, params: lsp.DidSaveTextDocumentParams):
    ls.schedule(0)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
@_safe
def _did_close(ls: GblintLanguageServer, params: lsp.DidCloseTextDocumentParams):
    ls.schedule(0)


@server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
@_safe
def _did_change_watched_files(ls: GblintLanguageServer, params: lsp.DidChangeWatchedFilesParams):
    if any(c.uri.endswith("pyproject.toml") for c in params.changes):
        ls.reload_configuration()
        ls.schedule(0)


@server.feature(lsp.TEXT_DOCUMENT_DIAGNOSTIC,
                lsp.DiagnosticOptions(identifier=SOURCE, inter_file_dependencies=True, workspace_diagnostics=False))
@_safe
async def _pull(ls: GblintLanguageServer, params: lsp.DocumentDiagnosticParams):
    key = doc_key(params.text_document.uri)
    await ls.lint(requested=key)
    return lsp.RelatedFullDocumentDiagnosticReport(items=ls.lsp_diagnostics(key))


@server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix, FIX_ALL_KIND],
                                      resolve_provider=False))
@_safe
async def _code_action(ls: GblintLanguageServer, params: lsp.CodeActionParams):
    uri = params.text_document.uri  # edits go back under the client's own spelling
    key = doc_key(uri)
    lines = ls.snapshot.lines.get(key)
    if lines is None:
        return None
    codec = ls.workspace.position_codec
    only = params.context.only
    sent = [x for x in params.context.diagnostics if x.source == SOURCE]
    quick = ls.diagnostics_on_lines(key, params.range.start.line, params.range.end.line) \
        if kind_allowed(lsp.CodeActionKind.QuickFix, only) else []
    everything = ls.results.get(key, [])
    # every fix of a document costs a re-parse each: only an explicit request computes them all
    fix_all = kind_allowed(FIX_ALL_KIND, only) and (bool(only) or not any(
        d.fix is None and d.fix_request is not None for d in everything))
    wanted = everything if fix_all else quick
    resolved = await ls.with_fixes(key, wanted)
    if resolved is None:
        return None
    if fix_all:
        by_id = {id(d): r for d, r in zip(wanted, resolved)}
        quick = [by_id.get(id(d), d) for d in quick]
        everything = resolved
    else:
        quick = resolved
    actions: List[lsp.CodeAction] = []
    for d in quick:
        mine = to_lsp_diagnostic(d, lines, codec, ls.break_severity, ls._uri_for_path)
        match = next((x for x in sent if x.code == d.code and x.range == mine.range), mine)
        for action in (fix_action(d, uri, lines, codec, match), noqa_action(d, uri, lines, codec, match)):
            if action is not None:
                actions.append(action)
    if fix_all:
        action = fix_all_action(everything, uri, lines, codec)
        if action is not None:
            actions.append(action)
    return actions or None


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
@_safe
def _hover(ls: GblintLanguageServer, params: lsp.HoverParams):
    key = doc_key(params.text_document.uri)
    line = params.position.line
    found = ls.diagnostics_on_lines(key, line, line)
    if not found:
        return None
    lines = ls.snapshot.lines.get(key, [])
    first = found[0]
    rng = to_range(lines, first.line, first.column, first.end_line, first.end_column, ls.workspace.position_codec)
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=hover_markdown(found)),
                     range=rng)


def main() -> int:
    """Serve LSP over stdin/stdout until the client says ``exit``. Returns the exit code."""
    logging.basicConfig(stream=sys.stderr, level=os.environ.get("GBLINT_LOG", "WARNING").upper(),
                        format="gblint-lsp %(levelname)s %(message)s")
    server.start_io()
    return 0
