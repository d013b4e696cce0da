"""Source to values: the summary stage's half of :mod:`gblint.values`.

Turns a branch's test, a call's arguments and a parameter's default (libcst nodes) into
:class:`gblint.model.Expr` values that :mod:`gblint.values` evaluates later without libcst:
literals, the function's own parameters (only while not rebound), locals bound once above,
``self.training``, calls of helpers, and ``unknown`` for the rest.
"""
from __future__ import annotations

from typing import Tuple

import libcst as cst

from .model import BlockKind, CallArgs, Expr, Kind, Param
from .names import dotted
from .values import NOTNONE, UNKNOWN, const

_COMPARE = {cst.Equal: "eq", cst.NotEqual: "ne", cst.LessThan: "lt", cst.LessThanEqual: "le",
            cst.GreaterThan: "gt", cst.GreaterThanEqual: "ge", cst.Is: "is", cst.IsNot: "isnot",
            cst.In: "in", cst.NotIn: "notin"}
# Calls whose value under Dynamo is known: TorchScript is not running while Dynamo traces.
_KNOWN_CALLS = {"torch.jit.is_scripting": False, "torch.jit.is_tracing": False,
                "torch._C._get_tracing_state": None}
_BUILTINS = frozenset(dir(__import__("builtins")))
# Values that are never None: what these build.
_NOT_NONE_NODES = (cst.Lambda, cst.Dict, cst.Set, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp,
                   cst.FormattedString, cst.ConcatenatedString)


def literal_expr(node: cst.BaseExpression) -> Expr:
    """``node`` as a value that needs no names: a literal (``None``, ``True``, numbers, strings,
    a negative number), a tuple or list of them, something certainly not None, else unknown."""
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return const({"True": True, "False": False, "None": None}[node.value])
    if isinstance(node, cst.Integer):
        try:
            return const(int(node.value.replace("_", ""), 0))
        except ValueError:
            return NOTNONE
    if isinstance(node, cst.Float):
        try:
            return const(float(node.value.replace("_", "")))
        except ValueError:
            return NOTNONE
    if isinstance(node, cst.SimpleString):
        try:
            value = node.evaluated_value
        except Exception:  # an odd prefix: still a string
            return NOTNONE
        return const(value) if isinstance(value, str) else NOTNONE
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = literal_expr(node.expression)
        if inner.op == "const" and isinstance(inner.value, (int, float)) and not isinstance(inner.value, bool):
            return const(-inner.value)
        return UNKNOWN
    if isinstance(node, (cst.Tuple, cst.List)):
        if any(isinstance(e, (cst.StarredElement,)) for e in node.elements):
            return NOTNONE
        return Expr("seq", parts=tuple(literal_expr(e.value) for e in node.elements))
    if isinstance(node, _NOT_NONE_NODES):
        return NOTNONE
    return UNKNOWN


def expr_of(node: cst.BaseExpression, scope) -> Expr:
    """``node`` (a test or an argument) in ``scope`` (a :class:`gblint.scope.FunctionScope`)
    as an :class:`Expr`. A name is a ``param`` only while the function has not rebound it
    (``scope.rebound``); ``self.training`` is ``training``; anything else gblint cannot
    follow is ``unknown``."""
    if isinstance(node, cst.Name):
        if node.value in ("True", "False", "None"):
            return literal_expr(node)
        if node.value in scope.params and node.value not in scope.rebound:
            return Expr("param", node.value)
        local = scope.local_values.get(node.value)
        if local is not None and not any(b.kind == BlockKind.LOOP for b in scope.blocks):
            return local  # bound once, above, outside loops: the value it was bound to
        return UNKNOWN
    if isinstance(node, cst.Attribute):
        if node.attr.value == "training" and isinstance(node.value, cst.Name) and node.value.value == scope.self_name:
            return Expr("training")
        return UNKNOWN
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return Expr("not", parts=(expr_of(node.expression, scope),))
    if isinstance(node, cst.BooleanOperation):
        op = "and" if isinstance(node.operator, cst.And) else "or"
        return Expr(op, parts=(expr_of(node.left, scope), expr_of(node.right, scope)))
    if isinstance(node, cst.Comparison):
        left = expr_of(node.left, scope)
        pairs = []
        for target in node.comparisons:
            right = expr_of(target.comparator, scope)
            op = _COMPARE.get(type(target.operator))
            pairs.append(Expr(op, parts=(left, right)) if op else UNKNOWN)
            left = right
        return pairs[0] if len(pairs) == 1 else Expr("and", parts=tuple(pairs))
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitXor):
        return Expr("xor", parts=(expr_of(node.left, scope), expr_of(node.right, scope)))
    if isinstance(node, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in node.elements):
        return Expr("seq", parts=tuple(expr_of(e.value, scope) for e in node.elements))
    if isinstance(node, cst.Call) and len(node.args) == 1 and not node.args[0].star and node.args[0].keyword is None \
            and isinstance(node.func, cst.Name) and node.func.value == "len" and scope.lookup("len") is None:
        return Expr("len", parts=(expr_of(node.args[0].value, scope),))
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and not any(a.star for a in node.args):
        method, args = node.func.attr.value, [a.value for a in node.args if a.keyword is None]
        if method in ("items", "keys", "values") and not node.args:
            return Expr("items", parts=(expr_of(node.func.value, scope),))
        if method == "get" and 1 <= len(args) == len(node.args) <= 2:
            default = expr_of(args[1], scope) if len(args) == 2 else const(None)
            return Expr("get", parts=(expr_of(node.func.value, scope), expr_of(args[0], scope), default))
    if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
        return Expr("filtered", parts=(expr_of(node.for_in.iter, scope),))
    display = _display(node, scope)
    if display is not None:
        return display
    if isinstance(node, cst.Call) and not node.args:
        q = scope.resolve(node.func) or dotted(node.func)
        if q in _KNOWN_CALLS and _KNOWN_CALLS[q] is not None:
            return const(_KNOWN_CALLS[q])
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.args \
            and all(a.keyword is None and not a.star for a in node.args) and scope.lookup(node.func.value) is None:
        q = scope.resolve(node.func) or node.func.value
        module = scope.builder.summary.module
        if "." not in q:  # not imported: a function of this module, maybe defined further down
            q = f"{module}.{q}" if module and q not in _BUILTINS else ""
        if q:  # a helper of the project (`exists(x)`): decided where it is one `return` of its parameters
            return Expr("call", q, tuple(expr_of(a.value, scope) for a in node.args))
        return UNKNOWN
    if _never_none(node):
        return NOTNONE
    return literal_expr(node)


