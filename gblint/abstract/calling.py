"""What a call is, for the object interpreter: its evaluated arguments (:class:`Args`), what it
runs (:class:`Target`), and what :class:`gblint.abstract.invoke.Calls` asks of the interpreter
that holds it (:class:`CallsHost`)."""
from __future__ import annotations

import dataclasses
from typing import Optional, Protocol, Tuple

from . import values
from ..core.model import Expr, Frame
from ..core.ops import Op
from .objects import Cls, Inst

BOTTOM = Expr(Op.UNION)  # no value: what a cycle, or a name never assigned, evaluates to


@dataclasses.dataclass
class Target:
    """What a call runs: ``frame`` with its parameters holding ``env``; ``flat`` when it runs
    as a higher-order op's body (``checkpoint``: a break inside is one break of the caller).
    ``read`` when it runs inside an attribute read (``__getattr__``: Dynamo cannot resume in the
    middle of a ``LOAD_ATTR``, so a break there skips the reading frame).
    Or, with ``frame`` None, the break the call itself is: ``kind`` ``construct`` (an
    ``nn.Module`` built in the region, of class ``name``), ``disabled`` (a
    ``torch.compiler.disable``d object), ``rnn`` (an RNN module Dynamo does not trace)."""

    frame: Optional[Frame]
    env: Optional[values.Env] = None
    flat: bool = False
    kind: str = ""
    name: str = ""
    maybe: str = ""  # what the called value is, when it may be something else too (one part of a union)
    read: bool = False  # runs inside an attribute read (a `__getattr__`): a break there cannot resume


@dataclasses.dataclass(frozen=True)
class Args:
    """A call's arguments, evaluated: ``positional`` values, ``keywords`` pairs, and whether
    more may come unseen (``star``, ``starstar``)."""

    positional: Tuple[Expr, ...] = ()
    keywords: Tuple[Tuple[str, Expr], ...] = ()
    star: bool = False
    starstar: bool = False

    def prepend(self, value) -> "Args":
        """These arguments after ``value`` (a bound method's receiver)."""
        return dataclasses.replace(self, positional=(value,) + self.positional)


UNSEEN = Args(star=True, starstar=True)  # a call whose arguments are not known (the compiled entry's)


class CallsHost(Protocol):
    """What :class:`gblint.abstract.invoke.Calls` asks of the interpreter
    (:class:`gblint.abstract.interp.Interpreter`)."""

    project: object
    items: object  # gblint.abstract.items.Items
    class_effects: object  # gblint.abstract.class_effects.ClassEffects

    def evaluate(self, e: Expr, env: values.Env, calls: Optional[list]) -> Expr: ...

    def attribute(self, base: Expr, name: str, calls: Optional[list]) -> Expr: ...

    def class_attr(self, cls: Cls, name: str, recv: Optional[Expr], calls: Optional[list],
                   after: bool = False) -> Optional[Expr]: ...

    def instance_attr(self, inst: Inst, name: str, calls: Optional[list]) -> Expr: ...

    def class_mro(self, cls: Cls): ...

    def base_names(self, cls: Cls): ...

    def frame_env(self, frame: Frame, env: Optional[values.Env]) -> values.Env: ...

    def module_env(self, path: str) -> values.Env: ...

    def method_env(self, inst: Inst, summary, method: str) -> values.Env: ...

    def global_value(self, dotted: str) -> Expr: ...

    def importable(self, dotted: str) -> bool: ...

    def dtype_of(self, tensor: Expr) -> Optional[str]: ...

    def dtypes_changed(self) -> bool: ...
