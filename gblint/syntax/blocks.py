"""The blocks around each statement, as Dynamo's frame semantics need them.

Loops, ``while`` conditions, ``try``, ``with`` (and what its manager is: resumable, generic or
unsupported, ``docs/semantics.md`` §2), comprehensions and generator expressions, branches that
only run in eager mode (``if not torch.compiler.is_compiling():``). Each event records the stack
of blocks around it. :class:`gblint.syntax.summary.SummaryBuilder` owns a :class:`Blocks` and reaches
its ``visit_*``/``leave_*`` hooks through :func:`gblint.syntax.traversal.forward_hooks`.
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Optional, Protocol

import libcst as cst

from . import value_syntax
from .arm_kinds import ArmKinds, loop_back
from .loops import _names_bound as names_bound, loop_exits
from .backedge import ReturnsFirst, _returns_in
from .suites import (_all_exit, _exits, _jumps_on, _none_of, _pattern_test, _raises, _returns, no_backedge,
                     raises_test, return_test)
from ..core.model import Block, BlockKind, ContainerValue, Event, Expr, EventKind, Kind, LayerValue, Manager, ManagerKind, ManagerValue
from ..core.ops import Op
from ..core.names import dotted
from ..core.semantics import FAILING_MANAGERS, GRAD_MODE_MANAGERS, NON_RESUMABLE_GB, RESUMABLE_MANAGERS
from ..abstract.tensors import TORCH_CONTEXT_MANAGERS, UNSUPPORTED_MANAGERS, maybe_tensor, numpy_untraced
from .traversal import code_of, literal, names_in
from .bindings import note_guess
from .scope import FunctionScope

if TYPE_CHECKING:
    from .bindings import Bindings
    from .flows import Flows
    from ..core.model import FileSummary, Span
    from ..core.names import ImportTable
    from .refs import Refs


class BlocksHost(Protocol):
    """What :class:`Blocks` asks of the traversal (:class:`gblint.syntax.summary.SummaryBuilder`): the
    file's summary and imports, the scope being read, its collaborators, positions, the rules,
    events and the versions' facts."""

    summary: "FileSummary"
    imports: "ImportTable"
    scope: Optional[FunctionScope]
    refs: "Refs"
    bindings: "Bindings"
    flows: "Flows"

    @property
    def ctx(self) -> FunctionScope: ...

    def in_function(self) -> bool: ...

    def span(self, node: cst.CSTNode) -> "Span": ...

    def holds(self, fact: str) -> bool: ...

    def record_rules(self, node) -> None: ...

    def add_event(self, ev: Event) -> None: ...


#: statements after which the rest of their block never runs
_TERMINAL = (cst.Return, cst.Raise, cst.Continue, cst.Break)