def _display(node: cst.BaseExpression, scope):
    """A dict display with constant string keys as ``dict``, a set display as ``set``, a call of a
    torch op that makes a tensor as ``tensor`` (what a driver passes: ``f({"w": torch.ones(3)})``);
    None for anything else."""
    if isinstance(node, cst.Dict):
        if not all(isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString) for e in node.elements):
            return None
        parts = []
        for e in node.elements:
            key = literal_expr(e.key)
            if key.op != "const":
                return None
            parts += [key, expr_of(e.value, scope)]
        return Expr("dict", parts=tuple(parts))
    if isinstance(node, cst.Set):
        if any(isinstance(e, cst.StarredElement) for e in node.elements):
            return None
        return Expr("set", parts=tuple(expr_of(e.value, scope) for e in node.elements))
    if isinstance(node, cst.Call) and scope.kind(node) == Kind.TENSOR and (scope.resolve(node.func) or "").startswith("torch."):
        return Expr("tensor", parts=_factory_shape(node, scope))
    return None


_FACTORIES = frozenset({"torch.randn", "torch.rand", "torch.zeros", "torch.ones", "torch.empty", "torch.full"})


def _factory_shape(node: cst.Call, scope) -> Tuple[Expr, ...]:
    """The size of a tensor a factory with literal sizes makes (``torch.randn(2, 3)``,
    ``torch.full((3,), 2.0)``) as ``const`` dims; ``()`` when not known (also for a 0-d tensor)."""
    if scope.resolve(node.func) not in _FACTORIES:
        return ()
    args = [a.value for a in node.args if a.keyword is None and not a.star]
    if scope.resolve(node.func) == "torch.full":
        args = args[:1]
    if len(args) == 1 and isinstance(args[0], (cst.Tuple, cst.List)):
        args = [e.value for e in args[0].elements]
    dims = tuple(literal_expr(a) for a in args)
    if not dims or any(d.op != "const" or not isinstance(d.value, int) or isinstance(d.value, bool) for d in dims):
        return ()
    return dims


_NOT_NONE_CALLS = frozenset({"len", "int", "float", "bool", "str", "max", "min", "sum", "abs", "round", "tuple",
                             "list", "dict", "set", "range", "isinstance", "hasattr", "getattr"} - {"getattr"})
_NOT_NONE_METHODS = frozenset({"size", "dim", "numel", "nelement", "item", "tolist", "numpy", "keys", "values",
                               "items", "split", "chunk"})


def _never_none(node: cst.BaseExpression) -> bool:
    """Whether ``node`` can never be None: arithmetic, a size or shape, a builtin constructor."""
    if isinstance(node, cst.BinaryOperation):
        return True
    if isinstance(node, cst.Attribute):
        return node.attr.value in ("shape", "ndim", "dtype", "device")
    if isinstance(node, cst.Subscript):
        return _never_none(node.value) and isinstance(node.value, (cst.Attribute, cst.Call))
    if isinstance(node, cst.Call):
        if isinstance(node.func, cst.Name):
            return node.func.value in _NOT_NONE_CALLS
        if isinstance(node.func, cst.Attribute):
            return node.func.attr.value in _NOT_NONE_METHODS
    return False


def call_args(call: cst.Call, scope) -> CallArgs:
    """The arguments of ``call`` as values (see :func:`expr_of`)."""
    positional, keywords, star, starstar = [], [], False, False
    for a in call.args:
        if a.star == "*":
            star = True
        elif a.star == "**":
            starstar = True
        elif a.keyword is not None:
            keywords.append((a.keyword.value, expr_of(a.value, scope)))
        elif not star:
            positional.append(expr_of(a.value, scope))
    return CallArgs(tuple(positional), tuple(keywords), star, starstar)


def params_of(params: cst.Parameters) -> Tuple[Param, ...]:
    """The parameters of a ``def`` in order, with their defaults as values."""
    out = []
    for p in list(params.posonly_params) + list(params.params):
        out.append(Param(p.name.value, "pos", None if p.default is None else literal_expr(p.default)))
    if isinstance(params.star_arg, cst.Param):
        out.append(Param(params.star_arg.name.value, "star"))
    for p in params.kwonly_params:
        out.append(Param(p.name.value, "kwonly", None if p.default is None else literal_expr(p.default)))
    if params.star_kwarg is not None:
        out.append(Param(params.star_kwarg.name.value, "starstar"))
    return tuple(out)
