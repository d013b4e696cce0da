"""Other names for a function's parameters, for :attr:`gblint.core.model.FunctionInfo.mutated`.

Python passes objects, not copies: ``kw = kwargs; kw.update(extra=1)`` changes ``kwargs``, and so
do ``held = [opts]; held[0]["k"] = v``, a nested function doing ``flags["k"] = v``, and
``self.kw = kwargs`` when some method of the class changes ``self.kw``. A parameter is changed
where any name that may hold it (a local bound to it or to a container holding it, an attribute
of ``self``, a closure's free name) is changed; names that only read it leave it as it was, so
``len(kwargs) > 0`` stays decided.
"""
from __future__ import annotations

from typing import Dict, Set, Tuple

import libcst as cst

from ..abstract import values
from ..core.model import ClassInfo, Expr, FunctionInfo
from ..core.ops import Op

# values that may be (or hold) what their parts are; an item unpacked from a display may be any of its items
_CARRIERS = frozenset({Op.UNION, Op.OR, Op.AND, Op.SEQ, Op.SET, Op.DICT, Op.KV, Op.UNPACK})

Root = Tuple[str, str]  # ("param", name), ("free", name), ("attr", name of a `self` attribute) or ("local", name)


def roots(e: Expr, local_values: Dict[str, Tuple[Expr, ...]], self_name, seen: Set[str] = frozenset()) -> Set[Root]:
    """The parameters, free names and ``self`` attributes whose objects the value ``e`` may be or hold
    (``p``, ``(p, 1)``, ``[d]`` of a local ``d = p``, ``p or {}``), given the values each local of the
    function was bound to (``local_values``: :attr:`gblint.core.model.FunctionInfo.locals`)."""
    if e.op == Op.PARAM:
        return {("param", e.value)} if e.value != self_name else set()
    if e.op == Op.FREE and isinstance(e.value, str):
        return {("free", e.value)}
    if e.op == Op.ATTR and e.parts and e.parts[0].op == Op.PARAM and e.parts[0].value == self_name and self_name:
        return {("attr", e.value)}
    if e.op == Op.LOCAL and isinstance(e.value, str):
        if e.value in seen:
            return set()
        own = {("local", e.value)} if seen else set()  # another local bound to the same object
        seen = seen | {e.value}
        return own.union(*(roots(v, local_values, self_name, seen) for v in local_values.get(e.value, ())))
    parts = e.parts[1:] if e.op == Op.IFELSE else e.parts if e.op in _CARRIERS else ()
    return set().union(*(roots(p, local_values, self_name, seen) for p in parts))


def changed_through_aliases(scope) -> None:
    """Add to ``scope`` (a :class:`gblint.syntax.scope.FunctionScope` being left) the places where a name other
    than a parameter's own changes the parameter's object: each change of a local that may hold it (with
    that place's tests), or of a free name an enclosed function changes. A change of a local holding one of
    ``self``'s attributes changes that attribute (:attr:`ClassInfo.mutated`); one of a free name is a change
    of the enclosing function's name, at no particular time (no test)."""
    info = scope.info
    found = []
    for name, tests in scope.mutated_at:
        if name in scope.params:
            continue
        if name in scope.bound_names or name in info.locals:
            for root in roots(Expr(Op.LOCAL, name), info.locals, scope.self_name):
                found.append((root, tests))
        elif name not in scope.declared_global:  # a name of an enclosing function
            found.append((("free", name), ()))
    for (kind, name), tests in found:
        if kind == "param" and name in scope.params:
            scope.mutated.add(name)
            scope.mutated_keys[name] = None  # changed through another name: by any key
            scope.mutated_at.append((name, tests))
        elif kind == "attr" and scope.class_info is not None and name not in scope.class_info.mutated:
            scope.class_info.mutated.append(name)
        elif kind == "local" and name in info.locals:  # `other = cache; other[k] = v` changes `cache`
            scope.mutated.add(name)
            scope.mutated_keys[name] = None
            if values.INPLACE not in info.locals[name]:
                info.locals[name] += (values.INPLACE,)
        elif kind == "free" and scope.parent is not None and scope.parent.info is not None:
            scope.parent.mutated.add(name)
            scope.parent.mutated_keys[name] = None
            scope.parent.mutated_at.append((name, ()))


def kept_on_self(cls: ClassInfo, functions: Dict[str, FunctionInfo]) -> None:
    """For the class ``cls`` just read: a parameter a method stores on ``self`` (``self.kw = kwargs``,
    or a container holding it) is changed, at no particular time, when a method of the class changes that
    attribute (``self.kw["a"] = 1``, handing ``self.kw`` on): its ``mutated`` gains it."""
    for attr in cls.mutated:
        for qual, value in cls.assigned.get(attr, ()):
            info = functions.get(qual)
            if info is None or not info.params:
                continue
            own = info.params[0].name
            params = {p.name for p in info.params}
            added = sorted(n for kind, n in roots(value, info.locals, own) if kind == "param" and n in params)
            if added:
                info.mutated = tuple(sorted(set(info.mutated) | set(added)))
                info.mutated_when = info.mutated_when + tuple((n, values.const(True)) for n in added)


def held_names(node: cst.BaseExpression) -> list:
    """The names whose objects the value of ``node`` is or holds (``d``, ``[d]``, ``{"k": d}``, ``d or {}``), not
    those it only reads (``d["k"]``, ``f(d)``, ``d.copy()``)."""
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return [n for e in node.elements for n in held_names(e.value)]
    if isinstance(node, cst.Dict):
        return [n for e in node.elements for n in held_names(e.value)]
    if isinstance(node, cst.IfExp):
        return held_names(node.body) + held_names(node.orelse)
    if isinstance(node, cst.BooleanOperation):
        return held_names(node.left) + held_names(node.right)
    if isinstance(node, cst.NamedExpr):
        return held_names(node.value)
    return []
