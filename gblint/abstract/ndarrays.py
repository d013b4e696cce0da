"""NumPy arrays as the value model holds them: a tensor to Dynamo, an ndarray to Python.

Dynamo traces NumPy (``config.trace_numpy``, on by default): an ndarray that reaches a compiled frame, or one a
NumPy function makes there, is traced as a tensor (``torch/_dynamo/variables/tensor.py``
``NumpyNdarrayVariable``), so branching on it, ``.item()`` on it and the like break as on a tensor. To Python it is
no tensor: ``isinstance(a, np.ndarray)`` holds, ``isinstance(a, torch.Tensor)`` does not (under Dynamo too), and a
torch rewrite (``torch.where``) of a branch on it would raise; ``torch.is_tensor(a)``, False in Python, is True
under Dynamo (its ``NumpyNdarrayVariable`` is a ``TensorVariable``; measured: ``tests/cases/kinds/kc5``). The value is ``Expr(Op.TENSOR)`` with the
:data:`NDARRAY` part; the NumPy functions that make one are those whose ``torch._numpy`` counterpart returns a
torch function's tensor (``gblint/data/torch_ops-*.json`` ``numpy_array_results``: ``numpy.ones``, ``numpy.zeros``,
``numpy.linspace``...).
"""
from __future__ import annotations

from typing import Optional, Sequence

from ..core.model import Expr
from ..core.ops import Op

NDARRAY = Expr(Op.LAYOUT, "ndarray")

#: the types an ndarray is an instance of, and those (Python values, torch's tensor, nn.Module) it is not one of
_ARRAY_TYPES = frozenset({"numpy.ndarray", "builtins.object"})
_NOT_ARRAY_TYPES = frozenset({"torch.Tensor", "torch._tensor.Tensor", "torch._C.TensorBase", "torch.nn.Module",
                              "torch.nn.modules.module.Module", "builtins.str", "builtins.int", "builtins.float",
                              "builtins.bool", "builtins.list", "builtins.tuple", "builtins.dict", "types.NoneType"})


def ndarray() -> Expr:
    """A NumPy array (module docstring)."""
    return Expr(Op.TENSOR, parts=(NDARRAY,))


def is_ndarray(v: Optional[Expr]) -> bool:
    """Whether ``v`` is (or may be, one of a union) a NumPy array."""
    if v is None:
        return False
    if v.op == Op.UNION:
        return any(is_ndarray(p) for p in v.parts)
    return v.op == Op.TENSOR and NDARRAY in v.parts


def result_of(tensors: Sequence[Expr]) -> Expr:
    """What an operator (``a * 2``, ``a > 0``) gives on operands of which ``tensors`` are the tensors: an ndarray
    when each is one, else a tensor."""
    return ndarray() if tensors and all(is_ndarray(t) for t in tensors) else Expr(Op.TENSOR)


def isinstance_ndarray(names) -> Optional[bool]:
    """``isinstance(a, names)`` for an ndarray ``a``: True for ``numpy.ndarray`` (or ``object``), False when each name
    is a type it is not, else not known."""
    if any(n in _ARRAY_TYPES for n in names):
        return True
    return False if all(n in _NOT_ARRAY_TYPES for n in names) else None
