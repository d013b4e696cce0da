"""Whole-run reports kept across runs: a ``gblint check`` of code that has not changed since the
last one reads that run's report instead of analysing again (issue 39).

The summary cache (:mod:`gblint.project.cache`) spares the parse of an unchanged file, but a warm run still
interprets everything the compiled regions reach; following transformers that is most of a second.
Like mypy's cache of a module with the fingerprints of what it depends on, a report is stored with
what the run read, and a later run with the same key takes it only when every one of those reads
would give the same answer:

- the key: gblint's code and data, the settings, the Python and the installed torch (the summary
  cache's fingerprint), the interpreter's ``sys.path`` with the names each entry lets ``import``
  find and its distributions' metadata folders (a package installed, removed or upgraded changes
  them), the working folder, the checked paths with their
  module names, where imports of them are looked up, and which outputs the report feeds (fixes,
  coverage);
- the reads: the text of every checked file and every file the run loaded, its own or a followed
  package's (a SHA-256 of the decoded text; of the bytes of a file that does not decode); every file a
  module lookup asked for, found or not; where each package it looked up was found (a namespace
  package, an editable install's finder) and which top-level names it asked to be installed; and
  each followed package's stamp, taken before its files were read (path, size and modification time
  of every ``.py`` file under it, through links to folders, :mod:`gblint.project.mentions`), which covers
  the files only searched for a word.

A report is stored only from a run without gblint's own failures (``GBL000``, errors) and with
every entry found. What it serves is the report the outputs of ``check`` print (text, JSON,
SARIF, GitHub, statistics); ``--explain``, ``--confirm``, the HTML report, ``--add-noqa``,
``--write-baseline`` and ``gblint fix`` need the run's walks or write files, and always analyse.
Entries are msgpack data decoded against the report's declared field types: anything else is a
miss, never an error or code run.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
import typing
from typing import Dict, List, Optional

import msgpack

from .cache import read_regular_file, write_atomically
from ..core.diagnostics import Diagnostic, Edit, Fix, Related, TraceFrame
from ..settings.files import SourceFile
from .report import Report
from ..core.fs import INSTALLED_ASKED, find_installed, import_roots, module_findable, package_dir
from ..dynamo.index import module_name
from ..core.model import FixRequest
from .mentions import package_stamp
from ..core.source import digest, text_digest

FORMAT = 3
# fields no output of `check` reads: what a fix is built from, and the prediction `fix` prints
_LEFT_OUT = {Diagnostic: ("fix_request",), Fix: ("effect",)}
_CLASSES = (Report, Diagnostic, TraceFrame, Related, Fix, Edit)


class Unstorable(ValueError):
    """A report holding a value the entry format has no place for."""


def _fields(cls) -> List[str]:
    return [f.name for f in dataclasses.fields(cls) if f.name not in _LEFT_OUT.get(cls, ())]


_HINTS: Dict[type, Dict[str, object]] = {}


def _hints(cls) -> Dict[str, object]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls, localns={"FixRequest": FixRequest})  # under TYPE_CHECKING there
    return _HINTS[cls]


def _plain(value):
    """``value`` as msgpack data: the report's dataclasses as lists of their fields."""
    t = type(value)
    if value is None or t in (bool, int, float, str):
        return value
    if t in _CLASSES:
        return [_plain(getattr(value, name)) for name in _fields(t)]
    if t in (list, tuple):
        return [_plain(v) for v in value]
    if t is dict and all(type(k) is str for k in value):
        return {k: _plain(v) for k, v in value.items()}
    raise Unstorable(f"cannot store a {t.__name__}")


def _json_like(value) -> bool:
    t = type(value)
    if value is None or t in (bool, int, float, str):
        return True
    if t is list:
        return all(map(_json_like, value))
    return t is dict and all(type(k) is str and _json_like(v) for k, v in value.items())


def _typed(value, hint):
    """``value`` (msgpack data) as a value of the declared type ``hint``. Raises Unstorable when it
    is not one."""
    if hint in (object, typing.Any):
        if not _json_like(value):
            raise Unstorable("not data")
        return value
    if hint in (str, bool):
        if type(value) is not hint:
            raise Unstorable(f"not a {hint.__name__}")
        return value
    if hint is int:
        if type(value) is not int:
            raise Unstorable("not an int")
        return value
    if hint is float:
        if type(value) not in (int, float):
            raise Unstorable("not a float")
        return float(value)
    if hint in (list, dict):
        if type(value) is not hint or not _json_like(value):
            raise Unstorable(f"not a {hint.__name__}")
        return value
    if hint in _CLASSES:
        names = _fields(hint)
        if type(value) is not list or len(value) != len(names):
            raise Unstorable(f"not a {hint.__name__}")
        hints = _hints(hint)
        return hint(**{name: _typed(v, hints[name]) for name, v in zip(names, value)})
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Union:
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        if len(inner) != 1:
            raise Unstorable("an unexpected union")
        return _typed(value, inner[0])
    if origin in (list, tuple):
        if type(value) is not list:
            raise Unstorable("not a sequence")
        if origin is tuple and not args:
            return tuple(_typed(v, object) for v in value)
        items = [_typed(v, args[0]) for v in value]
        return tuple(items) if origin is tuple else items
    if origin is dict:
        if type(value) is not dict:
            raise Unstorable("not a dict")
        return {_typed(k, args[0]): _typed(v, args[1]) for k, v in value.items()}
    raise Unstorable(f"no stored form for {hint!r}")


def _tree_stamp(root: str) -> Optional[str]:
    try:
        return package_stamp(root)
    except OSError:
        return None


