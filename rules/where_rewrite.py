"""The ``torch.where`` rewrite: ``if c: x = a`` (``else: x = b``) -> ``x = torch.where(c, a, x or b)``.

PyTorch's guidance for a branch on a tensor ("working with graph breaks": compute both sides and
select); Dynamo traces ``torch.where`` into the graph where the ``if`` ends it (GB0170,
``torch/_dynamo/symbolic_convert.py`` ``generic_jump``). Measured: tests/cases/examples/057,
tests/test_fix_logging_guards.py.
"""
from __future__ import annotations

from typing import Optional, Set

import libcst as cst

from .rewrites import dotted_text, find_same, statement_of, replace, torch_name

PURE_METHODS = frozenset({"abs", "clamp", "exp", "log", "neg", "relu", "sigmoid", "tanh", "sqrt", "sin", "cos",
                          "float", "to", "detach", "mean", "sum", "max", "min", "norm", "pow", "reciprocal",
                          # the tests a branch on a tensor is written with: no side effect, a new tensor
                          "any", "all", "isfinite", "isnan", "isinf", "bool", "logical_not", "logical_and",
                          "logical_or", "eq", "ne", "lt", "le", "gt", "ge", "softmax", "log_softmax"})


def _pure(expr: cst.BaseExpression, torch_alias: str) -> bool:
    class V(cst.CSTVisitor):
        ok = True

        def visit_Call(self, node):
            f = node.func
            d = dotted_text(f)
            if d.startswith(torch_alias + ".") and not d.startswith(torch_alias + "._"):
                return
            if isinstance(f, cst.Attribute) and f.attr.value in PURE_METHODS:
                return
            V.ok = False

        def visit_Lambda(self, node):
            V.ok = False

        def visit_NamedExpr(self, node):
            V.ok = False

        def visit_Yield(self, node):
            V.ok = False

    v = V()
    expr.visit(v)
    return V.ok


def to_where(module: cst.Module, node: cst.If, bound_before: Set[str], alias: Optional[str] = None
             ) -> Optional[cst.Module]:
    """``if c: x = a`` (``else: x = b``) -> ``x = torch.where(c, a, x or b)`` for pure ``a``/``b``
    (unsafe: both sides are computed and must broadcast; ``c`` must be a boolean tensor). The
    GBL105 diagnostic asks for it only when ``c``, ``a`` and ``b`` are known to be tensors
    (``Event.fixable``)."""
    from .control_flow import single_assign

    if not isinstance(node.body, cst.IndentedBlock) or len(node.body.body) != 1:
        return None
    then = single_assign(node.body)
    if then is None:
        return None
    name, a = then
    if node.orelse is None:
        if name not in bound_before:
            return None
        b: cst.BaseExpression = cst.Name(name)
    elif isinstance(node.orelse, cst.Else):
        other = single_assign(node.orelse.body)
        if other is None or other[0] != name:
            return None
        b = other[1]
    else:
        return None
    if alias is None:
        mod, alias = torch_name(module)
    else:
        mod = module
    if not all(_pure(e, alias) for e in (node.test, a, b)):
        return None
    cond = where_condition(node.test, alias)
    if cond is None:
        return None
    code = (f"{name} = {alias}.where({cond}, "
            f"{cst.Module([]).code_for_node(a)}, {cst.Module([]).code_for_node(b)})\n")
    new_stmt = statement_of(code).with_changes(leading_lines=list(node.leading_lines))
    # locate the If again in the module that may have gained an import
    target = find_same(mod, module, node)
    if target is None:
        return None
    return replace(mod, target, new_stmt)


#: methods and ``torch`` functions whose result is a boolean tensor
_BOOLEAN = frozenset({"any", "all", "isfinite", "isnan", "isinf", "isneginf", "isposinf", "isreal", "logical_and",
                      "logical_or", "logical_not", "logical_xor", "eq", "ne", "lt", "le", "gt", "ge", "greater",
                      "less", "greater_equal", "less_equal", "not_equal", "isclose", "signbit", "bool"})


def where_condition(test: cst.BaseExpression, alias: str) -> Optional[str]:
    """The condition ``torch.where`` gets for the ``if`` test ``test``, as source: the test itself where
    it is surely a boolean tensor (a comparison, ``.any()``/``.all()``, ``torch.isfinite(...)``, ``~``,
    ``&``, ``|`` of those), ``ALIAS.logical_not(X)`` for ``not X``; None otherwise: ``where`` takes no
    Python bool (``not t`` is one, after a break) and no non-boolean tensor, and ``and``/``or``
    short-circuit on the first tensor."""
    negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
    inner = test.expression if negated else test
    if not _boolean_tensor(inner):
        return None
    code = cst.Module([]).code_for_node(inner.with_changes(lpar=[], rpar=[]) if negated else inner)
    return f"{alias}.logical_not({code})" if negated else code


def _boolean_tensor(expr: cst.BaseExpression) -> bool:
    """Whether ``expr`` surely evaluates to a boolean tensor, given that it is a tensor."""
    if isinstance(expr, cst.Comparison):
        return not any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in expr.comparisons) \
            and len(expr.comparisons) == 1
    if isinstance(expr, cst.UnaryOperation):
        return isinstance(expr.operator, cst.BitInvert) and _boolean_tensor(expr.expression)
    if isinstance(expr, cst.BinaryOperation):
        return isinstance(expr.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)) and \
            _boolean_tensor(expr.left) and _boolean_tensor(expr.right)
    if isinstance(expr, cst.Call):
        func = expr.func
        return isinstance(func, cst.Attribute) and func.attr.value in _BOOLEAN
    return False
