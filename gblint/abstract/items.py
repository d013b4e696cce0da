"""Items, for the object interpreter (:mod:`gblint.abstract.interp`): what indexing, iterating and unpacking a
value give, and what a comprehension over a known iterable makes. :class:`gblint.abstract.interp.Interpreter`
holds an :class:`Items`.
"""
from __future__ import annotations

from typing import Optional, Protocol

from . import grads, layouts, values
from .calling import BOTTOM, Args
from ..core.model import Expr
from ..core.ops import Op
from .objects import ITEMS, Cls, Ext, Inst, Module, Partial
from .values import UNKNOWN, union

_MAX_ITEMS = 64  # a comprehension over more items is not evaluated item by item


class ItemsHost(Protocol):
    """What :class:`Items` asks of the interpreter (:class:`gblint.abstract.interp.Interpreter`)."""

    project: object
    calls: object  # gblint.abstract.invoke.Calls: call_own_method

    def evaluate(self, e: Expr, env: values.Env, calls: Optional[list]) -> Expr: ...

    def attribute(self, base: Expr, name: str, calls: Optional[list]) -> Expr: ...

    def class_attr(self, cls: Cls, name: str, recv: Optional[Expr], calls: Optional[list],
                   after: bool = False) -> Optional[Expr]: ...


