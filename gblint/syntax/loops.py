"""Loop shapes the summary reads without values: the names a piece of code binds, whether a ``for`` loop takes
every index of a sequence in turn (``for i in range(len(L))``), and whether ``L[i]`` lies in such a loop."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from ..core.model import BlockKind
from ..core.names import dotted
from .traversal import code_of, names_in, read_walk


class _Binder(cst.CSTVisitor):
    """Every name a piece of code may bind (over-approximated: nested scopes count too)."""

    def __init__(self) -> None:
        self.names: set = set()

    def _add(self, node) -> None:
        if isinstance(node, cst.Name):
            self.names.add(node.value)
        elif isinstance(node, (cst.Tuple, cst.List)):
            for e in node.elements:
                self._add(e.value)
        elif isinstance(node, cst.StarredElement):
            self._add(node.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._add(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._add(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._add(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._add(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._add(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._add(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._add(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._add(node.target)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is None:
            self.names.add(dotted(node.name).split(".")[0] if dotted(node.name) else "")

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.names.add(node.name.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.names.add(node.name.value)

    def visit_Global(self, node: cst.Global) -> None:
        self.names.update(n.name.value for n in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.names.update(n.name.value for n in node.names)

    def visit_MatchAs(self, node) -> None:
        if node.name is not None:
            self._add(node.name)

    def visit_MatchStar(self, node) -> None:
        if node.name is not None:
            self._add(node.name)

    def visit_MatchMapping(self, node) -> None:
        if node.rest is not None:
            self._add(node.rest)


def _names_bound(node: cst.CSTNode) -> frozenset:
    """Every name ``node`` may bind (:class:`_Binder`), read once per node: the summary asks it of each loop's body
    several times (its values, its shape, what a later step may change)."""
    return _once(node, "names", lambda: frozenset(read_walk(node, _Binder()).names))


_MEMO: dict = {}  # (id of a node, what) -> (the node, the answer): a node's identity, not its (deep) hash


def _once(node, what: str, compute):
    key = (id(node), what)
    found = _MEMO.get(key)
    if found is not None and found[0] is node:
        return found[1]
    if len(_MEMO) > 4096:
        _MEMO.clear()
    value = compute()
    _MEMO[key] = (node, value)
    return value


def covers(node: cst.For, names) -> Optional[tuple]:
    """``(index, code of L)`` when the ``for`` statement ``node`` takes every index of a sequence ``L`` in turn
    (``for i in range(len(L))``, ``range(len(L) - 1, -1, -1)``, ``reversed(range(len(L)))``) and its body runs
    to its end at every step (no ``break``, ``continue`` or ``return``) without rebinding ``i``: ``L[i]`` in the body
    is then each item of ``L``, one per step. None otherwise."""
    if not isinstance(node.target, cst.Name) or node.target.value in _names_bound(node.body) or _jumps(node.body):
        return None
    it = node.iter
    if isinstance(it, cst.Call) and dotted(it.func) == "reversed" and len(it.args) == 1:
        it = it.args[0].value
    if not (isinstance(it, cst.Call) and dotted(it.func) == "range" and it.args
            and not any(a.star or a.keyword for a in it.args)):
        return None
    args = [a.value for a in it.args]
    texts = [code_of(a).replace(" ", "") for a in args]
    size = next((t[4:t.rindex(")")] for t in texts[:2] if t.startswith("len(") and t.endswith((")", ")-1"))), None)
    if size is None:
        return None
    whole = (texts == [f"len({size})"] or texts == ["0", f"len({size})"]
             or texts == [f"len({size})-1", "-1", "-1"])
    if not whole or _rebinds(node.body, size, names):
        return None  # the list itself may be another in a later step
    return node.target.value, size


def _rebinds(body, size: str, names) -> bool:
    """Whether ``body`` may make ``size`` (the code of ``L``) another list: it binds a name ``L`` reads, or assigns
    to ``L`` itself (``self.layers = ...``)."""
    try:
        read = set(names_in(cst.parse_expression(size)))
    except Exception:  # not an expression on its own: take it as changed
        return True
    if read & set(names):
        return True
    found = _Targets()
    read_walk(body, found)
    return size in found.codes


class _Targets(cst.CSTVisitor):
    """The code of every assignment target of a body (attributes and subscripts included)."""

    def __init__(self) -> None:
        self.codes: set = set()

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.codes.add(code_of(node.target).replace(" ", ""))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.codes.add(code_of(node.target).replace(" ", ""))


def _each_index(node: cst.Subscript, scope) -> bool:
    """Whether ``L[i]`` (``node``) lies in a ``for`` loop that takes every index ``i`` of ``L`` in turn
    (:func:`_covers`; the loop's code the same as the subscript's)."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index) \
            or not isinstance(node.slice[0].slice.value, cst.Name) or scope.info is None:
        return False
    index = node.slice[0].slice.value.value
    runs = getattr(scope, "loop_runs", {})
    for b in scope.blocks:
        covers = runs.get(id(b), (None, None, None))[2] if b.kind == BlockKind.LOOP else None
        if covers is not None and covers[0] == index:
            return covers[1] == code_of(node.value).replace(" ", "")
    return False


