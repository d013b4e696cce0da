"""The visitor machinery under the summary: fast hook dispatch, node positions, node helpers.

:class:`PositionedVisitor` is a libcst visitor that finds its ``visit_*``/``leave_*`` hooks
through a per-class cache (libcst formats and looks the names up for every node and attribute,
which on large files costs more than the rules), and gives each node a :class:`Span` either from
CPython's :mod:`ast` (:class:`gblint.syntax.positions.AstPositions`, matched node by node in visiting
order) or from libcst's ``PositionProvider``. With ast positions the tree is walked by
:meth:`PositionedVisitor.walk`: libcst's visiting order and hooks (read from libcst's own
``_visit_and_replace_children``), without libcst rebuilding and re-validating every node on the
way up and without entering whitespace and punctuation (3-4x less time than ``tree.visit``,
``tests/test_traversal.py`` checks the summaries are the same).
"""
from __future__ import annotations

import ast
import collections.abc
import inspect
import textwrap
import typing
from typing import Dict, List, Optional, Tuple

import libcst as cst
from libcst._nodes import base as _cst_base, expression as _cst_expression, op as _cst_op, whitespace as _cst_whitespace
from libcst.metadata import PositionProvider

from ..core.model import Span
from .positions import INDEXED


class PositionedVisitor(cst.CSTVisitor):
    """A libcst visitor with cached hook dispatch and :meth:`span` for any visited node.

    Set ``ast_positions`` (an :class:`gblint.syntax.positions.AstPositions`) before visiting to take
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
        self._open_nodes: List[cst.CSTNode] = []  # the indexed nodes being visited, innermost last
        self._import_depth = 0
        if type(self) not in _PLANS:
            _PLANS[type(self)] = ({}, _inert_for(type(self)))
        self._plans, self._inert = _PLANS[type(self)]

    def _hook(self, kind: str, node_type: type, attribute: str = ""):
        key = (type(self), kind, node_type, attribute)
        try:
            return self._dispatch[key]
        except KeyError:
            name = f"{kind}_{node_type.__name__}" + (f"_{attribute}" if attribute else "")
            fn = getattr(type(self), name, None)
            self._dispatch[key] = fn
            return fn

    def walk(self, node: cst.CSTNode) -> None:
        """Visit ``node`` and its subtree as ``node.visit(self)`` does (the same hooks, in the same
        order, on the same node objects), without rebuilding every node on the way back up as
        libcst's ``visit`` does (with each new node validated), and without descending into
        whitespace and punctuation, where no hook of this visitor can fire. For the
        :mod:`ast`-positions path (``ast_positions`` set); a node type whose visiting order
        cannot be read from libcst is handed to libcst's own ``visit``."""
        _walk(node, self, self._plans, self._inert, True)

    def on_visit(self, node) -> bool:
        self._enter_index(node)  # both ways: the libcst one takes the same node for an unmatched `and` (span)
        fn = self._hook("visit", type(node))
        return True if fn is None else fn(self, node) is not False

    def on_leave(self, original_node) -> None:
        fn = self._hook("leave", type(original_node))
        if fn is not None:
            fn(self, original_node)
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
        stand_in = self._stand_in(node)
        if self.ast_positions is None:
            r = self.get_metadata(PositionProvider, stand_in if stand_in is not None else node)
            return Span(r.start.line, r.start.column + 1, r.end.line, r.end.column + 1)
        key = self._index.get(id(stand_in)) if stand_in is not None else None
        found = self.ast_positions.get(*key) if key is not None else None
        if found is None:
            self.positions_ok = False  # fill_positions() will send the file to PositionProvider
            return Span(1, 1, 1, 1)
        return Span(*found)

    def _stand_in(self, node):
        """The node whose position ``node`` takes, the same for ast and libcst positions: itself when matched
        against ast, else the left operand of an ``and`` when that is (``a and b`` starts where ``a`` does), else
        the innermost matched node around it (None: none)."""
        probe = node
        while id(probe) not in self._index and isinstance(probe, cst.BooleanOperation):
            probe = probe.left
        if id(probe) in self._index:
            return probe
        return self._open_nodes[-1] if self._open_nodes else None

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

    # node indexing for ast positions (see gblint.syntax.positions)
    def _enter_index(self, node) -> None:
        t = type(node)
        if t in INDEXED and not (t is cst.Attribute and self._import_depth):
            n = self._counts.get(t, 0)
            self._counts[t] = n + 1
            self._index[id(node)] = (t, n)
            self._open_nodes.append(node)
        if t is cst.Import or t is cst.ImportFrom:
            self._import_depth += 1  # a module's dotted name is no ast Attribute

    def _leave_index(self, node) -> None:
        if self._open_nodes and self._open_nodes[-1] is node:
            self._open_nodes.pop()
        if type(node) is cst.Import or type(node) is cst.ImportFrom:
            self._import_depth -= 1


