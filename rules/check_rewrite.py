"""Validation guards on tensor data: ``if not torch.isfinite(x).all(): raise ValueError("...")``.

The ``if`` on a tensor breaks the graph (GB0170, ``generic_jump``). Measured under torch 2.13
(tests/cases/kinds k76-k79), for the replacements Dynamo might keep in the graph:

- ``torch._assert_async(cond, "msg")``: no break (an ``aten._assert_async.msg`` node), and on bad
  data it raises ``RuntimeError("msg")``, eagerly and compiled (on CPU, at the call; on CUDA the
  check runs on the device: the error comes later, as a device-side assert);
- ``torch._check(cond_tensor, ...)`` and ``torch._check_with(ValueError, cond_tensor, ...)``
  raise ``TypeError`` on a tensor (they take a bool); ``torch._check(bool(t))``,
  ``torch._check(t.item())`` and ``torch._assert(t, ...)`` break the graph;
- ``assert t.all(), "msg"`` is already no break: Dynamo turns it into ``_assert_async`` (it raises
  ``RuntimeError`` compiled, ``AssertionError`` eagerly).

So :func:`to_assert_async` rewrites ``if C: raise E("msg")`` into
``torch._assert_async(torch.logical_not(C), "msg")`` (``if not C:`` into
``torch._assert_async(C, "msg")``): the test is evaluated once, as before; the error raised
becomes a ``RuntimeError`` with the same message (unsafe: a handler for ``E`` no longer catches it).
"""
from __future__ import annotations

from typing import NamedTuple, Optional, Tuple

import libcst as cst

from gblint.syntax.traversal import replace_node


class Guard(NamedTuple):
    """A validation guard ``if [GATE and] C: raise E("msg")`` as :func:`raise_guard` reads it."""

    test: cst.BaseExpression  # the tensor test C (X for ``not X``)
    negated: bool  # whether C is ``not X``
    message: str  # the message as source: the literal E is called with, else E's name as a literal
    gate: Optional[cst.BaseExpression] = None  # GATE: the operands before C in ``GATE and C``


def _literal_message(node: cst.BaseExpression) -> bool:
    """Whether ``node`` is a ``str`` literal: a string, or adjacent strings, none bytes or formatted."""
    if isinstance(node, cst.ConcatenatedString):
        return _literal_message(node.left) and _literal_message(node.right)
    return isinstance(node, cst.SimpleString) and "b" not in node.prefix.lower()


def raise_guard(node: cst.CSTNode, gated: bool = False) -> Optional[Guard]:
    """For ``if C: raise E(...)`` with no ``else``, the :class:`Guard`; with ``gated``, also for
    ``if A and B and C: raise E(...)`` (an ``and`` not in parentheses: C is its last operand, the
    gate ``A and B`` is evaluated first and C only when it holds, as before the rewrite). The message
    is the single string literal ``E`` is called with (adjacent literals too), else ``E``'s name.
    None for any other shape (an ``elif``/``else``, more statements, ``raise ... from``, a message
    that is not a literal, an ``and``/``or`` test otherwise: ``bool`` of ``A and C`` may be
    ``A``'s, which ``torch.logical_not`` does not take)."""
    if not isinstance(node, cst.If) or node.orelse is not None or not isinstance(node.body, cst.IndentedBlock):
        return None
    body = node.body.body
    if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) or len(body[0].body) != 1:
        return None
    stmt = body[0].body[0]
    if not isinstance(stmt, cst.Raise) or stmt.exc is None or stmt.cause is not None:
        return None
    exc = stmt.exc
    message = None
    if isinstance(exc, cst.Call):
        if len(exc.args) > 1 or any(a.keyword or a.star for a in exc.args):
            return None
        if exc.args:
            if not _literal_message(exc.args[0].value):
                return None
            message = cst.Module([]).code_for_node(exc.args[0].value)
        exc = exc.func
    if not isinstance(exc, (cst.Name, cst.Attribute)):
        return None
    if message is None:
        message = '"' + cst.Module([]).code_for_node(exc) + '"'
    test, gate = node.test, None
    if isinstance(test, cst.BooleanOperation):
        if not gated or not isinstance(test.operator, cst.And) or test.lpar:
            return None
        test, gate = test.right, test.left
    negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
    test = test.expression if negated else test
    if isinstance(test, cst.BooleanOperation) or (isinstance(test, cst.UnaryOperation) and isinstance(
            test.operator, cst.Not)):
        return None
    return Guard(test, negated, message, gate)


