"""Values the syntax shows without names: literals, and what torch's factories make (a tensor's dtype, size, grad,
layout and device where the call writes them: ``torch.rand(32)``, ``torch.zeros(2, 3, dtype=torch.long)``), and the
dtypes, layouts and devices torch names (``torch.half``, ``torch.strided``, ``torch.device("cpu")``).
"""
from __future__ import annotations

from typing import Optional, Tuple

import libcst as cst

from ..abstract import devices
from ..abstract.layouts import STRIDED
from ..abstract.values import DEFAULT_DTYPE, NOTNONE, UNKNOWN, const
from ..core.model import Expr
from ..core.ops import Op

# Values that are never None: what these build.
_NOT_NONE_NODES = (cst.Lambda, cst.Dict, cst.Set, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp,
                   cst.FormattedString, cst.ConcatenatedString)


def literal_expr(node: cst.BaseExpression) -> Expr:
    """``node`` as a value that needs no names: a literal (``None``, ``True``, numbers, strings,
    a negative number), a tuple or list of them, something certainly not None, else unknown."""
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return const({"True": True, "False": False, "None": None}[node.value])
    if isinstance(node, cst.Integer):
        try:
            return const(int(node.value.replace("_", ""), 0))
        except ValueError:
            return NOTNONE
    if isinstance(node, cst.Float):
        try:
            return const(float(node.value.replace("_", "")))
        except ValueError:
            return NOTNONE
    if isinstance(node, cst.SimpleString):
        try:
            value = node.evaluated_value
        except Exception:  # an odd prefix: still a string
            return NOTNONE
        return const(value) if isinstance(value, str) else NOTNONE
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = literal_expr(node.expression)
        if inner.op == Op.CONST and isinstance(inner.value, (int, float)) and not isinstance(inner.value, bool):
            return const(-inner.value)
        return UNKNOWN
    if isinstance(node, (cst.Tuple, cst.List)):
        if any(isinstance(e, (cst.StarredElement,)) for e in node.elements):
            return NOTNONE
        return Expr(Op.SEQ, parts=tuple(literal_expr(e.value) for e in node.elements))
    if isinstance(node, _NOT_NONE_NODES):
        return NOTNONE
    return UNKNOWN


# torch's layouts (torch/_C/__init__.pyi: ``strided: layout``...) and the factories that make a strided tensor
LAYOUTS = {f"torch.{n}": n for n in ("strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc",
                                      "_mkldnn", "jagged")}
_STRIDED_FACTORIES = frozenset(f"torch.{n}" for n in (
    "randn", "rand", "randint", "randperm", "zeros", "ones", "full", "empty", "arange", "linspace", "logspace",
    "eye", "tensor", "from_numpy", "normal"))

# torch's dtypes by every name torch gives them (torch/_C/__init__.pyi: torch.half is torch.float16)
DTYPES = {f"torch.{alias}": name for name, aliases in {
    "float32": ("float32", "float"), "float64": ("float64", "double"), "float16": ("float16", "half"),
    "bfloat16": ("bfloat16",), "int64": ("int64", "long"), "int32": ("int32", "int"), "int16": ("int16", "short"),
    "int8": ("int8",), "uint8": ("uint8",), "bool": ("bool",), "complex64": ("complex64", "cfloat"),
    "complex128": ("complex128", "cdouble"), "float8_e4m3fn": ("float8_e4m3fn",), "float8_e5m2": ("float8_e5m2",),
}.items() for alias in aliases}


_FACTORIES = frozenset({"torch.randn", "torch.rand", "torch.zeros", "torch.ones", "torch.empty", "torch.full"})


def _factory_dtype(node: cst.Call, scope) -> Optional[str]:
    """The dtype of a tensor a factory makes: its ``dtype=`` argument, else the default
    (``torch.get_default_dtype()``, float32 unless the program changes it) for the factories
    that make floating-point tensors; None when not known (``torch.full`` takes its fill's)."""
    q = scope.resolve(node.func)
    for a in node.args:
        if a.keyword is not None and a.keyword.value == "dtype":
            return DTYPES.get(scope.resolve(a.value) or "")
        if a.star:
            return None
    return DEFAULT_DTYPE if q in _FLOAT_FACTORIES else None


_FLOAT_FACTORIES = _FACTORIES - {"torch.full"}
# the factories whose tensor lives on the default device unless ``device=`` says (torch.tensor of a tensor keeps its
# device: only literal data; torch.normal takes its tensor arguments'), and the one that always makes a CPU tensor
_DEVICE_FACTORIES = _STRIDED_FACTORIES - {"torch.tensor", "torch.from_numpy", "torch.normal"}


