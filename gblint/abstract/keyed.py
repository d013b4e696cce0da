"""Dicts a function changes only by keys it names: ``kwargs[name] = v`` for each name of a list,
``kwargs["k"] = v``, ``kwargs.pop("k")``, ``del kwargs["k"]``, ``kwargs.setdefault("k", v)``.

A collection a function changes in place may hold anything while it runs
(:func:`gblint.abstract.values.changed_in_place`), unless every change it makes to it stores or removes a key
whose value is known where it is called. Then the dict holds at most its own keys and those stored
(:data:`gblint.abstract.values.BOUNDED`): a key it did not have and no change stores is surely absent. transformers'
``merge_with_config_defaults`` stores ``use_cache`` and ``is_causal`` in the ``**kwargs`` it passes on
and then tests ``kwargs.get("debug_io", False)``: False for a caller that passed no ``debug_io``
(Python's own dict semantics; Dynamo traces a dict's ``get`` as Python runs it, ``ConstDictVariable``
in torch/_dynamo/variables/dicts.py).

The summary records each change's key (:func:`note`, kept in :attr:`gblint.core.model.FunctionInfo.mutated_keys`);
the walk evaluates them where the function is called (:func:`changed`).
"""
from __future__ import annotations

from typing import Callable, Optional, Tuple

import libcst as cst

from . import values
from ..core.model import Expr
from ..core.ops import Op

#: a change of one key: (the key, whether it is removed, the value stored: None when not known or removed)
Key = Tuple[Expr, bool, Optional[Expr]]

#: dict methods that store the key of their first argument, and those that remove it
STORING = frozenset({"setdefault"})
REMOVING = frozenset({"pop"})


def subscript_key(target: cst.BaseExpression, value_of: Callable[[cst.BaseExpression], Expr]) -> Optional[Expr]:
    """The key of ``name[key]`` (``target``, one plain index on a name; ``value_of`` makes a value of
    syntax), or None for any other target."""
    if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and len(target.slice) == 1 \
            and isinstance(target.slice[0].slice, cst.Index):
        return value_of(target.slice[0].slice.value)
    return None


