"""What a tensor's attributes are where its value says: its dtype, layout and device, and a ``torch.device``'s.

A tensor made by a torch factory (``torch.rand(32)``) without ``device=`` lives on the default device, the CPU
unless the program changes it (``torch.set_default_device``, ``torch.set_default_tensor_type``, ``with
torch.device(...)``: torch/__init__.py, torch/utils/_device.py). Its value carries that as a part,
``Expr(Op.DEVICE, "default")`` (or the device its ``device=`` literal names), and keeps it through the Tensor
methods that keep the device (every method but the moves: ``to``, ``cuda``, ``cpu``...). Dynamo guards on a
tensor's device, so a test of it (``x.device == torch.device("cpu")``, ``x.is_cuda``, ``x.device.type == "cpu"``)
is decided when the run starts: no break (torch/_dynamo/variables/tensor.py, ``TensorVariable.device``).
"""
from __future__ import annotations

from typing import Optional

from ..core.model import Expr
from ..core.ops import Op
from . import tensors
from .objects import Method
from .layouts import STRIDED, STRIDED_FLAGS, device_part
from .values import UNKNOWN, const

#: a factory's tensor without ``device=``: on the default device
DEFAULT = Expr(Op.DEVICE, "default")


def device_name(device: str, index: Optional[int] = None) -> Optional[str]:
    """The device ``torch.device(device[, index])`` names, as ``"cpu"``, ``"cuda"`` or ``"cuda:1"``
    (``torch.device("cuda")`` and ``torch.device("cuda:0")`` differ: no index, index 0); None for a text torch
    would reject."""
    kind, _, rest = device.partition(":")
    if not kind.isidentifier() or (rest and not rest.isdigit()) or (rest and index is not None):
        return None
    return f"{kind}:{index}" if index is not None else device


def on_tensor(device: str) -> Optional[str]:
    """The device a tensor made on ``device`` reports: a CPU or meta tensor's has no index (``torch.zeros(3,
    device="cpu:0").device == torch.device("cpu")``), another's has one, the current device's where none is named:
    not known then (None)."""
    kind, _, index = device.partition(":")
    if kind in ("cpu", "meta"):
        return kind
    return device if index else None


def device_of(tensor: Expr, defaults_changed: bool) -> Optional[str]:
    """The device the ``tensor`` value lives on (``"cpu"``...), or None when not known: the default one is the CPU
    unless the program changes the defaults (``defaults_changed``)."""
    found = device_part(tensor, "")
    if not found:
        return None
    if found[0].value == DEFAULT.value:
        return None if defaults_changed else "cpu"
    return found[0].value


def attribute(base: Expr, name: str, dtype: Optional[str], defaults_changed: bool) -> Expr:
    """Attribute ``name`` of the tensor or ``torch.device`` value ``base`` (``dtype``: the tensor's dtype, None when
    not known; ``defaults_changed``: whether the program changes the default dtype or device): a dtype, layout or
    device the value says, a bound Tensor method, else not known."""
    if base.op == Op.DEVICE:
        kind, _, index = base.value.partition(":")
        if name == "type":
            return const(kind)
        return const(int(index) if index else None) if name == "index" else UNKNOWN
    if name == "dtype":
        return Expr(Op.DTYPE, dtype) if dtype else UNKNOWN
    if STRIDED in base.parts and (name == "layout" or name in STRIDED_FLAGS):
        return STRIDED if name == "layout" else const(False)
    device = device_of(base, defaults_changed) if name in ("device", "is_cpu", "is_cuda", "is_meta") else None
    if device is not None:
        kind = device.partition(":")[0]
        return Expr(Op.DEVICE, device) if name == "device" else const(kind == name[3:])
    if name in tensors.DTYPE_TESTS and dtype:
        return Method(base, name)
    return Method(base, name) if name in tensors.TENSOR_METHOD_RESULTS else UNKNOWN