# ----------------------------------------------------------------------------- the walk


def read_walk(node: cst.CSTNode, visitor: cst.CSTVisitor) -> cst.CSTVisitor:
    """Visit ``node`` and its subtree with the read-only ``visitor`` (its ``visit_*``/``leave_*`` hooks, in libcst's
    order, a ``visit_*`` returning False skipping the children) as ``node.visit(visitor)`` does, without libcst
    rebuilding and validating every node on the way up or entering whitespace and punctuation (the walk of
    :meth:`PositionedVisitor.walk`, with no positions). Returns ``visitor``."""
    vt = type(visitor)
    if vt not in _PLANS:
        _PLANS[vt] = ({}, _inert_for(vt))
    plans, inert = _PLANS[vt]
    _walk(node, visitor, plans, inert, False)
    return visitor


def _walk(node, visitor, plans, inert, index: bool) -> None:
    """The walk of ``node`` with ``visitor`` by its ``plans`` (:func:`_plan`), skipping ``inert`` node types; with
    ``index`` a :class:`PositionedVisitor` numbers the nodes matched against ast as it enters and leaves them."""
    try:
        plan = plans[type(node)]
    except KeyError:
        plan = plans[type(node)] = _plan(type(visitor), type(node))
    if plan is None:
        node.visit(visitor)
        return
    visit, leave, indexed, fields = plan
    indexed = indexed and index
    if indexed:
        visitor._enter_index(node)
    if visit is None or visit(visitor, node) is not False:
        for name, enter, exit_, conditional in fields:
            value = getattr(node, name)
            if conditional and value is None:
                continue
            if enter is not None:
                enter(visitor, node)
            kind = type(value)
            if kind is tuple or kind is list:
                for child in value:
                    if type(child) not in inert:
                        _walk(child, visitor, plans, inert, index)
            elif kind not in inert and value is not None and kind is not _MaybeSentinel:
                _walk(value, visitor, plans, inert, index)  # a node (fields hold nodes, sequences, None, MaybeSentinel)
            if exit_ is not None:
                exit_(visitor, node)
    if leave is not None:
        leave(visitor, node)
    if indexed:
        visitor._leave_index(node)

# visitor class -> ({libcst node type -> (visit hook, leave hook, indexed, fields) or None}, the
# node types its walk skips); fields: (name, visit-attribute hook, leave-attribute hook, hooks
# only when the value is not None)
_PLANS: Dict[type, Tuple[Dict[type, Optional[tuple]], frozenset]] = {}
_ORDERS: Dict[type, Optional[Tuple[Tuple[str, bool], ...]]] = {}
_MaybeSentinel = cst.MaybeSentinel
_LIBCST_VISITS = frozenset(("visit_required", "visit_optional", "visit_sentinel", "visit_sequence", "visit_iterable",
                            "visit_body_sequence", "visit_body_iterable"))

# Whitespace and punctuation: nodes that hold only other such nodes, and none is matched against
# ast: the walk skips them unless the visitor has a hook on one (_inert_for).
_WHITESPACE_AND_TOKENS = (
    _cst_whitespace.BaseParenthesizableWhitespace, cst.Newline, cst.Comment, cst.TrailingWhitespace, cst.EmptyLine,
    _cst_op._BaseOneTokenOp, _cst_op._BaseTwoTokenOp, cst.BaseUnaryOp, cst.BaseBooleanOp, cst.BaseBinaryOp,
    cst.BaseCompOp, cst.BaseAugOp, cst.ImportStar, cst.LeftParen, cst.RightParen, cst.LeftSquareBracket,
    cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace, _cst_expression.Asynchronous)


def _subclasses(cls: type) -> List[type]:
    """``cls`` and all its subclasses (a class reached along several bases is listed again)."""
    out, todo = [], [cls]
    while todo:
        c = todo.pop()
        out.append(c)
        todo.extend(c.__subclasses__())
    return out


