"""Where a break in a loop body resumes: a ``return`` met before the jump back.

Dynamo decides that a graph break is "in a loop" (GB7000, the frame skipped) with a heuristic,
``InstructionTranslatorBase.maybe_has_backedge`` (``torch/_dynamo/symbolic_convert.py``): from the
instruction after the break to the end of the code object, in bytecode order, the first
``RETURN_VALUE`` (or ``RETURN_CONST``) ends the search with "no loop", a jump to an instruction
before the break ends it with "a loop". So a break followed in its loop body by a ``return`` that
CPython lays out before the loop's jump back resumes like a break outside a loop (measured on
torch 2.13, Python 3.11: ``tests/cases/kinds/kb48_return_after_loop_break.py``).

This module reads that order from the syntax, as CPython 3.11 lays a loop body out: statements in
source order; an ``if`` body before its ``else``; the jump over an ``else`` that ends the loop body
threaded to the jump back; a ``continue`` jumping back; a nested loop's own jumps back landing after
the break (not "before" it). A ``try``, ``with`` or ``match``, a chained comparison or a constant
test after the break is not read (its layout is not modelled): the break keeps its GB7000. So is a
``for`` loop over anything but ``range(...)`` or a list or tuple display: resuming inside it needs
its iterator rebuilt, which Dynamo cannot do for ``enumerate``, ``zip``, dict views or an
``nn.ModuleList`` (:func:`rebuilt_iterator`). Over a name or an attribute it depends on the value (a list
or tuple passed in resumes, an ``nn.ModuleList`` does not: ``tests/cases/kinds/kc2``), so the skip is
conditional on it (``Block.iterates``).
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import libcst as cst

from ..core.model import Block, BlockKind
from .loops import OwnScopeVisitor

RETURN, BACK, UNKNOWN = "return", "back", "unknown"


def returning_nodes(body: cst.BaseSuite) -> List[cst.CSTNode]:
    """The statements of a loop ``body`` (simple statement lines, and ``if`` statements for a break in
    their test) after which, in CPython 3.11's layout, a ``return`` comes before any jump back to
    them: a graph break there is no break "in a loop" to Dynamo."""
    return unread_nodes(body)[0]


def unread_nodes(body: cst.BaseSuite) -> Tuple[List[cst.CSTNode], List[cst.CSTNode]]:
    """:func:`returning_nodes` of a loop ``body``, and the statements after which what comes first is not read: a
    ``try``, ``with`` or ``match`` holding a ``return``, or an ``if`` whose test's layout is not read (a constant,
    ``if __debug__:``, or a chained comparison) before one; a break there may resume (measured by a helper: a
    ``return`` inside ``with torch.no_grad():`` after the break resumes)."""
    found: List[cst.CSTNode] = []
    unsure: List[cst.CSTNode] = []
    _Scan(found, unsure).block(_statements(body), BACK, at_end=True, inner=False)
    return found, unsure


class ReturnsFirst:
    """Fills each loop block's ``returns_first`` as a traversal reads the loop's body: the lines of the events
    (breaks and calls) read in the statements :func:`returning_nodes` finds, or in an ``if``'s test there."""

    def __init__(self) -> None:
        self._noted: dict = {}  # id(statement) -> its loop's block
        self._open: dict = {}  # id(statement being read) -> (its loop's block, the index of its first event)

    def enter_loop(self, loop: cst.CSTNode, block: Block) -> None:
        """The traversal enters the body of ``loop`` (a ``for``/``while``), whose block is ``block``; a loop over
        a name or attribute notes it in ``block.iterates``: whether Dynamo resumes depends on its value."""
        rebuilt = rebuilt_iterator(loop)
        if not rebuilt and isinstance(loop, cst.For) and isinstance(loop.iter, (cst.Name, cst.Attribute)):
            block.iterates = cst.Module([]).code_for_node(loop.iter)
        if rebuilt or block.iterates:
            found, unsure = unread_nodes(loop.body)
            for stmt in found:
                self._noted[id(stmt)] = (block, False)
            for stmt in unsure:
                self._noted[id(stmt)] = (block, True)

    def start(self, stmt: cst.CSTNode, events: list) -> None:
        """The traversal enters ``stmt``; ``events``: the function's events so far."""
        noted = self._noted.get(id(stmt))
        if noted is not None:
            self._open[id(stmt)] = noted + (len(events),)

    def end(self, stmt: cst.CSTNode, events: list) -> None:
        """The traversal leaves ``stmt`` (an ``if``: its test)."""
        found = self._open.pop(id(stmt), None)
        if found is not None:
            block, unsure, first = found
            lines = tuple((ev.span.line, ev.span.end_line) for ev in events[first:])
            if unsure:
                block.unread_first = block.unread_first + lines
            else:
                block.returns_first = block.returns_first + lines


