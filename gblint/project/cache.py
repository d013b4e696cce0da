"""Per-file summaries cached by content hash, so a second run reads only what changed.

One cache, :class:`SummaryCache`, for every front end: the command line uses its folder,
the language server the same folder (the project's ``.gblint_cache``) with an in-memory layer in
front, so an editor session reuses what ``gblint check`` stored and the other way round.

A summary depends on the file's text, its module name, gblint's version and the dynamo
config the rules read; all of them go into the key. Entries are msgpack records under
``<cache dir>/<key[:2]>/<key>.msgpack`` (:mod:`gblint.project.cache_codec`: laid out by the classes'
declared field types, decoded by functions compiled once per class): data only, decoded into
gblint's own summary dataclasses (a whitelist, each field checked against its declared type),
never into anything else, so a cache directory that others can write to cannot run code.
:func:`encode` and :func:`decode` are the tagged JSON form of the same values, readable, for
the fields typed ``object`` and for tests. An entry that is not a regular file,
does not decode, or decodes to anything unexpected is a miss, never an error. The memory layer
holds the same classes only (copied in and out by :func:`clone`, so every ``get`` returns fresh
objects), never pickles.
"""
from __future__ import annotations

import collections
import dataclasses
import enum
import gc
import hashlib
import json
import os
import stat
import sys
import tempfile
import typing
from typing import Optional

from .. import __version__
from ..core import model as _model
from .cache_codec import Codec
from ..core.diagnostics import Edit, Fix

# 10: Manager.callee dropped; 11: msgpack records (gblint.project.cache_codec); 12: Event.callee, DisabledCall,
# NonstrictCall dropped (issue 39); 13: Event.alone; 15: RegionDecl.disable; 16: compiled objects never run declare no
# region, config["stance"]; 17: config["dynamo_switched"]; 18: RegionDecl.unsure, FileSummary.substitutes; 19: factory
# tensors carry their device, `set_default_device` and `with torch.device` change the defaults
FORMAT = 19
MAX_ENTRY_BYTES = 256 * 1024 * 1024  # far above any summary; a larger file is not ours

# The classes an entry may hold, by tag: the model's dataclasses (their fields stored in order)
# and its enums (their word stored), and the fixes a diagnostic offers.
_CLASSES = {c.__name__: c for c in _model.CACHED_TYPES + (Edit, Fix)}
_FIELDS = {c: tuple(f.name for f in dataclasses.fields(c)) for c in _CLASSES.values() if dataclasses.is_dataclass(c)}
_ENUMS = {c for c in _CLASSES.values() if issubclass(c, enum.Enum)}
# Expr.op, the commonest word of a summary: stored bare, as before it was an enum (decoded by _object)
_BARE = frozenset({_model.Op})
_OPS = {op.value: op for op in _model.Op}
_EXPR = _model.Expr
# Tags: {"@t": [...]} is a tuple, {"@Span": [...]} a Span (its fields in order), {"@Outcome":
# ["skip"]} an enum member (its word), {"@d": [[k, v], ...]} a dict with a key that starts with "@";
# any other JSON object is a dict, any array a list.
_TUPLE, _DICT = "@t", "@d"


class CacheFormatError(ValueError):
    """An entry that is not a summary gblint wrote."""


def _summary_value(value) -> bool:
    """What a summary's key holds: a :class:`FileSummary`, or True (a file's syntax is fine)."""
    return value is True or type(value) is _model.FileSummary


def _fix_value(value) -> bool:
    """What a fix's key holds (one fix request on one text): a :class:`Fix`, or False (none)."""
    return value is False or type(value) is Fix


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
    if t in _BARE:
        return value.value
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
    if cls is _EXPR and items and type(items[0]) is str:
        items[0] = _OPS.get(items[0], items[0])  # a word that is no op fails the check below
    for ok, item in zip(_CHECKS.get(cls) or _checks(cls), items):
        if not ok(item):
            raise CacheFormatError(f"a field of {tag} has the wrong type")
    return cls(*items)


def decode(data: bytes) -> object:
    """The value :func:`encode` made, from its JSON bytes. Raises CacheFormatError for an
    unknown tag, a wrong field count or a field whose value does not have its declared type,
    ValueError for bad JSON (RecursionError for absurd nesting).

    The cyclic garbage collector is paused meanwhile: a summary is hundreds of thousands of new
    acyclic objects, each allocation of which counts toward a collection that finds nothing
    (a third of the decoding time on transformers' summaries)."""
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        return json.loads(data, object_hook=_object)
    finally:
        if paused:
            gc.enable()


_KEEP_UNTIL_EXIT = [False]


