"""Values that are surely a Python ``bool`` whatever their operands hold."""
from __future__ import annotations

from ..core.model import Expr
from ..core.ops import Op

#: builtins whose result is a ``bool`` (Python's ``isinstance``, ``issubclass``, ``hasattr``, ``callable``)
BOOL_BUILTINS = frozenset({"builtins.isinstance", "builtins.issubclass", "builtins.hasattr", "builtins.callable"})


def bool_valued(e: Expr) -> bool:
    """Whether the test ``e`` surely evaluates to a Python bool: ``not``, a builtin that returns one
    (``isinstance``, ``hasattr``...), or ``and``/``or`` of those (never a tensor comparison, whose value is data).
    ``isinstance(a, C) or True`` is then ``True`` whatever ``a`` is (:func:`gblint.abstract.values.evaluate`)."""
    if e.op == Op.NOT:
        return True
    if e.op in (Op.AND, Op.OR):
        return all(bool_valued(p) for p in e.parts)
    return e.op == Op.CALLV and bool(e.parts) and e.parts[0].op == Op.GLOBAL and e.parts[0].value in BOOL_BUILTINS
