"""What gblint knows of autograd on a value: whether a tensor requires grad, whether grad is off where an
``autograd.Function`` is applied, and whether a callee is such a Function's ``apply``.

Dynamo traces ``Function.apply`` as a higher-order op only when grad is on and some input requires grad
(``AutogradFunctionVariable.call_apply`` in torch/_dynamo/variables/misc.py); otherwise it inlines ``forward``.
"""
from __future__ import annotations

from typing import Optional, Sequence

from ..core.model import BlockKind, Expr
from ..core.ops import Op

#: the part of a ``tensor`` value that says it requires grad (a layer's output, with parameters)
GRAD = Expr(Op.GRAD, True)

#: the library class name of the context ``Function.apply`` hands ``forward`` (gblint.abstract.nn_overlay.FUNCTION_CTX),
#: and the one it hands while grad is off (gblint.abstract.nn_overlay.NO_GRAD_CTX): Dynamo inlines ``forward`` then
FUNCTION_CONTEXT = "torch.autograd.function.FunctionCtx"
NO_GRAD_CONTEXT = FUNCTION_CONTEXT + "[grad off]"
CONTEXT_FIRST = "context"  # a ``grad_off`` test's value: its first part is the Function's context
#: how a ``with`` block that turns grad off ends its manager's label (gblint.core.model.Block)
GRAD_OFF_LABELS = ("no_grad()", "inference_mode()", "set_grad_enabled(False)")


def off_in(blocks) -> bool:
    """Whether code inside ``blocks`` (:class:`gblint.core.model.Block`) runs with grad off: a ``with torch.no_grad()``,
    ``inference_mode()`` or ``set_grad_enabled(False)`` around it in its function."""
    return any(b.kind == BlockKind.WITH and b.manager is not None and b.manager.label.endswith(GRAD_OFF_LABELS)
               for b in blocks)


#: decorators that run the function with grad off
GRAD_OFF_DECORATORS = frozenset({"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad",
                                 "torch.autograd.grad_mode.no_grad", "torch.autograd.grad_mode.inference_mode"})


def requires_grad(v: Expr) -> Optional[bool]:
    """Whether the value ``v`` is a tensor that requires grad: False for a value that is no tensor
    (a literal), what the tensor's ``grad`` part says (:data:`GRAD`, a factory's ``requires_grad=``), else None."""
    if v.op == Op.CONST:
        return False
    if v.op == Op.TENSOR:
        return next((p.value for p in v.parts if p.op == Op.GRAD), None)
    if v.op == Op.UNION and v.parts:
        found = {requires_grad(p) for p in v.parts}
        return found.pop() if len(found) == 1 else None
    return None


def method_grad(name: str, recv: Expr, args: Optional[Sequence[Expr]]) -> tuple:
    """The ``grad`` part of what the Tensor method ``name`` of ``recv`` returns given the values ``args``
    (None: not all known): False for ``detach()``, and where neither the tensor nor an argument requires
    grad (autograd records no op whose inputs need none: torch/csrc/autograd/function.h,
    compute_requires_grad), except ``requires_grad_``; ``()`` (not known) otherwise."""
    if name == "detach":
        return (Expr(Op.GRAD, False),)
    if name != "requires_grad_" and args is not None and all(requires_grad(v) is False for v in (recv,) + tuple(args)):
        return (Expr(Op.GRAD, False),)
    return ()


def grad_off(found: Sequence[object], context_first: bool) -> Optional[bool]:
    """The ``grad_off`` test on the values ``found`` (each evaluated; with ``context_first`` the first is the
    context ``apply`` handed ``forward``): True when grad is off there or no tensor of them requires grad,
    False when one does, None when not known."""
    if context_first:
        context, found = found[0], found[1:]
        if getattr(context, "name", None) == NO_GRAD_CONTEXT:
            return True
        if type(context).__name__ == "Inst":  # an object of the program: no autograd.Function context
            return False
    grads = {requires_grad(v) for v in found}
    return False if True in grads else None if None in grads else True


def function_apply(value: object) -> Optional[bool]:
    """Whether ``value`` (what a callee evaluated to) is the ``apply`` of a subclass of ``torch.autograd.Function``
    (:func:`gblint.abstract.nn_overlay.function_apply` binds its ``forward`` to a context): True, False for a function,
    class or method of the program that is not, None when not known."""
    if type(value).__name__ == "Bound":
        return getattr(value.recv, "name", None) in (FUNCTION_CONTEXT, NO_GRAD_CONTEXT)
    if type(value).__name__ in ("Func", "Closure", "Cls", "Inst"):
        return False
    return None
