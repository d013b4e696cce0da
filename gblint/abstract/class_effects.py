"""What functions run with a class do to it: a class decorator's ``cls.forward = wrapper`` or
``cls.__init__ = init`` (the way transformers' ``use_experts_implementation`` dispatches an experts
layer's ``forward``), and what such an ``__init__``, a method made outside its class, stores on
``self``. Python runs the decorator once, when the ``class`` statement runs; every instance then
has the attributes it stored, and Dynamo traces those (the wrapper, not the class body's method). Likewise
a method rebound while an instance is built, ``self.update = self._wrap_update(self.update)`` (torchmetrics):
the wrapper closure captured the class's method, which the store's value reads (:meth:`ClassEffects.sole_store`).
:class:`gblint.abstract.interp.Interpreter` holds a :class:`ClassEffects`."""
from __future__ import annotations

import dataclasses
from typing import Dict, Optional, Protocol, Tuple

from . import attr_hooks, values
from .building import calls_on_self
from .calling import Args
from .keyed import opened
from ..core.model import Dotted, Expr, FileSummary, Frame
from ..core.ops import Op
from .objects import Bound, Closure, Cls, ExtInst, Func, Inst
from ..core.namespace import ANY
from ..core.semantics import DOC_ATTRIBUTES, TRANSPARENT_DECORATORS
from .values import UNKNOWN, Env, const, union

_BUILDERS = ("__init__", "__post_init__", "__init_subclass__", "__new__")


class ClassEffectsHost(Protocol):
    """What :class:`ClassEffects` asks of the interpreter (:class:`gblint.abstract.interp.Interpreter`)."""

    project: object
    calls: object  # gblint.abstract.invoke.Calls: apply, is_module

    def value(self, e: Expr, env: Env) -> Expr: ...

    def module_env(self, path: str) -> Env: ...

    def frame_env(self, frame: Frame, env: Optional[Env]) -> Env: ...

    def method_env(self, inst: Inst, summary: FileSummary, method: str) -> Env: ...

    def class_attr(self, cls: Cls, name: str, recv: Optional[Expr], calls: Optional[list],
                   after: bool = False) -> Optional[Expr]: ...

    def changed(self, name: str, value: Expr, path: Optional[str] = None) -> Expr: ...

    def called_by_program(self) -> frozenset: ...

    def in_place(self, name: str) -> bool: ...

    def may_run(self, function: str) -> bool: ...

    def instance_attr(self, inst: Inst, name: str, calls: Optional[list]) -> Expr: ...


