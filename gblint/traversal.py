"""The visitor machinery under the summary: fast hook dispatch, node positions, node helpers.

:class:`PositionedVisitor` is a libcst visitor that finds its ``visit_*``/``leave_*`` hooks
through a per-class cache (libcst formats and looks the names up for every node and attribute,
which on large files costs more than the rules), and gives each node a :class:`Span` either from
CPython's :mod:`ast` (:class:`gblint.positions.AstPositions`, matched node by node in visiting
order) or from libcst's ``PositionProvider``.
"""
from __future__ import annotations

from typing import Dict, List, Optional

import libcst as cst
from libcst.metadata import PositionProvider

from .model import Span
from .positions import INDEXED


class PositionedVisitor(cst.CSTVisitor):
    """A libcst visitor with cached hook dispatch and :meth:`span` for any visited node.

    Set ``ast_positions`` (an :class:`gblint.positions.AstPositions`) before visiting to take
    positions from :mod:`ast`; leave it None to visit through a ``MetadataWrapper`` and take them
    from ``PositionProvider``.
    """

    METADATA_DEPENDENCIES = (PositionProvider,)

    _dispatch: Dict[tuple, object] = {}

    def __init__(self):
        super().__init__()
        self.ast_positions = None
        self.positions_ok = True
        self._index: Dict[int, tuple] = {}  # id(node) -> (libcst type, k): the k-th node of its type
        self._counts: Dict[type, int] = {}
        self._open: List[tuple] = []  # keys of the indexed nodes being visited, innermost last
        self._open_ids: List[int] = []
        self._import_depth = 0

    def _hook(self, kind: str, node_type: type, attribute: str = ""):
        key = (type(self), kind, node_type, attribute)
        try:
            return self._dispatch[key]
        except KeyError:
            name = f"{kind}_{node_type.__name__}" + (f"_{attribute}" if attribute else "")
            fn = getattr(type(self), name, None)
            self._dispatch[key] = fn
            return fn

    def on_visit(self, node) -> bool:
        if self.ast_positions is not None:
            self._enter_index(node)
        fn = self._hook("visit", type(node))
        return True if fn is None else fn(self, node) is not False

    def on_leave(self, original_node) -> None:
        fn = self._hook("leave", type(original_node))
        if fn is not None:
            fn(self, original_node)
        if self.ast_positions is not None:
            self._leave_index(original_node)

    def on_visit_attribute(self, node, attribute: str) -> None:
        fn = self._hook("visit", type(node), attribute)
        if fn is not None:
            fn(self, node)

    def on_leave_attribute(self, original_node, attribute: str) -> None:
        fn = self._hook("leave", type(original_node), attribute)
        if fn is not None:
            fn(self, original_node)

    # -- positions
    def span(self, node) -> Span:
        """The node's position: from libcst metadata, or (``ast_positions`` set) from the ast
        node matched to it, or to the innermost matched node around it. A node with no match
        gets ``Span(1, 1, 1, 1)`` and makes :meth:`fill_positions` fail."""
        if self.ast_positions is None:
            r = self.get_metadata(PositionProvider, node)
            return Span(r.start.line, r.start.column + 1, r.end.line, r.end.column + 1)
        key = self._index.get(id(node))
        probe = node
        while key is None and isinstance(probe, cst.BooleanOperation):
            probe = probe.left  # `a and b` starts where its left operand does
            key = self._index.get(id(probe))
        if key is None:
            # not a node type matched against ast: the innermost open one that is
            key = self._open[-1] if self._open else None
        found = self.ast_positions.get(*key) if key is not None else None
        if found is None:
            self.positions_ok = False  # fill_positions() will send the file to PositionProvider
            return Span(1, 1, 1, 1)
        return Span(*found)

    def fill_positions(self) -> bool:
        """Whether the ast positions given out hold: False when a node had none, or when the
        node counts of libcst and ast disagree (the caller then redoes the summary with libcst
        positions)."""
        pos = self.ast_positions
        if not self.positions_ok:
            return False
        for t, n in self._counts.items():
            if pos.count(t) != n:
                return False
        for t in pos.table:
            if pos.count(t) and self._counts.get(t, 0) != pos.count(t):
                return False
        return True

    # node indexing for ast positions (see gblint.positions)
    def _enter_index(self, node) -> None:
        t = type(node)
        if t in INDEXED and not (t is cst.Attribute and self._import_depth):
            n = self._counts.get(t, 0)
            self._counts[t] = n + 1
            key = (t, n)
            self._index[id(node)] = key
            self._open.append(key)
            self._open_ids.append(id(node))
        elif t is cst.Import or t is cst.ImportFrom:
            self._import_depth += 1

    def _leave_index(self, node) -> None:
        if self._open_ids and self._open_ids[-1] == id(node):
            self._open.pop()
            self._open_ids.pop()
        elif type(node) is cst.Import or type(node) is cst.ImportFrom:
            self._import_depth -= 1


# ----------------------------------------------------------------------------- node helpers

def literal(node) -> Optional[object]:
    """The value of a literal ``True``/``False``/``None``, integer, string, or list or tuple of
    them (None otherwise, and for ``None``)."""
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, cst.Integer):
        try:
            return int(node.value, 0)
        except ValueError:
            return None
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value
    if isinstance(node, (cst.List, cst.Tuple)):
        return tuple(literal(e.value) for e in node.elements)
    return None


def kwarg(call: cst.Call, name: str):
    """The value of keyword argument ``name`` of ``call``, or None."""
    for a in call.args:
        if a.keyword is not None and a.keyword.value == name:
            return a.value
    return None


def code_of(node: cst.CSTNode) -> str:
    """The source code of ``node``."""
    try:
        return cst.Module([]).code_for_node(node)
    except Exception:  # pragma: no cover - code generation of a valid tree does not fail
        return "<expr>"


def names_in(node) -> List[str]:
    """Every name in ``node``, the bodies of lambdas left out."""
    out = []

    class _V(cst.CSTVisitor):
        def visit_Name(self, n):
            out.append(n.value)

        def visit_Lambda(self, n):
            return False

    node.visit(_V())
    return out
