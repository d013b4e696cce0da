"""Which names of a function a nested function reads from more than one binding.

A nested function reads a free name from its cell when it runs (PEP 227), after whichever of the
enclosing function's bindings ran last, or after a ``nonlocal`` assignment in another nested function.
A kind the enclosing function gave such a name at one binding is then no fact inside the nested function.
"""
from __future__ import annotations

from typing import Dict

import libcst as cst

from .traversal import read_walk


class _CellBindings(cst.CSTVisitor):
    """Counts the places a function's own body binds each name (nested functions, lambdas, classes
    and comprehensions are their own scopes) and the names a nested function declares ``nonlocal``."""

    def __init__(self) -> None:
        self.count: Dict[str, int] = {}
        self.nonlocal_names: set = set()
        self.depth = 0

    def _bind(self, target) -> None:
        if self.depth:
            return
        if isinstance(target, cst.Name):
            self.count[target.value] = self.count.get(target.value, 0) + 1
        elif isinstance(target, (cst.Tuple, cst.List)):
            for e in target.elements:
                self._bind(e.value)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value)

    def _enter(self, node) -> bool:
        self.depth += 1
        return True

    def _leave(self, node) -> None:
        self.depth -= 1

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._bind(node.name)
        return self._enter(node)

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._bind(node.name)
        return self._enter(node)

    visit_Lambda = _enter
    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _enter
    leave_FunctionDef = leave_ClassDef = leave_Lambda = _leave
    leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = _leave

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        if self.depth:
            self.nonlocal_names.update(n.name.value for n in node.names)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._bind(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._bind(node.name)

    def visit_Del(self, node: cst.Del) -> None:
        self._bind(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        if self.depth == 0 or not isinstance(node.target, cst.Name):
            self._bind(node.target)
        else:  # an assignment expression in a comprehension binds in the function around it
            self.count[node.target.value] = self.count.get(node.target.value, 0) + 1


def unstable_cells(node: cst.FunctionDef, params) -> set:
    """The names of the function ``node`` (a libcst ``FunctionDef``; ``params``: its parameter names)
    whose value a nested function cannot take from one binding: bound in more than one place (a
    parameter counts as one), or declared ``nonlocal`` by a nested function. A nested function reads
    such a name's cell when it runs, after whichever binding ran last (Python's closures: PEP 227)."""
    found = _CellBindings()
    read_walk(node.body, found)
    out = set(found.nonlocal_names)
    for name, n in found.count.items():
        if n + (1 if name in params else 0) > 1:
            out.add(name)
    return out