def rebuilt_iterator(loop: cst.CSTNode) -> bool:
    """Whether Dynamo can resume inside ``loop`` at all: a ``while`` holds no iterator; a ``for`` over
    ``range(...)`` or a list or tuple display holds one it rebuilds in the resume function. Over
    anything else (``enumerate``, ``zip``, ``d.items()``, an ``nn.ModuleList``, a name whose value gblint
    does not read here) the resume function may need an iterator it cannot rebuild (GB0092): Dynamo
    then skips the frame after all (measured by a helper: 14 programs), so the loop's skip stays."""
    if isinstance(loop, cst.While):
        return True
    it = loop.iter
    if isinstance(it, (cst.List, cst.Tuple)):
        return True
    return isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "range"


def returns_first(blocks: Sequence[Block], line: int) -> Optional[str]:
    """Whether a break at ``line`` meets a ``return`` before the jump back of the innermost loop of ``blocks``
    (one of them is a loop): the lines its statements' events were read at (``Block.returns_first``). None: no,
    Dynamo skips the frame (GB7000); ``""``: yes, the break resumes; else the condition under which the frame is
    still skipped, the loop's iterator not rebuilt (``Block.iterates``)."""
    inner = next(b for b in reversed(blocks) if b.kind == BlockKind.LOOP)
    if any(a <= line <= b for a, b in inner.unread_first):
        return "no `return` comes before the loop's jump back"  # a layout gblint does not read
    if not any(a <= line <= b for a, b in inner.returns_first):
        return None
    return f"`{inner.iterates}` holds no list or tuple" if inner.iterates else ""


def _statements(suite: Optional[cst.BaseSuite]) -> Sequence[cst.BaseStatement]:
    if suite is None:
        return ()
    if isinstance(suite, cst.SimpleStatementSuite):
        return (cst.SimpleStatementLine(body=suite.body),) if suite.body else ()
    return suite.body


