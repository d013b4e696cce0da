"""Builtins whose result Python computes from constants alone (``max(num_relations, 1)``, ``int("3")``,
``abs(-2)``): Dynamo folds them the same way (a constant in, a constant out, no graph op), so the walk knows the
value a branch on it tests."""
from __future__ import annotations

from typing import Optional, Sequence

from .model import Expr
from .ops import Op

_PURE = {"builtins.max": max, "builtins.min": min, "builtins.abs": abs, "builtins.int": int,
         "builtins.float": float, "builtins.bool": bool, "builtins.round": round, "builtins.str": str}
_RESULTS = (bool, int, float, str, type(None))


def fold_builtin(name: str, positional: Sequence[Expr], keywords: Sequence) -> Optional[Expr]:
    """The constant ``name(*positional)`` gives when ``name`` is one of :data:`_PURE` and every argument is a
    constant (``max``/``min`` also of one tuple or list of constants); None otherwise, or where Python raises."""
    fn = _PURE.get(name)
    if fn is None or keywords or not positional:
        return None
    items = positional
    if len(positional) == 1 and positional[0].op == Op.SEQ and name in ("builtins.max", "builtins.min") \
            and positional[0].value is None:
        items = positional[0].parts
        if not items or any(p.op != Op.CONST for p in items):
            return None
        values = [tuple(p.value for p in items)]
    elif all(p.op == Op.CONST for p in positional):
        values = [p.value for p in positional]
    else:
        return None
    try:
        out = fn(*values)
    except Exception:  # noqa: BLE001 - the program raises there: nothing is known
        return None
    return Expr(Op.CONST, out) if type(out) in _RESULTS else None