def keep_loaded_until_exit() -> None:
    """Declare that the process ends with the run (``gblint check`` from the command line): the
    summaries read or built from now on (:func:`settle`) are kept out of the cyclic collector's
    walks (``gc.freeze``). A run holds hundreds of thousands of acyclic summary objects, and every
    collection of an older generation walked them again: 0.45 s of a 1.6 s warm Llama run, 4 s of
    a 17 s cold one (issue 39). Not for a long-lived process (the language server): garbage
    cycles pending at a freeze are never collected."""
    _KEEP_UNTIL_EXIT[0] = True


def settle() -> None:
    """After a summary was read or built: with :func:`keep_loaded_until_exit`, move every object
    alive now out of the collector's reach for the rest of the process; otherwise nothing."""
    if _KEEP_UNTIL_EXIT[0]:
        gc.freeze()


def _read_entry(data: bytes) -> object:
    """The value of a cache entry's bytes (:mod:`gblint.project.cache_codec`), with the cyclic garbage
    collector paused (as in :func:`decode`). Raises CodecError, or msgpack's, KeyError,
    IndexError, TypeError, ValueError for anything that is not an entry of the current format."""
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        return _codec().decode_entry(data)
    finally:
        settle()
        if paused:
            gc.enable()


_CODEC: list = []


def _codec() -> Codec:
    """The entries' codec, built on first use (it compiles a decoder per class)."""
    if not _CODEC:
        _CODEC.append(Codec(_model.CACHED_TYPES + (Edit, Fix), (_model.FileSummary, Fix),
                            lambda v: json.dumps(encode(v), separators=(",", ":")), lambda s: decode(s.encode())))
    return _CODEC[0]


_CHECKS: dict = {}


def _checks(cls) -> list:
    """One type check per stored field of ``cls``, from its annotations."""
    if cls not in _CHECKS:
        hints = typing.get_type_hints(cls)
        _CHECKS[cls] = [_check(hints[name]) for name in _FIELDS[cls]]
    return _CHECKS[cls]


# the types a decoded value can have: JSON's, tuples, and the classes above
_DECODED = frozenset({type(None), bool, int, float, str, list, dict, tuple}) | frozenset(_CLASSES.values()) | _BARE
_PRIMITIVES = {str: {str}, int: {int, bool}, bool: {bool}, float: {int, float}, type(None): {type(None)}}


def _types(hint) -> Optional[frozenset]:
    """The exact types of the decoded values that have the declared type ``hint``, when the
    type alone decides (a class, a primitive, unions of those); None when elements must be
    looked at (containers) or anything goes."""
    if hint is object or hint is typing.Any:
        return None
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is None:
        if hint in _PRIMITIVES:
            return frozenset(_PRIMITIVES[hint])
        if isinstance(hint, type):
            return frozenset(t for t in _DECODED if issubclass(t, hint))  # isinstance, on decoded values
        return None
    if origin is typing.Union:
        parts = [_types(a) for a in args]
        return None if any(p is None for p in parts) else frozenset().union(*parts)
    return None


def _check(hint):
    """A function telling whether a decoded value has the declared type ``hint`` (container
    elements included)."""
    if hint is object or hint is typing.Any:
        return lambda v: True
    types = _types(hint)
    if types is not None:
        return lambda v: type(v) in types
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is None:
        return lambda v: isinstance(v, hint)
    if origin is typing.Union and len(args) == 2 and type(None) in args:  # Optional[X]
        inner = _check(args[0] if args[1] is type(None) else args[1])
        return lambda v: v is None or inner(v)
    if origin is typing.Union:
        checks = [_check(a) for a in args]
        return lambda v: any(c(v) for c in checks)
    if origin in (list, tuple) and (origin is list or (len(args) == 2 and args[1] is Ellipsis)):
        items = _types(args[0])
        if items is not None:  # the common case, at C speed
            return lambda v: type(v) is origin and items.issuperset(map(type, v))
        item = _check(args[0])
        return lambda v: type(v) is origin and all(map(item, v))
    if origin is dict:
        keys, values = _types(args[0]), _types(args[1])
        if keys is not None and values is not None:
            return lambda v: (type(v) is dict and keys.issuperset(map(type, v))
                              and values.issuperset(map(type, v.values())))
        key, value = _check(args[0]), _check(args[1])
        return lambda v: type(v) is dict and all(key(k) and value(x) for k, x in v.items())
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


def _immutable_hint(hint, seen: set) -> bool:
    """Whether every value of the declared type ``hint`` is immutable all the way down."""
    if hint in (str, int, bool, float, type(None)) or hint in _ENUMS or hint in _BARE:
        return True
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Union or (origin is tuple and args):
        return all(a is Ellipsis or _immutable_hint(a, seen) for a in args)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        kinds = [c for c in _FIELDS if issubclass(c, hint)]  # a base such as CallTarget: any of its subclasses
        for c in kinds:
            if c in seen:
                continue
            seen.add(c)
            if not c.__dataclass_params__.frozen:
                return False
            if not all(_immutable_hint(h, seen) for h in typing.get_type_hints(c).values()):
                return False
        return bool(kinds)
    return False


