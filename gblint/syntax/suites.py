"""What statements and their suites do, read from their syntax alone: whether a suite leaves the function
(returns, raises), whether a ``while`` loops back, what a ``case`` pattern tests, what an ``except`` clause
catches of what its ``try`` raises. Used by :mod:`gblint.syntax.blocks` as it builds the blocks around events.
"""
from __future__ import annotations

from typing import List, Optional

import libcst as cst

from . import value_syntax
from .loops import OwnScopeVisitor
from ..core.model import Expr
from ..core.names import dotted
from ..core.ops import Op
from .backedge import _returns_in
from .traversal import caught_types, code_of, read_walk



def no_backedge(node: cst.While) -> bool:
    """Whether the body of the ``while`` statement ``node`` can never jump back to its test: its
    last statement is ``break`` or ``return`` (the jump back after it is dead code CPython drops)
    and no ``continue`` of this loop is in it. Dynamo's loop test (``maybe_has_backedge``,
    ``symbolic_convert.py``: a jump after the break to an earlier instruction) then finds none
    for a break in the body, which resumes as in an ``if`` (a loop around the ``while`` still
    counts: its block stays). ``docs/semantics.md`` §3.1."""
    body = node.body
    if isinstance(body, cst.SimpleStatementSuite):
        last = body.body[-1] if body.body else None
    else:
        stmt = body.body[-1] if body.body else None
        last = stmt.body[-1] if isinstance(stmt, cst.SimpleStatementLine) and stmt.body else None
    if not isinstance(last, (cst.Break, cst.Return)):
        return False
    finder = _ContinueFinder()
    read_walk(body, finder)
    return not finder.found


class _ContinueFinder(OwnScopeVisitor):
    """Finds a ``continue`` of the loop whose body is visited (not of a loop nested in it, nor in
    a nested function or class)."""

    def __init__(self) -> None:
        super().__init__()
        self.found = False

    def visit_Continue(self, node: cst.Continue) -> None:
        self.found = True

    def visit_For(self, node) -> bool:
        return self._nested_loop(node)

    def visit_While(self, node) -> bool:
        return self._nested_loop(node)

    def _nested_loop(self, node) -> bool:
        if node.orelse is not None:  # a `continue` in its `else` is of the loop around it
            read_walk(node.orelse, self)
        return False



def _pattern_test(pattern, subject: Expr, scope) -> Expr:
    """Whether ``pattern`` (a ``case`` pattern) matches ``subject``, as a test gblint may decide: a value
    pattern is ``==``, ``None``/``True``/``False`` are ``is``, a capture or ``_`` always matches, ``|`` is
    ``or``; a class, sequence or mapping pattern is not decided."""
    if isinstance(pattern, cst.MatchValue):
        return Expr(Op.EQ, parts=(subject, value_syntax.expr_of(pattern.value, scope)))
    if isinstance(pattern, cst.MatchSingleton):
        return Expr(Op.IS, parts=(subject, value_syntax.expr_of(pattern.value, scope)))
    if isinstance(pattern, cst.MatchAs):
        return Expr(Op.CONST, value=True) if pattern.pattern is None else _pattern_test(pattern.pattern, subject, scope)
    if isinstance(pattern, cst.MatchOr):
        return Expr(Op.OR, parts=tuple(_pattern_test(p.pattern, subject, scope) for p in pattern.patterns))
    return Expr(Op.UNKNOWN)


def _all_exit(node: cst.If) -> bool:
    """Whether every arm of ``node`` (an ``if``/``elif`` chain) leaves the function, an ``else`` included."""
    if not _exits(node.body):
        return False
    if isinstance(node.orelse, cst.If):
        return _all_exit(node.orelse)
    return isinstance(node.orelse, cst.Else) and _exits(node.orelse.body)


