"""The cache's entry format: msgpack records laid out by the classes' declared field types.

A summary is hundreds of thousands of small objects. Entries used to be JSON with every object
tagged and decoded by ``json.loads``'s object hook, which looked each tag up and checked each
field's type in Python: a Python call per object, a third of a warm run (issue 39). Here the
schema is the classes' annotations, compiled once per class into a decoder (generated source, its
field checks inlined), and the data carry no tags except where a field's type leaves the class
open (a :class:`gblint.core.model.CallTarget` or :class:`gblint.core.model.Binding`: its index among the
candidates). msgpack parses the bytes in C into tuples, dicts and words; the decoders only build
the dataclasses.

:class:`gblint.core.model.Expr` values, three in four objects of a summary and mostly repeated (the same
``self.config`` in every method), are stored once per entry in a table (parts before the values
that hold them) and referred to by index; equal values of one entry then share one object, as the
memory layer's copies already do (``Expr`` is frozen all the way down). Equal means same op, same
type and value and the same parts: ``1`` and ``True`` stay apart.

A field that may hold anything (``FileSummary.config``, ``Fix.effect``) keeps the tagged JSON form
of :func:`gblint.project.cache.encode`, decoded by :func:`gblint.project.cache.decode`.

Decoding raises on anything that is not what the schema says (a wrong type, length, index or
word): the cache turns that into a miss. Nothing but the listed classes is ever built.
"""
from __future__ import annotations

import dataclasses
import enum
import typing
from typing import Callable, Dict, List, Optional, Tuple

import msgpack

from ..core import model as _model

MAGIC = b"gblint-summary\0"
_EXPR = _model.Expr


class CodecError(ValueError):
    """A value that does not have its declared type (encoding), or data that are not an entry of
    this format (decoding)."""


def _bad(*_):
    raise CodecError("not an entry of this format")


_PRIMITIVES = {str: (str,), int: (int, bool), bool: (bool,), float: (int, float), type(None): (type(None),)}


def _primitive_types(hint) -> Optional[frozenset]:
    """The decoded types of a primitive ``hint`` or a union of primitives; None otherwise."""
    if hint in _PRIMITIVES:
        return frozenset(_PRIMITIVES[hint])
    if typing.get_origin(hint) is typing.Union:
        parts = [_primitive_types(a) for a in typing.get_args(hint)]
        if all(p is not None for p in parts):
            return frozenset().union(*parts)
    return None


