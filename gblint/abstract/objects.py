"""The objects a value may be, as the interpreter (:mod:`gblint.abstract.interp`) follows them.

Constants, tuples, lists and dicts stay :class:`gblint.core.model.Expr` values (``const``, ``seq``,
``dict``), so that :mod:`gblint.abstract.values` decides tests on them; what only a program can make is
an :class:`Obj`: a function or class of the checked code, an instance of one (with the
arguments it was built with, which decide its attributes), a bound method, a closure (with
the frame it was made in), a module, and objects of libraries gblint does not read. Every
object is immutable and hashable (it rides in the walk's memo keys), and counts as a value
that is not None (``op == "obj"``).
"""
from __future__ import annotations

from typing import Optional, Tuple

from ..core.ops import Op


class Obj:
    """An object the program makes. Subclasses list their fields in ``_fields``; equality and
    the (cached) hash go by class and fields."""

    __slots__ = ("_key", "_hash")
    _fields: Tuple[str, ...] = ()
    op = Op.OBJ
    value = None  # as an Expr has: no literal value
    parts: Tuple = ()  # as an Expr has: no parts
    truth: Optional[bool] = None  # bool(obj), when every object of the kind has the same

    def __init__(self, *values):
        for name, value in zip(self._fields, values):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_key", (type(self).__name__,) + tuple(values))
        object.__setattr__(self, "_hash", hash(self._key))

    def __setattr__(self, name, value):
        raise AttributeError("objects are immutable")

    def __eq__(self, other):
        return type(other) is type(self) and other._key == self._key

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(repr(getattr(self, f)) for f in self._fields)})"


class Func(Obj):
    """A function (or lambda) of the checked code, as its ``def`` made it, before decorators."""

    __slots__ = ("path", "qualname")
    _fields = ("path", "qualname")
    truth = True


class Cls(Obj):
    """A class of the checked code."""

    __slots__ = ("path", "qualname")
    _fields = ("path", "qualname")
    truth = True


class Inst(Obj):
    """An instance of class ``cls`` built with ``init``: ``(parameter, value)`` pairs its
    ``__init__`` (or a dataclass's fields) received, in order, unknown ones left out; for a
    ``dict`` subclass built from a known mapping, ``(ITEMS, mapping)``."""

    __slots__ = ("cls", "init")
    _fields = ("cls", "init")


ITEMS = "\0items"  # an Inst.init key: the mapping a dict subclass was built from


class Bound(Obj):
    """``func`` (a function value) bound to ``recv`` (an instance, or a class for a classmethod)."""

    __slots__ = ("recv", "func")
    _fields = ("recv", "func")
    truth = True


class Closure(Obj):
    """A function defined inside another, with ``outer``: the :class:`Ctx` of the call that
    defined it (what its free names are bound to)."""

    __slots__ = ("func", "outer")
    _fields = ("func", "outer")
    truth = True


class Ctx(Obj):
    """A frame and what its parameters held: the function ``path``/``qualname`` and ``env``
    (sorted ``(name, value)`` pairs), for closures made in it."""

    __slots__ = ("path", "qualname", "env")
    _fields = ("path", "qualname", "env")


class Here(Obj):
    """Which function an environment belongs to (``path``, ``qualname``; ``<module>`` at module level)."""

    __slots__ = ("path", "qualname")
    _fields = ("path", "qualname")


class Module(Obj):
    """A module of the checked code, by dotted name."""

    __slots__ = ("name",)
    _fields = ("name",)
    truth = True


class Ext(Obj):
    """A class, function or module of a library gblint does not read, by dotted name
    (``torch.nn.Linear``, ``builtins.getattr``)."""

    __slots__ = ("name",)
    _fields = ("name",)
    truth = True


class ExtInst(Obj):
    """An instance of library class ``name`` (``torch.nn.Linear(4, 4)``)."""

    __slots__ = ("name",)
    _fields = ("name",)


class Method(Obj):
    """A method ``name`` of a value that is not a program object (a container, a string, a
    library instance): only the methods :mod:`gblint.abstract.interp` knows do anything."""

    __slots__ = ("recv", "name")
    _fields = ("recv", "name")
    truth = True


class Partial(Obj):
    """``functools.partial(func, *args, **keywords)``."""

    __slots__ = ("func", "args", "keywords")
    _fields = ("func", "args", "keywords")
    truth = True


class Super(Obj):
    """``super()`` in a method of class ``cls``, for the receiver ``recv``."""

    __slots__ = ("cls", "recv")
    _fields = ("cls", "recv")
    truth = True


class Disabled(Obj):
    """``torch.compiler.disable(inner)``: calling it is a graph break (GB0098)."""

    __slots__ = ("inner",)
    _fields = ("inner",)
    truth = True


class Wraps(Obj):
    """What ``functools.wraps(f)`` returns: a decorator that returns the function it is given."""

    __slots__ = ()
    _fields = ()
    truth = True
