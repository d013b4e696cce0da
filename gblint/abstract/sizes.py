"""Sizes of tensors the code shows (``torch.randn(2, 3)``): whether an op of two of them fails.

An op Dynamo runs on fake tensors fails where eager fails, at trace time (``torch/_dynamo/utils.py``:
``get_fake_value``): rules/trace_errors.py reports it inside a ``try`` meant to catch the failure.
"""
from __future__ import annotations

from typing import Optional

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