def method_key(call: cst.Call, value_of: Callable[[cst.BaseExpression], Expr]) -> Optional[Key]:
    """``(key, removed, value)`` of ``name.pop(key...)`` or ``name.setdefault(key, value)`` (``call``), or None
    for any other change."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)) or not call.args \
            or any(a.star or a.keyword is not None for a in call.args):
        return None
    name = func.attr.value
    if name not in STORING | REMOVING:
        return None
    value = None if name in REMOVING else value_of(call.args[1].value) if len(call.args) > 1 else values.const(None)
    return value_of(call.args[0].value), name in REMOVING, value


def note(scope, name: str, key: Optional[Key]) -> None:
    """Record in ``scope`` (a :class:`gblint.syntax.scope.FunctionScope`) a change of the collection ``name``
    holds: ``key`` is ``(key, removed, value)`` for a change that stores (or removes) that one key, None for
    any other (then no change of ``name`` is bounded by its keys)."""
    if key is None:
        scope.mutated_keys[name] = None
    elif scope.mutated_keys.get(name, ()) is not None:
        scope.mutated_keys[name] = scope.mutated_keys.get(name, ()) + (key,)


def note_escape(scope, value: Expr) -> None:
    """Record in ``scope`` the parameters whose dict ``value``, stored in another object, may hold, not a read of
    one (``kwargs.get(k)``, ``kwargs[k]``, ``**kwargs``): changed through that object (``holder.d = kwargs``, then
    ``holder.d["flag"] = True``), it may get any key."""
    scope.escaped |= _held(value)
    scope.escaped_locals |= _held(value, Op.LOCAL)


def note_escape_local(scope, value: Expr) -> None:
    """Record in ``scope`` the locals whose dict ``value``, stored on ``self``, may hold: changed through it."""
    scope.escaped_locals |= _held(value, Op.LOCAL)


def _held(e: Expr, op: Op = Op.PARAM) -> set:
    """The parameters (the locals, for ``op`` LOCAL) the value ``e`` may be or contain."""
    if e.op == op:
        return {e.value}
    parts = e.parts[1:] if e.op in _READS and e.parts and e.parts[0].op == op else e.parts
    out: set = set()
    for p in parts:
        out |= _held(p, op)
    return out


_READS = frozenset({Op.ATTR, Op.SUB, Op.ITEMS, Op.GET, Op.LEN, Op.STARSTAR, Op.ITER})


def recorded(scope, names, rebound) -> Tuple[Tuple[str, Tuple[Key, ...]], ...]:
    """The :attr:`gblint.core.model.FunctionInfo.mutated_keys` of ``scope``'s parameters among ``names``: each one
    every change of which names its key, never held by another name nor rebound (a key reading a parameter rebound
    in the body, ``rebound``, is not known)."""
    out = []
    for name in sorted(names):
        keys = None if name in scope.escaped or name in rebound else scope.mutated_keys.get(name)
        if keys:
            out.append((name, tuple((values.forget(k, rebound), removed, values.forget(v, rebound))
                                    for k, removed, v in keys)))
    return tuple(out)


def recorded_locals(scope, rebound) -> Tuple[Tuple[str, Tuple[Key, ...]], ...]:
    """:attr:`gblint.core.model.FunctionInfo.local_keys` of ``scope`` (a :class:`gblint.syntax.scope.FunctionScope` being
    left): its locals changed in place only by keys, never held by another local nor another object
    (``holder.d = d``), with the parameters ``rebound`` in the body not known in the keys."""
    info, out = scope.info, []
    bound_to = {n for local, vs in info.locals.items() for v in vs for n in _held(v, Op.LOCAL) if n != local}
    for name in sorted(set(scope.mutated) - set(scope.params)):
        keys = scope.mutated_keys.get(name)
        if keys and name not in bound_to and name not in scope.escaped_locals:
            out.append((name, tuple((values.forget(k, rebound), removed, values.forget(v, rebound))
                                    for k, removed, v in keys)))
    return tuple(out)


def changed(v: Expr, info, name: str, evaluate: Callable[[Expr], Expr]) -> Expr:
    """What the collection ``v`` that the parameter ``name`` of the function ``info`` (a
    :class:`gblint.core.model.FunctionInfo`) holds may be while the function runs, which changes it in place:
    a dict whose every change that stores names a key ``evaluate`` finds (one string, or one of a few) holds
    its entries (a stored or removed one maybe another value or gone: ``other``) and maybe the keys stored
    (:data:`gblint.abstract.values.BOUNDED`); anything else as :func:`gblint.abstract.values.changed_in_place` says."""
    keys = dict(info.mutated_keys).get(name)
    return changed_by(v, None if keys is None else [(key, gone, item, evaluate) for key, gone, item in keys])


def changed_by(v: Expr, keys: Optional[list]) -> Expr:
    """:func:`changed` for the changes ``keys``: ``(key, removed, value stored or None, evaluate)`` each, with the
    function that finds the values of its key and value where the change is made (None: a change by no known key)."""
    if keys is None or not _const_keyed(v):
        return values.changed_in_place(v)
    stored: dict = {}  # key -> the values stored under it (UNKNOWN where not known)
    removed, any_removed = set(), False
    for key, gone, item, evaluate in keys:
        found = _strings(evaluate(key))
        if found is None and not gone:
            return values.changed_in_place(v)
        if found is None:  # a key not known removed: any entry may be gone
            any_removed = True
        elif gone:
            removed.update(found)
        else:
            for k in found:
                stored.setdefault(k, []).append(values.UNKNOWN if item is None else evaluate(item))
    entries, have = [], set()
    for kv in v.parts:
        k = kv.parts[0].value
        have.add(k)
        if any_removed or k in removed:  # maybe gone (a parameter's default then) or another
            value = values.union((kv.parts[1], values.OTHER))
        else:  # the caller's, or one stored (a store may be under a branch not taken)
            value = values.union([kv.parts[1]] + stored.get(k, []))
        entries.append(Expr(Op.KV, parts=(kv.parts[0], value)))
    entries += [Expr(Op.KV, parts=(values.const(k), values.union(stored[k] + [values.MAYBE_ABSENT])))
                for k in sorted(set(stored) - have)]
    return Expr(Op.DICT, values.BOUNDED, tuple(entries))


_MAX_KEYS = 16  # a key that may be one of more strings than this is taken as not known


def _strings(v: Expr) -> Optional[frozenset]:
    """The strings the key value ``v`` may be, or None when not all known."""
    parts = v.parts if v.op == Op.UNION else (v,)
    if len(parts) > _MAX_KEYS or not all(p.op == Op.CONST and isinstance(p.value, str) for p in parts):
        return None
    return frozenset(p.value for p in parts)


def _const_keyed(v: Expr) -> bool:
    """Whether ``v`` is a dict value that lists every key it holds, each a constant (BOUNDED: some of them)."""
    return v.op == Op.DICT and v.value in (None, values.BOUNDED) and all(kv.parts[0].op == Op.CONST for kv in v.parts)


def local_changed(found: list, keys: Optional[Tuple[Key, ...]], evaluate: Callable[[Expr], Expr]) -> list:
    """The values a local may hold (``found``: what its bindings hold) once the function changed it in place: a
    dict every change of which names its key (``keys``, :attr:`gblint.core.model.FunctionInfo.local_keys`; ``evaluate``
    finds the values in the function) as :func:`changed_by` says; anything else may also be any other object."""
    if keys is not None and found and all(_const_keyed(f) for f in found):
        return [changed_by(f, [(k, gone, item, evaluate) for k, gone, item in keys]) for f in found]
    return found + [values.changed_object(values.union(found))]


def opened(value: Expr, name: str, mro, elsewhere: bool = False) -> Expr:
    """``value`` of the attribute ``name`` of an instance whose classes are ``mro`` ((summary, ClassInfo) pairs),
    open (its items, maybe more: a key it lacks may be there when the code runs) where a method of the class
    changes the collection in place, or code elsewhere changes an attribute of that name in place (``elsewhere``:
    ``model.cfg["debug"] = True``). Never bounded by the keys those methods name, as a local dict is
    (:func:`local_changed`): the attribute's dict may also be changed through what it was handed to, returned
    to or read by (``getattr(self, "d")``, ``vars(self)``, a property)."""
    if not elsewhere and not any(name in info.mutated for _summary, info in mro):
        return value
    parts = value.parts if value.op == Op.UNION else (value,)
    # a dict's entries may be stored over (`self.cfg["debug"] = True`); a list kept its items (a list of layers
    # grows by `append`)
    out = [values.changed_in_place(p) if p.op == Op.DICT else Expr(p.op, values.OPEN_SEQ, p.parts)
           if p.op == Op.SEQ else p for p in parts]
    return values.union(out) if value.op == Op.UNION else out[0]
