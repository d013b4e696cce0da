"""Whether reading an attribute of an instance gives what its class's code stored there.

``self.flag = torch.ones(2)`` then ``if self.flag:`` reads the tensor back only where nothing in between keeps or
gives something else. Python lets a class do that three ways, each seen here from the classes' summaries:

- ``__setattr__``: a method that hands the value it was given, unchanged, to ``super().__setattr__`` or
  ``object.__setattr__`` (maybe after raising for some names: torchmetrics' ``Metric.__setattr__`` guards its
  constants) keeps it; one that stores something else (``bool(value)``), stores through ``self.__dict__``, or is
  set in the class body to a function (``__setattr__ = f``) may keep it or another value (pyro's ``PyroModule``
  keeps what is neither a parameter nor a sample): the read is the value stored or one not known. A key it renames (transformers'
  ``PretrainedConfig``, by its ``attribute_map``) is read back only where ``__getattribute__`` renames alike.
- ``__getattribute__``: one whose every ``return`` is ``super().__getattribute__(key)`` (or ``object``'s) gives what
  is stored; any other may give anything.
- a descriptor: a class attribute of that name whose class defines ``__get__`` or ``__set__`` (``flag = AsBool()``)
  runs its code on each store and read.

``nn.Module``'s own ``__setattr__`` keeps a value (submodules and parameters in their dicts:
:meth:`gblint.abstract.class_effects.ClassEffects.held_by_module`), so torch's classes are not read here. Where a
class may not give back what was stored, the read is not known (:data:`gblint.abstract.values.UNKNOWN`); where only a
``__setattr__`` may have changed it, the read is the value stored or one not known.
Measured on torch 2.13: ``tests/cases/kinds`` kc8.

A ``functools.cached_property`` is a descriptor of the standard library: :func:`cached_property_read`.
"""
from __future__ import annotations

import dataclasses

from ..core.model import EventKind, Expr, FunctionInfo
from ..core.ops import Op
from .calling import Args, Target
from .objects import Inst
from .values import mentions


def keeps_values(mro) -> tuple:
    """``(reads, stores)``: whether the classes ``mro`` ((summary, ClassInfo) pairs) give an attribute of an instance as
    its class or instance holds it (no ``__getattribute__`` of theirs gives anything else), and whether what is
    stored is held as stored (neither that nor a ``__setattr__`` of theirs changes it; module docstring)."""
    renames, setters = False, []
    for summary, info in mro:  # each one's `super().__...__` runs the next: every one of them must keep it
        if summary.module.startswith("torch.nn.modules."):
            continue
        if "__getattribute__" in info.values:
            return False, False
        getter = info.methods.get("__getattribute__")
        if getter is not None:
            fn = summary.functions.get(getter)
            if fn is None or not _reads_through(fn):
                return False, False
            renames = renames or _renames(fn)
        if "__setattr__" in info.values:
            return True, False
        qual = info.methods.get("__setattr__")
        if qual is not None:
            fn = summary.functions.get(qual)
            if fn is None:
                return True, False
            setters.append(fn)
    return True, all(_keeps(fn, renames) for fn in setters)


def descriptor(value: Expr, mro_of) -> bool:
    """Whether ``value`` (a class attribute) may be a descriptor: an instance whose class (``mro_of(cls)``: its
    (summary, ClassInfo) pairs) defines ``__get__`` or ``__set__``."""
    parts = value.parts if value.op == Op.UNION else (value,)
    for p in parts:
        if isinstance(p, Inst) and any("__get__" in info.methods or "__set__" in info.methods
                                       or "__get__" in info.values or "__set__" in info.values
                                       for _summary, info in mro_of(p.cls)):
            return True
    return False


def _keeps(fn: FunctionInfo, renamed_alike: bool) -> bool:
    """Whether the ``__setattr__`` ``fn`` stores the value it is given, unchanged, under its key (renamed only
    where ``renamed_alike``: a ``__getattribute__`` of the classes renames too)."""
    if len(fn.params) < 3:
        return False
    key, value = fn.params[1].name, fn.params[2].name
    if value in fn.locals or (key in fn.locals and not renamed_alike):
        return False  # the key renamed on the way in but not on the way out (or the other way) is another attribute
    stores = [ev for ev in fn.events if ev.kind == EventKind.CALL and ev.call_text.endswith("__setattr__")]
    if not stores:
        return False
    for ev in stores:
        args = ev.args.positional if ev.args is not None and not ev.args.star else ()
        given = args[1:] if ev.call_text.startswith("super()") else args[2:]
        if len(given) != 1 or given[0].op != Op.PARAM or given[0].value != value:
            return False
        if not _the_key(args[-2], key, renamed_alike):
            return False
    return True


def _reads_through(fn: FunctionInfo) -> bool:
    """Whether every ``return`` of the ``__getattribute__`` ``fn`` is ``super().__getattribute__(key)`` or
    ``object.__getattribute__(self, key)``, ``key`` its own parameter (maybe renamed)."""
    if len(fn.params) < 2 or not fn.results:
        return False
    key = fn.params[1].name
    for r in fn.results:
        if r.op != Op.CALLV or len(r.parts) < 2 or r.parts[0].op != Op.ATTR or r.parts[0].value != "__getattribute__":
            return False
        if not _the_key(r.parts[-1], key, True):
            return False
    return True


def _renames(fn: FunctionInfo) -> bool:
    """Whether the ``__getattribute__`` ``fn`` (one that reads through) may read another name than it was asked."""
    return fn.params[1].name in fn.locals


def _the_key(e: Expr, key: str, renamed: bool) -> bool:
    """Whether ``e`` is the parameter ``key``, or (``renamed``) a value made from it (``attribute_map[key]`` where
    the key is in the map), both ways of a class that renames keys alike."""
    if e.op in (Op.PARAM, Op.LOCAL) and e.value == key:
        return True
    return renamed and mentions(e, Op.PARAM, key)


def cached_property_read(interp, inst: Inst, name: str, getter: Expr, calls: list) -> Expr:
    """Reading the ``functools.cached_property`` ``name`` of ``inst`` (its getter ``getter``) in code a walk follows:
    what the getter returns. Read by an ``__init__`` of its classes, it is computed before anything else runs: a
    plain attribute, no call. Else the read runs ``__get__``: ``calls`` gets a ``cached_property`` target, then the
    getter's own targets as ``cached_getter`` (:meth:`gblint.dynamo.calls.CallValues.call_targets` keeps one or the
    other by the Python version: fact ``cached-property-locks``). ``interp`` is the
    :class:`gblint.abstract.interp.Interpreter`."""
    for summary, info in interp.class_mro(inst.cls):
        init = summary.functions.get(info.methods.get("__init__", ""))
        if init is not None and name in init.self_reads:
            return interp.calls.apply(getter, Args((inst,)), None, want=True)
    found: list = []
    value = interp.calls.apply(getter, Args((inst,)), found, want=True)
    calls.append(Target(None, kind="cached_property", name=name))
    calls.extend(dataclasses.replace(t, kind="cached_getter") for t in found)
    return value
