"""Values read out of tensor data: what Dynamo cannot turn into a Python int without running the graph.

A tensor computed from the program's tensors (``indexes.max()``, ``x.float().sum(0)``, ``lengths[i]``,
``torch.max(x)``), arithmetic with such an operand (``indexes.max() + 1``), builtin ``max``/``min`` with one (a
tensor under Dynamo), and a local bound to one on every path to its use (``max_index = indexes.max() + 1``) are
*data*: fake tensors do not know their value, so where Python needs an int Dynamo reads it out
(``aten._local_scalar_dense``, GB0033). A tensor built from Python values (``torch.tensor(min(a.size(0),
b.size(0)))``) and the reductions of one are not: fake tensors keep such small constants and propagate them
(``torch/_subclasses/fake_tensor.py``: ``FakeTensor.constant``; measured clean, tests/cases/kinds ka7). A
parameter alone is not data either (``n`` may be a size the caller computed): only what the function computes is.

Locals are noted through :mod:`rules.notes` (``"data"``, ``"python-made"``), with the blocks around the binding
and the events found before it: the note holds at a use those blocks surround too (a value bound in one arm of an
``if`` is data only in that arm) with no break or call between.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from gblint.core.model import EventKind
from gblint.abstract.tensors import maybe_tensor

from .notes import forget_local, note_local

#: torch functions that build a tensor out of the Python values they are given
FROM_VALUES = frozenset({"torch.tensor", "torch.as_tensor", "torch.scalar_tensor", "torch.asarray"})


def _noted(ctx, what: str, name: cst.Name) -> Optional[object]:
    """What was noted of the local ``name`` reads, in this function, as ``what``. Data holds where the binding's
    blocks surround the current statement and no break or call came between: after a break the local is an input
    of the frame Dynamo resumes in, and an input tensor is no data (``torch.randn(rows, 2)`` after a break on
    ``rows``: no break measured, tests/cases/kinds ka9). A tensor built from Python values on some path holds
    everywhere after."""
    note = ctx.notes.get((what, name.value))
    if what != "data":
        return note
    while note is not None and id(name) in note[3]:
        note = note[4]  # ``n = torch.zeros(n)``: the value reads the binding before this one
    if note is None or note[0] is None:
        return None
    kind, blocks, seen = note[:3]
    here = ctx.blocks
    if len(blocks) > len(here) or any(a is not b for a, b in zip(blocks, here)):
        return None
    if any(ev.kind in (EventKind.BREAK, EventKind.CALL) for ev in ctx.pending[seen:]):
        return None
    return kind


def python_made(node: cst.BaseExpression, ctx) -> bool:
    """Whether ``node`` is a tensor built from Python values (``torch.tensor(n)``), a local bound to one, or
    what a tensor method makes of one (``torch.tensor(n).max()``)."""
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and ctx.resolve(node.func) is None:
        node = node.func.value
    if isinstance(node, cst.Name):
        return _noted(ctx, "python-made", node) is not None
    if isinstance(node, cst.Call) and ctx.resolve(node.func) in FROM_VALUES:
        return not any(maybe_tensor(ctx.kind(a.value)) for a in node.args)
    return False


def data_kind(node: cst.BaseExpression, ctx) -> Optional[str]:
    """The kind token of ``node`` (``"T"``, or ``"p:NAME"``: data if parameter NAME is a tensor) when it is a
    value read out of tensor data (see the module docstring); None when it is not, or may not be."""
    if isinstance(node, cst.Name):
        return _noted(ctx, "data", node)
    if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)):
        kinds = [k for k in (data_kind(node.left, ctx), data_kind(node.right, ctx)) if k is not None]
        return _strongest(kinds)
    if isinstance(node, cst.UnaryOperation):
        return data_kind(node.expression, ctx)
    if isinstance(node, cst.Subscript):  # an element of a tensor (``offsets[i]``)
        return _computed(node, node.value, ctx)
    if not isinstance(node, cst.Call):
        return None
    q = ctx.resolve(node.func)
    if q in ("max", "min"):  # builtin max/min with a data operand is a tensor under Dynamo
        return _strongest([k for k in (data_kind(a.value, ctx) for a in node.args if not a.star) if k is not None])
    if isinstance(node.func, cst.Attribute) and q is None:  # a tensor method (``indexes.max()``)
        return _computed(node, node.func.value, ctx)
    if q is not None and q.startswith("torch.") and q not in FROM_VALUES:  # ``torch.max(x)``: made of its operand
        operands = [a.value for a in node.args if a.keyword is None and not a.star]
        if any(data_kind(a, ctx) is not None or (maybe_tensor(ctx.kind(a)) and not python_made(a, ctx))
               for a in operands[:1]):
            return ctx.known_tensor(node)
    return None


def _computed(node, receiver, ctx) -> Optional[str]:
    """The kind of ``node``, a method call on or an element of ``receiver``, when both are proven or parameter
    tensors and ``receiver`` is not built from Python values."""
    if python_made(receiver, ctx) or ctx.known_tensor(receiver) is None:
        return None
    return ctx.known_tensor(node)


def _strongest(kinds) -> Optional[str]:
    """A proven tensor's token among ``kinds`` if any, else the first; None for none."""
    return "T" if "T" in kinds else (kinds[0] if kinds else None)


def forget_names(target: cst.BaseExpression, ctx) -> None:
    """``target`` (of a ``for``, an unpacking) rebinds the names in it: no note holds."""
    if isinstance(target, cst.Name):
        ctx.notes.pop(("data", target.value), None)
    elif isinstance(target, (cst.Tuple, cst.List)):
        for e in target.elements:
            forget_names(e.value, ctx)
    elif isinstance(target, cst.StarredElement):
        forget_names(target.value, ctx)


def note_binding(node, ctx) -> None:
    """Note (or forget) the names ``node`` (an ``Assign``; a ``for``: forgotten) binds as data or as tensors built
    from Python values."""
    if not isinstance(node, cst.Assign):
        forget_names(node.target, ctx)
        return
    for t in node.targets:
        if not isinstance(t.target, cst.Name):
            forget_names(t.target, ctx)
            continue
        name = t.target.value
        before = ctx.notes.get(("data", name))
        kind = data_kind(node.value, ctx)
        if kind is not None or before is not None:
            # rules see the statement before the calls in its value: those read the binding before it
            note_local(ctx, "data", name, (kind, tuple(ctx.blocks), len(ctx.pending), _ids(node.value), before))
        if python_made(node.value, ctx):
            note_local(ctx, "python-made", name)
        elif not ctx.blocks:  # rebound on every path
            forget_local(ctx, "python-made", name)


def _ids(node: cst.CSTNode) -> frozenset:
    """The ``id`` of ``node`` and of every node inside it."""
    out, todo = set(), [node]
    while todo:
        n = todo.pop()
        out.add(id(n))
        todo.extend(n.children)
    return frozenset(out)
