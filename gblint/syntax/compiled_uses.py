"""Whether a compiled object a function binds to a local name is ever run compiled.

``cf = torch.compile(f)`` in a driver's ``main()`` compiles nothing until ``cf`` is called: where the function never
reads ``cf`` again (the original ``f`` is called instead), or calls it only inside ``with
torch.compiler.set_stance("force_eager"):`` (every compiled object then runs its code as it is,
torch/compiler/__init__.py ``set_stance``), Dynamo traces none of it (measured: tests/cases/kinds kd7). Any other read
of the name (returned, stored, handed to a call, read in a nested function, declared ``global``) may run it anywhere:
then it counts as run.
"""
from __future__ import annotations

from typing import Callable, Optional, Set

import libcst as cst

from ..core.semantics import EAGER_STANCES, STANCE_SETTERS
from .traversal import literal


class _Uses(cst.CSTVisitor):
    """Reads of ``name`` in a function's body: ``runs`` once one may run the compiled object it holds."""

    def __init__(self, name: str, resolve: Callable[[cst.BaseExpression], Optional[str]]) -> None:
        super().__init__()
        self.name, self.resolve = name, resolve
        self.runs = False
        self._eager = 0  # `with set_stance("force_eager")` blocks around the statement being read
        self._eager_withs: Set[int] = set()
        self._nested = 0  # nested functions, lambdas and classes around it: they may run it anywhere
        self._handled: Set[int] = set()  # ids of the Name nodes already counted (a call's function, a store)

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            call = item.item
            if isinstance(call, cst.Call) and self.resolve(call.func) in STANCE_SETTERS and call.args \
                    and literal(call.args[0].value) in EAGER_STANCES:
                self._eager_withs.add(id(node))
                self._eager += 1
                return

    def leave_With(self, original_node: cst.With) -> None:
        if id(original_node) in self._eager_withs:
            self._eager -= 1

    def _enter_nested(self, node: cst.CSTNode) -> None:
        self._nested += 1

    def _leave_nested(self, original_node: cst.CSTNode) -> None:
        self._nested -= 1

    visit_FunctionDef = visit_Lambda = visit_ClassDef = _enter_nested
    leave_FunctionDef = leave_Lambda = leave_ClassDef = _leave_nested

    def visit_Global(self, node: cst.Global) -> None:
        self.runs = self.runs or any(n.name.value == self.name for n in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.visit_Global(node)  # type: ignore[arg-type]

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, cst.Name) and not self._nested:
            self._handled.add(id(node.target))  # a new binding is no read

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == self.name:
            self._handled.add(id(node.func))
            if self._nested or not self._eager:
                self.runs = True

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name and id(node) not in self._handled:
            self.runs = True


def runs_compiled(body: cst.CSTNode, name: str, resolve: Callable[[cst.BaseExpression], Optional[str]]) -> bool:
    """Whether the function ``body`` may run the compiled object it binds to the local ``name``: it calls it outside
    any ``with torch.compiler.set_stance("force_eager")``, or reads the name any other way. ``resolve`` gives the
    dotted name an expression refers to (None when not known)."""
    uses = _Uses(name, resolve)
    body.visit(uses)
    return uses.runs
