"""What a definition's header says before its body is read: the kind of each parameter, from its
annotation or default (:func:`declared_kind`), and each decorator as the summary records it
(:func:`decorator_of`). Read by :class:`gblint.syntax.summary.SummaryBuilder` on each ``def`` and ``class``.
"""
from __future__ import annotations

import libcst as cst

from . import value_syntax
from ..core.model import Decorator, Kind, param_kind
from ..core.names import ImportTable, dotted
from .scope import FunctionScope
from ..abstract.tensors import TENSOR_TYPES
from .traversal import literal


def declared_kind(p: cst.Param, is_forward: bool, imports: ImportTable) -> str:
    """The kind of the parameter ``p`` before its uses are seen: from its annotation (resolved
    through ``imports``) or default; ``forward``'s first argument (``is_forward``) is a tensor;
    else a tensor only if used as one (:func:`gblint.core.model.param_kind`, by its name)."""
    name = p.name.value
    if p.annotation is not None:
        ann = dotted(p.annotation.annotation) or ""
        q = imports.resolve(p.annotation.annotation) or ann
        if q in TENSOR_TYPES or q.startswith("torch.") and q.endswith("Tensor") or ann in ("Tensor", "torch.Tensor"):
            return Kind.TENSOR  # torch's own tensor types; another class named `...Tensor` may be anything (below)
        if ann and ann.split(".")[-1] in ("int", "float", "bool", "str", "list", "dict", "tuple"):
            return Kind.PYTHON
        # a union of tensor types (`Union[Tensor, SparseTensor]`, `Optional[Tensor]`, `Tuple[Tensor, Tensor]`), or a
        # name this file does not define (a type alias such as `Adj = Union[Tensor, SparseTensor]` imported from
        # elsewhere, or `typing_mod.Adj`, whose meaning is not read here): what the caller passes decides, as for a
        # parameter without annotation; one naming any other class (`Union[Tensor, LinearOperator]`, `Cache | None`)
        # may be an object whose methods share a tensor's names (`.size()`): not taken for a tensor
        alias = isinstance(p.annotation.annotation, (cst.Name, cst.Attribute)) and q != ann
        return param_kind(name) if _tensor_types(p.annotation.annotation) or alias else Kind.UNKNOWN
    if p.default is not None and not (isinstance(p.default, cst.Name) and p.default.value == "None"):
        return Kind.PYTHON if literal(p.default) is not None else Kind.UNKNOWN
    if is_forward:
        return Kind.TENSOR
    return param_kind(name)


_TYPING = frozenset({"Optional", "Union", "Tuple", "List", "Sequence", "tuple", "list"})


def _tensor_types(node: cst.BaseExpression) -> bool:
    """Whether the annotation ``node`` names only tensor types (a name ending in ``Tensor``), ``None``, and
    ``Optional``/``Union``/``|``/``Tuple``/``List`` of those."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        return _tensor_types(node.left) and _tensor_types(node.right)
    if isinstance(node, cst.Subscript):
        head = (dotted(node.value) or "").split(".")[-1]
        return head in _TYPING and all(isinstance(e.slice, cst.Index) and (
            _tensor_types(e.slice.value) or isinstance(e.slice.value, cst.Ellipsis)) for e in node.slice)
    name = dotted(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
    return name is not None and (name == "None" or name.split(".")[-1].endswith("Tensor"))


def decorator_of(d: cst.Decorator, scope: FunctionScope) -> Decorator:
    """The decorator ``d`` as recorded, read in ``scope``: what it resolves to, its literal
    arguments and its value."""
    expr = d.decorator
    called = isinstance(expr, cst.Call)
    func = expr.func if called else expr
    q = scope.resolve(func) or (dotted(func) or "")
    kwargs, args = {}, ()
    if called:
        for a in expr.args:
            val = literal(a.value)
            text = "" if val is None and not isinstance(a.value, cst.Name) else repr(val)
            if a.keyword is not None:
                kwargs[a.keyword.value] = text
            else:
                args = args + (text,)
    return Decorator(q, called, kwargs, args, value_syntax.expr_of(expr, scope))