class _Scan:
    """Reads statements backwards: what comes first from each one on (``RETURN``, ``BACK`` or ``UNKNOWN``),
    given what comes after the block; notes the statements a ``RETURN`` follows first (``found``) and those an
    ``UNKNOWN`` does (``unsure``)."""

    def __init__(self, found: List[cst.CSTNode], unsure: Optional[List[cst.CSTNode]] = None):
        self.found = found
        self.unsure = unsure if unsure is not None else []

    def block(self, stmts: Sequence[cst.BaseStatement], after: str, at_end: bool, inner: bool) -> str:
        """What comes first from the start of ``stmts`` on, ``after`` following them. ``at_end``: the loop's
        jump back is laid out right after them (a jump to their end is threaded to it); ``inner``: they are
        in a loop nested after the break, whose jumps back land after the break (they do not count)."""
        for i in range(len(stmts) - 1, -1, -1):
            after = self.statement(stmts[i], after, at_end and i == len(stmts) - 1, inner)
        return after

    def statement(self, stmt: cst.BaseStatement, after: str, at_end: bool, inner: bool) -> str:
        """What comes first from the start of ``stmt`` on; notes ``stmt`` (or an ``if``'s test) when a break
        in it meets ``RETURN`` first."""
        if isinstance(stmt, cst.SimpleStatementLine):
            first = after
            for small in reversed(stmt.body):
                if isinstance(small, cst.Return):
                    first = RETURN
                elif isinstance(small, cst.Continue):
                    first = after if inner else BACK
            # a break in the line's one statement meets what follows it, or its own `return`
            if len(stmt.body) == 1 and first in (RETURN, UNKNOWN):
                (self.found if first == RETURN else self.unsure).append(stmt)
            return first
        if isinstance(stmt, cst.If):
            truth = _constant(stmt.test)
            if truth is not None:  # CPython keeps only the arm the constant takes, without the test
                arm = stmt.body if truth else stmt.orelse
                if isinstance(arm, cst.If):
                    return self.statement(arm, after, at_end, inner)
                return self.block(_statements(arm.body if isinstance(arm, cst.Else) else arm), after, at_end, inner) \
                    if arm is not None else after
            if _unread_test(stmt.test):
                return BACK  # a chained comparison: its cleanup's jump is threaded to the jump back (measured, kb48)
            return self._if(stmt, after, at_end, inner)
        if isinstance(stmt, cst.While) and _unread_test(stmt.test):
            return UNKNOWN
        if isinstance(stmt, (cst.For, cst.While)):
            rest = self.block(_statements(stmt.orelse.body), after, at_end, inner) if stmt.orelse is not None else after
            return self.block(_statements(stmt.body), rest, at_end=False, inner=True)
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            return after  # its body is a code object of its own: the statement stores a function
        # try, with, match: their layout is not read; with no `return` or `continue` in them, no jump back to the
        # break and no `return` is laid out there
        return UNKNOWN if _returns_in(stmt, True) else after

    def _if(self, stmt: cst.If, after: str, at_end: bool, inner: bool) -> str:
        orelse = stmt.orelse
        if isinstance(orelse, cst.If) and _unread_test(orelse.test):
            return UNKNOWN
        if orelse is None:
            end = after  # the test's jump lands past the body: what follows is laid out next
        else:
            rest = self._if(orelse, after, at_end, inner) if isinstance(orelse, cst.If) else \
                self.block(_statements(orelse.body), after, at_end, inner)
            # the jump over the `else`: threaded to the loop's jump back when that follows, else forward
            end = BACK if at_end and not inner else rest
        first = self.block(_statements(stmt.body), end, at_end, inner)
        if first in (RETURN, UNKNOWN):  # a break in the test meets the body first
            (self.found if first == RETURN else self.unsure).append(stmt)
        return first


def _returns_in(stmt: cst.CSTNode, continues: bool = False) -> bool:
    """Whether ``stmt`` holds a ``return`` (or, with ``continues``, a ``continue``) outside the functions and
    classes it defines."""
    found = []

    class _Find(OwnScopeVisitor):
        def visit_Return(self, node) -> None:
            found.append(node)

        def visit_Continue(self, node) -> None:
            if continues:
                found.append(node)

    stmt.visit(_Find())
    return bool(found)


def _constant(test: cst.BaseExpression) -> Optional[bool]:
    """The truth of a constant test (``__debug__``, ``True``, ``0``, ``"x"``, ``not None``), None for another."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _constant(test.expression)
        return None if inner is None else not inner
    if isinstance(test, cst.Name) and test.value in ("True", "False", "None", "__debug__"):
        return test.value in ("True", "__debug__")
    if isinstance(test, (cst.Integer, cst.Float, cst.SimpleString)):
        try:
            return bool(test.evaluated_value)
        except Exception:
            return None
    return None


def _unread_test(test: cst.BaseExpression) -> bool:
    """A test whose layout is not read: a chained comparison (its cleanup block, laid out before the body, holds
    a jump CPython threads to the jump back: measured, ``if 5 < i < 9: return h`` last in a ``for`` body skips
    the frame) or a constant (CPython drops the arm it never takes, ``return`` included)."""
    if isinstance(test, cst.Comparison) and len(test.comparisons) > 1:
        return True
    if isinstance(test, cst.UnaryOperation):
        return _unread_test(test.expression)
    return isinstance(test, (cst.Integer, cst.Float, cst.SimpleString)) or \
        (isinstance(test, cst.Name) and test.value in ("True", "False", "None", "__debug__"))


__all__: Tuple[str, ...] = ("ReturnsFirst", "rebuilt_iterator", "returning_nodes", "returns_first", "unread_nodes")
