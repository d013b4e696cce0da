"""Per-file summaries cached by content hash, so a second run reads only what changed.

A summary depends on the file's text, its module name, gblint's version and the dynamo
config the rules read; all of them go into the key. Entries are JSON under
``<cache dir>/<key[:2]>/<key>.json``: data only, decoded into gblint's own summary dataclasses
(a whitelist, each field checked against its declared type), never into anything else, so a
cache directory that others can write to cannot run code. An entry that is not a regular file,
does not decode, or decodes to anything unexpected is a miss, never an error.
"""
from __future__ import annotations

import collections
import dataclasses
import enum
import hashlib
import json
import os
import pickle
import stat
import tempfile
import typing
from typing import Optional

from . import __version__
from . import model as _model

FORMAT = 5
MAX_ENTRY_BYTES = 256 * 1024 * 1024  # far above any summary; a larger file is not ours

# The classes an entry may hold, by tag: the model's dataclasses (their fields stored in order)
# and its enums (their word stored).
_CLASSES = {c.__name__: c for c in _model.CACHED_TYPES}
_FIELDS = {c: tuple(f.name for f in dataclasses.fields(c)) for c in _CLASSES.values() if dataclasses.is_dataclass(c)}
_ENUMS = {c for c in _CLASSES.values() if issubclass(c, enum.Enum)}
# Tags: {"@t": [...]} is a tuple, {"@Span": [...]} a Span (its fields in order), {"@Outcome":
# ["skip"]} an enum member (its word), {"@d": [[k, v], ...]} a dict with a key that starts with "@";
# any other JSON object is a dict, any array a list.
_TUPLE, _DICT = "@t", "@d"


class CacheFormatError(ValueError):
    """An entry that is not a summary gblint wrote."""


def encode(value) -> object:
    """A JSON-ready form of ``value``: None, bool, int, float, str, lists, dicts with ``str``
    keys, and tuples, summary dataclasses and enum members as one-key objects tagged with ``@``.

    Raises CacheFormatError for anything else (RecursionError for very deep values)."""
    t = type(value)
    if value is None or t is bool or t is int or t is float or t is str:
        return value
    if t is list:
        return [encode(v) for v in value]
    if t is tuple:
        return {_TUPLE: [encode(v) for v in value]}
    if t is dict:
        if not all(type(k) is str for k in value):
            raise CacheFormatError("dict with keys that are not str")
        if any(k.startswith("@") for k in value):
            return {_DICT: [[k, encode(v)] for k, v in value.items()]}
        return {k: encode(v) for k, v in value.items()}
    if t in _FIELDS:
        return {"@" + t.__name__: [encode(getattr(value, name)) for name in _FIELDS[t]]}
    if t in _ENUMS:
        return {"@" + t.__name__: [value.value]}
    raise CacheFormatError(f"cannot store a {t.__name__}")


def _object(obj: dict) -> object:
    """``json.loads``'s object hook: a tagged object becomes its tuple, dict or dataclass (each
    field checked against its declared type); an unknown tag raises CacheFormatError."""
    if len(obj) != 1:
        return obj
    (tag, items), = obj.items()
    if not tag.startswith("@"):
        return obj
    if type(items) is not list:
        raise CacheFormatError(f"{tag} without an array")
    if tag == _TUPLE:
        return tuple(items)
    if tag == _DICT:
        if not all(type(p) is list and len(p) == 2 and type(p[0]) is str for p in items):
            raise CacheFormatError("malformed @d")
        return dict(items)
    cls = _CLASSES.get(tag[1:])
    if cls in _ENUMS:
        if len(items) != 1 or type(items[0]) is not str or items[0] not in cls._value2member_map_:
            raise CacheFormatError(f"unexpected {tag}")
        return cls(items[0])
    if cls is None or len(items) != len(_FIELDS[cls]):
        raise CacheFormatError(f"unexpected {tag}")
    if not all(ok(item) for ok, item in zip(_checks(cls), items)):
        raise CacheFormatError(f"a field of {tag} has the wrong type")
    return cls(*items)


