"""Sizes of tensors the code shows (``torch.randn(2, 3)``): whether an op of two of them fails; and tests that a
tensor is not empty.

An op Dynamo runs on fake tensors fails where eager fails, at trace time (``torch/_dynamo/utils.py``:
``get_fake_value``): rules/trace_errors.py reports it inside a ``try`` meant to catch the failure. A test of sizes
that a tensor is not empty (``index.numel() > 0``) is decided by the shapes of the inputs the compiled code is called
with (Dynamo specializes on them, guarded), and holds for every input that is not empty: the user's data decides it,
not a package's setting (:func:`nonempty_test`).
"""
from __future__ import annotations

from typing import Callable, Optional

from ..core.model import Expr
from ..core.ops import Op


def op_fails(op: str, a: Expr, b: Expr) -> Optional[bool]:
    """Whether the tensor op ``op`` (``matmul``, or ``broadcast`` for elementwise arithmetic) of
    ``a`` and ``b`` raises for their sizes: known only for tensors whose sizes the call shows
    (``torch.randn(2, 3)``); None otherwise."""
    if a.op != Op.TENSOR or b.op != Op.TENSOR or not a.parts or not b.parts:
        return None
    sa, sb = [d.value for d in a.parts if d.op == Op.CONST], [d.value for d in b.parts if d.op == Op.CONST]
    if not sa or not sb:
        return None
    if op == "matmul":
        inner = sb[-2] if len(sb) >= 2 else sb[0]
        return sa[-1] != inner
    if op == "broadcast":
        return any(x != y and 1 not in (x, y) for x, y in zip(reversed(sa), reversed(sb)))
    return None


_SIZE_METHODS = frozenset({"numel", "size", "nelement"})
#: ``n > 0``, ``n >= 1``, ``n != 0`` (and the same with the constant first): true for every size but 0
_NONEMPTY = {Op.GT: 0, Op.GE: 1, Op.NE: 0}
_FLIPPED = {Op.LT: Op.GT, Op.LE: Op.GE, Op.NE: Op.NE}
_NEGATED = {Op.EQ: Op.NE, Op.LT: Op.GE, Op.LE: Op.GT}


def nonempty_test(test: Expr, is_tensor: Callable[[Expr], bool]) -> bool:
    """Whether the test ``test`` (an :class:`gblint.core.model.Expr` as written) holds exactly when tensors are not
    empty: ``t.numel() > 0``, ``t.size(0) >= 1``, ``t.shape[0] != 0``, ``len(t) > 0``, ``t.numel()`` alone, ``not
    t.numel() == 0`` (what holds after ``if t.numel() == 0: return``), or an ``and`` of such tests, where ``is_tensor(t)`` holds for every ``t`` read."""
    if test.op == Op.AND:
        return bool(test.parts) and all(nonempty_test(p, is_tensor) for p in test.parts)
    if test.op == Op.NOT and len(test.parts) == 1 and test.parts[0].op in _NEGATED:
        inner = test.parts[0]  # `not n == 0` (the code after `if n == 0: return`), `not n < 1`, `not n <= 0`
        return nonempty_test(Expr(_NEGATED[inner.op], None, inner.parts), is_tensor)
    if test.op in _NONEMPTY or test.op in _FLIPPED:
        left, right = test.parts[:2] if len(test.parts) == 2 else (None, None)
        if left is None:
            return False
        op = test.op
        if left.op == Op.CONST:
            left, right, op = right, left, _FLIPPED.get(op)
        return op in _NONEMPTY and right.op == Op.CONST and right.value == _NONEMPTY[op] \
            and nonempty_test(left, is_tensor)
    recv = None
    if test.op == Op.CALLV and test.parts and test.parts[0].op == Op.ATTR and test.parts[0].value in _SIZE_METHODS \
            and all(p.op == Op.CONST for p in test.parts[1:]):
        recv = test.parts[0].parts[0]
    elif test.op == Op.SUB and len(test.parts) == 2 and test.parts[0].op == Op.ATTR \
            and test.parts[0].value == "shape" and test.parts[1].op == Op.CONST:
        recv = test.parts[0].parts[0]
    elif test.op == Op.LEN and test.parts:
        recv = test.parts[0]
    return recv is not None and is_tensor(recv)
