"""What a parameter read inside a loop may hold: the argument, or what a later step of the loop bound to it.

A value the summary records inside a loop (a branch's test, a call's arguments) reads a parameter as the
argument (``param``) when nothing above rebinds it; the loop's back edge brings a rebinding further down the
body to it (:attr:`gblint.syntax.scope.FunctionScope.loop_binds`, per outermost loop). A binding on every path makes
the parameter unknown there, as before; one under branch tests is taken only where the walk finds them true
(``ifelse(test, unknown, param)``): ``if sampled is not None: x, edge_index = trim(...)`` in a loop leaves
``edge_index`` the argument when the call passes ``sampled=None``. A rebinding after the loop never reaches it.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ..core.model import CallArgs, Expr
from ..core.ops import Op
from .values import APPENDED, EACH, GROWN, GROWN_MODULES, OPEN, UNKNOWN, forget


def loop_value(e: Optional[Expr], binds: Dict[str, List[Optional[Expr]]], entry=frozenset()) -> Optional[Expr]:
    """``e`` with each ``param`` that ``binds`` (name -> the guards of its bindings in the loop, None for one on
    every path) rebinds replaced by what it may hold in a later step; also each ``local`` read of a parameter of
    ``entry`` (those that hold their argument where the loop begins): below a binding in the loop's body, it is the
    argument unless that binding ran (in this step or an earlier one)."""
    if e is None:
        return None
    if e.op in (Op.PARAM, Op.LOCAL) and e.value in binds and (e.op == Op.PARAM or e.value in entry):
        guards = binds[e.value]
        if any(g is None for g in guards):
            return UNKNOWN
        tests = [forget(g, binds) for g in dict.fromkeys(guards)]  # a test on a rebound name is not known either
        test = tests[0] if len(tests) == 1 else Expr(Op.OR, parts=tuple(tests))
        return Expr(Op.IFELSE, parts=(test, UNKNOWN, Expr(Op.PARAM, e.value)))
    if not e.parts:
        return e
    return Expr(e.op, e.value, tuple(loop_value(p, binds, entry) for p in e.parts))


def loop_args(args: CallArgs, binds, entry=frozenset()) -> CallArgs:
    """``args`` with :func:`loop_value` applied to each argument."""
    return CallArgs(tuple(loop_value(a, binds, entry) for a in args.positional),
                    tuple((k, loop_value(v, binds, entry)) for k, v in args.keywords), args.star, args.starstar)


def each_item(seq: Expr) -> Optional[Expr]:
    """The items of the list ``seq`` (a ``seq``, or a ``union`` of the ``seq`` alternatives of a list grown by
    appends) as an :data:`EACH` union: each item a loop over every index reads, one per step. An item that may not
    be there stays a union with what else it may be; None when ``seq`` is not such a list."""
    alts = seq.parts if seq.op == Op.UNION and seq.value is None else (seq,)
    if not alts or any(a.op != Op.SEQ or (a.value in OPEN and a.value not in (GROWN, GROWN_MODULES)) for a in alts):
        return None
    if len(alts) > 1 and sum(a.value != APPENDED for a in alts) != 1:
        return None  # several lists it may be (rebound), not one list and the pieces appended to it
    items = tuple(p for a in alts for p in a.parts if not (p.op == Op.UNION and not p.parts))
    if any(p.op in (Op.STAR, Op.STARSTAR) for p in items):
        return None
    return Expr(Op.UNION, EACH, items) if items else Expr(Op.UNION)
