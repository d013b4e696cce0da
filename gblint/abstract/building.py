"""What the methods that build an instance receive: an ``__init__`` reached through
``super().__init__(...)`` gets what the subclass passes, and a method ``__init__`` calls on
``self`` (``self.set_processor(processor)``) gets what that call passes, so the attributes they
assign are the objects the arguments hold (diffusers' attention processors, PyG's layers)."""
from __future__ import annotations

import dataclasses
from typing import Dict, Optional, Protocol

from . import values
from ..core.model import Expr
from ..core.ops import Op
from .objects import Bound, Cls, Func, Inst, Super
from .values import union


class BuildingHost(Protocol):
    """What :class:`Building` asks of the interpreter (:class:`gblint.abstract.interp.Interpreter`)."""

    calls: object  # gblint.abstract.invoke.Calls: event_args, init_values

    def value(self, e: Expr, env: values.Env) -> Expr: ...

    def class_mro(self, cls: Cls) -> list: ...

    def class_attr(self, cls: Cls, name: str, recv: Optional[Expr], calls: Optional[list],
                   after: bool = False) -> Optional[Expr]: ...

    def method_env(self, inst: Inst, summary, method: str) -> values.Env: ...

    def may_run(self, function: str) -> bool: ...


class Building:
    """What the methods building an instance receive, asked of ``interp`` (a :class:`BuildingHost`);
    ``_active`` holds the questions being answered (one asked again inside itself answers nothing)."""

    def __init__(self, interp: BuildingHost):
        self.interp = interp
        self._active: set = set()

    def init_received(self, inst: Inst, init: Func) -> Dict[str, Expr]:
        """What the ``__init__`` ``init`` of a class in ``inst``'s MRO receives while ``inst`` is
        built: the instance's own arguments for the ``__init__`` Python calls, else what the
        ``super().__init__(...)`` (or ``Base.__init__(self, ...)``) calls of the ``__init__``s
        before it in the MRO pass it; a parameter the calls disagree on holds each value."""
        owner = self.interp.class_attr(inst.cls, "__init__", None, None)
        if not isinstance(owner, Func):
            return {}
        if owner == init:
            return dict(inst.init)
        key = (inst, init)
        if key in self._active:
            return {}
        self._active.add(key)
        try:
            found = []
            for summary, info in self.interp.class_mro(inst.cls):
                qual = info.methods.get("__init__")
                if qual is None:
                    continue
                if (summary.path, qual) == (init.path, init.qualname):
                    break
                caller = summary.functions.get(qual)
                fenv = self.interp.method_env(inst, summary, qual) if caller is not None else None
                for ev in caller.events if caller is not None else ():
                    if ev.func is None or ev.func.op != Op.ATTR or ev.func.value != "__init__" or not ev.func.parts:
                        continue
                    got = self.interp.value(ev.func, fenv)
                    if got == Bound(inst, init) and isinstance(self.interp.value(ev.func.parts[0], fenv), Super):
                        found.append(self._passed(ev, fenv, init, bound=True))
                    elif got == init and ev.args is not None and ev.args.positional \
                            and self.interp.value(ev.args.positional[0], fenv) == inst:
                        found.append(self._passed(ev, fenv, init, bound=False))
            return _agreed(found)
        finally:
            self._active.discard(key)

    def _passed(self, ev, env: values.Env, func: Func, bound: bool) -> Dict[str, Expr]:
        """The parameters of ``func`` (an ``__init__``, without ``self``) bound to what the call
        event ``ev`` (evaluated in ``env``) passes; ``bound``: called on ``super()``, not with
        the instance as its first argument."""
        args = self.interp.calls.event_args(ev, env, None)
        args = args if bound else dataclasses.replace(args, positional=args.positional[1:])
        return dict(self.interp.calls.init_values(None, args, None, func))

    def called_by_init(self, inst: Inst, summary, method: str) -> Dict[str, Expr]:
        """What the method ``method`` (a qualname of ``summary``) receives when an ``__init__`` of a
        class of ``inst``'s MRO calls it on ``self`` while ``inst`` is built (torch-geometric's
        ``BasicGNN.__init__`` calls ``self.init_conv(..., **kwargs)``, which its subclass ``GCN``
        defines), or a method such a call runs does (torchmetrics' ``__init__`` calls
        ``self._create_state(...)``, which calls ``self.add_state("tp", ...)``), and what the calls on
        ``self`` of the class's other methods the program may run pass (``extend(name)`` calling
        ``self.add_state(name, ...)`` later); a parameter the calls disagree on holds each value; empty
        when no builder calls it."""
        name = method.rpartition(".")[2]
        key = (inst, summary.path, method)
        if key in self._active:
            return {}
        self._active.add(key)
        try:
            found = []
            mro = self.interp.class_mro(inst.cls)
            callers = [(owner, info.methods["__init__"]) for owner, info in mro if "__init__" in info.methods]
            seen = {(owner.path, qual) for owner, qual in callers}
            for owner, qual in callers:  # grows: a method a builder calls on self builds the instance too
                caller = owner.functions.get(qual)
                if caller is None or not caller.params:
                    continue
                env = None
                for ev in calls_on_self(caller):
                    if ev.func.value == name:
                        env = env or self.interp.method_env(inst, owner, qual)
                        found.append(self._passed(ev, env, Func(summary.path, method), bound=True))
                        continue
                    step = next(((o, i.methods[ev.func.value]) for o, i in mro if ev.func.value in i.methods), None)
                    if step is not None and (step[0].path, step[1]) not in seen and len(seen) < _MAX_BUILDERS:
                        seen.add((step[0].path, step[1]))
                        callers.append(step)
            if not found:
                return {}
            for owner, info in mro:  # a method the program may run later calling it on self passes what it passes
                for qual in info.methods.values():
                    caller = owner.functions.get(qual)
                    if (owner.path, qual) in seen or caller is None or not caller.params \
                            or not self.interp.may_run(caller.name):
                        continue
                    for ev in calls_on_self(caller):
                        if ev.func.value == name:
                            found.append(self._passed(ev, self.interp.method_env(inst, owner, qual),
                                                      Func(summary.path, method), bound=True))
            return _agreed(found)
        finally:
            self._active.discard(key)


def calls_on_self(info) -> list:
    """The call events of the method ``info`` (a :class:`gblint.core.model.FunctionInfo`) on its own first parameter
    (``self.name(...)``: the event's ``func`` is that attribute); none for a function without parameters."""
    if not info.params:
        return []
    own = Expr(Op.PARAM, info.params[0].name)
    return [ev for ev in info.events
            if ev.func is not None and ev.func.op == Op.ATTR and ev.func.parts and ev.func.parts[0] == own]


_MAX_BUILDERS = 64  # methods building an instance looked at, at most (the __init__s and what they call on self)


def _agreed(found: list) -> Dict[str, Expr]:
    """The parameters every binding of ``found`` (one per call) binds, each holding what any of
    the calls passed it."""
    if not found:
        return {}
    return {k: union(e[k] for e in found) for k in found[0] if all(k in e for e in found)}