class ClassEffects:
    """What functions run with a class store on it, asked of ``interp`` (a :class:`ClassEffectsHost`);
    ``_class_sets`` holds, per ``(path, class qualname)``, each attribute a function run with the class
    stored and what it holds."""

    def __init__(self, interp: ClassEffectsHost):
        self.interp = interp
        self.project = interp.project
        self._class_sets: Dict[Tuple[str, str], Dict[str, Expr]] = {}
        self._deciding: set = set()  # (class, attribute) whose stores by a run-time name are being looked at
        self._ever_asked: set = set()  # (class, attribute) whose every value is being found (_ever)
        self._keeps: dict = {}  # (class, attribute) -> whether a read gives what was stored (_gives_back)

    def decorated(self, summary: FileSummary, qualname: str) -> Expr:
        """The class ``qualname`` of ``summary`` with its program's decorators applied, bottom up:
        each is called with the class (what it stores on it, ``cls.forward = wrapper``, becomes
        the class's attribute: :meth:`note_class_store`), and the class it returns is the value."""
        value: Expr = Cls(summary.path, qualname)
        for d in reversed(summary.classes[qualname].decorators):
            if d.qualname in TRANSPARENT_DECORATORS or d.expr is None:
                continue
            deco = self.interp.value(d.expr, self.interp.module_env(summary.path))
            if not isinstance(deco, (Func, Closure)):
                continue
            result = self.interp.calls.apply(deco, Args((value,)), None, want=True)
            kept = [p for p in (result.parts if result.op == Op.UNION else (result,)) if isinstance(p, Cls)]
            if kept:
                value = union(kept)
        return value

    def note_class_store(self, cls: Cls, name: str, value: Expr, sure: bool) -> None:
        """A function run with the class ``cls`` stores ``value`` as its attribute ``name``; not
        on every path (``sure`` False): it may keep what it had."""
        if not sure:
            before = self.interp.class_attr(cls, name, None, None)
            value = values.alternatives((before, value)) if before is not None else value
        sets = self._class_sets.setdefault((cls.path, cls.qualname), {})
        sets[name] = union((sets[name], value)) if name in sets else value

    def stored_by_init(self, inst: Inst, name: str) -> list:
        """What an ``__init__`` that a class decorator put on ``inst``'s class (a closure, not a
        method of the class) stores as ``self.<name>``, run with the arguments ``inst`` was built with."""
        init = self.interp.class_attr(inst.cls, "__init__", None, None)
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
        env = self.interp.frame_env(Frame(summary.path, info), env)
        return [self.interp.value(v, env) if sure else values.alternatives((self.interp.value(v, env), UNKNOWN))
                for v, sure in stores]

    def stores(self, summary: FileSummary, info, name: str, inst: Optional[Inst] = None):
        """:meth:`_assignments` of ``self.name`` in class ``info``: the building ones with those of
        methods the program may call before the run (``model.enable()``), and the others; with ``inst``, not those
        made only under an ``if`` test false for ``inst`` (``if self.cached: self._cache = ...`` where ``cached`` is
        False; an ``__init__``'s ``if cfg.num_experts > 0: self.mlp = SparseMoe(cfg) else: self.mlp = MLP(cfg)``:
        :attr:`gblint.core.model.ClassInfo.guards`)."""
        building, other = _assignments(summary, info, name)
        if inst is not None and info.guards.get(name):  # before those the program calls join the building
            building = tuple(a for a in building if not self._never_stored(inst, summary, info, name, a))
            other = tuple(a for a in other if not self._never_stored(inst, summary, info, name, a))
        if building:
            called = self.interp.called_by_program()
            building += tuple(a for a in other if a[0].rsplit(".", 1)[-1] in called
                              and a[0].rsplit(".", 1)[-1] not in _COPIES_ONLY)
        return building, other

    def _never_stored(self, inst: Inst, summary: FileSummary, info, name: str, store) -> bool:
        """Whether the store ``store`` (method, value) of ``self.name`` runs under a test known false for ``inst``:
        every equal store of that method guarded, each by ``and``-joined tests one of which is false (those reading
        ``self.name`` itself are not decided: that would read the store again)."""
        tests = [t for m, v, t in info.guards[name] if (m, v) == store]
        if len(tests) != sum(1 for a in info.assigned.get(name, ()) if a == store):
            return False  # an equal store of the method that runs unguarded
        env = self.interp.method_env(inst, summary, store[0])
        return all(any(not values.mentions(p, Op.ATTR, name) and values.decide(p, env) is False
                       for p in (t.parts if t.op == Op.AND else (t,))) for t in tests)

    def keeps_stores(self, cls: Cls, name: str) -> bool:
        """Whether ``self.<name> = v`` on an instance of ``cls`` is read back as ``v``: every class of its MRO is
        read (no base outside the project), none defines ``__setattr__`` or ``__getattribute__`` (``nn.Module``'s
        ``__setattr__`` keeps the value) and none makes ``name`` a method, property or descriptor (a class
        attribute that is a constant is shadowed by the store)."""
        _held, outside = self.interp.base_names(cls)
        if outside - {"object", "builtins.object"}:
            return False
        for summary, info in self.interp.class_mro(cls):
            if summary.module.startswith("torch.nn.modules."):
                continue
            for hook in ("__setattr__", "__getattribute__", name):
                if hook in info.methods or (hook in info.values and not (
                        hook == name and info.values[name].op == Op.CONST)):
                    return False
        return True

    def named_at_run_time(self, inst: Inst, mro, name: str, value: Expr) -> Expr:
        """``value`` (attribute ``name`` of ``inst``, whose classes are ``mro``: (summary, ClassInfo) pairs), or maybe
        another where a method of those classes stores attributes on ``self`` by a name known only at run time
        (``for k, v in kwargs.items(): setattr(self, k, v)``) and ``value`` is a constant (a setting), not a method.
        A store whose name the walk finds, in the method's environment for ``inst`` (``kwargs`` holding the
        keywords the instance was built with), to be one of some strings other than ``name`` leaves it alone. Not
        known at all where a class's ``__setattr__``, ``__getattribute__`` or a descriptor of that name may give
        something else than what was stored (:mod:`gblint.abstract.attr_hooks`)."""
        back = self._gives_back(inst, mro, name)
        if back is not True:  # a descriptor or `__getattribute__` answers itself; a `__setattr__` may change it
            return UNKNOWN if back is False or value.op == Op.UNKNOWN else union((value, UNKNOWN))
        if value.op == Op.UNKNOWN or any(name in info.methods for _summary, info in mro) or not a_setting(value):
            return value
        deciding = (inst.cls, name)
        if deciding in self._deciding:  # a store's name read from the attribute itself: not decided
            return union((value, UNKNOWN))
        self._deciding.add(deciding)
        try:
            for summary, info in mro:
                for method, key in info.assigned.get(ANY, ()):
                    if _restores(summary, method, key, self.interp.may_run):
                        continue
                    found = None if key.op == Op.UNKNOWN else self._key_names(inst, mro, summary, method, key)
                    parts = () if found is None else found.parts if found.op == Op.UNION else (found,)
                    if found is None or found.op == Op.UNKNOWN or name in [p.value for p in parts] or not all(
                            p.op == Op.CONST and isinstance(p.value, str) for p in parts):
                        return union((value, UNKNOWN))
            return value
        finally:
            self._deciding.discard(deciding)

    def after(self, cls: Cls, recv) -> list:
        """The classes ``super()`` in a method of ``cls`` looks in for the receiver ``recv`` (an instance, or a class
        in a classmethod): those after ``cls`` in the receiver's class's MRO (``super()`` in ``C`` of an instance of
        ``D(C, B)`` finds ``B``'s method before ``C``'s base ``A``), or after it in its own where the receiver is
        not known to be of a class that has ``cls`` in its MRO, or where ``cls`` has a base outside the program
        (``torch.nn.Module``, which C3 puts right after it and whose method may come first: diffusers'
        ``ModelMixin.__getattr__`` reaches ``nn.Module``'s, not ``ConfigMixin``'s)."""
        own = self.interp.class_mro(cls)
        owner = recv.cls if isinstance(recv, Inst) else recv if isinstance(recv, Cls) else None
        if own and owner is not None and not any(self.project.class_info(own[0][0], Dotted(b)) is None
                                                 for b in own[0][1].bases if b not in ("object", "builtins.object")):
            full = self.interp.class_mro(owner)
            keys = [(summary.path, info.qualname) for summary, info in full]
            if (cls.path, cls.qualname) in keys:
                return full[keys.index((cls.path, cls.qualname)) + 1:]
        return own[1:]

    def _gives_back(self, inst: Inst, mro, name: str):
        """Whether reading ``name`` on ``inst`` (classes ``mro``) gives what was stored or set on the class, as
        :func:`gblint.abstract.attr_hooks.keeps_values` and :func:`gblint.abstract.attr_hooks.descriptor` say: True;
        False where a descriptor or ``__getattribute__`` may give anything; ``MAYBE`` where a ``__setattr__`` that
        does not hand on every value unchanged may have kept that value or another (pyro's ``PyroModule`` keeps what
        is neither a parameter nor a sample as it is)."""
        key = (inst.cls, name)
        known = self._keeps.get(key)
        if known is None:
            known = self._keeps[key] = self._hooks_give_back(mro, name)
        return known

    def _hooks_give_back(self, mro, name: str):
        reads, stores = attr_hooks.keeps_values(mro)
        if not reads:
            return False
        for summary, info in mro:
            if name in info.methods:
                return True
            if name in info.values:
                got = self.interp.value(info.values[name], self.interp.module_env(summary.path))
                if attr_hooks.descriptor(got, self.interp.class_mro):
                    return False
                return True if stores or not any(name in other.assigned for _s, other in mro) else MAYBE
        return True if stores else MAYBE

    def _key_names(self, inst: Inst, mro, summary: FileSummary, method: str, key: Expr) -> Expr:
        """The names the store by a run-time name ``key`` in ``method`` may give, in the method's environment for
        ``inst``, each attribute of ``self`` the key reads taken as anything it may ever hold (the method may run
        after another stored it: ``for attr, v in self._cache.items(): setattr(self, attr, v)``, :meth:`_ever`)."""
        env = self.interp.method_env(inst, summary, method)
        info = summary.functions.get(method)
        reads = {}
        if info is not None and info.params and not on_class(summary, method):
            for name in _self_reads(key, info.params[0].name):
                ever = self._ever(inst, mro, name)
                if ever is not None:
                    reads[name] = ever
        return values.evaluate(_substituted(key, info.params[0].name, reads) if reads else key, env)

    def _ever(self, inst: Inst, mro, name: str) -> Optional[Expr]:
        """Every value attribute ``name`` of ``inst`` may hold while the program runs: what each store of its
        classes' methods makes (building the instance or not), as gblint.abstract.keyed opens it, and what the program
        or a store by a run-time name may put there, besides what it holds when the region starts (a class
        attribute, a dataclass field); None where no method stores it (or while it is asked)."""
        asked = (inst.cls, name)
        if asked in self._ever_asked:
            return None
        self._ever_asked.add(asked)
        try:
            found = []
            for summary, info in mro:
                building, other = _assignments(summary, info, name)
                found += [self.interp.value(value, self.interp.method_env(inst, summary, method))
                          for method, value in building + other]
            if not found:
                return None
            found.append(self.interp.instance_attr(inst, name, None))
            value = opened(union(found), name, mro, self.interp.in_place(name))
            return self.named_at_run_time(inst, mro, name, self.interp.changed(name, value, inst.cls.path))
        finally:
            self._ever_asked.discard(asked)

    def sole_building_store(self, mro, name: str) -> bool:
        """Whether building an instance stores ``self.name`` exactly once in the classes of ``mro``
        and no dataclass field declares it: what the store's value reads of ``self.name`` is then what
        the instance held before any store, its class's attribute."""
        if any(name in info.fields for _summary, info in mro):
            return False
        return sum(len(self.stores(summary, info, name)[0]) for summary, info in mro) == 1

    def sole_store(self, inst: Inst, name: str, summary: FileSummary, cls_info, method: str, value: Expr) -> Expr:
        """What the one store of ``self.name`` (``value``, in ``method`` of class ``cls_info``) made while
        building ``inst`` leaves in the attribute: a read of ``self.name`` in ``value``
        (``self.update = self._wrap_update(self.update)``, torchmetrics' ``Metric.__init__``) is the class's
        attribute bound to ``inst`` (the method), not the store's own result (a cycle, so nothing, read
        flow-insensitively); a store not on every path of ``method`` may leave that attribute as it was."""
        env = self.interp.method_env(inst, summary, method)
        info = summary.functions.get(method)
        if info is None or not info.params or on_class(summary, method):
            return self.interp.value(value, env)
        got = self.interp.class_attr(inst.cls, name, inst, None)
        before = UNKNOWN if got is None else self.interp.changed(name, got, inst.cls.path)
        env = env.replace(before_self=info.params[0].name)
        env.before[name] = before
        stored = self.interp.value(value, env)
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
        documentation (:data:`gblint.core.semantics.DOC_ATTRIBUTES`) is noted as not known without
        evaluating it (nor, when it is the only store, the locals it is built from)."""
        stores = [s for s in info.param_stores if isinstance(env.bindings.get(s[0]), Cls)]
        if not stores:
            return
        if any(attr not in DOC_ATTRIBUTES for _param, attr, _value, _sure in stores):
            for name in info.locals:
                self.interp.value(Expr(Op.LOCAL, name), env)
        for param, attr, value, sure in stores:
            got = UNKNOWN if attr in DOC_ATTRIBUTES else self.interp.value(value, env)
            self.note_class_store(env.bindings[param], attr, got, sure)

    def run_getattr(self, inst: Inst, name: str, calls: Optional[list], want: bool) -> Optional[Expr]:
        """Run the ``__getattr__`` of ``inst``'s class for attribute ``name`` (None when the program's
        classes define none); what it runs goes into ``calls`` marked as run inside an attribute read
        (:attr:`Target.read`): a break there skips the reading frame, which Dynamo cannot resume
        mid-``LOAD_ATTR`` (measured on torch 2.13, ``tests/test_reach.py``)."""
        method = self.interp.class_attr(inst.cls, "__getattr__", inst, None)
        if method is None:
            return None
        if calls is None:
            return self.interp.calls.apply(method, Args((const(name),)), None, want)
        mine: list = []
        got = self.interp.calls.apply(method, Args((const(name),)), mine, want)
        calls.extend(dataclasses.replace(t, read=True) if t.frame is not None else t for t in mine)
        return got

    def held_by_module(self, inst: Inst, value: Expr) -> bool:
        """Whether ``value``, stored as an attribute of ``inst``, lives outside the instance's
        ``__dict__``: ``inst`` is an ``nn.Module`` and the value a submodule or parameter, which
        ``nn.Module.__setattr__`` keeps in ``_modules``/``_parameters``. Reading it then runs the
        class's ``__getattr__``, and Dynamo inlines a ``__getattr__`` the program defines
        (diffusers' ``ModelMixin.__getattr__`` on every submodule read; measured on torch 2.13,
        ``tests/test_reach.py``)."""
        if not self.interp.calls.is_module(inst):
            return False
        for p in value.parts if value.op == Op.UNION else (value,):
            if isinstance(p, Inst) and self.interp.calls.is_module(p):
                return True
            if isinstance(p, ExtInst) and (p.name.startswith("torch.nn.") or p.name.startswith("nn.")):
                return True
            if (p.op == Op.SEQ and p.value in ("modulelist", "sequential", values.GROWN_MODULES)) or \
                    (p.op == Op.DICT and p.value == "moduledict"):
                return True
        return False


#: :meth:`ClassEffects._gives_back`: what was stored, or another value
MAYBE = "maybe"


def a_setting(value: Expr) -> bool:
    """Whether every value ``value`` may be is a constant (a setting that picks a class or a branch), not an
    object (the submodules and functions an object holds, which stores by a computed name leave alone)."""
    return all(values.is_constant(p) for p in (value.parts if value.op == Op.UNION else (value,)))


def on_class(summary: FileSummary, method: str) -> bool:
    """Whether ``method``'s first parameter is the class (``__init_subclass__``, a classmethod)."""
    info = summary.functions.get(method)
    return info is not None and (info.name == "__init_subclass__" or info.decorator("classmethod") is not None)