def factory_tensor(node: cst.Call, scope) -> Expr:
    """The tensor the torch op called in ``node`` makes: its dtype, size, grad, layout and device, where the call
    shows them."""
    func = node.func
    if any(a.keyword is not None and a.keyword.value == "out" for a in node.args):
        return Expr(Op.TENSOR)  # `out=`: the tensor it was given, of its dtype and device
    return Expr(Op.TENSOR, _factory_dtype(node, scope), _factory_shape(node, scope) + _factory_grad(node, scope)
                + ((STRIDED,) if scope.resolve(func) in _STRIDED_FACTORIES and not any(
                    a.keyword is not None and a.keyword.value == "layout" for a in node.args) else ())
                + ((NO_DATA,) if _no_data(node, scope) else ()) + _factory_device(node, scope))


def _factory_device(node: cst.Call, scope) -> tuple:
    """The device part of a factory's tensor (:mod:`gblint.abstract.devices`): the device its ``device=`` literal names,
    else the default one; ``()`` where not known (another call, a device not written as a literal)."""
    q = scope.resolve(node.func)
    if q == "torch.from_numpy":
        return (Expr(Op.DEVICE, "cpu"),)
    if q == "torch.tensor" and node.args and not isinstance(node.args[0].value, (
            cst.List, cst.Tuple, cst.Integer, cst.Float)):
        return ()
    if q not in _DEVICE_FACTORIES and q != "torch.tensor":
        return ()
    for a in node.args:
        if a.star:
            return ()
        if a.keyword is not None and a.keyword.value == "device":
            text = literal_expr(a.value).value
            name = devices.device_name(text) if isinstance(text, str) else None
            if name is None and isinstance(a.value, cst.Call) and scope.resolve(a.value.func) == "torch.device":
                found = device_value(a.value)
                name = found.value if found is not None else None
            name = devices.on_tensor(name) if name else None
            return (Expr(Op.DEVICE, name),) if name else ()
    return (devices.DEFAULT,)


def device_value(node: cst.Call) -> Optional[Expr]:
    """``torch.device("cuda", 1)``, ``torch.device("cpu")`` written with literals, as a device value; None for another."""
    args = node.args
    if not args or len(args) > 2 or any(a.star or a.keyword is not None for a in args):
        return None
    text = literal_expr(args[0].value).value
    index = literal_expr(args[1].value).value if len(args) == 2 else None
    if not isinstance(text, str) or (len(args) == 2 and (type(index) is not int or index < 0)):
        return None
    name = devices.device_name(text, index)
    return Expr(Op.DEVICE, name) if name else None


def _factory_grad(node: cst.Call, scope) -> Tuple[Expr, ...]:
    """Whether a factory's tensor requires grad, as a ``grad`` part: its literal ``requires_grad=`` (default
    False); ``()`` for another call or a value not written as a literal."""
    if scope.resolve(node.func) not in _FACTORIES:
        return ()
    arg = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "requires_grad"), None)
    if arg is None:
        return (Expr(Op.GRAD, False),)
    found = literal_expr(arg)
    return (Expr(Op.GRAD, found.value),) if found.op == Op.CONST and isinstance(found.value, bool) else ()


def _factory_shape(node: cst.Call, scope) -> Tuple[Expr, ...]:
    """The size of a tensor a factory with literal sizes makes (``torch.randn(2, 3)``,
    ``torch.full((3,), 2.0)``) as ``const`` dims; ``()`` when not known (also for a 0-d tensor)."""
    if scope.resolve(node.func) not in _FACTORIES:
        return ()
    args = [a.value for a in node.args if a.keyword is None and not a.star]
    if scope.resolve(node.func) == "torch.full":
        args = args[:1]
    if len(args) == 1 and isinstance(args[0], (cst.Tuple, cst.List)):
        args = [e.value for e in args[0].elements]
    dims = tuple(literal_expr(a) for a in args)
    if not dims or any(d.op != Op.CONST or not isinstance(d.value, int) or isinstance(d.value, bool) for d in dims):
        return ()
    return dims


#: a tensor's part: made by ``torch.tensor`` from an empty list or tuple display. Dynamo knows such a tensor's data
#: (none), so a dynamic-shape op of it (``unique``, ``nonzero``) has a known size and does not break, unlike one of
#: ``torch.zeros(0)`` (measured: tests/cases/kinds/kb55)
NO_DATA = Expr(Op.SEQ, "torch.tensor([])")


def _no_data(node: cst.Call, scope) -> bool:
    """Whether the call ``node`` is ``torch.tensor([])`` or ``torch.as_tensor([])`` (of ``()``, of ``[[]]``: a
    display of empty displays), whatever its keywords."""
    first = next((a.value for a in node.args if a.keyword is None), None)
    return scope.resolve(node.func) in ("torch.tensor", "torch.as_tensor") and _empty_display(first) \
        and not any(a.star for a in node.args)


def _empty_display(node) -> bool:
    return isinstance(node, (cst.List, cst.Tuple)) and all(
        isinstance(e, cst.Element) and _empty_display(e.value) for e in node.elements)