def guard_needs(node: cst.CSTNode, ctx, gated: bool = False) -> Optional[Tuple[str, ...]]:
    """The kind token of the tested tensor of a :func:`raise_guard` (the rewrite needs it to be a
    known tensor), or None. ``gated``: the site is the last operand of an ``and`` (see
    :func:`raise_guard`)."""
    shape = raise_guard(node, gated)
    if shape is None or (shape.gate is None) == gated:
        return None
    token = ctx.known_tensor(shape.test)
    return None if token is None else (token,)


def to_assert_async(module: cst.Module, node: cst.If, alias: str) -> Optional[cst.Module]:
    """``if C: raise E("msg")`` -> ``ALIAS._assert_async(ALIAS.logical_not(C), "msg")`` in
    ``module`` (``if not C:`` -> ``ALIAS._assert_async(C, "msg")``); ``if A and C: raise ...`` ->
    ``if A: ALIAS._assert_async(...)``. None for another shape."""
    shape = raise_guard(node, gated=True)
    if shape is None:
        return None
    code = cst.Module([]).code_for_node(shape.test.with_changes(lpar=[], rpar=[]) if not shape.negated
                                        else shape.test)
    cond = code if shape.negated else f"{alias}.logical_not({code})"
    stmt = cst.parse_statement(f"{alias}._assert_async({cond}, {shape.message})\n")
    comment = node.body.body[0].trailing_whitespace
    if comment.comment is not None:
        stmt = stmt.with_changes(trailing_whitespace=comment)
    if shape.gate is not None:
        inner = node.body.with_changes(body=[stmt])
        return replace_node(module, node, node.with_changes(test=shape.gate, body=inner))
    return replace_node(module, node, stmt.with_changes(leading_lines=list(node.leading_lines)))


def negated_assert(module: cst.Module, node: cst.Assert, alias: str) -> Optional[cst.Module]:
    """``assert not T, "msg"`` -> ``assert ALIAS.logical_not(T), "msg"`` in ``module``: CPython
    compiles ``not T`` in an ``assert`` to an inverted jump, which Dynamo does not recognise as an
    assertion (a branch on the tensor, GB0170); on the call's result it does, and keeps the check in
    the graph. Eagerly the same for a tensor ``T``: ``bool(logical_not(T))`` is ``not bool(T)``, and a
    tensor of more than one element raises the same ``RuntimeError``; compiled, a failed check raises
    ``RuntimeError("msg")`` (``_assert_async``) where it raised ``AssertionError``: unsafe (measured).
    None for another shape (no single ``not``)."""
    test = node.test
    negation = _negation(test)
    if negation is None or not negation[1]:
        return None
    call = cst.parse_expression(f"{alias}.logical_not(x)").with_changes(
        args=[cst.Arg(negation[0].with_changes(lpar=[], rpar=[]))], lpar=list(test.lpar), rpar=list(test.rpar))
    return replace_node(module, test, call)


def _negation(test: cst.BaseExpression) -> Optional[Tuple[cst.BaseExpression, bool]]:
    """``(X, True)`` for a test ``not X``, ``(test, False)`` for one with no ``not``; None for a double
    ``not``, which the assertion rewrites leave alone."""
    if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
        return test, False
    inner = test.expression
    if isinstance(inner, cst.UnaryOperation) and isinstance(inner.operator, cst.Not):
        return None
    return inner, True