# methods Python calls only on an object made by copying or unpickling another (copy.deepcopy, pickle.loads: the
# new object, built without __init__, restores its state), never on the instance the program built
_COPIES_ONLY = frozenset({"__setstate__"})


def _assignments(summary: FileSummary, info, name: str):
    """The assignments of ``self.name`` in class ``info``: ``(building, other)``, those made
    while an instance is built (``__init__``, ``__post_init__``, ``__init_subclass__``, and
    the methods ``__init__`` calls on ``self``), which hold when a compiled region first
    runs on a new instance, and those of its other methods."""
    assigned = info.assigned.get(name, ())
    if not assigned:
        return (), ()
    building = {f"{info.qualname}.{m}" for m in _BUILDERS}
    init = summary.functions.get(f"{info.qualname}.__init__")
    for ev in calls_on_self(init) if init is not None else ():
        building.add(f"{info.qualname}.{ev.func.value}")
    return tuple(a for a in assigned if a[0] in building), tuple(a for a in assigned if a[0] not in building)


def _restores(summary: FileSummary, method: str, key: Expr, may_run) -> bool:
    """Whether a store by a run-time name (``key``) in ``method`` of ``summary`` changes no attribute of an instance
    from what it held: ``__setattr__``'s own ``super().__setattr__(name, value)`` (the store an assignment
    ``obj.name = value`` makes, counted as that assignment), and ``__setstate__`` that the program never calls by
    name (``may_run(name)``, :meth:`gblint.abstract.interp.Interpreter.may_run`: then it only fills a copied or unpickled
    instance, a new object, with what the original held: ``copy``'s and ``pickle``'s protocol)."""
    info = summary.functions.get(method)
    if info is None:
        return False
    if info.name == "__setstate__":
        return not may_run("__setstate__")
    return info.name == "__setattr__" and len(info.params) >= 2 and key.op == Op.PARAM \
        and key.value == info.params[1].name


def _own_attr(e: Expr, self_name: str) -> bool:
    """Whether ``e`` reads an attribute of the parameter ``self_name`` (``self.name``)."""
    return e.op == Op.ATTR and bool(e.parts) and e.parts[0].op == Op.PARAM and e.parts[0].value == self_name


def _self_reads(e: Expr, self_name: str) -> set:
    """The attributes of the parameter ``self_name`` that ``e`` reads directly (``self.name``)."""
    if _own_attr(e, self_name):
        return {e.value}
    out: set = set()
    for p in e.parts:
        if isinstance(p, Expr):
            out |= _self_reads(p, self_name)
    return out


def _substituted(e: Expr, self_name: str, reads: Dict[str, Expr]) -> Expr:
    """``e`` with each ``self.name`` of ``reads`` replaced by its value there."""
    if _own_attr(e, self_name) and e.value in reads:
        return reads[e.value]
    if not isinstance(e, Expr) or not e.parts:
        return e
    return Expr(e.op, e.value, tuple(_substituted(p, self_name, reads) if isinstance(p, Expr) else p for p in e.parts))
