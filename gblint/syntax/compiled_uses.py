"""Whether a compiled object a function binds to a local name is ever run compiled (:func:`runs_compiled`), and which
compiled objects only a container or an attribute nobody reads keeps (:func:`stored_away`).

``cf = torch.compile(f)`` in a driver's ``main()`` compiles nothing until ``cf`` is called: where the function never
reads ``cf`` again (the original ``f`` is called instead), or calls it only inside ``with
torch.compiler.set_stance("force_eager"):`` (every compiled object then runs its code as it is,
torch/compiler/__init__.py ``set_stance``), Dynamo traces none of it (measured: tests/cases/kinds kd7). Any other read
of the name (returned, stored, handed to a call, read in a nested function, declared ``global``) may run it anywhere:
then it counts as run.
"""
from __future__ import annotations

from typing import Callable, Dict, Optional, Set

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


#: methods that store their argument in the container they are called on
_STORING_METHODS = frozenset({"append", "appendleft", "extend", "insert", "add", "setdefault", "update"})
#: attributes that calling their object runs (``nn.Module.__call__`` runs ``forward``)
_RUN_BY_CALL = frozenset({"forward", "__call__"})
#: builtins that wrap what they are given for a class body
_WRAPPERS = frozenset({"staticmethod", "classmethod"})


class _Stores(cst.CSTVisitor):
    """Where each compile call of ``pending`` (ids of nodes) puts the compiled object, and the attribute names the
    module reads."""

    def __init__(self, pending: Set[int]) -> None:
        super().__init__()
        self.pending = pending
        self.stack: list = []
        self.where: dict = {}  # id of a pending call -> ("container",) or ("attribute", name) when stored away
        self.read_attrs: Set[str] = set()
        self._stored: Set[int] = set()  # ids of the Attribute nodes that are assignment targets

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self.pending:
            self.where[id(node)] = (node, _store_of(node, self.stack))
        if isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Attribute):
            self._stored.add(id(node.target))
        if isinstance(node, cst.Attribute) and id(node) not in self._stored:
            self.read_attrs.add(node.attr.value)
        self.stack.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()
        super().on_leave(original_node)


def _store_of(node: cst.CSTNode, stack: list) -> Optional[tuple]:
    """Where the value of ``node`` (its parents in ``stack``) goes when only a container, an attribute (a class
    attribute too) or a parameter's default keeps it."""
    parent = stack[-1] if stack else None
    if isinstance(parent, (cst.Element, cst.StarredElement)) or isinstance(parent, cst.DictElement) \
            and parent.value is node or isinstance(parent, (cst.ListComp, cst.SetComp, cst.GeneratorExp)) \
            and parent.elt is node or isinstance(parent, cst.DictComp) and parent.value is node:
        return ("container",)
    if isinstance(parent, cst.Param) and parent.default is node:
        return ("default",)
    if isinstance(parent, cst.Arg) and len(stack) > 1:
        call = stack[-2]
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) \
                and call.func.attr.value in _STORING_METHODS:
            return ("container",)
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in _WRAPPERS:
            return _store_of(call, stack[:-2])  # `staticmethod(torch.compile(f))`: where the wrapper goes
        return None
    if isinstance(parent, (cst.Assign, cst.AnnAssign)) and parent.value is node:
        targets = [t.target for t in parent.targets] if isinstance(parent, cst.Assign) else [parent.target]
        if targets and all(isinstance(t, cst.Subscript) for t in targets):
            return ("container",)
        if targets and all(isinstance(t, cst.Attribute) for t in targets):
            return ("attribute",) + tuple(t.attr.value for t in targets)
        if targets and all(isinstance(t, cst.Name) for t in targets) and len(stack) > 3 \
                and isinstance(stack[-4], cst.ClassDef):  # a class attribute: read as `.name`
            return ("attribute",) + tuple(t.value for t in targets)
    return None


def stored_away(module: cst.Module, pending: Set[int]) -> Dict[int, str]:
    """The compile calls of ``pending`` (ids of their nodes in ``module``) whose compiled object only a container
    keeps (an element of a list, tuple, set or dict, or of a comprehension, ``fns.append(...)``, ``table[k] = ...``), a
    parameter's default, or an attribute the module never reads (``h.fn = torch.compile(f)``, a class attribute
    ``spare = torch.compile(f)``, and no ``.fn`` anywhere; ``forward`` is read by calling the module): nothing the
    file shows runs it, so what it compiles is traced only when some code calls it (measured: tests/cases/kinds kd14;
    comprehensions, defaults and class attributes: a helper's programs). Maps each to the words of that condition."""
    if not pending:
        return {}  # most files compile nothing: no second walk of them
    stores = _Stores(pending)
    module.visit(stores)
    out: Dict[int, str] = {}
    for key, (node, where) in stores.where.items():
        if where is None:
            continue
        args = getattr(node, "args", ())
        what = module.code_for_node(args[0].value) if args else "object"
        what = f"`{what}`" if len(what) <= 40 and "\n" not in what else "object"
        if where[0] == "container":
            out[key] = f"the compiled {what} in a container is called"
        elif where[0] == "default":
            out[key] = f"the compiled {what} a parameter defaults to is called"
        elif not any(a in stores.read_attrs or a in _RUN_BY_CALL for a in where[1:]):
            out[key] = f"the compiled {what} stored as `.{where[1]}` is called"
    return out