def sure_calls(module: cst.Module) -> frozenset:
    """id() of the calls in the module's expression statements that run whenever it is imported: at its top level,
    or in the body of a top-level ``for`` over ``range(N)`` (N a literal above 0) or a non-empty display whose body
    runs to its end (no ``break``, ``continue``), nested the same way. A statement under ``if``, ``while``, ``try``
    or ``with`` is not sure."""
    out = set()

    def body(statements) -> None:
        for st in statements:
            if isinstance(st, cst.SimpleStatementLine):
                out.update(id(s.value) for s in st.body if isinstance(s, cst.Expr) and isinstance(s.value, cst.Call))
            elif isinstance(st, cst.For) and st.orelse is None and st.asynchronous is None and _steps(st.iter) \
                    and not _jumps(st.body) and isinstance(st.body, cst.IndentedBlock):
                body(st.body.body)

    body(module.body)
    return frozenset(out)


def _steps(it) -> bool:
    """Whether iterating ``it`` takes at least one step: ``range(N)`` with N an integer literal above 0, or a list
    or tuple display with an element."""
    if isinstance(it, cst.Call) and dotted(it.func) == "range" and len(it.args) == 1 and not it.args[0].star \
            and it.args[0].keyword is None and isinstance(it.args[0].value, cst.Integer):
        return int(it.args[0].value.evaluated_value) > 0
    return isinstance(it, (cst.List, cst.Tuple)) and bool(it.elements)



class OwnScopeVisitor(cst.CSTVisitor):
    """A visitor of one scope's statements: it does not enter nested functions, lambdas or classes (their bodies do
    not run where they are written)."""

    def visit_FunctionDef(self, node) -> bool:
        return False

    def visit_ClassDef(self, node) -> bool:
        return False

    def visit_Lambda(self, node) -> bool:
        return False


class _Exits(OwnScopeVisitor):
    """The jumps of a loop's body: a ``break`` of the loop itself (not of a loop nested in it), any ``break`` or
    ``continue``, a ``return``."""

    def __init__(self) -> None:
        self.breaks = self.jumps = self.returns = False
        self.loops = 0

    def visit_For(self, node) -> None:
        self.loops += 1

    def leave_For(self, node) -> None:
        self.loops -= 1

    def visit_While(self, node) -> None:
        self.loops += 1

    def leave_While(self, node) -> None:
        self.loops -= 1

    def visit_Break(self, node) -> None:
        self.breaks = self.breaks or not self.loops
        self.jumps = True

    def visit_Continue(self, node) -> None:
        self.jumps = True

    def visit_Return(self, node) -> None:
        self.returns = self.jumps = True


def _jumps(body) -> bool:
    """Whether a loop's ``body`` may leave a step before its end (``break``, ``continue``, ``return``)."""
    return _once(body, "exits", lambda: read_walk(body, _Exits())).jumps


def loop_exits(body) -> tuple:
    """``(breaks, returns)`` of a loop's ``body``: whether it may ``break`` out of this loop (its ``else`` then
    may not run), and whether it may ``return`` (what follows the loop then may not run)."""
    found = _once(body, "exits", lambda: read_walk(body, _Exits()))
    return found.breaks, found.returns