def _exits(suite) -> bool:
    """Whether a block's last statement leaves the function (``return`` or ``raise``)."""
    body = getattr(suite, "body", ())
    last = body[-1] if body else None
    if isinstance(suite, cst.SimpleStatementSuite):
        last_small = body[-1] if body else None
    elif isinstance(last, cst.SimpleStatementLine) and last.body:
        last_small = last.body[-1]
    else:
        return False
    return isinstance(last_small, (cst.Return, cst.Raise))


def leaves(suite, raising: bool = True) -> bool:
    """Whether a block never runs off its end: its last statement is a ``return`` (or, with ``raising``, a
    ``raise``), an ``if`` whose every arm, ``else`` included, leaves, or a ``with`` whose body returns (a manager may
    swallow an exception, never a ``return``). ``Kernel.__call__``'s ``if diag: ... return res`` ``else: ... return
    res`` returns no ``None``."""
    body = getattr(suite, "body", ())
    last = body[-1] if body else None
    if isinstance(suite, cst.SimpleStatementSuite) or isinstance(last, cst.SimpleStatementLine):
        smalls = body if isinstance(suite, cst.SimpleStatementSuite) else last.body
        return bool(smalls) and isinstance(smalls[-1], (cst.Return, cst.Raise) if raising else cst.Return)
    if isinstance(last, cst.If):
        arm = last
        while isinstance(arm, cst.If):
            if not leaves(arm.body, raising):
                return False
            arm = arm.orelse
        return isinstance(arm, cst.Else) and leaves(arm.body, raising)
    if isinstance(last, cst.With):
        return leaves(last.body, raising=False)
    return False


def _returns(suite) -> bool:
    """Whether a block's last statement is a ``return``."""
    body = getattr(suite, "body", ())
    last = body[-1] if body else None
    if isinstance(suite, cst.SimpleStatementSuite):
        return bool(body) and isinstance(body[-1], cst.Return)
    return isinstance(last, cst.SimpleStatementLine) and bool(last.body) and isinstance(last.body[-1], cst.Return)


def _raises(suite) -> bool:
    """Whether a block (an ``IndentedBlock``) raises at its own level: one of its statements is
    a ``raise``."""
    return suite is not None and any(isinstance(small, cst.Raise) for stmt in getattr(suite, "body", ())
                                     if isinstance(stmt, cst.SimpleStatementLine) for small in stmt.body)


# What an `except` clause catches of what a `try` body raises for sure (the builtins' hierarchy).
_CATCH_KEY_ERROR = frozenset({"KeyError", "LookupError", "Exception", "BaseException"})


def _caught(handler: cst.ExceptHandler) -> Optional[List[str]]:
    """The exception classes ``handler`` names (last dotted part), None for a bare ``except:``."""
    types = caught_types(handler)
    if types is None:
        return None
    names = []
    for value in types:
        text = dotted(value)
        names.append(text.rsplit(".", 1)[-1] if text else "")
    return names


def raises_test(try_node: cst.Try, handler: cst.ExceptHandler, scope) -> Optional[Expr]:
    """When ``handler`` runs, as a test gblint may decide (:mod:`gblint.abstract.values`): the ``try`` body
    raises what it catches for sure when one of its first simple statements (those before any
    compound statement or ``return``) reads ``d["key"]`` of a dict the call passes without that key
    (``KeyError``), or raises a class the handler names. None when nothing there decides it: the
    body is an error path, as before. ``scope`` is the :class:`gblint.syntax.scope.FunctionScope`."""
    caught = _caught(handler)
    tests: List[Expr] = []
    for stmt in try_node.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            break
        for small in stmt.body:
            if isinstance(small, cst.Raise) and small.exc is not None:
                exc = small.exc.func if isinstance(small.exc, cst.Call) else small.exc
                name = (dotted(exc) or "").rsplit(".", 1)[-1]
                if caught is None or name in caught or "Exception" in caught or "BaseException" in caught:
                    tests.append(Expr(Op.CONST, True))
                break
            if caught is None or _CATCH_KEY_ERROR & set(caught):
                tests.extend(_missing_keys(small, scope))
            if isinstance(small, cst.Return):
                break
    if not tests:
        return None
    return tests[0] if len(tests) == 1 else Expr(Op.OR, parts=tuple(tests))