def decode(data: bytes) -> object:
    """The value :func:`encode` made, from its JSON bytes. Raises CacheFormatError for an
    unknown tag, a wrong field count or a field whose value does not have its declared type,
    ValueError for bad JSON (RecursionError for absurd nesting)."""
    return json.loads(data, object_hook=_object)


_CHECKS: dict = {}


def _checks(cls) -> list:
    """One type check per stored field of ``cls``, from its annotations."""
    if cls not in _CHECKS:
        hints = typing.get_type_hints(cls)
        _CHECKS[cls] = [_check(hints[name]) for name in _FIELDS[cls]]
    return _CHECKS[cls]


def _check(hint):
    """A function telling whether a value has the declared type ``hint`` (container elements
    included)."""
    if hint is object or hint is typing.Any:
        return lambda v: True
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is None:
        if hint in (str, int, bool, float, type(None)):
            kinds = {str: {str}, int: {int, bool}, bool: {bool}, float: {int, float}, type(None): {type(None)}}[hint]
            return lambda v: type(v) in kinds
        return lambda v: isinstance(v, hint)
    if origin is typing.Union and len(args) == 2 and type(None) in args:  # Optional[X]
        inner = _check(args[0] if args[1] is type(None) else args[1])
        return lambda v: v is None or inner(v)
    if origin is typing.Union:
        checks = [_check(a) for a in args]
        return lambda v: any(c(v) for c in checks)
    if origin is list:
        item = _check(args[0])
        return lambda v: type(v) is list and all(map(item, v))
    if origin is dict:
        key, value = _check(args[0]), _check(args[1])
        return lambda v: type(v) is dict and all(key(k) and value(x) for k, x in v.items())
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = _check(args[0])
        return lambda v: type(v) is tuple and all(map(item, v))
    if origin is tuple:
        items = [_check(a) for a in args]
        return lambda v: type(v) is tuple and len(v) == len(items) and all(c(x) for c, x in zip(items, v))
    return lambda v: isinstance(v, origin)


def content_key(fingerprint: str, path: str, module: str, text: str) -> str:
    """The cache key of a file's summary: everything it depends on, hashed."""
    h = hashlib.sha256()
    for part in (fingerprint, os.path.abspath(path), module, text):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


def read_regular_file(path: str, limit: int = MAX_ENTRY_BYTES) -> bytes:
    """The bytes of ``path`` if it is a regular file (not a link, FIFO, device or folder) of at
    most ``limit`` bytes. Never blocks on a FIFO. Raises OSError otherwise."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags | getattr(os, "O_BINARY", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            raise OSError(f"{path}: not a regular file of at most {limit} bytes")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(limit + 1)
    finally:
        os.close(fd)


def write_atomically(target: str, data: bytes) -> None:
    """Write ``data`` to ``target`` through a temporary file in the same folder, renamed over
    it; the temporary file is removed whatever happens (disk full, an exception, a signal that
    raises). Raises OSError."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
        tmp = None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


class SummaryCache:
    """A directory of :class:`gblint.model.FileSummary` objects (and ``True`` markers) as JSON.

    Args:
        directory (str): where the entries live (created on the first write).
        fingerprint (str): what besides the text decides a summary (settings, gblint's code).
    """

    def __init__(self, directory: str, fingerprint: str = ""):
        self.directory = directory
        self.fingerprint = f"{__version__}/{FORMAT}/{fingerprint}"
        self.hits = 0
        self.misses = 0

    def key(self, path: str, module: str, text: str) -> str:
        """The key of ``text`` read from ``path`` as module ``module``."""
        return content_key(self.fingerprint, path, module, text)

    def _file(self, key: str) -> str:
        return os.path.join(self.directory, key[:2], key + ".json")

    def get(self, key: str):
        """The :class:`FileSummary` or ``True`` stored under ``key``; None for a miss (missing,
        not a regular file, unreadable, or not a value :meth:`put` writes). Never raises."""
        try:
            value = decode(read_regular_file(self._file(key)))
            if not (value is True or type(value) is _model.FileSummary):
                raise CacheFormatError("not a summary")
        except Exception:  # missing, truncated, hostile or from another version: recompute
            self.misses += 1
            return None
        self.hits += 1
        return value

    def put(self, key: str, value) -> None:
        """Store a :class:`FileSummary` or ``True`` under ``key``; a failure (disk full, a value
        that cannot be stored) only costs speed and leaves no temporary file. Never raises."""
        target = self._file(key)
        try:
            data = json.dumps(encode(value), separators=(",", ":")).encode("ascii")
            os.makedirs(os.path.dirname(target), exist_ok=True)
            write_atomically(target, data)
        except (OSError, ValueError, RecursionError):
            pass


