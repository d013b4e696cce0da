"""A tensor value's layout and device parts: what a Tensor method's result keeps of its receiver's.

A plain strided tensor (:data:`STRIDED`) stays one through every method but the conversions; a tensor's device
(:mod:`gblint.abstract.devices`) stays through every method but the moves. Source: torch/_C/__init__.pyi (TensorBase).
"""
from __future__ import annotations

from ..core.model import Expr
from ..core.ops import Op
from . import ndarrays


#: a tensor's part (and the value of its ``layout``): a plain ``torch.Tensor`` (no subclass), strided
#: (torch/_C/__init__.pyi: ``strided``): what torch's factories make and a plain tensor's methods return
STRIDED = Expr(Op.LAYOUT, "strided")
# the methods whose result is no plain strided tensor when the receiver is one: another layout, a subclass
# (torch/_tensor.py, _C/__init__.pyi)
_RELAYOUT = frozenset({"to_sparse", "to_sparse_coo", "to_sparse_csr", "to_sparse_csc", "to_sparse_bsr",
                       "to_sparse_bsc", "to_mkldnn", "to_padded_tensor", "sparse_mask", "_to_sparse",
                       "as_subclass", "_make_subclass", "_make_wrapper_subclass", "__torch_function__"})
# what a tensor attribute is for a strided one (``t.is_sparse``...: torch/_C/__init__.pyi, TensorBase)
STRIDED_FLAGS = frozenset({"is_sparse", "is_sparse_csr", "is_nested", "is_quantized", "is_mkldnn"})


def method_layout(name: str, recv: Expr) -> tuple:
    """The ``layout`` and device parts of what the Tensor method ``name`` of ``recv`` returns: :data:`STRIDED` when
    ``recv`` is strided and the method keeps the layout (every method but the conversions), and the receiver's device
    where the method keeps it (:func:`device_part`)."""
    return ((STRIDED,) if STRIDED in recv.parts and name not in _RELAYOUT else (ndarrays.NDARRAY,)
            if ndarrays.NDARRAY in recv.parts else ()) + device_part(recv, name)  # NumPy's methods give arrays


# the Tensor methods whose result may live on another device than the receiver (torch/_C/__init__.pyi)
_MOVES = frozenset({"to", "cuda", "cpu", "xpu", "mps", "ipu", "hpu", "type", "type_as", "_to_copy", "to_dense",
                    "pin_memory", "set_", "__torch_function__", "as_subclass", "_make_subclass", "_make_wrapper_subclass",
                    # on the receiver's device unless `device=` names another
                    "new_empty", "new_zeros", "new_ones", "new_full", "new_tensor", "new_empty_strided"})


def device_part(recv: Expr, method: str) -> tuple:
    """The device part (:mod:`gblint.abstract.devices`) of what the Tensor method ``method`` of ``recv`` returns:
    the receiver's, unless the method may move it (``to``, ``cuda``...)."""
    if method in _MOVES:
        return ()
    return tuple(p for p in recv.parts if isinstance(p, Expr) and p.op == Op.DEVICE)[:1]