# Frozen dataclasses whose fields are immutable all the way down: copies may share them.
_SHARED = frozenset(c for c in _FIELDS if c.__dataclass_params__.frozen and _immutable_hint(c, set()))
_ATOMS = frozenset({type(None), bool, int, float, str}) | frozenset(_ENUMS) | _BARE


def clone(value):
    """A deep copy of ``value`` built from the classes :func:`encode` accepts (immutable parts
    shared), for the memory layer: data only, like the JSON entries. Raises CacheFormatError
    for anything else (RecursionError for very deep values)."""
    t = type(value)
    if t in _ATOMS or t in _SHARED:
        return value
    if t is list:
        return [clone(v) for v in value]
    if t is tuple:
        return tuple([clone(v) for v in value])
    if t is dict:
        out = {}
        for k, v in value.items():
            if type(k) is not str:
                raise CacheFormatError("dict with keys that are not str")
            out[k] = clone(v)
        return out
    if t in _FIELDS:
        copy = object.__new__(t)
        object.__setattr__(copy, "__dict__", {name: clone(getattr(value, name)) for name in _FIELDS[t]})
        return copy
    raise CacheFormatError(f"cannot store a {t.__name__}")


class SummaryCache:
    """Per-file summaries (:class:`gblint.core.model.FileSummary` objects, ``True`` markers) and
    fixes (:class:`gblint.core.diagnostics.Fix`, ``False`` for none) by content: a folder of JSON
    entries, with an optional in-memory layer in front of it.

    Args:
        directory (str or None): where the entries live (created on the first write); None for
            a cache in memory only.
        fingerprint (str): what besides the text decides a summary (settings, gblint's code).
        memory (int): how many entries the memory layer keeps, the least recently used going
            first (0: no memory layer). Its ``get`` returns fresh objects every time.
        persist: None, or ``persist(path, text) -> bool``: whether a value computed for this
            text goes to the folder too (the language server keeps the summaries of unsaved
            buffers in memory only).
    """

    VOLATILE_LIMIT = 4096

    def __init__(self, directory: Optional[str], fingerprint: str = "", memory: int = 0, persist=None):
        self.directory = directory
        self.fingerprint = f"{__version__}/{FORMAT}/{fingerprint}"
        self.memory = memory
        self.persist = persist
        self.hits = self.misses = 0  # summaries and syntax checks
        self.fix_hits = self.fix_misses = 0
        self._store: "collections.OrderedDict[str, object]" = collections.OrderedDict()
        self._volatile: set = set()  # keys whose values stay out of the folder (``persist``)

    def key(self, path: str, module: str, text: str) -> str:
        """The key of ``text`` read from ``path`` as module ``module``."""
        key = content_key(self.fingerprint, path, module, text)
        if self.persist is not None and self.directory is not None and not self.persist(path, text):
            if len(self._volatile) >= self.VOLATILE_LIMIT:  # keys that never got a value: forget them
                self._volatile.clear()
            self._volatile.add(key)
        return key

    def _file(self, key: str) -> str:
        return os.path.join(self.directory, key[:2], key + ".msgpack")

    def get(self, key: str, fix: bool = False):
        """The value stored under ``key``, fresh objects: a :class:`FileSummary` or True, or
        with ``fix`` a :class:`Fix` or False. None for a miss (not in memory, and in the folder
        missing, not a regular file, unreadable, or not such a value). Never raises. Counted in
        ``hits``/``misses``, or with ``fix`` in ``fix_hits``/``fix_misses``."""
        value = self._get(key, _fix_value if fix else _summary_value)
        if fix:
            self.fix_hits, self.fix_misses = self.fix_hits + (value is not None), self.fix_misses + (value is None)
        else:
            self.hits, self.misses = self.hits + (value is not None), self.misses + (value is None)
        return value

    def _get(self, key: str, expected):
        if key in self._store:
            self._store.move_to_end(key)
            try:
                value = clone(self._store[key])
                if not expected(value):
                    raise CacheFormatError("another kind of value")
            except Exception:  # a miss all the same
                del self._store[key]
            else:
                return value
        if self.directory is None or key in self._volatile:
            return None
        try:
            value = _read_entry(read_regular_file(self._file(key)))
            if not expected(value):
                raise CacheFormatError("not a value this key holds")
        except Exception:  # missing, truncated, hostile or from another version: recompute
            return None
        self._remember(key, value)
        return value

    def put(self, key: str, value) -> None:
        """Store a :class:`FileSummary`, :class:`Fix`, True or False under ``key`` (in memory,
        and in the folder unless ``persist`` said no for its text); a failure (disk full, a value
        that cannot be stored) only costs speed and leaves no temporary file. Never raises."""
        self._remember(key, value)
        if key in self._volatile:
            self._volatile.discard(key)
            return
        if self.directory is None:
            return
        target = self._file(key)
        try:
            data = _codec().encode_entry(value)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            write_atomically(target, data)
        except (OSError, ValueError, RecursionError):
            pass

    def _remember(self, key: str, value) -> None:
        """Keep a private copy of ``value`` in the memory layer (nothing without one)."""
        if self.memory <= 0:
            return
        try:
            self._store[key] = clone(value)
        except (CacheFormatError, RecursionError):  # what cannot be kept only costs speed
            self._store.pop(key, None)
            return
        self._store.move_to_end(key)
        while len(self._store) > self.memory:
            self._store.popitem(last=False)