def _libcst_classes() -> List[type]:
    return _subclasses(cst.CSTNode)


_INERT = frozenset(c for c in _libcst_classes() if issubclass(c, _WHITESPACE_AND_TOKENS))


def _own_hook(visitor_type: type, name: str):
    """The hook ``name`` of ``visitor_type``; None for none, and for libcst's typed stubs (each
    a ``pass`` marked ``_is_no_op``)."""
    fn = getattr(visitor_type, name, None)
    return None if fn is None or getattr(fn, "_is_no_op", False) else fn


def forward_hooks(visitor_type: type, attribute: str, part_type: type) -> None:
    """Give ``visitor_type`` the ``visit_*``/``leave_*`` hooks that ``part_type`` defines, each
    calling that hook of the visitor's ``attribute`` (a ``part_type`` it owns), so that the
    visitor's dispatch (:meth:`PositionedVisitor._hook`, the walk's plans) reaches them.

    Raises:
        TypeError: the visitor already has one of those hooks (the two would not both run)."""
    for name in vars(part_type):
        if not (name.startswith(("visit_", "leave_")) and name.split("_")[1][:1].isupper()):
            continue  # `leave_comp`: a method of the part's own, no hook
        if _own_hook(visitor_type, name) is not None:
            raise TypeError(f"{visitor_type.__name__}.{name} is defined; {part_type.__name__}.{name} would not run")
        setattr(visitor_type, name, _forwarder(attribute, getattr(part_type, name)))


def _forwarder(attribute: str, fn):
    def hook(self, node):
        return fn(getattr(self, attribute), node)
    hook.__name__ = hook.__qualname__ = fn.__name__
    return hook


def _inert_for(visitor_type: type) -> frozenset:
    """The node types a walk with ``visitor_type`` skips: whitespace and punctuation on which it
    has no hook."""
    hooked = set()
    for name in dir(visitor_type):
        if name.startswith(("visit_", "leave_")) and _own_hook(visitor_type, name) is not None:
            hooked.add(name.split("_")[1])
    return frozenset(c for c in _INERT if c.__name__ not in hooked)


def _order(node_type: type) -> Optional[Tuple[Tuple[str, bool], ...]]:
    """The fields ``node_type._visit_and_replace_children`` visits, in its order, each with
    whether libcst skips its attribute hooks when the value is None (``format_spec``); read
    from libcst's source. None when that source cannot be read as expected."""
    if node_type in _ORDERS:
        return _ORDERS[node_type]
    found: Optional[Tuple[Tuple[str, bool], ...]] = None
    try:
        method = node_type._visit_and_replace_children
        if method is _cst_base.BaseLeaf._visit_and_replace_children:
            found = ()
        else:
            tree = ast.parse(textwrap.dedent(inspect.getsource(method)))
            fn = tree.body[0]
            ret = fn.body[-1]
            if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Call):
                call = ret.value
            elif isinstance(ret, ast.Return) and isinstance(ret.value, ast.Name) and len(fn.body) >= 2 \
                    and isinstance(fn.body[-2], ast.Assign) and isinstance(fn.body[-2].value, ast.Call):
                call = fn.body[-2].value  # `ret = Node(...); return ret`
            else:
                call = None
            fields: List[Tuple[str, bool]] = []
            ok = call is not None and not call.args
            for kw in (call.keywords if ok else ()):
                value = kw.value
                conditional = False
                if isinstance(value, ast.IfExp):
                    alternatives = [value.body, value.orelse]
                    conditional = isinstance(value.orelse, ast.Constant) and value.orelse.value is None
                else:
                    alternatives = [value]
                visits = [a for a in alternatives if isinstance(a, ast.Call)]
                if not visits:
                    if any("visit" in ast.dump(a) for a in alternatives):
                        ok = False
                    continue
                for v in visits:
                    if not (isinstance(v.func, ast.Name) and v.func.id in _LIBCST_VISITS and len(v.args) == 4
                            and isinstance(v.args[1], ast.Constant) and v.args[1].value == kw.arg):
                        ok = False
                fields.append((kw.arg, conditional))
            found = tuple(fields) if ok else None
    except (OSError, TypeError, SyntaxError, IndexError, AttributeError):
        found = None
    _ORDERS[node_type] = found
    return found