class Items:
    """Items of values, asked of ``interp`` (an :class:`ItemsHost`) for what they hold."""

    def __init__(self, interp: ItemsHost):
        self.interp = interp
        self.project = interp.project

    def comprehension(self, e: Expr, env: values.Env, calls: Optional[list]) -> Expr:
        """A ``comp`` value: over a known, finite iterable, each element bound to the target,
        kept when the test holds (all known: the exact list, set or dict); else what any
        element makes, of unknown length (``filtered``)."""
        source, target, test = e.parts[0], e.parts[1], e.parts[2]
        it = self.interp.evaluate(source, env, None)
        items = None
        if it.op in (Op.SEQ, Op.DICT) and it.value not in values.OPEN and len(it.parts) <= _MAX_ITEMS:
            items = [kv.parts[0] for kv in it.parts] if it.op == Op.DICT else list(it.parts)
        if items is not None:
            kept = []
            for item in items:
                scope = env.replace()
                if not _bind_target(scope, target, item):
                    items = None
                    break
                truth = values.decide(test, scope)
                if truth is None:
                    items = None
                    break
                if truth:
                    kept.append(scope)
        if items is None:
            elt = tuple(self.interp.evaluate(p, env, calls) for p in e.parts[3:5 if e.value == "dict" else 4])
            return Expr(Op.FILTERED, "dict" if e.value == "dict" else None, (it,) + elt)
        if e.value == "dict":
            evaluate = self.interp.evaluate
            return Expr(Op.DICT, None, tuple(Expr(Op.KV, parts=(evaluate(e.parts[3], sc, None),
                                                              evaluate(e.parts[4], sc, calls))) for sc in kept))
        return Expr(Op.SET if e.value == "set" else Op.SEQ, None,
                    tuple(self.interp.evaluate(e.parts[3], sc, calls) for sc in kept))

    def subscript(self, base: Expr, key: Expr, calls: Optional[list]) -> Expr:
        """``base[key]``."""
        if base.op == Op.UNION:
            return union(self.subscript(p, key, calls) for p in base.parts)
        if base == values.OTHER:
            return base
        if base.op == Op.TENSOR:  # torch/_C/__init__.pyi: TensorBase.__getitem__ -> Tensor
            return Expr(Op.TENSOR, parts=grads.method_grad("__getitem__", base, (key,))
                        + layouts.method_layout("__getitem__", base))
        if key.op == Op.UNION and key.parts and all(p.op == Op.CONST for p in key.parts):
            return values.alternatives([self.subscript(base, k, calls) for k in key.parts])  # one of these keys
        if isinstance(base, Ext) and base.name == "sys.modules":
            return self.module_object(key)
        if isinstance(base, Module):  # `globals()[name]`: the module's global of that name
            return self.interp.attribute(base, key.value, calls) if key.op == Op.CONST and isinstance(key.value, str) \
                else UNKNOWN
        if base.op == Op.SEQ:
            if key.op == Op.SLICE:
                if base.value is None and len(set(base.parts)) > 1:
                    # the slice's bounds are not kept: any item may be at any place of the result
                    # (`pair[1:][0]` of an enumerate pair is its item, not its count)
                    return Expr(Op.FILTERED, parts=(base, union(base.parts)))
                return base
            if key.op == Op.CONST and isinstance(key.value, int) and not isinstance(key.value, bool):
                if 0 <= key.value < len(base.parts) or (base.value not in values.OPEN
                                                         and -len(base.parts) <= key.value < 0):
                    return base.parts[key.value]
                return UNKNOWN
            # an unknown index selects one of the items: what is called through it runs only maybe
            # (a union's targets are conditional, see Invoker._apply_union)
            if base.parts and len(base.parts) <= _MAX_ITEMS:
                return union(base.parts + ((UNKNOWN,) if base.value in values.OPEN else ()))
            return UNKNOWN
        if base.op == Op.FILTERED:  # a dict comprehension's parts: the iterable, a key, its value
            return base if key.op == Op.SLICE else (base.parts[-1] if len(base.parts) > 1 else UNKNOWN)
        if base.op == Op.DICT:
            found = values._lookup(base, key)
            if found is not None and found.op == Op.UNKNOWN and key.op != Op.CONST and base.parts \
                    and len(base.parts) <= _MAX_ITEMS:  # an unknown key selects one of the entries, maybe
                more = (UNKNOWN,) if base.value in values.OPEN else ()
                return union(tuple(kv.parts[1] for kv in base.parts) + more)
            return values.present(found) if found is not None else UNKNOWN
        if isinstance(base, Inst) and self.interp.class_attr(base.cls, "__getitem__", None, None) is None:
            items = dict(base.init).get(ITEMS)  # a dict subclass built from a known mapping
            if items is not None:
                return self.subscript(items, key, calls)
        if isinstance(base, (Inst, Cls)):
            return self.interp.calls.call_own_method(base, "__getitem__", Args((key,)), calls, default=UNKNOWN)
        return UNKNOWN

    def module_object(self, name: Expr) -> Expr:
        """The module of the project the value ``name`` names (``sys.modules[__name__]``,
        ``importlib.import_module("pkg.layers")``): a :class:`Module`, or unknown."""
        dotted = values.named_module(name)
        if dotted is None or self.project.module(dotted) is None:
            return UNKNOWN
        return Module(dotted)

    def protocol(self, base: Expr, name: str) -> Expr:
        """The method ``name`` Python calls on ``base`` for a statement or builtin (looked up on its
        type, never through ``__getattr__``): for ``__iter__``, ``__getitem__`` when the class
        defines no ``__iter__`` (the sequence protocol, ``collections.abc.Sequence.__iter__``)."""
        if base.op == Op.UNION:
            return union(self.protocol(p, name) for p in base.parts)
        if not isinstance(base, Inst):
            return UNKNOWN
        got = self.interp.class_attr(base.cls, name, base, None)
        if got is None and name == "__iter__":
            got = self.interp.class_attr(base.cls, "__getitem__", base, None)
            return UNKNOWN if got is None else Partial(got, (values.INDEX,), ())
        return UNKNOWN if got is None else got

    def iterate(self, base: Expr) -> Expr:
        """An element of iterating ``base`` (of an instance without ``__iter__``: what its
        ``__getitem__`` returns)."""
        if base.op == Op.UNION:
            return union(self.iterate(p) for p in base.parts)
        if isinstance(base, Inst) and self.interp.class_attr(base.cls, "__iter__", base, None) is None:
            return self.interp.calls.call_own_method(base, "__getitem__", Args((values.INDEX,)), None, default=UNKNOWN)
        if base.op == Op.SEQ:  # a BOUNDED sequence holds some of its items, no other
            parts = base.parts + ((UNKNOWN,) if base.value in values.OPEN and base.value != values.BOUNDED else ())
            return union(parts) if parts else BOTTOM
        if base.op == Op.FILTERED:
            return base.parts[1] if len(base.parts) > 1 else UNKNOWN
        if base.op == Op.DICT:  # its keys, and maybe others where it may hold more (values.more_keys)
            keys = tuple(kv.parts[0] for kv in base.parts) + ((UNKNOWN,) if values.more_keys(base) else ())
            return union(keys) if keys else BOTTOM
        return UNKNOWN

    def unpack(self, base: Expr, index: int) -> Expr:
        """Item ``index`` of unpacking ``base`` (``a, b = base``)."""
        if base.op == Op.UNION:
            return union(self.unpack(p, index) for p in base.parts)
        if base.op == Op.SEQ and 0 <= index < len(base.parts):
            return base.parts[index]
        return UNKNOWN


def _bind_target(env: values.Env, target: Expr, item: Expr) -> bool:
    """Bind the comprehension target ``target`` to ``item`` in ``env``; False when a tuple
    target cannot be matched with ``item``."""
    if target.op == Op.LOCAL:
        env.locals[target.value] = item
        return True
    if item.op != Op.SEQ or item.value in values.OPEN or len(item.parts) != len(target.parts):
        return False
    return all(_bind_target(env, t, i) for t, i in zip(target.parts, item.parts))
