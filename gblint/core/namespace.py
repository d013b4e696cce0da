"""Which attributes a statement may store on an object through its namespace, for
:func:`gblint.abstract.changes.program_changes`.

Besides ``obj.name = value``, Python code changes an object's attributes through its instance
dictionary or by a name it computes: ``setattr(obj, name, value)``, ``object.__setattr__(obj, ...)``
(a frozen dataclass), ``delattr(obj, name)``, ``obj.__dict__[key] = value``, ``obj.__dict__.update(...)``,
``vars(obj).update(...)``, ``del obj.__dict__[key]``. A literal name or key stores only that
attribute; anything else (a name from a loop, a ``**mapping``, a dict built at run time) may store
any of them: :data:`ANY`.
"""
from __future__ import annotations

from typing import Callable, Optional, Tuple

import libcst as cst

ANY = "*"  # a stored attribute name: any attribute of the object may be stored (a name not known)
# a stored attribute entry IN_PLACE + name: the container attribute ``name`` of some object holds is changed in
# place through it (``model.cfg["debug"] = True``, ``getattr(m, "table").update(...)``), not rebound
IN_PLACE = "~"

_SETATTR = frozenset({"setattr", "builtins.setattr", "object.__setattr__", "delattr", "builtins.delattr",
                      "object.__delattr__"})
_VARS = frozenset({"vars", "builtins.vars"})
_CHANGERS = frozenset({"update", "setdefault", "pop", "popitem", "clear", "__setitem__", "__delitem__"})

Resolve = Callable[[cst.BaseExpression], Optional[str]]


def _literal_name(node: cst.BaseExpression) -> Optional[str]:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def owner_of_namespace(node: cst.BaseExpression, resolve: Resolve) -> Optional[cst.BaseExpression]:
    """The object whose instance dictionary ``node`` is (``obj.__dict__``, ``vars(obj)``), else None."""
    if isinstance(node, cst.Attribute) and node.attr.value == "__dict__":
        return node.value
    if isinstance(node, cst.Call) and len(node.args) == 1 and not node.args[0].star and node.args[0].keyword is None \
            and ((isinstance(node.func, cst.Name) and node.func.value == "vars") or resolve(node.func) in _VARS):
        return node.args[0].value
    return None


def call_stores(node: cst.Call, resolve: Resolve) -> Optional[Tuple[cst.BaseExpression, Tuple[str, ...]]]:
    """``(object, names)`` when the call ``node`` stores attributes on ``object`` by a name that is
    not written as ``object.name`` (a literal ``setattr`` included); ``names`` holds :data:`ANY` when
    the name is not a literal. None for any other call."""
    func, args = node.func, node.args
    q = resolve(func)
    if q in _SETATTR or (isinstance(func, cst.Name) and func.value in ("setattr", "delattr")):
        if len(args) < 2 or any(a.star for a in args[:2]):
            return None
        name = _literal_name(args[1].value)
        return args[0].value, (name if name is not None else ANY,)
    if not isinstance(func, cst.Attribute):
        return None
    if func.attr.value in ("__setattr__", "__delattr__") and not (isinstance(func.value, cst.Name) and func.value.value == "object"):
        if not args or args[0].star:
            return None
        name = _literal_name(args[0].value)
        return func.value, (name if name is not None else ANY,)
    if func.attr.value not in _CHANGERS:
        return None
    owner = owner_of_namespace(func.value, resolve)
    if owner is None:
        return None
    return owner, _changed_keys(func.attr.value, args)


def _changed_keys(method: str, args) -> Tuple[str, ...]:
    """The keys the dict method ``method`` called with ``args`` may store or remove."""
    if method in ("popitem", "clear"):
        return (ANY,)
    if method != "update":
        name = _literal_name(args[0].value) if args and not args[0].star and args[0].keyword is None else None
        return (name if name is not None else ANY,)
    names = []
    for a in args:
        if a.star:
            return (ANY,)
        if a.keyword is not None:
            names.append(a.keyword.value)
        elif isinstance(a.value, cst.Dict) and all(isinstance(e, cst.DictElement) for e in a.value.elements):
            keys = [_literal_name(e.key) for e in a.value.elements]
            if None in keys:
                return (ANY,)
            names.extend(keys)
        else:
            return (ANY,)
    return tuple(names)


def getattr_name(node: cst.BaseExpression, resolve: Resolve) -> Optional[str]:
    """``name`` of ``getattr(obj, "name")`` (``node``, a call with a literal name), else None."""
    if isinstance(node, cst.Call) and len(node.args) >= 2 and not any(a.star for a in node.args[:2]) \
            and ((isinstance(node.func, cst.Name) and node.func.value == "getattr") or resolve(node.func) == "builtins.getattr"):
        return _literal_name(node.args[1].value)
    return None


def item_stores(target: cst.BaseExpression, resolve: Resolve) -> Optional[Tuple[cst.BaseExpression, Tuple[str, ...]]]:
    """``(object, names)`` when the assignment or ``del`` target ``target`` is an item of an object's
    instance dictionary (``obj.__dict__[key]``, ``vars(obj)[key]``), else None."""
    if not isinstance(target, cst.Subscript):
        return None
    owner = owner_of_namespace(target.value, resolve)
    if owner is None:
        return None
    items = target.slice
    name = _literal_name(items[0].slice.value) if len(items) == 1 and isinstance(items[0].slice, cst.Index) else None
    return owner, (name if name is not None else ANY,)
