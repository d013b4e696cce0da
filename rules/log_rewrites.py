"""Logging calls in compiled code: which ones Dynamo can reorder, and the two rewrites that remove
their break.

``torch._dynamo.config.reorderable_logging_functions`` is a set of functions (a
``types.FunctionType`` or a builtin: ``print``, ``logging.info``, ``warnings.warn``, never a
``Logger`` method) that Dynamo does not break on: it records the call and runs it after the graph
(``torch/_dynamo/variables/misc.py``: ``DebuggingVariable``, ``can_reorder_logs``), when every
argument is a tensor, a constant or a string formatter (an f-string); any other argument (a
``torch.Size``, a list, ``file=sys.stderr``) breaks again (GB0296). It records only the
positional arguments (``tx.debug_locals.append((self, list(args)))``): keywords (``end=``,
``stacklevel=``) are dropped. Measured under torch 2.13 (tests/cases/kinds k70-k75):

- the text printed is the same, but it comes after the graph ran: a tensor changed in place
  after the call prints its new value, and an error the graph raises after the call means the
  call never runs;
- ``warnings.warn(msg)`` is reorderable, ``warnings.warn(msg, UserWarning)`` is not (a class);
  ``logging.info`` is, ``logger.info`` (a bound method) is not.

So the config rewrite (:func:`add_reorderable`) is offered only for a call whose arguments are
literals, f-strings of them and of known tensors, or known tensors, with no keyword; it is unsafe.
The other rewrite (:func:`guard_compiling`) wraps the call in
``if not torch.compiler.is_compiling():``: it no longer runs under compile (unsafe).
"""
from __future__ import annotations

from typing import Optional, Tuple

import libcst as cst

from gblint.syntax.traversal import replace_node

#: functions Dynamo can reorder (a function or a builtin; logging's module-level functions, not
#: ``Logger`` methods, which are bound methods: measured, tests/cases/kinds k72)
REORDERABLE = frozenset({"print", "warnings.warn", "logging.debug", "logging.info", "logging.warning",
                         "logging.error", "logging.critical", "logging.exception", "logging.log"})

CONFIG = "_dynamo.config.reorderable_logging_functions"


def _literal(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float)) or \
        (isinstance(node, cst.Name) and node.value in ("True", "False", "None"))


def reorder_tokens(call: cst.Call, ctx) -> Optional[Tuple[str, ...]]:
    """The kind tokens that must all be tensors for Dynamo to reorder ``call`` (``()``: only literals
    and f-strings of literals), or None when it may not: a keyword argument (dropped when reordered),
    a starred one, or an argument that is neither a literal, an f-string of literals and known
    tensors, nor a known tensor (``ctx.known_tensor``)."""
    tokens = []
    for arg in call.args:
        if arg.keyword is not None or arg.star:
            return None
        parts = [arg.value]
        if isinstance(arg.value, cst.FormattedString):
            parts = [p.expression for p in arg.value.parts if isinstance(p, cst.FormattedStringExpression)]
            if any(p.format_spec or p.conversion for p in arg.value.parts
                   if isinstance(p, cst.FormattedStringExpression)):
                return None
        for part in parts:
            if _literal(part):
                continue
            token = ctx.known_tensor(part)
            if token is None:
                return None
            tokens.append(token)
    return tuple(tokens)


def cannot_reorder(call: cst.Call, ctx) -> bool:
    """Whether Dynamo surely refuses to reorder ``call`` although its function is listed (GB0296):
    an argument that is a display (list, tuple, dict, set), a warning class, a ``.shape`` or
    ``.size()`` (a ``torch.Size``), or the ``file=`` keyword (a stream). Other arguments may be constants or
    tensors: not a proven break."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "file":
            return True
        v = arg.value
        if isinstance(v, (cst.List, cst.Tuple, cst.Dict, cst.Set)):
            return True
        if isinstance(v, (cst.Name, cst.Attribute)) and _dotted(v).endswith("Warning"):
            return True  # a warning class (`warnings.warn(msg, UserWarning)`: measured, k73)
        if isinstance(v, cst.Attribute) and v.attr.value == "shape":
            return True
        if isinstance(v, cst.Call) and isinstance(v.func, cst.Attribute) and v.func.attr.value == "size" \
                and not v.args:
            return True
    return False


def expression_call(stmt: cst.CSTNode) -> Optional[cst.Call]:
    """The call when ``stmt`` is a line holding only a call (``print(...)``), else None."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        return small.value
    return None


def _dotted(node) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr.value}" if inner else ""
    return ""