class Codec:
    """Encoder and decoder of the dataclasses ``classes`` (and the enums among them), built once.

    Args:
        classes (tuple): every class an entry may hold: dataclasses and enums.
        tops (tuple): the classes an entry's value may have (besides True and False).
        generic_encode (callable): a ``str`` that stands for a value of a field typed ``object``
            or ``tuple`` (raises ValueError for a value it cannot store).
        generic_decode (callable): its inverse (raises on anything it did not make).
    """

    def __init__(self, classes: tuple, tops: tuple, generic_encode: Callable, generic_decode: Callable):
        self._generic_encode, self._generic_decode = generic_encode, generic_decode
        self._kinds = {k: c for k, c in enumerate(tops, 1)}
        self._plans: dict = {}  # a declared type -> how a value of it is encoded (Codec._encode_plan)
        self._data = [c for c in classes if dataclasses.is_dataclass(c)]
        self._enums = [c for c in classes if isinstance(c, type) and issubclass(c, enum.Enum)]
        self._fields = {c: tuple(f.name for f in dataclasses.fields(c)) for c in self._data}
        self._hints = {c: typing.get_type_hints(c) for c in self._data}
        self._ns: Dict[str, object] = {"_bad": _bad, "_new": object.__new__, "_set": object.__setattr__,
                                       "tuple": tuple, "type": type, "dict": dict, "list": list}
        self._names: Dict[object, str] = {}
        self._source: List[str] = []
        self._tail: List[str] = []  # the dispatch tables of unions, once every function is defined
        for c in tops:
            self._decoder_of(c)
        exec(compile("\n".join(self._source + self._tail), "<gblint cache decoders>", "exec"), self._ns)  # noqa: S102

    # ------------------------------------------------------------------ decoding
    def _name(self, key, prefix: str) -> Tuple[str, bool]:
        """A fresh or known helper name for ``key``; whether it is new."""
        if key in self._names:
            return self._names[key], False
        name = self._names[key] = f"_{prefix}{len(self._names)}"
        return name, True

    def _value(self, hint, v: str) -> str:
        """Source of an expression that decodes the raw value ``v`` (source) of declared type
        ``hint``."""
        types = _primitive_types(hint)
        if types is not None:
            if len(types) == 1:
                return f"({v} if type({v}) is {self._const(next(iter(types)))} else _bad())"
            return f"({v} if type({v}) in {self._const(types)} else _bad())"
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin is typing.Union and len(args) == 2 and type(None) in args:
            inner = args[0] if args[1] is type(None) else args[1]
            return f"(None if {v} is None else {self._value(inner, v)})"
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return f"{self._const(hint._value2member_map_, ('words', hint))}[{v}]"
        if hint is _EXPR:  # an index into the entry's table
            return f"(X[{v}] if type({v}) is int and {v} >= 0 else _bad())"
        return f"{self._decoder_of(hint)}({v}, X)"

    def _const(self, value, key=None) -> str:
        """The name the generated source gives ``value`` (``key``: what identifies it, default itself)."""
        name, new = self._name(("const", value) if key is None else key, "k")
        if new:
            self._ns[name] = value
        return name

    def _decoder_of(self, hint) -> str:
        """The name of the generated function ``f(raw, X)`` decoding a raw value of type ``hint``
        (``X``: the entry's Expr table)."""
        key = ("dec", hint)
        if key in self._names:
            return self._names[key]
        name, _ = self._name(key, "d")
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        lines = [f"def {name}(a, X):"]
        if hint is object or hint is tuple or hint is typing.Any:
            lines.append("    return _generic(a if type(a) is str else _bad())")
            self._ns["_generic"] = self._generic_decode
        elif isinstance(hint, type) and issubclass(hint, enum.Enum):
            lines.append(f"    return {self._const(hint._value2member_map_, ('words', hint))}[a]")
        elif origin in (list, tuple) and (origin is list or (len(args) == 2 and args[1] is Ellipsis)):
            wrap = "list" if origin is list else "tuple"
            types = _primitive_types(args[0])
            lines.append("    if type(a) is not tuple: _bad()")
            if types is not None:
                lines.append(f"    if not {self._const(types)}.issuperset(map(type, a)): _bad()")
                lines.append(f"    return {wrap}(a)" if wrap == "list" else "    return a")
            else:
                lines.append(f"    return {wrap}([{self._value(args[0], 'y')} for y in a])")
        elif origin is tuple:
            lines.append(f"    if type(a) is not tuple or len(a) != {len(args)}: _bad()")
            lines.append("    return (" + "".join(self._value(h, f"a[{i}]") + ", " for i, h in enumerate(args)) + ")")
        elif origin is dict:
            lines.append("    if type(a) is not dict: _bad()")
            key, item = self._value(args[0], "k"), self._value(args[1], "y")
            lines.append(f"    return {{{key}: {item} for k, y in a.items()}}")
        elif origin is typing.Union or (isinstance(hint, type) and len(self._concrete(hint)) != 1):
            options = self._concrete(hint)
            table = f"_t{name}"
            self._tail.append(f"{table} = ({''.join(self._decoder_of(('record', c)) + ', ' for c in options)})")
            lines.append("    if type(a) is not tuple or not a or type(a[0]) is not int or a[0] < 0: _bad()")
            lines.append(f"    return {table}[a[0]](a, X)")
        elif isinstance(hint, type) and dataclasses.is_dataclass(hint):
            return self._record(name, hint, 0)
        elif type(hint) is tuple and hint[0] == "record":  # one option of a union: its index first
            return self._record(name, hint[1], 1)
        else:
            raise TypeError(f"no cache encoding for {hint!r}")
        self._source.append("\n".join(lines))
        return name

    def _record(self, name: str, cls, skip: int) -> str:
        fields = self._fields[cls]
        hints = self._hints[cls]
        cls_name = self._const(cls)
        n = len(fields) + skip
        body = ", ".join(f"{f!r}: {self._value(hints[f], f'a[{i + skip}]')}" for i, f in enumerate(fields))
        self._source.append(f"def {name}(a, X):\n"
                            f"    if type(a) is not tuple or len(a) != {n}: _bad()\n"
                            f"    o = _new({cls_name})\n"
                            f"    _set(o, '__dict__', {{{body}}})\n"
                            f"    return o")
        return name

    def _concrete(self, hint) -> tuple:
        """The classes a value of declared type ``hint`` (a class or a union of classes) may be."""
        if typing.get_origin(hint) is typing.Union:
            out: tuple = ()
            for a in typing.get_args(hint):
                out += tuple(c for c in self._concrete(a) if c not in out)
            return out
        return tuple(c for c in self._data if issubclass(c, hint))

    def _encode_plan(self, hint) -> tuple:
        """How :meth:`_Encoder.value` lays out a value of declared type ``hint``: ``(kind, a, b)``, read once per hint
        (the hints are fixed, the values many)."""
        types = _primitive_types(hint)
        if types is not None:
            return "primitive", types, None
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin is typing.Union and len(args) == 2 and type(None) in args:
            return "optional", args[0] if args[1] is type(None) else args[1], None
        if hint is _EXPR:
            return "expr", None, None
        if hint is object or hint is tuple or hint is typing.Any:
            return "generic", None, None
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return "enum", None, None
        if origin in (list, tuple) and (origin is list or (len(args) == 2 and args[1] is Ellipsis)):
            return "sequence", origin, args[0]
        if origin is tuple:
            return "tuple", args, None
        if origin is dict:
            return "dict", args[0], args[1]
        options = self._concrete(hint)
        return "data", options, not (len(options) == 1 and origin is not typing.Union)

    def decode_entry(self, data: bytes):
        """The value an entry holds: True, False, a :class:`FileSummary` or a :class:`Fix`.
        Raises CodecError (or another exception of msgpack's, or KeyError, IndexError,
        TypeError) for anything that is not an entry of this format."""
        if not data.startswith(MAGIC):
            raise CodecError("not an entry of this format")
        kind, table, body = msgpack.unpackb(memoryview(data)[len(MAGIC):], raw=False, use_list=False,
                                            unicode_errors="surrogatepass")
        if kind == 0:
            if type(body) is not bool:
                raise CodecError("a marker that is not a bool")
            return body
        exprs = self.expr_table(table)
        return self._ns[self._decoder_of(self._kinds[kind])](body, exprs)

    def expr_table(self, table) -> list:
        """The :class:`Expr` values of an entry's table (each ``(op, value, part indices)``)."""
        if type(table) is not tuple:
            raise CodecError("no table")
        ops, new, setd, values = _model.Op._value2member_map_, object.__new__, object.__setattr__, _EXPR_VALUES
        exprs: list = []
        for op, value, parts in table:
            if type(value) not in values or type(parts) is not tuple or (parts and min(parts) < 0):
                raise CodecError("a malformed value")
            e = new(_EXPR)
            setd(e, "__dict__", {"op": ops[op], "value": value, "parts": tuple([exprs[i] for i in parts])})
            exprs.append(e)
        return exprs

    # ------------------------------------------------------------------ encoding
    def encode_entry(self, value) -> bytes:
        """The bytes of ``value`` (True, False, a :class:`FileSummary` or a :class:`Fix`).
        Raises CodecError for a value that does not have its declared types."""
        if value is True or value is False:
            return MAGIC + msgpack.packb([0, (), value])
        kind = next((k for k, c in self._kinds.items() if type(value) is c), None)
        if kind is None:
            raise CodecError(f"cannot store a {type(value).__name__}")
        enc = _Encoder(self)
        body = enc.value(type(value), value)
        try:
            return MAGIC + msgpack.packb([kind, enc.table, body], use_bin_type=True, unicode_errors="surrogatepass")
        except (TypeError, OverflowError, ValueError) as exc:
            raise CodecError(str(exc)) from exc