_IMPORTABLE = (".py", ".pyc", ".so", ".pyd")
_METADATA = (".dist-info", ".egg-info")


def _importable(path: str) -> Optional[str]:
    """A digest of the names ``import`` can find in the folder ``path`` (a ``sys.path`` entry):
    folders and modules whose names are identifiers, and the installed distributions' metadata
    folders (a package upgraded in place, libcst say, changes them); None when it is not a readable
    folder. Files written beside them (outputs, caches) leave it as it is."""
    try:
        with os.scandir(path or ".") as it:
            names = sorted(e.name for e in it if e.name.endswith(_METADATA) or (
                e.name.split(".")[0].isidentifier() and (e.name.endswith(_IMPORTABLE) or e.is_dir())))
    except OSError:
        return None
    return hashlib.sha256("\0".join(names).encode("utf-8", "surrogatepass")).hexdigest()


def _data_stamp() -> List[list]:
    folder = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
    out = []
    for directory, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(directory, name)
            st = os.stat(path)
            out.append([os.path.relpath(path, folder), st.st_size, st.st_mtime_ns])
    return out


_UNFOLLOWED = {"path": str, "line": int, "function": str, "call": str, "reason": str, "undecided": bool,
               "method_of": str}


def _unfollowed_record(record: dict) -> bool:
    """Whether ``record`` is one of ``Report.unfollowed`` (:func:`gblint.dynamo.calltree.unfollowed_records`)."""
    return record.keys() == _UNFOLLOWED.keys() and all(type(record[k]) is t for k, t in _UNFOLLOWED.items())


class ResultCache:
    """The stored report of one kind of run (:func:`open_results`), in ``directory``."""

    def __init__(self, directory: str, key: str):
        self.directory = directory
        self.key = key
        self.path = os.path.join(directory, "results", key + ".msgpack")

    def get(self) -> Optional[Report]:
        """The stored report when every read it depends on gives the same answer now; None
        otherwise (also for an entry that is missing, unreadable or not a report). Never raises."""
        try:
            entry = msgpack.unpackb(read_regular_file(self.path), raw=False, strict_map_key=True)
            if type(entry) is not dict or entry.get("format") != FORMAT or entry.get("key") != self.key:
                return None
            report = _typed(entry["report"], Report)
            if report.errors or not all(_unfollowed_record(u) for u in report.unfollowed):
                return None  # never stored so: not an entry this code wrote
            return report if self._still(entry["reads"]) else None
        except Exception:  # a miss: the run analyses
            return None

    @staticmethod
    def _still(reads) -> bool:
        for name, root in reads["packages"].items():
            if package_dir(name) != root:
                return False
        for name, found in reads["installed"].items():
            if find_installed(name) is not found:
                return False
        for path, exists in reads["probes"].items():
            if os.path.isfile(path) is not exists:
                return False
        for path, tops in reads["absent"].items():
            if any(module_findable(path, top) for top in tops):
                return False
        roots = set(reads["packages"].values())
        for root, stamp in reads["trees"].items():
            if root not in roots or _tree_stamp(root) != stamp:  # a package's folder, never another
                return False
        for path, found in reads["files"].items():
            if digest(path) != found:
                return False
        return True

    def put(self, report: Report, sources: List[SourceFile], loader) -> bool:
        """Store ``report`` with what the run read (``sources``: the checked files, their text as
        the run read it; ``loader``: the run's :class:`gblint.project.engine.Loader`). Nothing is stored for
        a run with gblint's own failures, or a report the format has no place for. Never raises;
        True when stored."""
        if report.errors or any(d.code == "GBL000" for d in report.diagnostics):
            return False
        try:
            files = {path: text_digest(text) for path, text in loader.texts.items()}
            files.update(loader.unreadable)
            for src in sources:  # a checked file read only to find it declares no region, or not read at all
                if src.path not in files:
                    files[src.path] = text_digest(src.text) if src.text is not None else digest(src.path)
            trees = {}
            for root in set(loader.followed.values()):
                stamp = loader.stamps.get(root)  # taken before the package's files were read
                if stamp is None:
                    return False
                trees[root] = stamp
            reads = {"files": files, "probes": dict(loader.probes), "trees": trees, "packages": dict(loader.packages),
                     "installed": dict(INSTALLED_ASKED), "absent": dict(loader.absent)}
            entry = {"format": FORMAT, "key": self.key, "report": _plain(report), "reads": reads}
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            write_atomically(self.path, msgpack.packb(entry, use_bin_type=True))
            return True
        except (Unstorable, OSError, ValueError, TypeError, RecursionError):
            return False


def open_results(cache, settings, sources: List[SourceFile], outputs: tuple) -> Optional[ResultCache]:
    """The stored-report slot of a run of ``settings`` over ``sources`` (files on disk) feeding
    ``outputs`` (what the report is computed for: whether it has fixes, coverage), in the folder
    of the summary cache ``cache``; None without a cache folder or when a source is not a file on disk."""
    directory = getattr(cache, "directory", None)
    if directory is None or any(src.text is not None for src in sources):
        return None
    paths = [src.path for src in sources]
    try:
        parts = [FORMAT, cache.fingerprint, _data_stamp(), repr(settings), list(outputs), os.getcwd(),
                 sys.executable, sys.version, [[p, _importable(p)] for p in sys.path],
                 [[p, *module_name(p)] for p in paths], import_roots(paths, settings)]
        key = hashlib.sha256(json.dumps(parts, default=repr).encode("utf-8", "surrogatepass")).hexdigest()
    except (OSError, ValueError):
        return None
    return ResultCache(directory, key)