def _plan(visitor_type: type, node_type: type) -> Optional[tuple]:
    order = _order(node_type)
    if order is None:
        return None

    def hook(name):
        return _own_hook(visitor_type, name)

    base = node_type.__name__
    inert = _PLANS[visitor_type][1] if visitor_type in _PLANS else _inert_for(visitor_type)
    fields = []
    for name, conditional in order:
        enter, exit_ = hook(f"visit_{base}_{name}"), hook(f"leave_{base}_{name}")
        if enter is None and exit_ is None and _holds_only(node_type, name, inert):
            continue  # whitespace or punctuation by its declared type, and no hook on the field
        fields.append((name, enter, exit_, conditional))
    indexed = node_type in INDEXED or node_type is cst.Import or node_type is cst.ImportFrom
    return hook(f"visit_{base}"), hook(f"leave_{base}"), indexed, tuple(fields)


_HINTS: Dict[type, Optional[dict]] = {}


def _holds_only(node_type: type, field: str, kinds: frozenset) -> bool:
    """Whether field ``field`` of ``node_type`` can, by its declared type, hold nothing but
    nodes of ``kinds`` (or None, MaybeSentinel, sequences of those). False when unsure."""
    if node_type not in _HINTS:
        try:
            _HINTS[node_type] = typing.get_type_hints(node_type)
        except Exception:  # annotations that do not resolve: walk the field
            _HINTS[node_type] = None
    hints = _HINTS[node_type]
    if hints is None or field not in hints:
        return False
    todo, seen = [hints[field]], set()
    while todo:
        hint = todo.pop()
        origin = typing.get_origin(hint)
        if origin is not None:
            if origin is typing.Union or origin in (tuple, list, collections.abc.Sequence):
                todo.extend(a for a in typing.get_args(hint) if a is not Ellipsis)
                continue
            return False
        if hint is type(None) or hint is _MaybeSentinel:
            continue
        if not isinstance(hint, type) or not issubclass(hint, cst.CSTNode):
            return False
        if hint in seen:
            continue
        seen.add(hint)
        concrete = [c for c in _subclasses(hint) if not getattr(c, "__abstractmethods__", None)]
        if not concrete or any(c not in kinds for c in concrete):
            return False
    return True


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


def caught_types(handler: cst.ExceptHandler) -> Optional[List[cst.BaseExpression]]:
    """The expressions an ``except`` clause names (one, or each of a tuple); None for a bare ``except:``."""
    if handler.type is None:
        return None
    items = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
    return [item.value if isinstance(item, cst.Element) else item for item in items]


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


class _Replace(cst.CSTTransformer):
    """Replace one node (by identity) with a node, a FlattenSentinel or RemovalSentinel. Only
    the nodes on the way down to it (``path``: their ids) are entered and rebuilt; every other
    subtree is kept as it is (the generated code is the same as a rebuild of every node gives,
    at a fraction of the cost)."""

    def __init__(self, target: cst.CSTNode, replacement, path: set):
        super().__init__()
        self.target, self.replacement, self.path = target, replacement, path
        self.done = False

    def on_visit(self, node) -> bool:
        return id(node) in self.path and node is not self.target

    def on_leave(self, original_node, updated_node):
        if original_node is self.target:
            self.done = True
            return self.replacement
        return updated_node


def _path_to(node: cst.CSTNode, target: cst.CSTNode, path: set) -> bool:
    """Whether ``target`` lies in ``node``'s subtree; if so the ids of the nodes from ``node``
    down to it are added to ``path``."""
    if node is target:
        path.add(id(node))
        return True
    for name in node.__dataclass_fields__:
        value = getattr(node, name)
        for child in (value if type(value) in (tuple, list) else (value,)):
            if isinstance(child, cst.CSTNode) and _path_to(child, target, path):
                path.add(id(node))
                return True
    return False


def replace_node(module: cst.Module, target: cst.CSTNode, replacement) -> Optional[cst.Module]:
    """``module`` with ``target`` (found by identity) replaced by ``replacement`` (a node, a
    FlattenSentinel or RemovalSentinel), or None when ``target`` is not in it."""
    path: set = set()
    if not _path_to(module, target, path):
        return None
    t = _Replace(target, replacement, path)
    new = module.visit(t)
    return new if t.done else None


class _Names(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.out: List[str] = []

    def visit_Name(self, n) -> None:
        self.out.append(n.value)

    def visit_Lambda(self, n) -> bool:
        return False


def names_in(node) -> List[str]:
    """Every name in ``node``, the bodies of lambdas left out."""
    return read_walk(node, _Names()).out