_EXPR_VALUES = frozenset({type(None), bool, int, float, str})


class _Encoder:
    """One entry's encoding: its Expr table and the values laid out by their declared types."""

    def __init__(self, codec: Codec):
        self.codec = codec
        self.table: list = []
        self._index: dict = {}  # (op, value's type, value, part indices) -> index in table

    def expr(self, e) -> int:
        if type(e) is not _EXPR or type(e.value) not in _EXPR_VALUES or type(e.parts) is not tuple:
            raise CodecError("not an Expr")
        parts = tuple(self.expr(p) for p in e.parts)
        op = e.op.value if isinstance(e.op, _model.Op) else _bad()
        v = e.value
        key = (op, type(v), repr(v) if type(v) is float else v, parts)  # -0.0 and 0.0 stay apart
        found = self._index.get(key)
        if found is None:
            found = self._index[key] = len(self.table)
            self.table.append((op, v, parts))
        return found

    def value(self, hint, v):
        plan = self.codec._plans.get(hint)
        if plan is None:
            plan = self.codec._plans[hint] = self.codec._encode_plan(hint)
        kind, a, b = plan
        if kind == "primitive":
            if type(v) not in a:
                raise CodecError(f"{type(v).__name__} where {hint} is declared")
            return v
        if kind == "optional":
            return None if v is None else self.value(a, v)
        if kind == "expr":
            return self.expr(v)
        if kind == "generic":
            return self.codec._generic_encode(v)
        if kind == "enum":
            if type(v) is not hint:
                raise CodecError(f"not a {hint.__name__}")
            return v.value
        if kind == "sequence":
            if type(v) is not a:
                raise CodecError(f"not a {a.__name__}")
            return [self.value(b, x) for x in v]
        if kind == "tuple":
            if type(v) is not tuple or len(v) != len(a):
                raise CodecError("a tuple of another length")
            return [self.value(h, x) for h, x in zip(a, v)]
        if kind == "dict":
            if type(v) is not dict:
                raise CodecError("not a dict")
            return {self.value(a, k): self.value(b, x) for k, x in v.items()}
        options, tagged = a, b
        cls = type(v)
        if cls not in options:
            raise CodecError(f"a {cls.__name__} where {hint} is declared")
        codec = self.codec
        hints = codec._hints[cls]
        fields = [self.value(hints[f], getattr(v, f)) for f in codec._fields[cls]]
        return [options.index(cls)] + fields if tagged else fields