class Blocks:
    """Pushes and pops the blocks of the current function as the traversal enters and leaves them,
    read through ``builder`` (a :class:`BlocksHost`). ``try_nodes``: the ``try`` statements around
    the node being read, innermost last (rules read it through ``ctx.builder``)."""

    def __init__(self, builder: BlocksHost):
        self.builder = builder
        self.summary = builder.summary
        self.try_nodes: list = []
        self._branch_tests: list = []  # (block, test node or text, negated): see fill_conditions
        self._match_stack: list = []  # the `match` statements being read, innermost last
        self.returns = ReturnsFirst()  # each loop block's lines where a break meets a `return` first
        self._suites: list = []  # per suite being read, innermost last: the blocks marking its dead rest

    @property
    def scope(self) -> Optional[FunctionScope]:
        """The scope the builder is reading."""
        return self.builder.scope

    def in_function(self) -> bool:
        """Whether the builder is inside a function body."""
        return self.builder.in_function()

    # -- blocks
    def push(self, kind: BlockKind, node, **kw) -> None:
        """Enter a block of ``kind`` that starts at ``node``."""
        if self.in_function():
            span = self.builder.span(node)
            block = Block(kind, span.line, self.scope.ops, column=span.column, exits_at_entry=self.scope.exits, **kw)
            self.scope.blocks.append(block)

    def pop(self) -> None:
        """Leave the innermost block (and the early returns noted inside it: see :meth:`leave_If`)."""
        if self.in_function():
            blocks = self.scope.blocks
            while blocks and blocks[-1].kind == BlockKind.AFTER_RETURN:
                blocks.pop()
            if blocks:
                blocks.pop()

    def visit_For_body(self, node: cst.For) -> None:
        guard = value_syntax.empty_arm(node)
        if guard is not None and self.in_function():  # the body runs only where the arm chosen is not empty
            test = value_syntax.expr_of(guard[0], self.scope)
            self.push(BlockKind.BRANCH, node, test=Expr(Op.NOT, parts=(test,)) if guard[1] else test)
            self._branch_tests.append((self.scope.blocks[-1], guard[0], guard[1]))
        self.push(BlockKind.LOOP, node)
        if self.in_function():
            self.returns.enter_loop(node, self.scope.blocks[-1])
            self.scope.loop_values[id(self.scope.blocks[-1])] = self.scope.pending_loop
            self.scope.note_loop_entry()
            loop = self.scope.blocks[-1]
            self.scope.loop_runs[id(loop)] = value_syntax.loop_runs(node, self.scope)
            if self.scope.loop_runs[id(loop)][0] is not None:  # `range(n)` with n <= 0: its body never runs
                loop.test = self.scope.loop_runs[id(loop)][0]
                if any(b.kind == BlockKind.LOOP for b in self.scope.blocks[:-1]):
                    self.scope.note_in_loop(loop)
            if sum(b.kind == BlockKind.LOOP for b in self.scope.blocks) == 1:  # its target is bound at every step
                for name in names_in(node.target):
                    self.scope.note_loop_bind(name)
            loop_back(self.scope, node.body)
        # each step (FOR_ITER) runs in the loop: __next__, a generator's body, __getitem__
        self.builder.flows.note_iteration(node.iter, at=node)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if self.in_function():
            self.returns.start(node, self.scope.pending)

    def leave_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if self.in_function():
            self.returns.end(node, self.scope.pending)
        if self.in_function() and self._suites and any(isinstance(small, _TERMINAL) for small in node.body):
            # what follows in the same suite never runs (CPython drops it): under a test that is never true, until
            # the suite ends (an `except` clause after a `try` body that returns still runs)
            self.push(BlockKind.AFTER_RETURN, node, test=Expr(Op.CONST, value=False))
            self._suites[-1].append(self.scope.blocks[-1])

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._suites.append([])

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        dead = self._suites.pop() if self._suites else []
        if dead and self.in_function():
            blocks = self.scope.blocks
            blocks[:] = [b for b in blocks if not any(b is d for d in dead)]

    def leave_For_body(self, node: cst.For) -> None:
        self.pop()
        if value_syntax.empty_arm(node) is not None:
            self.pop()

    def visit_For_orelse(self, node: cst.For) -> None:
        self._loop_else(node, push=True)

    def leave_For_orelse(self, node: cst.For) -> None:
        self._loop_else(node, push=False)

    def visit_While_orelse(self, node: cst.While) -> None:
        self._loop_else(node, push=True)

    def leave_While_orelse(self, node: cst.While) -> None:
        self._loop_else(node, push=False)

    def _loop_else(self, node, push: bool) -> None:
        """A loop's ``else`` runs only when the loop ends without ``break``: under a branch whose test is not
        known when the body may break."""
        if not self.in_function() or node.orelse is None or not loop_exits(node.body)[0]:
            return
        if push:
            self.push(BlockKind.BRANCH, node.orelse, test=Expr(Op.UNKNOWN), condition="the loop ends without `break`")
            self.note_loop_value()
        else:
            self.pop()

    def leave_For(self, node: cst.For) -> None:
        self._after_loop(node)

    def leave_While(self, node: cst.While) -> None:
        self._after_loop(node)

    def _after_loop(self, node) -> None:
        """What follows a loop whose body may ``return`` runs only when no step returned: like the rest after an
        ``if`` that returns (an ``AFTER_RETURN`` block), under a test that is not known."""
        if self.in_function() and loop_exits(node.body)[1]:
            self.push(BlockKind.AFTER_RETURN, node, test=Expr(Op.UNKNOWN), condition="the loop does not `return`")
            self.note_loop_value()

    def visit_For(self, node: cst.For) -> None:
        if self.in_function():
            self.scope.pending_loop = value_syntax.loop_values(node, self.scope)
        self.builder.bindings.note_rebound(node.target)
        self.builder.flows.note_loop(node.target, node.iter)
        if not self.in_function():
            return
        self.builder.record_rules(node)  # what the loop iterates is read once, before the loop
        if isinstance(node.target, cst.Name):
            k = self.scope.kind(node.iter)
            target = node.target.value
            self.scope.env[target] = Kind.MODULE if k == Kind.MODULE else (Kind.TENSOR if k == Kind.TENSOR else Kind.UNKNOWN)
            note_guess(target, node.iter, self.scope)
            self.scope.values.pop(target, None)
        self.bind_loop_target(node.target, node.iter, nested=False)

    def bind_loop_target(self, target, it, nested: bool = True) -> None:
        """Bind what a ``for`` target takes from ``it`` when it iterates over a container of
        modules (``self.layers``), through ``enumerate(...)``, ``reversed(...)`` and ``zip(...)``
        (``for i, (conv, norm) in enumerate(zip(self.convs, self.norms))``)."""
        if isinstance(it, cst.Call) and dotted(it.func) == "reversed" and it.args:
            return self.bind_loop_target(target, it.args[0].value, nested)
        if isinstance(it, cst.Call) and dotted(it.func) == "enumerate" and it.args:
            if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2:
                self.bind_loop_target(target.elements[1].value, it.args[0].value)
            return
        if isinstance(it, cst.Call) and dotted(it.func) == "zip":
            if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == len(it.args):
                for arg, elt in zip(it.args, target.elements):
                    self.bind_loop_target(elt.value, arg.value)
            return
        if self.scope.kind(it) == Kind.TENSOR:
            # iterating a tensor gives tensors (its rows), and unpacking a row gives tensors again
            return self.bind_tensor_elements(target, it)
        if isinstance(target, cst.Name):
            ref = self.builder.refs.self_attr(it, self.scope)
            name = target.value
            if isinstance(ref, ContainerValue):
                self.scope.env[name] = Kind.MODULE
                self.scope.values[name] = LayerValue(ref.classes)
            elif nested:  # an element of what zip()/enumerate() yields: nothing known of it
                self.scope.env[name] = Kind.UNKNOWN
                self.scope.values.pop(name, None)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for elt in target.elements:
                if isinstance(elt.value, cst.Name):
                    self.scope.env[elt.value.value] = Kind.UNKNOWN
                    self.scope.values.pop(elt.value.value, None)

    def bind_tensor_elements(self, target, it) -> None:
        """Bind the names of ``target`` to what iterating the tensor ``it`` gives: tensors (a row, an
        element of a 1-d tensor is a 0-d tensor; unpacking one gives its rows), a guess when ``it``
        is a tensor only by a guess."""
        if isinstance(target, cst.Name):
            self.scope.env[target.value] = Kind.TENSOR
            note_guess(target.value, it, self.scope)
            self.scope.values.pop(target.value, None)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for elt in target.elements:
                self.bind_tensor_elements(elt.value, it)

    def visit_While_test(self, node: cst.While) -> None:
        if not no_backedge(node):  # a `while` that cannot repeat: its test is an `if` test
            self.push(BlockKind.WHILE_TEST, node)

    def leave_While_test(self, node: cst.While) -> None:
        self.builder.record_rules(node)
        if not no_backedge(node):
            self.pop()

    def visit_While_body(self, node: cst.While) -> None:
        """The body runs only when the test is true when the loop begins (``while v:`` with ``v``
        false never runs it): a branch on the test, as ``if v:`` (the test as the values give it
        before the loop, which the body may change only for later iterations). Inside it, a loop,
        unless the body cannot jump back (:func:`no_backedge`): then Dynamo sees no loop and a
        break in the body resumes."""
        self.push_while_guard(node)
        if not no_backedge(node):
            self.push(BlockKind.LOOP, node)
            if self.in_function():
                self.returns.enter_loop(node, self.scope.blocks[-1])
                self.scope.note_loop_entry()
                loop_back(self.scope, node.body)

    def leave_While_body(self, node: cst.While) -> None:
        if not no_backedge(node):
            self.pop()
        self.pop()

    def push_while_guard(self, node: cst.While) -> None:
        """The branch block of a ``while`` body (:meth:`visit_While_body`)."""
        if not self.in_function():
            return
        value = value_syntax.expr_of(node.test, self.scope)
        self.push(BlockKind.BRANCH, node, test=value)
        self._branch_tests.append((self.scope.blocks[-1], node.test, False))
        self.note_loop_value()

    def visit_Try(self, node: cst.Try) -> None:
        self.push(BlockKind.TRY, node)
        self.try_nodes = self.try_nodes + [node]  # the `try` statements around the node being read, innermost last
        self.builder.record_rules(node)

    def leave_Try(self, node: cst.Try) -> None:
        self.pop()
        self.try_nodes = self.try_nodes[:-1]

    def visit_Try_handlers(self, node: cst.Try) -> None:
        self.leave_try_body()

    def visit_Try_orelse(self, node: cst.Try) -> None:
        self.leave_try_body(BlockKind.HANDLER if node.finalbody is not None else BlockKind.TRY_ELSE)

    def visit_Try_finalbody(self, node: cst.Try) -> None:
        self.leave_try_body()

    def leave_try_body(self, kind: BlockKind = BlockKind.HANDLER) -> None:
        """Past a ``try`` body, in its ``except``/``else``/``finally`` clauses: a break there still
        cannot resume, but a ``raise`` there is not caught by the same statement's handlers
        (``docs/semantics.md`` §3.2). An ``else`` clause with no ``finally`` after it (``kind`` TRY_ELSE) lies outside
        every exception-table entry of the statement: a break there resumes (measured: tests/cases/kinds kd2)."""
        if self.in_function() and self.scope.blocks and self.scope.blocks[-1].kind in (
                BlockKind.TRY, BlockKind.HANDLER, BlockKind.TRY_ELSE):
            self.scope.blocks[-1] = dataclasses.replace(self.scope.blocks[-1], kind=kind)

    def visit_TryStar(self, node) -> None:
        self.push(BlockKind.TRY, node)

    def leave_TryStar(self, node) -> None:
        self.pop()

    def visit_IfExp_body(self, node: cst.IfExp) -> None:
        # `a if test else b`: each arm runs only when the test says so, as an `if` statement's branches
        self.push_guard(node, negate=False)

    def leave_IfExp_body(self, node: cst.IfExp) -> None:
        self.pop()

    def visit_IfExp_orelse(self, node: cst.IfExp) -> None:
        self.push_guard(node, negate=True)

    def leave_IfExp_orelse(self, node: cst.IfExp) -> None:
        self.pop()

    def visit_If(self, node: cst.If) -> None:
        if self.in_function():
            self.returns.start(node, self.scope.pending)
        self.builder.bindings.enter_if_values(node)
        if self.in_function():
            self.scope.arm_stack.append(ArmKinds(self.scope))

    def visit_If_body(self, node: cst.If) -> None:
        if self.in_function():
            self.returns.end(node, self.scope.pending)  # the test's events
        self.push_guard(node, negate=False, suite=node.body)
        if self.in_function():
            self.builder.bindings.note_if_test(node, self.scope.blocks[-1].test if self.scope.blocks else None)
            self._start_arm(node.test, False)

    def leave_If_body(self, node: cst.If) -> None:
        self._end_arm(not _exits(node.body) and self.builder.ctx.compiling_guard(node.test) is not False)
        self.pop()

    def visit_If_orelse(self, node: cst.If) -> None:
        self.builder.bindings.enter_else_values(node)
        self.push_guard(node, negate=True, suite=node.orelse.body if isinstance(node.orelse, cst.Else) else None)
        if self.in_function():
            self._start_arm(node.test, True)

    def leave_If_orelse(self, node: cst.If) -> None:
        if node.orelse is not None:  # (libcst visits the field when it is None too)
            flows = not (_exits(node.orelse.body) if isinstance(node.orelse, cst.Else) else _all_exit(node.orelse))
            self._end_arm(flows and self.builder.ctx.compiling_guard(node.test) is not True)
        self.pop()

    def _start_arm(self, test_node, negate: bool, text: str = "") -> None:
        if self.in_function() and self.scope.arm_stack:
            block = self.scope.blocks[-1] if self.scope.blocks else None
            self.scope.arm_stack[-1].start_arm(block.test if block is not None else None, text or (test_node, negate))

    def _end_arm(self, flows: bool) -> None:
        if self.in_function() and self.scope.arm_stack:
            self.scope.arm_stack[-1].end_arm(flows)

    def _finish_arms(self, rest) -> None:
        if self.in_function() and self.scope.arm_stack:
            self.scope.arm_stack.pop().finish(rest)

    def leave_If(self, node: cst.If) -> None:
        """``if torch.compiler.is_compiling(): return`` at a function's top level: under Dynamo the
        rest of the function never runs (PyTorch Geometric's ``warn``, transformers' helpers).
        After any other ``if`` whose body returns, the rest of the enclosing block runs only when
        its test is false: an ``AFTER_RETURN`` block with the negated test, until that block ends."""
        if node.orelse is None and self.in_function() and self.scope.arm_stack:
            guard = self.builder.ctx.compiling_guard(node.test)
            rest = Expr(Op.NOT, parts=(value_syntax.expr_of(node.test, self.scope),)) if guard is None else \
                Expr(Op.CONST, value=not guard)
            self._finish_arms((rest, (node.test, True)))
        else:
            self._finish_arms(None)
        body_exits = _exits(node.body)
        else_exits = isinstance(node.orelse, cst.Else) and _exits(node.orelse.body)
        self.builder.bindings.leave_if_values(node, (not body_exits, not else_exits))
        if self.in_function() and node.orelse is None and not body_exits and _jumps_on(node.body) \
                and any(b.kind == BlockKind.LOOP for b in self.scope.blocks) \
                and self.builder.ctx.compiling_guard(node.test) is None:
            # `if t: continue` / `break`: the rest of the loop's body runs in a step only when `t` is false
            self.push(BlockKind.AFTER_RETURN, node, test=Expr(Op.NOT, parts=(value_syntax.expr_of(node.test, self.scope),)))
            self._branch_tests.append((self.scope.blocks[-1], node.test, True))
            self.note_loop_value()
            return
        if self.in_function() and not (body_exits and else_exits) and not (node.orelse is None and _returns(node.body)) \
                and _returns_in(node) and self.builder.ctx.compiling_guard(node.test) is None:
            # a `return` nested in an arm (`if a: if b: return`): the rest runs only when that arm did not return
            # (measured: tests/cases/kinds kd26)
            returns = return_test(node, self.scope)
            test, said = (Expr(Op.UNKNOWN), "the `if` does not `return`") if returns is None else \
                (Expr(Op.NOT, parts=(returns[0],)), f"not ({returns[1]})")
            self.push(BlockKind.AFTER_RETURN, node, test=test, condition=said)
            return
        if not self.in_function() or node.orelse is not None or not body_exits:
            return
        guard = self.builder.ctx.compiling_guard(node.test)
        if guard is True and all(b.kind == BlockKind.AFTER_RETURN for b in self.scope.blocks):
            self.push(BlockKind.EAGER_ONLY, node)  # never popped: it lasts to the end of the function
        elif guard is None and _returns(node.body):
            test = Expr(Op.NOT, parts=(value_syntax.expr_of(node.test, self.scope),))
            self.push(BlockKind.AFTER_RETURN, node, test=test)
            self._branch_tests.append((self.scope.blocks[-1], node.test, True))

    # -- `match`: each case's body runs only when its pattern matches and no earlier case did
    def visit_Match(self, node) -> None:
        if self.in_function():
            self._forget_bound(node)
            self._match_stack.append((node, value_syntax.expr_of(node.subject, self.scope), [],
                                      f"match {code_of(node.subject).strip()}"))
            self.scope.arm_stack.append(ArmKinds(self.scope))

    def visit_MatchCase(self, node) -> None:
        if not self.in_function() or not self._match_stack:
            return
        match, subject, earlier, said = self._match_stack[-1]
        self._forget_bound(match)  # each case starts from the values before the statement: one case runs
        this = _pattern_test(node.pattern, subject, self.scope)
        if node.guard is not None:
            this = Expr(Op.AND, parts=(this, value_syntax.expr_of(node.guard, self.scope)))
        test = Expr(Op.AND, parts=_none_of(earlier) + (this,)) if earlier else this
        earlier.append(this)
        kind = BlockKind.ERROR_PATH if _raises(node.body) else BlockKind.BRANCH
        self.push(kind, node, test=test)
        text = f"{said}: case {code_of(node.pattern).strip()}"
        if node.guard is not None:
            text += f" if {code_of(node.guard).strip()}"
        if kind == BlockKind.BRANCH:
            self._branch_tests.append((self.scope.blocks[-1], text, False))
        self._start_arm(None, False, text)
        self.note_loop_value()

    def leave_MatchCase(self, node) -> None:
        if self.in_function() and self._match_stack:
            self._end_arm(not _exits(node.body))
            self.pop()

    def leave_Match(self, node) -> None:
        if self.in_function() and self._match_stack:
            _match, _subject, earlier, said = self._match_stack.pop()
            self._forget_bound(node)
            always = any(isinstance(c.pattern, cst.MatchAs) and c.pattern.pattern is None and c.guard is None
                         for c in node.cases)
            self._finish_arms(None if always else (Expr(Op.AND, parts=_none_of(earlier)), f"{said}: no case"))

    def _forget_bound(self, node) -> None:
        """The names bound anywhere in ``node`` (a ``match`` statement) hold what only one of its cases
        bound, or what they held before: unknown."""
        for name in sorted(names_bound(node)):
            self.builder.bindings.note_rebound(cst.Name(name))

    def note_exit(self) -> None:
        """A ``return``, ``continue`` or ``break`` read: an event after it in the same block is not met on every
        way through the block (:mod:`gblint.dynamo.branch_cover`)."""
        if self.in_function():
            self.scope.exits += 1

    def leave_Continue(self, node: cst.Continue) -> None:
        self.note_exit()

    def leave_Break(self, node: cst.Break) -> None:
        self.note_exit()

    def visit_ExceptHandler_body(self, node: cst.ExceptHandler) -> None:
        tries = self.try_nodes
        test = raises_test(tries[-1], node, self.scope) if tries and self.in_function() else None
        self.push(BlockKind.ERROR_PATH, node, test=test)

    def leave_ExceptHandler_body(self, node: cst.ExceptHandler) -> None:
        self.pop()

    def push_guard(self, node: cst.If, negate: bool, suite=None) -> None:
        """``if not torch.compiler.is_compiling():`` bodies run only in eager: ignore them. A
        branch that raises (``suite``'s statements include a ``raise``) is an error path:
        Dynamo traces only the branch the values take, and a normal run does not take it."""
        value = self.builder.ctx.compiling_guard(node.test) if self.in_function() else None
        eager_only = value is not None and value == negate
        kind = BlockKind.EAGER_ONLY if eager_only else BlockKind.ERROR_PATH if _raises(suite) else BlockKind.BRANCH
        value = None
        if kind != BlockKind.EAGER_ONLY and self.in_function():
            value = value_syntax.expr_of(node.test, self.scope)
            value = Expr(Op.NOT, parts=(value,)) if negate else value
        self.push(kind, node, test=value)
        if kind == BlockKind.BRANCH and self.in_function():
            # the test as written (``condition``) is generated at the end, for the blocks an event holds
            self._branch_tests.append((self.scope.blocks[-1], node.test, negate))
        self.note_loop_value()

    def fill_conditions(self) -> None:
        """Give each branch block that an event of the summary holds its test as written
        (``Block.condition``, ``not (...)`` for an ``else``). Only diagnostics read it, through
        the events; libcst's code generation is costly, and most branches hold no event."""
        pending = self._branch_tests
        if not pending:
            return
        held = {id(b) for info in self.summary.functions.values() for ev in info.events for b in ev.blocks}
        for block, test_node, negate in pending:
            if id(block) in held:
                test = test_node if isinstance(test_node, str) else code_of(test_node).strip()
                block.condition = f"not ({test})" if negate and test else test
        self._branch_tests = []

    def note_loop_value(self) -> None:
        """Remember the block just entered if it lies in a loop: a parameter its test reads may
        be rebound later in the loop (:func:`gblint.abstract.values.forget`, at the function's end)."""
        if self.in_function() and self.scope.blocks and any(b.kind == BlockKind.LOOP for b in self.scope.blocks[:-1]):
            self.scope.note_in_loop(self.scope.blocks[-1])

    def visit_BooleanOperation_right(self, node: cst.BooleanOperation) -> None:
        # `not is_compiling() and X`: X never runs under Dynamo (short-circuit)
        value = self.builder.ctx.compiling_guard(node.left) if self.in_function() else None
        skip = value is not None and value == isinstance(node.operator, cst.Or)
        if self.in_function():  # no position: nothing reports an operand block's line
            test = None
            if not skip:
                test = value_syntax.expr_of(node.left, self.scope)
                test = Expr(Op.NOT, parts=(test,)) if isinstance(node.operator, cst.Or) else test
            self.scope.blocks.append(Block(BlockKind.EAGER_ONLY if skip else BlockKind.OPERAND, 0, self.scope.ops,
                                           test=test, exits_at_entry=self.scope.exits))
            self.note_loop_value()

    def leave_BooleanOperation_right(self, node: cst.BooleanOperation) -> None:
        self.pop()

    def visit_With_body(self, node: cst.With) -> None:
        if not self.in_function():
            return
        for item in node.items:  # the managers are built (visited) before the body is entered
            m = self.classify_manager(item.item)
            if m.kind in (ManagerKind.UNSUPPORTED, ManagerKind.FAILS):
                self.builder.add_event(Event(EventKind.WITH, self.builder.span(item.item), tuple(self.scope.blocks),
                                             self.scope.ops, manager=m, gb_ids=(m.gb_id,) if m.gb_id else (),
                                             detail=f"`with {m.label}`"))
        for item in node.items:
            m = self.classify_manager(item.item)
            span = self.builder.span(node)
            block = Block(BlockKind.WITH, span.line, self.scope.ops, manager=m, column=span.column)
            self.scope.blocks.append(block)
            if m.kind == ManagerKind.RESUMABLE and m.label.startswith(GRAD_MODE_MANAGERS):
                self.scope.ops += 1

    def leave_With_body(self, node: cst.With) -> None:
        if not self.in_function():
            return
        for _ in node.items:
            self.pop()

    def classify_manager(self, expr: cst.BaseExpression) -> Manager:
        """What the manager ``expr`` of a ``with`` item is: a known constructor, a name bound to
        one, a global or a free variable (unknown objects: unsupported), or a call of something
        else (maybe a ``@contextmanager`` of the checked code)."""
        scope = self.scope
        label = code_of(expr)
        if isinstance(expr, cst.Call):
            q = scope.resolve(expr.func)
            if q in FAILING_MANAGERS and self.builder.holds(FAILING_MANAGERS[q]):
                return Manager(ManagerKind.FAILS, label)
            if q in RESUMABLE_MANAGERS:
                strict = None
                if q == "torch._dynamo.error_on_graph_break" and expr.args:
                    strict = literal(expr.args[0].value)
                return Manager(ManagerKind.RESUMABLE, label, strict=strict if isinstance(strict, bool) else None)
            if q in UNSUPPORTED_MANAGERS:  # one of torch's own: its call breaks first (GB0208)
                return Manager(ManagerKind.UNSUPPORTED, label, gb_id="GB0208" if q in TORCH_CONTEXT_MANAGERS else "GB0142")
            if q and numpy_untraced(q):  # `np.errstate(...)`: its call breaks (GB0294), then the `with` (kd15)
                return Manager(ManagerKind.UNSUPPORTED, label, gb_id="GB0142")
            if q in NON_RESUMABLE_GB:
                return Manager(ManagerKind.GENERIC, label, gb_id=NON_RESUMABLE_GB[q])
            return Manager(ManagerKind.GENERIC, label)
        if isinstance(expr, cst.Name):
            name = expr.value
            local = scope.values.get(name)
            if isinstance(local, ManagerValue):
                q = local.name
                kind = ManagerKind.RESUMABLE if q in RESUMABLE_MANAGERS else \
                    ManagerKind.UNSUPPORTED if q in UNSUPPORTED_MANAGERS else ManagerKind.GENERIC
                return Manager(kind, label, gb_id="GB0142" if kind == ManagerKind.UNSUPPORTED else "GB0066")
            # a manager object from a global or a closure (what Dynamo reports changed in 2.14)
            gb = "GB0008" if self.builder.holds("global-manager-gb0008") else "GB0142"
            if scope.lookup(name) is None and name in self.summary.module_names:
                return Manager(ManagerKind.UNSUPPORTED, label, gb_id=gb)
            if scope.lookup(name) is None and scope.parent is not None:
                return Manager(ManagerKind.UNSUPPORTED, label, gb_id=gb)
        return Manager(ManagerKind.GENERIC, label)

    # -- comprehensions and generator expressions
    def comp_block(self, node, kind: str) -> None:
        """Enter a comprehension (``kind`` list, set or dict) or generator expression (``gen``),
        noting what Dynamo's handling of it depends on: whether it holds a tensor-related object
        and whether it iterates over ``.items()`` or ``enumerate``."""
        if not self.in_function():
            return
        holds = unknown = False
        over_items = False
        it = node.for_in.iter
        if isinstance(it, cst.Call) and isinstance(it.func, cst.Attribute) and it.func.attr.value in ("items",):
            over_items = True
        if isinstance(it, cst.Call) and dotted(it.func) == "enumerate":
            over_items = True
        # a dict comprehension over anything but a sequence display or range() may iterate a dict
        # (measured/b14_dictcomp_keys.py); over a list of keys it is a plain comprehension (n07)
        if kind == "dict" and not isinstance(it, (cst.List, cst.Tuple)) and not (
                isinstance(it, cst.Call) and dotted(it.func) == "range"):
            over_items = True
        bound = set()
        f = node.for_in
        while f is not None:
            for n in names_in(f.target):
                bound.add(n)
            f = f.inner_for_in
        parts = [node.elt] if not isinstance(node, cst.DictComp) else [node.key, node.value]
        for part in parts:
            for n in names_in(part):
                if n in bound:
                    continue
                k = self.scope.lookup(n)
                # Dynamo declines a comprehension frame that holds no tensor-related object; a
                # module (`self`, a layer) counts as one (measured on 2.13, tests/fixtures/measured)
                if k is not None and (maybe_tensor(k) or k in (Kind.MODULE, Kind.SELF)):
                    holds = True
                elif k == Kind.UNKNOWN:
                    unknown = True
                elif k is None and (self.builder.imports.lookup(n) or "").split(".")[0] == "torch":
                    holds = True
        span = self.builder.span(node)
        # in its own frame (the code around it runs eagerly) Dynamo iterates a range or a tuple, not a
        # list, zip, enumerate or dict iterator (tests/cases/comprehensions)
        eager_ok = isinstance(it, cst.Tuple) or (isinstance(it, cst.Call) and dotted(it.func) == "range")
        block = Block(BlockKind.GENEXPR if kind == "gen" else BlockKind.COMP, span.line, self.scope.ops,
                      comp_kind=kind, holds_tensor=holds, over_items=over_items, column=span.column, eager_ok=eager_ok,
                      reads_unknown=unknown)
        self.scope.blocks.append(block)
        self.builder.add_event(Event(EventKind.COMP, span, tuple(self.scope.blocks), self.scope.ops))
        self.scope.comp_names.append((node.for_in, frozenset(bound), node))

    def leave_comp(self) -> None:
        """Leave a comprehension (its block, and the names it binds in its own scope)."""
        if self.in_function():
            self.scope.comp_names.pop()
        self.pop()

    def visit_ListComp(self, node):
        self.comp_block(node, "list")

    def leave_ListComp(self, node):
        self.leave_comp()

    def visit_SetComp(self, node):
        self.comp_block(node, "set")

    def leave_SetComp(self, node):
        self.leave_comp()

    def visit_DictComp(self, node):
        self.comp_block(node, "dict")

    def leave_DictComp(self, node):
        self.leave_comp()

    def leave_Assert(self, node):
        self.builder.record_rules(node)  # rules/control_flow.py: `assert` on a tuple of tensors

    def visit_GeneratorExp(self, node):
        self.comp_block(node, "gen")

    def leave_GeneratorExp(self, node):
        self.leave_comp()

    # -- generators
    def visit_Yield(self, node: cst.Yield) -> None:
        if self.in_function():
            self.scope.is_generator = True

