"""Builtins whose result Python computes from constants alone (``max(num_relations, 1)``, ``int("3")``,
``abs(-2)``, ``range(num_layers)``): Dynamo folds them the same way (a constant in, a constant out, no graph op), so the walk knows the
value a branch on it tests."""
from __future__ import annotations

from typing import Optional, Sequence

from ..core.model import Expr
from ..core.ops import Op

_PURE = {"builtins.max": max, "builtins.min": min, "builtins.abs": abs, "builtins.int": int,
         "builtins.float": float, "builtins.bool": bool, "builtins.round": round, "builtins.str": str}
_RESULTS = (bool, int, float, str, type(None))
_MAX_RANGE = 64  # a range of more ints is left unknown (each item would be followed)


def _range(*bounds: int) -> Optional[Expr]:
    """``range(*bounds)`` as the sequence of its ints (Dynamo's RangeVariable is a constant too); None when
    Python raises (a step of 0)."""
    try:
        return Expr(Op.SEQ, parts=tuple(Expr(Op.CONST, i) for i in range(*bounds)))
    except ValueError:
        return None


def fold_builtin(name: str, positional: Sequence[Expr], keywords: Sequence) -> Optional[Expr]:
    """The constant ``name(*positional)`` gives when ``name`` is one of :data:`_PURE` and every argument is a
    constant (``max``/``min`` also of one tuple or list of constants); None otherwise, or where Python raises."""
    if name == "builtins.range" and not keywords and 1 <= len(positional) <= 3 and all(
            p.op == Op.CONST and type(p.value) is int for p in positional):
        bounds = [p.value for p in positional]
        return _range(*bounds) if len(range(*bounds)) <= _MAX_RANGE else None
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