def formats(msg: cst.BaseExpression) -> bool:
    """Whether ``msg`` surely evaluates to a ``str`` (``_assert_async`` takes nothing else): an
    f-string, ``"...".format(...)`` or ``"..." % ...`` on a string literal, ``str(...)``, or ``+`` of
    those and string literals."""
    if isinstance(msg, (cst.FormattedString, cst.ConcatenatedString)) or \
            (isinstance(msg, cst.SimpleString) and "b" not in msg.prefix.lower()):
        return True
    if isinstance(msg, cst.Call):
        func = msg.func
        if isinstance(func, cst.Name) and func.value == "str":
            return True
        return isinstance(func, cst.Attribute) and func.attr.value == "format" and \
            isinstance(func.value, (cst.SimpleString, cst.ConcatenatedString)) and formats(func.value)
    if isinstance(msg, cst.BinaryOperation):
        if isinstance(msg.operator, cst.Modulo):
            return isinstance(msg.left, (cst.SimpleString, cst.ConcatenatedString)) and formats(msg.left)
        return isinstance(msg.operator, cst.Add) and formats(msg.left) and formats(msg.right)
    return False


def assert_async(module: cst.Module, node: cst.Assert, alias: str) -> Optional[cst.Module]:
    """``assert T, MSG`` (MSG computed at run time, :func:`formats`) -> ``ALIAS._assert_async(T, MSG)``
    in ``module`` (``assert not T, MSG`` -> ``ALIAS._assert_async(ALIAS.logical_not(T), MSG)``): Dynamo
    keeps the check in the graph where the message folds to a constant at trace time. Unsafe: a failed
    check raises ``RuntimeError(MSG)``, not ``AssertionError``, ``python -O`` no longer strips it, and the
    message is built on every call. None for another shape."""
    if node.msg is None or not formats(node.msg):
        return None
    negation = _negation(node.test)
    if negation is None:
        return None
    code = cst.Module([]).code_for_node(negation[0].with_changes(lpar=[], rpar=[]))
    cond = f"{alias}.logical_not({code})" if negation[1] else code
    msg = cst.Module([]).code_for_node(node.msg)
    try:
        stmt = cst.parse_statement(f"{alias}._assert_async({cond}, {msg})\n")
    except cst.ParserSyntaxError:
        return None
    line = _line_of(module, node)
    if line is None:
        return None
    return replace_node(module, line, stmt.with_changes(leading_lines=list(line.leading_lines),
                                                        trailing_whitespace=line.trailing_whitespace))


def _line_of(module: cst.Module, node: cst.Assert) -> Optional[cst.SimpleStatementLine]:
    """The statement line that holds ``node`` alone (None when it shares the line with others)."""
    found = []

    class _Find(cst.CSTVisitor):
        def visit_SimpleStatementLine(self, line: cst.SimpleStatementLine) -> None:
            if len(line.body) == 1 and line.body[0] is node:
                found.append(line)

    module.visit(_Find())
    return found[0] if found else None



def literal(msg: cst.BaseExpression) -> bool:
    """Whether ``msg`` is a ``str`` literal with nothing computed (an f-string with no placeholder too;
    not bytes: ``_assert_async`` takes only a ``str``)."""
    if isinstance(msg, cst.SimpleString):
        return "b" not in msg.prefix.lower()
    if isinstance(msg, cst.ConcatenatedString):
        return literal(msg.left) and literal(msg.right)
    return isinstance(msg, cst.FormattedString) and all(isinstance(p, cst.FormattedStringText) for p in msg.parts)


def formatted_parts(msg: cst.BaseExpression) -> list:
    """The values a :func:`formats` message formats (f-string placeholders, ``.format`` and ``str``
    arguments, the right side of ``%``): the rewrite evaluates them on every call, so they must not be
    tensors (formatting one breaks the graph again)."""
    if isinstance(msg, cst.FormattedString):
        return [p.expression for p in msg.parts if isinstance(p, cst.FormattedStringExpression)]
    if isinstance(msg, cst.ConcatenatedString):
        return formatted_parts(msg.left) + formatted_parts(msg.right)
    if isinstance(msg, cst.Call):
        return [a.value for a in msg.args]
    if isinstance(msg, cst.BinaryOperation):
        if isinstance(msg.operator, cst.Modulo):
            right = msg.right
            return [e.value for e in right.elements] if isinstance(right, cst.Tuple) else [right]
        return formatted_parts(msg.left) + formatted_parts(msg.right)
    return []

