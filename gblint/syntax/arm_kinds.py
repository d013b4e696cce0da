"""The kinds of names bound in the arms of an ``if`` or a ``match``, after the statement.

Dynamo traces only the arm the run's values take (``docs/semantics.md`` §0, rule 6): after
``if flag: w = 3`` / ``else: w = x.sum()`` the name ``w`` is a tensor only when ``flag`` is false. Each arm
starts from the kinds the names had before the statement; where the arms that run on to what follows agree,
the name keeps that kind; where some make it a tensor and others do not, it is a tensor *when* those arms'
tests hold, and a break that needs it to be one is gated on them (:func:`site_gate`): conditional, or left
out where the walk decides the test is false. Before this, the last arm's binding was taken for every run,
and ``if w > 1:`` above was a definite break (a false one where ``flag`` is true).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import libcst as cst

from .loops import OwnScopeVisitor
from ..core.model import Block, BlockKind, Expr, Kind
from ..core.ops import Op
from ..abstract.tensors import maybe_tensor
from .traversal import code_of, names_in, read_walk

# a name's kind is a tensor only when ``gate`` holds (``text`` in words); ``other``: its kind otherwise
Gate = Tuple[Expr, str, str]


class ArmKinds:
    """One ``if``/``match`` statement being read in ``scope`` (a :class:`gblint.syntax.scope.FunctionScope`):
    the kinds and gates before it of the names it binds (``before``, filled as they are bound), and those at the
    end of each arm read so far that runs on to what follows (``arms``)."""

    __slots__ = ("scope", "before", "arms", "test", "text")

    def __init__(self, scope) -> None:
        self.scope = scope
        self.before: Dict[str, tuple] = {}  # filled as names are bound (:meth:`note`): the statement's names
        self.arms: List[Tuple[Expr, str, Dict[str, tuple]]] = []
        self.test: Optional[Expr] = None
        self.text = ""

    def note(self, name: str) -> None:
        """``name`` is about to be bound inside the statement (the first time: its kind before the statement)."""
        if name not in self.before:
            self.before[name] = (self.scope.env.get(name), self.scope.kind_gates.get(name))

    def _now(self) -> Dict[str, tuple]:
        gates = self.scope.kind_gates
        return {n: (self.scope.env.get(n), gates.get(n)) for n in self.before}

    def start_arm(self, test: Optional[Expr], text: str) -> None:
        """An arm taken when ``test`` holds (None: not known) begins, from the kinds before the statement."""
        self._restore(self.before)
        self.test, self.text = (test if test is not None else Expr(Op.UNKNOWN)), text

    def end_arm(self, flows: bool) -> None:
        """The arm being read ends; ``flows``: whether it may run on to what follows the statement."""
        if flows:
            self.arms.append((self.test, self.text, self._now()))

    def finish(self, rest: Optional[Tuple[Expr, str]]) -> None:
        """The statement ends; ``rest``: the test (and its words) under which no arm runs (an ``if`` without
        ``else``, a ``match`` without an irrefutable case), None when one always runs."""
        arms = list(self.arms)
        if rest is not None:
            arms.append((rest[0], rest[1], self.before))
        if not arms:  # no arm runs on: what follows is not reached from here
            return
        merged = {}
        for name, before in self.before.items():
            ends = [(test, text, state.get(name, before)) for test, text, state in arms]
            kinds = {kind for _, _, (kind, _) in ends}
            gates = {gate for _, _, (_, gate) in ends}
            if len(kinds) == 1 and len(gates) == 1:
                merged[name] = ends[0][2]
                continue
            tensor = [(test, text, kind, gate) for test, text, (kind, gate) in ends if kind and maybe_tensor(kind)]
            other = [kind or Kind.UNKNOWN for _, _, (kind, _) in ends if not (kind and maybe_tensor(kind))]
            if not tensor:
                merged[name] = (Kind.UNKNOWN, None)
                continue
            if not other:  # a tensor in every arm, gated in some: when one of the gates holds (none: always)
                merged[name] = (tensor[0][2], _union([(g[0], g[1]) if g else (Expr(Op.CONST, value=True), "")
                                                      for *_, g in tensor], Kind.UNKNOWN))
                continue
            parts = []
            for test, text, _, gate in tensor:
                text = words(text)
                if gate is not None:
                    test = Expr(Op.AND, parts=(test, gate[0]))
                    text = f"{text} and {gate[1]}" if text else gate[1]
                parts.append((test, text))
            merged[name] = (tensor[0][2], _union(parts, other[0] if len(set(other)) == 1 else Kind.UNKNOWN))
        self._restore(merged)

    def _restore(self, state: Dict[str, tuple]) -> None:
        env, gates = self.scope.env, self.scope.kind_gates
        for name, (kind, gate) in state.items():
            if kind is None:
                env.pop(name, None)
            else:
                env[name] = kind
            if gate is None:
                gates.pop(name, None)
            else:
                gates[name] = gate


def _union(parts, other: str) -> Optional[Gate]:
    """The gate that holds when one of ``parts`` (tests and their words) holds; None when one always holds."""
    if any(t.op == Op.CONST and t.value is True for t, _ in parts):
        return None
    test = parts[0][0] if len(parts) == 1 else Expr(Op.OR, parts=tuple(t for t, _ in parts))
    return test, " or ".join(f"({w})" if len(parts) > 1 else w for _, w in parts), other


def words(text) -> str:
    """``text`` of an arm (a string, or a test node and whether the arm is its ``else``) in words."""
    if isinstance(text, str):
        return text
    node, negate = text
    code = code_of(node).strip()
    return f"not ({code})" if negate else code


def site_gate(scope, node, rerun) -> Optional[Tuple[Expr, str]]:
    """The test under which a break a rule found at ``node`` happens, when it needs a name of ``node`` to be
    a tensor that is one only in some arms of an earlier ``if``/``match`` (None: it happens whatever those
    arms did). ``rerun()`` runs the rule again with those names at their kinds in the other arms and says
    whether it still finds a break at ``node``.

    Args:
        scope (gblint.syntax.scope.FunctionScope): the function being read.
        node (libcst.CSTNode): the node the rule read.
        rerun (Callable[[], bool]): the rule run again on ``node``.
    """
    gates = scope.kind_gates
    if not gates:
        return None
    gated = sorted({n for n in names_in(node) if n in gates and n in scope.env})
    if not gated:
        return None
    saved = {n: scope.env[n] for n in gated}
    try:
        for n in gated:
            scope.env[n] = gates[n][2]
        still = rerun()
    finally:
        for n, kind in saved.items():
            scope.env[n] = kind
    if still:
        return None
    chosen = [gates[n] for n in gated]
    if len(chosen) == 1:
        return chosen[0][0], chosen[0][1]
    return Expr(Op.OR, parts=tuple(g[0] for g in chosen)), " or ".join(f"({g[1]})" for g in chosen)


def gate_blocks(scope, site, line: int, node) -> tuple:
    """The blocks a break site found by a rule at ``node`` (a libcst node) adds around its event, besides those
    of the statement: the rule's own gate (``site.gate``, a test on the values of the call) and the test of the
    arms that made a name it needs a tensor (:func:`site_gate`); each a :class:`gblint.core.model.Block` on
    ``line``.

    Args:
        scope (gblint.syntax.scope.FunctionScope): the function being read.
        site (rules.base.BreakSite): what the rule found.
        line (int): the line of the site.
        node (libcst.CSTNode): the node the rule read.
    """
    out = []
    if site.gate is not None:  # a break that happens only for some values of the call
        out.append(Block(BlockKind.GATE if site.gate_kind == "gate" else BlockKind.BRANCH, line, scope.ops,
                         test=site.gate, condition=site.gate_text, exits_at_entry=scope.exits))

    def rerun() -> bool:
        found = site.rule.check(node, scope)
        found = found if isinstance(found, (list, tuple)) else (found,) if found is not None else ()
        # a break found there only under a gate of its own (a value the walk must prove a tensor) is not sure
        return any(f.node is site.node and (f.gate is None or f.gate == site.gate) for f in found)

    arms = site_gate(scope, node, rerun) if site.needs is not None else None
    if arms is not None:
        out.append(Block(BlockKind.BRANCH, line, scope.ops, test=arms[0], condition=arms[1],
                         exits_at_entry=scope.exits))
    for block in out:
        scope.note_in_loop(block)
    return tuple(out)


class _LoopBindings(OwnScopeVisitor):
    """The plain ``name = value`` assignments of a loop body (nested statements included, nested
    functions, classes and lambdas not: their bodies do not run in the loop)."""

    def __init__(self) -> None:
        self.found: List[Tuple[str, cst.BaseExpression]] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            if isinstance(t.target, cst.Name):
                self.found.append((t.target.value, node.value))


def loop_back(scope, body: cst.CSTNode) -> None:
    """Before a loop's ``body`` is read: a name bound before the loop to a value that is no tensor and
    bound to a tensor in the body is a tensor when an earlier step comes back to it (``s = 0``, then in the
    loop ``if s: ...`` and ``s = x.sum()``: the second step branches on a tensor). It gets that kind under a
    gate the walk cannot decide (how many steps the loop takes), so a break that needs it is conditional.

    Args:
        scope (gblint.syntax.scope.FunctionScope): the function being read.
        body (libcst.CSTNode): the loop's body.
    """
    found = _LoopBindings()
    read_walk(body, found)
    for name, value in found.found:
        before = scope.env.get(name)
        if before is None or maybe_tensor(before) or name in scope.kind_gates:
            continue
        kind = scope.kind(value)
        if maybe_tensor(kind):
            scope.env[name] = kind
            scope.kind_gates[name] = (Expr(Op.UNKNOWN), f"an earlier step of the loop bound `{name}`", before)
