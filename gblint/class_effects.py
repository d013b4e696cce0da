"""What functions run with a class do to it: a class decorator's ``cls.forward = wrapper`` or
``cls.__init__ = init`` (the way transformers' ``use_experts_implementation`` dispatches an experts
layer's ``forward``), and what such an ``__init__``, a method made outside its class, stores on
``self``. Python runs the decorator once, when the ``class`` statement runs; every instance then
has the attributes it stored, and Dynamo traces those (the wrapper, not the class body's method). Likewise
a method rebound while an instance is built, ``self.update = self._wrap_update(self.update)`` (torchmetrics):
the wrapper closure captured the class's method, which the store's value reads (:meth:`_sole_store`)."""
from __future__ import annotations

import dataclasses
from typing import Optional

from . import values
from .invoke import Args
from .model import Expr, FileSummary, Frame
from .ops import Op
from .objects import Bound, Closure, Cls, ExtInst, Func, Inst
from .semantics import DOC_ATTRIBUTES, TRANSPARENT_DECORATORS
from .values import UNKNOWN, Env, const, union



class ClassEffectsMixin:
    """For :class:`gblint.interp.Interpreter`: ``self._class_sets`` holds, per ``(path, class
    qualname)``, each attribute a function run with the class stored and what it holds."""

    def _decorated(self, summary: FileSummary, qualname: str) -> Expr:
        """The class ``qualname`` of ``summary`` with its program's decorators applied, bottom up:
        each is called with the class (what it stores on it, ``cls.forward = wrapper``, becomes
        the class's attribute: :meth:`note_class_store`), and the class it returns is the value."""
        value: Expr = Cls(summary.path, qualname)
        for d in reversed(summary.classes[qualname].decorators):
            if d.qualname in TRANSPARENT_DECORATORS or d.expr is None:
                continue
            deco = self.evaluate(d.expr, self.module_env(summary.path), None)
            if not isinstance(deco, (Func, Closure)):
                continue
            result = self.apply(deco, Args((value,)), None, want=True)
            kept = [p for p in (result.parts if result.op == Op.UNION else (result,)) if isinstance(p, Cls)]
            if kept:
                value = union(kept)
        return value

    def note_class_store(self, cls: Cls, name: str, value: Expr, sure: bool) -> None:
        """A function run with the class ``cls`` stores ``value`` as its attribute ``name``; not
        on every path (``sure`` False): it may keep what it had."""
        if not sure:
            before = self.class_attr(cls, name, None, None)
            value = values.alternatives((before, value)) if before is not None else value
        sets = self._class_sets.setdefault((cls.path, cls.qualname), {})
        sets[name] = union((sets[name], value)) if name in sets else value

    def _stored_by_init(self, inst: Inst, name: str) -> list:
        """What an ``__init__`` that a class decorator put on ``inst``'s class (a closure, not a
        method of the class) stores as ``self.<name>``, run with the arguments ``inst`` was built with."""
        init = self.class_attr(inst.cls, "__init__", None, None)
        if not isinstance(init, Closure):
            return []
        summary = self.project.by_path.get(init.func.path)
        info = summary.functions.get(init.func.qualname) if summary is not None else None
        if info is None or not info.params:
            return []
        stores = [(v, sure) for p, attr, v, sure in info.param_stores if p == info.params[0].name and attr == name]
        if not stores:
            return []
        env = Env(dict(inst.init, **{info.params[0].name: inst}), outer=init.outer)
        env = self.frame_env(Frame(summary.path, info), env)
        return [self.evaluate(v, env, None) if sure else values.alternatives((self.evaluate(v, env, None), UNKNOWN))
                for v, sure in stores]

    def _building(self, summary: FileSummary, info, name: str):
        """:meth:`_assignments` of ``self.name`` in class ``info``: the building ones with those of
        methods the program may call before the run (``model.enable()``), and the others."""
        building, other = self._assignments(summary, info, name)
        if building:
            building += tuple(a for a in other if a[0].rsplit(".", 1)[-1] in self._facts()[2])
        return building, other

    def _sole_building_store(self, mro, name: str) -> bool:
        """Whether building an instance stores ``self.name`` exactly once in the classes of ``mro``
        and no dataclass field declares it: what the store's value reads of ``self.name`` is then what
        the instance held before any store, its class's attribute."""
        if any(name in info.fields for _summary, info in mro):
            return False
        return sum(len(self._building(summary, info, name)[0]) for summary, info in mro) == 1

    def _sole_store(self, inst: Inst, name: str, summary: FileSummary, cls_info, method: str, value: Expr) -> Expr:
        """What the one store of ``self.name`` (``value``, in ``method`` of class ``cls_info``) made while
        building ``inst`` leaves in the attribute: a read of ``self.name`` in ``value``
        (``self.update = self._wrap_update(self.update)``, torchmetrics' ``Metric.__init__``) is the class's
        attribute bound to ``inst`` (the method), not the store's own result (a cycle, so nothing, read
        flow-insensitively); a store not on every path of ``method`` may leave that attribute as it was."""
        env = self.method_env(inst, summary, method)
        info = summary.functions.get(method)
        if info is None or not info.params or self._on_class(summary, method):
            return self.evaluate(value, env, None)
        got = self.class_attr(inst.cls, name, inst, None)
        before = UNKNOWN if got is None else self.changed(name, got, inst.cls.path)
        env = env.replace(before_self=info.params[0].name)
        env.before[name] = before
        stored = self.evaluate(value, env, None)
        if (method, name) in cls_info.unsure and got is not None:
            return values.alternatives((stored, before))
        return stored

    def stored_on_class(self, summary: FileSummary, info, name: str, recv):
        """What a function run with the class ``info`` (of ``summary``) stored as its attribute
        ``name``, bound to ``recv`` (an instance, None for the class); None when none did."""
        stored = self._class_sets.get((summary.path, info.qualname), {}).get(name)
        if stored is None:
            return None
        return union(Bound(recv, p) if recv is not None and isinstance(p, (Func, Closure)) else p
                     for p in (stored.parts if stored.op == Op.UNION else (stored,)))

    def note_param_stores(self, info, env: values.Env) -> None:
        """The function ``info`` runs with ``env``: its stores on a parameter holding a class are
        that class's attributes from now on. The locals it reads the class into before storing
        (``original = cls.forward``) are evaluated first, so they keep what the class had. A store of
        documentation (:data:`gblint.semantics.DOC_ATTRIBUTES`) is noted as not known without
        evaluating it (nor, when it is the only store, the locals it is built from)."""
        stores = [s for s in info.param_stores if isinstance(env.bindings.get(s[0]), Cls)]
        if not stores:
            return
        if any(attr not in DOC_ATTRIBUTES for _param, attr, _value, _sure in stores):
            for name in info.locals:
                self.evaluate(Expr(Op.LOCAL, name), env, None)
        for param, attr, value, sure in stores:
            got = UNKNOWN if attr in DOC_ATTRIBUTES else self.evaluate(value, env, None)
            self.note_class_store(env.bindings[param], attr, got, sure)

    def _getattr(self, inst: Inst, name: str, calls: Optional[list], want: bool) -> Optional[Expr]:
        """Run the ``__getattr__`` of ``inst``'s class for attribute ``name`` (None when the program's
        classes define none); what it runs goes into ``calls`` marked as run inside an attribute read
        (:attr:`Target.read`): a break there skips the reading frame, which Dynamo cannot resume
        mid-``LOAD_ATTR`` (measured on torch 2.13, ``tests/test_reach.py``)."""
        method = self.class_attr(inst.cls, "__getattr__", inst, None)
        if method is None:
            return None
        if calls is None:
            return self.apply(method, Args((const(name),)), None, want)
        mine: list = []
        got = self.apply(method, Args((const(name),)), mine, want)
        calls.extend(dataclasses.replace(t, read=True) if t.frame is not None else t for t in mine)
        return got

    def _held_by_module(self, inst: Inst, value: Expr) -> bool:
        """Whether ``value``, stored as an attribute of ``inst``, lives outside the instance's
        ``__dict__``: ``inst`` is an ``nn.Module`` and the value a submodule or parameter, which
        ``nn.Module.__setattr__`` keeps in ``_modules``/``_parameters``. Reading it then runs the
        class's ``__getattr__``, and Dynamo inlines a ``__getattr__`` the program defines
        (diffusers' ``ModelMixin.__getattr__`` on every submodule read; measured on torch 2.13,
        ``tests/test_reach.py``)."""
        if not self.is_module(inst):
            return False
        for p in value.parts if value.op == Op.UNION else (value,):
            if isinstance(p, Inst) and self.is_module(p):
                return True
            if isinstance(p, ExtInst) and (p.name.startswith("torch.nn.") or p.name.startswith("nn.")):
                return True
            if (p.op == Op.SEQ and p.value in ("modulelist", "sequential")) or \
                    (p.op == Op.DICT and p.value == "moduledict"):
                return True
        return False

    @staticmethod
    def _on_class(summary: FileSummary, method: str) -> bool:
        """Whether ``method``'s first parameter is the class (``__init_subclass__``, a classmethod)."""
        info = summary.functions.get(method)
        return info is not None and (info.name == "__init_subclass__" or info.decorator("classmethod") is not None)
