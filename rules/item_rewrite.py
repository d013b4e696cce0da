"""Move ``.item()`` out of a ``try`` whose handlers cannot catch what it raises.

``try: s = t.item() / except KeyError: s = 0.0`` in a compiled function: ``.item()`` breaks the
graph (without ``capture_scalar_outputs``), and a break in a ``try`` block skips the whole frame
(Python 3.11+). ``.item()`` on a tensor raises ``RuntimeError`` (not one element), on a NumPy
value ``ValueError``, and ``AttributeError`` on anything without it: never the handful of
exceptions below, so a handler that catches only those never runs for this ``try`` and the
statement can stand alone, with the same behaviour. The rewrite is conservative: the ``try``
body is exactly one assignment ``NAME = NAME.item()`` (evaluating a name raises only
``NameError``/``UnboundLocalError``, which propagate either way), no ``else``/``finally``, every
handler names only exceptions of :data:`NOT_RAISED` (no bare ``except``, no ``as``), and the
module never binds those names itself.
"""
from __future__ import annotations

from typing import Optional, Set

import libcst as cst

from gblint.syntax.traversal import caught_types, replace_node

#: exceptions that ``NAME.item()`` (no arguments) cannot raise, whatever ``NAME`` holds among
#: tensors, NumPy values and Python objects without ``item``
NOT_RAISED = frozenset({"KeyError", "IndexError", "ZeroDivisionError", "StopIteration"})


def item_call(stmt: cst.BaseStatement, any_receiver: bool = False) -> Optional[str]:
    """The receiver's name when ``stmt`` is exactly ``NAME = NAME.item()``, else None; with
    ``any_receiver``, ``NAME = EXPR.item()`` too, EXPR tensor methods and operators on names (``""`` then)."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    assign = stmt.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 \
            or not isinstance(assign.targets[0].target, cst.Name):
        return None
    call = assign.value
    if not isinstance(call, cst.Call) or call.args or not isinstance(call.func, cst.Attribute) \
            or call.func.attr.value != "item":
        return None
    if not isinstance(call.func.value, cst.Name):
        return "" if any_receiver and _method_chain(call.func.value) else None
    return call.func.value.value


def _method_chain(expr: cst.BaseExpression) -> bool:
    """Whether ``expr`` is tensor methods and operators on names and numbers (``h.mean()``, ``(a - b).abs()``):
    no subscript (``stats["sum"]`` raises KeyError, which a handler may be there for) and no call of a
    function by name (it may raise anything)."""
    if isinstance(expr, (cst.Name, cst.Integer, cst.Float)):
        return True
    if isinstance(expr, cst.Attribute):
        return _method_chain(expr.value)
    if isinstance(expr, cst.Call):
        return isinstance(expr.func, cst.Attribute) and _method_chain(expr.func) \
            and all(_method_chain(a.value) for a in expr.args)
    if isinstance(expr, cst.BinaryOperation):
        return _method_chain(expr.left) and _method_chain(expr.right)
    if isinstance(expr, cst.UnaryOperation):
        return _method_chain(expr.expression)
    return False


def _caught(handler: cst.ExceptHandler) -> Optional[Set[str]]:
    """The exception names ``handler`` catches, or None when it is bare, binds ``as``, or names
    something other than plain names."""
    types = caught_types(handler)
    if types is None or handler.name is not None:
        return None
    names = set()
    for value in types:
        if not isinstance(value, cst.Name):
            return None
        names.add(value.value)
    return names


class _Binds(cst.CSTVisitor):
    """The names a module binds anywhere (assignments, definitions, imports, loop and ``with``
    targets, ``except ... as``, walrus, ``global``)."""

    def __init__(self):
        self.names: Set[str] = set()

    def _target(self, node) -> None:
        if isinstance(node, cst.Name):
            self.names.add(node.value)
        elif isinstance(node, (cst.Tuple, cst.List)):
            for el in node.elements:
                self._target(el.value)
        elif isinstance(node, cst.StarredElement):
            self._target(node.value)

    def visit_AssignTarget(self, node) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node) -> None:
        self._target(node.target)

    def visit_AugAssign(self, node) -> None:
        self._target(node.target)

    def visit_NamedExpr(self, node) -> None:
        self._target(node.target)

    def visit_For(self, node) -> None:
        self._target(node.target)

    def visit_CompFor(self, node) -> None:
        self._target(node.target)

    def visit_AsName(self, node) -> None:
        self._target(node.name)

    def visit_FunctionDef(self, node) -> None:
        self.names.add(node.name.value)

    def visit_ClassDef(self, node) -> None:
        self.names.add(node.name.value)

    def visit_ImportAlias(self, node) -> None:
        if node.asname is None:
            name = node.name
            while isinstance(name, cst.Attribute):
                name = name.value
            if isinstance(name, cst.Name):
                self.names.add(name.value)

    def visit_ImportStar(self, node) -> None:
        self.names.add("*")

    def visit_Global(self, node) -> None:
        for item in node.names:
            self.names.add(item.name.value)


def _lone_item(block: cst.Try, any_receiver: bool = False) -> Optional[cst.SimpleStatementLine]:
    """The statement ``NAME = NAME.item()`` (``NAME = EXPR.item()`` with ``any_receiver``) when it is all
    ``block``'s body holds and the ``try`` has handlers and no ``else``/``finally``; None otherwise."""
    if block.finalbody is not None or block.orelse is not None or not block.handlers \
            or not isinstance(block.body, cst.IndentedBlock) or len(block.body.body) != 1:
        return None
    stmt = block.body.body[0]
    return stmt if item_call(stmt, any_receiver) is not None else None


def hoist_item(module: cst.Module, whole: cst.Module, block: cst.Try) -> Optional[cst.Module]:
    """``try: s = t.item() / except KeyError: ...`` -> ``s = t.item()``, in ``module``; ``whole``
    is the file's module (which names it binds). None when the rewrite does not provably keep
    behaviour (see the module's docstring)."""
    stmt = _lone_item(block)
    if stmt is None:
        return None
    caught: Set[str] = set()
    for handler in block.handlers:
        names = _caught(handler)
        if names is None or not names <= NOT_RAISED:
            return None
        caught |= names
    binds = _Binds()
    whole.visit(binds)
    if caught & binds.names or "*" in binds.names:
        return None
    return replace_node(module, block, stmt.with_changes(leading_lines=list(block.leading_lines)))


def drop_handlers(module: cst.Module, block: cst.Try) -> Optional[cst.Module]:
    """``try: s = t.item() / except RuntimeError: s = 0.0`` -> ``s = t.item()`` in ``module``,
    whatever the handlers catch: they no longer run, so an error ``.item()`` raises (``RuntimeError``
    for a tensor that has not one element, or what computing the receiver raises) propagates instead of
    being handled. Unsafe; the shape is :func:`hoist_item`'s with any receiver (one ``NAME = EXPR.item()``,
    no ``else``/``finally``). None otherwise."""
    stmt = _lone_item(block, any_receiver=True)
    if stmt is None:
        return None
    return replace_node(module, block, stmt.with_changes(leading_lines=list(block.leading_lines)))