def _missing_keys(small: cst.BaseSmallStatement, scope) -> List[Expr]:
    """``"key" not in d`` for every ``d["key"]`` that ``small`` reads (not a target it assigns)."""
    targets = set()
    if isinstance(small, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
        for t in getattr(small, "targets", None) or [small]:
            targets.add(id(t.target))
    found: List[Expr] = []

    class Reads(cst.CSTVisitor):
        def visit_Subscript(self, node: cst.Subscript) -> None:
            if id(node) in targets or len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
                return
            key = node.slice[0].slice.value
            if isinstance(key, cst.SimpleString):
                container = value_syntax.expr_of(node.value, scope)
                if container.op in (Op.PARAM, Op.DICT):
                    found.append(Expr(Op.NOTIN, parts=(value_syntax.literal_expr(key), container)))

        def visit_Lambda(self, node) -> bool:
            return False  # runs later, if at all

    small.visit(Reads())
    return found


def _none_of(tests) -> tuple:
    """``not t`` for each test of ``tests`` (the earlier cases of a ``match``: none of them matched)."""
    return tuple(Expr(Op.NOT, parts=(t,)) for t in tests)


def _jumps_on(suite) -> bool:
    """Whether a block's last statement is ``continue`` or ``break`` (the rest of the loop's body is skipped)."""
    body = getattr(suite, "body", ())
    last = body[-1] if body else None
    if isinstance(suite, cst.SimpleStatementSuite):
        return bool(body) and isinstance(body[-1], (cst.Continue, cst.Break))
    return isinstance(last, cst.SimpleStatementLine) and bool(last.body) \
        and isinstance(last.body[-1], (cst.Continue, cst.Break))



def return_test(suite, scope) -> Optional[tuple]:
    """``(test, text)``: when the block ``suite`` returns, as a value of its ``if`` tests and as words (``b`` for
    ``if b: return x``; ``(a and b) or (not (a) and c)`` through nested ``if``/``else``), for the blocks whose returns
    lie only in ``if`` statements; ``(False, "")`` for one that never returns; None where a loop, ``with``, ``try`` or
    ``match`` holds a ``return``, whose running is not read here."""
    never = (Expr(Op.CONST, value=False), "")
    if suite is None:
        return never
    if isinstance(suite, cst.Else):
        suite = suite.body
    statements = suite.body if isinstance(suite, cst.IndentedBlock) else (suite,) if isinstance(suite, cst.If) \
        else (cst.SimpleStatementLine(body=suite.body),)
    found: List[tuple] = []
    for stmt in statements:
        if isinstance(stmt, cst.SimpleStatementLine):
            if any(isinstance(small, cst.Return) for small in stmt.body):
                found.append((Expr(Op.CONST, value=True), ""))
                break
            continue
        if not _returns_in(stmt):
            continue
        if not isinstance(stmt, cst.If):
            return None
        test, said = value_syntax.expr_of(stmt.test, scope), code_of(stmt.test).strip()
        body, other = return_test(stmt.body, scope), return_test(stmt.orelse, scope)
        if body is None or other is None:
            return None
        if body != never:
            found.append((Expr(Op.AND, parts=(test, body[0])), f"{said} and {body[1]}" if body[1] else said))
        if other != never:
            found.append((Expr(Op.AND, parts=(Expr(Op.NOT, parts=(test,)), other[0])),
                          f"not ({said}) and {other[1]}" if other[1] else f"not ({said})"))
    if not found:
        return never
    test = found[0][0]
    for more, _ in found[1:]:
        test = Expr(Op.OR, parts=(test, more))
    return test, " or ".join(f"({w})" if len(found) > 1 and w else w for _, w in found)