class MemoryCache:
    """Per-file summaries by content, in memory, for the engine's ``cache`` argument (its
    ``key``/``get``/``put`` protocol): re-analysing the open documents after a change re-parses
    only the changed one. Entries are pickled, so each run gets fresh objects as from the disk
    cache; the least recently used go beyond ``limit``.

    Args:
        fingerprint: what besides the text decides a summary (settings, gblint's code).
        limit: the most entries kept (int).
    """

    def __init__(self, fingerprint: str, limit: int = 256):
        self.fingerprint = fingerprint
        self.limit = limit
        self._store: "collections.OrderedDict[str, bytes]" = collections.OrderedDict()

    def key(self, path: str, module: str, text: str) -> str:
        """The key of ``text`` read from ``path`` as module ``module``."""
        return content_key(self.fingerprint, path, module, text)

    def get(self, key: str):
        """The summary stored under ``key``, a fresh copy; None for a miss."""
        data = self._store.get(key)
        if data is None:
            return None
        self._store.move_to_end(key)
        try:
            return pickle.loads(data)
        except Exception:
            del self._store[key]
            return None

    def put(self, key: str, summary) -> None:
        """Remember ``summary`` under ``key``; an unpicklable one is not kept."""
        try:
            self._store[key] = pickle.dumps(summary, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # an unpicklable summary only costs speed
            return
        self._store.move_to_end(key)
        while len(self._store) > self.limit:
            self._store.popitem(last=False)


def default_cache_dir(root: str) -> str:
    """The cache folder of a project rooted at ``root``."""
    return os.path.join(os.path.abspath(root), ".gblint_cache")


def settings_fingerprint(settings) -> str:
    """What besides a file's text decides its summary: dynamo config, and gblint's own code
    (sizes and mtimes of its modules, so an edited rule never reads a stale summary)."""
    items = sorted((k, repr(v)) for k, v in settings.dynamo_config.items())
    return repr(items) + repr(settings.torch_version) + _code_stamp()


def _code_stamp() -> str:
    import importlib.util
    stamps = []
    for pkg in ("gblint", "gblint.rules"):  # found, not imported: a warm run never loads the rules (or libcst)
        directory = importlib.util.find_spec(pkg).submodule_search_locations[0]
        for name in sorted(os.listdir(directory)):
            if name.endswith(".py"):
                st = os.stat(os.path.join(directory, name))
                stamps.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("|".join(stamps).encode()).hexdigest()[:16]


def maybe_cache(settings, enabled: bool, directory: Optional[str]) -> Optional[SummaryCache]:
    """A cache under ``directory`` (default ``.gblint_cache`` at the configuration root), or None."""
    if not enabled:
        return None
    directory = directory or default_cache_dir(settings.root)
    try:
        os.makedirs(directory, exist_ok=True)
        marker = os.path.join(directory, ".gitignore")
        if not os.path.lexists(marker):  # never through a link, dangling or not
            write_atomically(marker, b"# Automatically created by gblint.\n*\n")
    except OSError:
        return None
    return SummaryCache(directory, settings_fingerprint(settings))