def _top_imports_end(module: cst.Module) -> int:
    """The index of the first module-level statement after the docstring and the imports that
    open the module."""
    i = 0
    body = list(module.body)
    if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr) \
            and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        i = 1
    while i < len(body) and isinstance(body[i], cst.SimpleStatementLine) \
            and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in body[i].body):
        i += 1
    return i


def _bound_by(stmts, name: str) -> bool:
    """Whether the import statements ``stmts`` bind ``name``."""
    for stmt in stmts:
        for small in stmt.body:
            if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
                for alias in small.names:
                    bound = alias.asname.name.value if alias.asname else _dotted(alias.name).split(".")[0]
                    if bound == name:
                        return True
    return False


def add_reorderable(module: cst.Module, call: cst.Call, alias: str) -> Optional[cst.Module]:
    """``module`` (a whole file) with ``ALIAS._dynamo.config.reorderable_logging_functions.add(F)``
    after the imports that open it, ``F`` the function ``call`` calls as the file spells it; None
    when ``F`` is not ``print`` or a name those imports bind, or when ``alias`` (the name torch is
    bound to) is not bound by them, or the file already adds ``F`` there."""
    func = _dotted(call.func)
    end = _top_imports_end(module)
    head = [s for s in module.body[:end] if isinstance(s, cst.SimpleStatementLine)
            and all(isinstance(x, (cst.Import, cst.ImportFrom)) for x in s.body)]
    if not func or not _bound_by(head, alias.split(".")[0]):
        return None
    if func != "print" and not _bound_by(head, func.split(".")[0]):
        return None
    line = f"{alias}.{CONFIG}.add({func})\n"
    if any(cst.Module([]).code_for_node(s).strip() == line.strip() for s in module.body):
        return None
    body = list(module.body)
    while end < len(body) and cst.Module([]).code_for_node(body[end]).strip().startswith(f"{alias}.{CONFIG}"):
        end += 1  # after the lines that list functions already, in the order they were added
    return module.with_changes(body=body[:end] + [cst.parse_statement(line)] + body[end:])


def guard_compiling(module: cst.Module, stmt: cst.SimpleStatementLine, alias: str) -> Optional[cst.Module]:
    """``stmt`` (a line holding only a call) wrapped in ``if not ALIAS.compiler.is_compiling():``,
    keeping its comments and the lines before it; None when it is not in ``module``."""
    if expression_call(stmt) is None:
        return None
    inner = stmt.with_changes(leading_lines=[])
    guard = cst.If(test=cst.parse_expression(f"not {alias}.compiler.is_compiling()"),
                   body=cst.IndentedBlock(body=[inner]), leading_lines=list(stmt.leading_lines))
    return replace_node(module, stmt, guard)


def holds_logging(node: cst.CSTNode, logger_methods) -> bool:
    """Whether ``node`` (a loop) calls ``print``, a ``logging`` or ``warnings`` function, or a logger
    method (``logger.info``, ``self.log.warning``: a method of ``logger_methods`` on a name that
    says log). Unrolling such a loop writes its output statement once per step (issue 40: a
    3-line loop with a ``print`` became 9 lines with 3 prints); the loop fix declines to."""
    found = []

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            name = _dotted(call.func)
            head, _, last = name.rpartition(".")
            if name == "print" or head in ("logging", "warnings") or \
                    (last in logger_methods and "log" in head.rpartition(".")[2].lower()):
                found.append(call)

    node.visit(_Calls())
    return bool(found)


#: methods that change their object (a guard around a call whose arguments call one drops the change)
MUTATORS = frozenset({"pop", "popitem", "popleft", "append", "appendleft", "extend", "insert", "remove", "clear",
                      "update", "setdefault", "add", "discard", "send", "write", "put", "put_nowait", "get_nowait"})


def changes_state(call: cst.Call) -> bool:
    """Whether evaluating ``call``'s arguments may change state beside printing: an assignment
    expression (``:=``), ``next(...)``, a ``yield``/``await``, or a method named as a mutator
    (``stack.pop()``, :data:`MUTATORS`) or an in-place tensor method (``t.add_(1)``). A guard that
    skips the call under compile would skip that too, so it declines."""
    found = []

    class _Effects(cst.CSTVisitor):
        def visit_NamedExpr(self, node) -> None:
            found.append(node)

        def visit_Yield(self, node) -> None:
            found.append(node)

        def visit_Await(self, node) -> None:
            found.append(node)

        def visit_Call(self, node: cst.Call) -> None:
            name = _dotted(node.func)
            last = name.rpartition(".")[2]
            if name == "next" or (isinstance(node.func, cst.Attribute) and (
                    last in MUTATORS or (last.endswith("_") and not last.endswith("__")))):
                found.append(node)

    for arg in call.args:
        arg.value.visit(_Effects())
    return bool(found)
