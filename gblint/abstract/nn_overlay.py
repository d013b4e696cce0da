"""What torch's own ``torch.nn`` and ``torch.autograd`` code does with the program's subclasses,
for the interpreter (an overlay, as pytype keeps one per library): gblint never reads torch's
source at check time, only what ``scripts/update_torch_ops.py`` extracted from it into
``gblint/data/torch_ops-*.json``.

Each function takes the interpreter (:class:`gblint.abstract.interp.Interpreter`) as its first argument
and uses only its public value methods (``class_attr``, ``apply``, ``project``)."""
from __future__ import annotations

from typing import Optional

from . import grads, tensors, values
from ..core.model import Expr
from ..core.ops import Op
from .objects import Bound, Closure, Cls, ExtInst, Func
from ..core.semantics import AUTOGRAD_FUNCTION

#: the context object ``Function.apply`` hands its ``forward`` (torch/autograd/function.py)
FUNCTION_CTX = ExtInst(grads.FUNCTION_CONTEXT)
#: the same where ``apply`` is called with grad off (``torch.no_grad()``): ``forward`` is inlined
NO_GRAD_CTX = ExtInst(grads.NO_GRAD_CONTEXT)


def torch_base(interp, cls: Cls) -> Optional[str]:
    """The ``torch.nn`` class (short name: ``Conv1d``) whose ``forward`` an instance of ``cls``
    runs, when no class of the project defines ``forward``; else None."""
    for _summary, info in interp.class_mro(cls):
        if "forward" in info.methods or "forward" in info.values:
            return None
        for b in info.bases:
            if b.startswith("torch.nn.") and b.rsplit(".", 1)[-1][:1].isupper():
                return b.rsplit(".", 1)[-1]
    return None


def torch_forward(interp, inst, args, calls: Optional[list], base: str) -> Expr:
    """Calling ``inst``, whose class keeps torch's ``forward`` of ``base``: that ``forward``
    calls the helpers the subclass may override (``Conv1d.forward`` calls ``self._conv_forward``;
    ``tensors.FORWARD_CALLS``), each run with the input; the result is a tensor when the torch
    class's ``forward`` is annotated ``-> Tensor``."""
    for name in sorted(tensors.FORWARD_CALLS.get(base, ())):
        override = interp.class_attr(inst.cls, name, inst, calls)
        if override is not None:
            interp.calls.apply(override, type(args)(args.positional[:1]), calls, want=False)
    return Expr(Op.TENSOR) if base in tensors.TENSOR_MODULES else values.NOTNONE


def function_apply(interp, cls: Cls, mro, calls: Optional[list]) -> Optional[Expr]:
    """``cls.apply`` for a subclass of ``torch.autograd.Function`` (``mro``: its classes the project
    holds): ``forward`` bound to a fresh context, as Dynamo's ``AutogradFunctionVariable`` traces
    it (torch/_dynamo/variables/misc.py); None for any other class."""
    if not any(b in AUTOGRAD_FUNCTION for _s, c in mro for b in c.bases):
        return None
    forward = interp.class_attr(cls, "forward", None, calls)
    return Bound(FUNCTION_CTX, forward) if isinstance(forward, (Func, Closure)) else None