def cached_fixes(diagnostics: list, texts: dict, settings, cache: Optional[SummaryCache], attach) -> list:
    """``attach(diagnostics)`` (:func:`gblint.fixing.fixes.attach_fixes`: each diagnostic with its fix
    request turned into a fix) through ``cache``: a fix depends only on its request, the text of
    its file (``texts``) and what the rewrites read (``settings.max_unroll``, the Python that
    compiles the result), so a warm run re-parses no file for its fixes. ``attach`` gets only the
    diagnostics the cache cannot answer."""
    out = list(diagnostics)
    todo: dict = {}  # index in out -> key
    for i, d in enumerate(out):
        text = texts.get(d.path)
        if d.fix_request is None or d.fix is not None or text is None:
            continue  # attach_fixes leaves it as it is
        key = None
        if cache is not None:
            # the request's repr: its class and fields (numbers, names, a BlockKind)
            key = cache.key(d.path, f"#fix {d.fix_request!r} {settings.max_unroll} {sys.version_info[:2]}", text)
            found = cache.get(key, fix=True)
            if found is not None:
                out[i] = dataclasses.replace(d, fix=found) if found is not False else d
                continue
        todo[i] = key
    if todo:
        for (i, key), d in zip(todo.items(), attach([out[i] for i in todo])):
            out[i] = d
            if key is not None:
                cache.put(key, d.fix if d.fix is not None else False)
    return out


def default_cache_dir(root: str) -> str:
    """The cache folder of a project rooted at ``root``."""
    return os.path.join(os.path.abspath(root), ".gblint_cache")


def settings_fingerprint(settings) -> str:
    """What besides a file's text decides its summary: dynamo config, the torch and Python
    versions, the size limit, and gblint's own code and data (sizes and mtimes of its modules and of the tables read
    from torch, so an edited rule or a regenerated table never reads a stale summary)."""
    from ..core.versions import torch_of
    items = sorted((k, repr(v)) for k, v in settings.dynamo_config.items())
    # the versions choose the rules and the facts they read; the size limit decides whether a file
    # is summarised at all (GBL002 instead)
    return (repr(items) + repr(torch_of(settings)) + repr(tuple(settings.python_version))
            + repr(getattr(settings, "max_file_size", None)) + _code_stamp())


def _code_stamp() -> str:
    import importlib.util
    stamps = []
    for pkg in ("gblint", "gblint.rules"):  # found, not imported: a warm run never loads the rules (or libcst)
        directory = importlib.util.find_spec(pkg).submodule_search_locations[0]
        for folder, dirs, files in os.walk(directory):  # the layer packages too
            dirs[:] = sorted(d for d in dirs if d.isidentifier())
            for name in sorted(files):
                if name.endswith((".py", ".json")):  # the data read from torch (gblint/data) decides summaries too
                    st = os.stat(os.path.join(folder, name))
                    stamps.append(f"{os.path.relpath(os.path.join(folder, name), directory)}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("|".join(stamps).encode()).hexdigest()[:16]


def maybe_cache(settings, enabled: bool, directory: Optional[str], memory: int = 0,
                persist=None) -> Optional[SummaryCache]:
    """The cache of a run: its folder is ``directory`` (default ``.gblint_cache`` at the
    configuration root). Not ``enabled``, or a folder that cannot be made: None, or with
    ``memory`` entries a cache in memory only. ``memory`` and ``persist``: see :class:`SummaryCache`."""
    fingerprint = settings_fingerprint(settings)
    if enabled:
        directory = directory or default_cache_dir(settings.root)
        try:
            os.makedirs(directory, exist_ok=True)
            marker = os.path.join(directory, ".gitignore")
            if not os.path.lexists(marker):  # never through a link, dangling or not
                write_atomically(marker, b"# Automatically created by gblint.\n*\n")
        except OSError:
            directory = None
    else:
        directory = None
    if directory is None and memory <= 0:
        return None
    return SummaryCache(directory, fingerprint, memory=memory, persist=persist)
