"""The object interpreter: what a call's function turns out to be, and so which frames it runs.

Dynamo inlines every call it can into the frame it compiles; which function that is depends on
objects: the wrapper a decorator returned, the layer a loop takes out of an ``nn.ModuleList``,
the method of the class an instance was built from, the closure a factory made, a property's
getter run by an attribute read. :class:`Interpreter` evaluates the values the summary records
(:mod:`gblint.syntax.flows`, :class:`gblint.core.model.Expr`) to the objects they may be
(:mod:`gblint.abstract.objects`) and says what calling them runs: :class:`Target` frames with what their
parameters hold (the instance as ``self``, a closure's frame), or a break the call itself is.

It is an abstract interpreter, flow-insensitive and bounded: a name is any of the values it is
ever assigned, an attribute any value any method assigns it (those of ``__init__`` evaluated
with the arguments the instance was built with), a call's result any of the callee's
``return`` values for the arguments passed; a value that rests on itself is solved as a cycle
(:mod:`gblint.core.fixpoint`). What it cannot follow is ``unknown``, never a
guess: reach may stop there, but no frame is invented. Python's rules it follows: method
resolution through the bases, ``super()``, bound methods, classmethods and staticmethods,
properties, ``__getattribute__``/``__getattr__``/``__getitem__``/``__call__``, dataclass
construction (``__post_init__``), decorators (evaluated, not assumed), closures and
``functools.partial``; ``nn.Module`` calls run ``forward`` and the module's hooks, containers
(``nn.ModuleList``, ``nn.Sequential``, ``nn.ModuleDict``) hold their layers.
"""
from __future__ import annotations

from typing import Dict, Optional, Tuple

from . import attr_hooks, devices, keyed, nn_overlay, tensors, values
from ..core.fs import installed
from .loop_binds import each_item
from .changes import ProgramChanges, import_groups
from .building import Building
from .class_effects import ClassEffects, a_setting, on_class
from ..core.fixpoint import Fixpoint
from .gaps import Gaps
from .handing import Handing
from .items import Items
from ..core.model import Dotted, Expr, FileSummary, Frame, FunctionInfo
from ..core.namespace import ANY, IN_PLACE
from ..core.ops import Op
from .calling import BOTTOM, Args
from .invoke import Calls
from .objects import (ITEMS, Bound, Closure, Cls, Ctx, Disabled, Ext, ExtInst, Func, Here, Inst, Method, Module, Obj,
                      Partial, Super)
from ..core.semantics import SELF_RETURNING_METHODS, TRANSPARENT_DECORATORS
from .values import DEFAULT_DTYPE, UNKNOWN, Env, const, union

_MODULE = "<module>"
_AS_IS = frozenset({Op.CONST, Op.NOTNONE, Op.UNKNOWN, Op.OBJ, Op.SLICE, Op.TENSOR, Op.DTYPE, Op.LAYOUT,
                    Op.DEVICE})  # each its own value


class Interpreter:
    """Evaluates values to objects across the project (``project``: a :class:`gblint.dynamo.index.Project`).
    Its collaborators, each given the interpreter and calling only what its host protocol names:
    :attr:`calls` (:class:`gblint.abstract.invoke.Calls`: what calling an object runs), :attr:`gaps`
    (:class:`gblint.abstract.gaps.Gaps`), :attr:`handing` (:class:`gblint.abstract.handing.Handing`),
    :attr:`items` (:class:`gblint.abstract.items.Items`), :attr:`building`
    (:class:`gblint.abstract.building.Building`), :attr:`class_effects`
    (:class:`gblint.abstract.class_effects.ClassEffects`)."""

    def __init__(self, project):
        self.project = project
        self._evals = Fixpoint(BOTTOM, lambda v: union((v, UNKNOWN)))
        self._globals: Dict[str, Expr] = {}
        self._defined: Dict[Obj, Expr] = {}
        self._module_envs: Dict[str, values.Env] = {}
        self._keys: Dict[int, tuple] = {}
        self._memo_facts: Optional[tuple] = None  # (files loaded, what _facts gives)
        self._groups: Optional[tuple] = None  # (files loaded, gblint.abstract.changes.import_groups of them)
        self._storing: tuple = (None, [])  # (_facts()[1], the files in it that store by a computed name)
        self._changes = ({}, ProgramChanges(), False, frozenset())  # see _facts
        self._reading: Dict[Tuple[Cls, str], int] = {}  # (class, attribute) -> reads of it being evaluated
        self._mros: Dict[Cls, tuple] = {}  # class -> (files loaded, its MRO then): see class_mro
        self.calls = Calls(self)  # what calling an object runs
        self.gaps = Gaps(self)  # why a call was not followed
        self.handing = Handing(self)  # whether a function changes what it is handed
        self.items = Items(self)  # indexing, iterating, unpacking
        self.building = Building(self)  # what the methods building an instance receive
        self.class_effects = ClassEffects(self)  # what functions run with a class store on it

    # ------------------------------------------------------------------ environments
    def module_env(self, path: str) -> values.Env:
        """The environment of module-level code of the file at ``path``."""
        env = self._module_envs.get(path)
        if env is None:
            env = self._module_envs[path] = Env(frame=Here(path, _MODULE), resolver=self)
        return env

    def frame_env(self, frame: Frame, env: Optional[values.Env]) -> values.Env:
        """``env`` (what ``frame``'s parameters hold) made an environment of ``frame``."""
        here = Here(frame.path, frame.name)
        if env is not None and env.frame == here and env.resolver is self:
            return env
        return env.replace(frame=here, resolver=self) if env is not None else Env(frame=here, resolver=self)

    def changes(self, e: Expr, env: values.Env) -> Optional[bool]:
        """The ``changes`` test ``e`` in ``env``, for :func:`gblint.abstract.values.decide`
        (:meth:`gblint.abstract.handing.Handing.changes`)."""
        return self.handing.changes(e, env)

    def _key(self, env: values.Env) -> tuple:
        found = self._keys.get(id(env))
        if found is None or found[0] is not env:
            found = self._keys[id(env)] = (env, values.env_key(env))
        return found[1]

    def _info(self, env: values.Env) -> Tuple[Optional[FileSummary], Optional[FunctionInfo]]:
        here = env.frame
        if here is None:
            return None, None
        summary = self.project.by_path.get(here.path)
        if summary is None:
            return None, None
        return summary, summary.functions.get(here.qualname)

    # ------------------------------------------------------------------ values
    def value(self, e: Expr, env: values.Env) -> Expr:
        """The value of ``e`` in ``env`` (for :func:`gblint.abstract.values.evaluate`)."""
        return self.evaluate(e, env, None)

    def evaluate(self, e: Expr, env: values.Env, calls: Optional[list]) -> Expr:
        op = e.op
        if op in _AS_IS:  # a set, not a tuple of members: on the hot path (3.11 looks an enum member up slowly)
            return e
        key = (e, self._key(env), calls is not None)
        found = self._evals.get(key)
        if found is None:
            found = self._evals.compute(key, lambda mine: self._eval_op(e, env, mine), calls is not None)
        if calls is not None:
            calls.extend(found[1])
        return found[0]

    def _eval_op(self, e: Expr, env: values.Env, calls: Optional[list]) -> Expr:
        op = e.op
        if op == Op.PARAM:
            return self._param(e.value, env)
        if op == Op.LOCAL:
            return self._local(e.value, env)
        if op == Op.FREE:
            return self._free(e.value, env)
        if op == Op.GLOBAL:
            return self.global_value(e.value)
        if op == Op.ATTR:
            before = env.before.get(e.value)
            if before is not None and e.parts[0].op == Op.PARAM and e.parts[0].value == env.before_self:
                return before  # `self.f = wrap(self.f)`: the value reads what `self.f` held before the store
            return self.attribute(self.evaluate(e.parts[0], env, calls), e.value, calls)
        if op == Op.STORED:  # gblint.syntax.self_stores: no `__setattr__`, property or descriptor changes the store
            owner = self.evaluate(e.parts[0].parts[0], env, calls)
            kept = isinstance(owner, Inst) and self.class_effects.keeps_stores(owner.cls, e.value)
            return self.evaluate(e.parts[1] if kept else e.parts[0], env, calls)
        if op == Op.SUB:
            base = self.evaluate(e.parts[0], env, calls)
            if e.value == values.EACH and (items := each_item(base)) is not None:
                return items  # `L[i]` in a loop over every index of L: each item, one per step
            return self.items.subscript(base, self.evaluate(e.parts[1], env, None), calls)
        if op == Op.CALLV:  # a call inside a value: its frames are its own call event's, not this one's
            fn = self.evaluate(e.parts[0], env, None)
            if fn == _GLOBALS and len(e.parts) == 1:  # this module's namespace: its globals by name
                summary, _ = self._info(env)
                return Module(summary.module) if summary is not None and summary.module else UNKNOWN
            return self.calls.apply(fn, self.calls.arguments(e.parts[1:], env, None), None, want=True)
        if op == Op.ITER:
            return self.items.iterate(self.evaluate(e.parts[0], env, calls))
        if op == Op.PROTOCOL:
            return self.items.protocol(self.evaluate(e.parts[0], env, calls), e.value)
        if op == Op.UNPACK:
            return self.items.unpack(self.evaluate(e.parts[0], env, calls), e.value)
        if op == Op.DEF:
            return self._def(e.value, env)
        if op == Op.SUPER:
            summary, _ = self._info(env)
            if summary is None:
                return UNKNOWN
            return Super(Cls(summary.path, e.value), self.evaluate(e.parts[0], env, None))
        if op == Op.ENTER:
            manager = self.evaluate(e.parts[0], env, calls)
            return self.calls.call_own_method(manager, "__enter__", Args(), calls, default=UNKNOWN)
        if op in (Op.SEQ, Op.DICT):
            if op == Op.SEQ:
                return values.spliced(e.value, [Expr(Op.STAR, parts=(self.evaluate(p.parts[0], env, calls),))
                                                if p.op == Op.STAR else self.evaluate(p, env, calls) for p in e.parts])
            return Expr(Op.DICT, e.value, tuple(Expr(Op.KV, parts=(self.evaluate(kv.parts[0], env, None),
                                                                 self.evaluate(kv.parts[1], env, calls)))
                                               for kv in e.parts))
        if op == Op.COMP:
            return self.items.comprehension(e, env, calls)
        if op == Op.FILTERED and len(e.parts) > 1:
            return Expr(Op.FILTERED, e.value, (self.evaluate(e.parts[0], env, None),)
                        + tuple(self.evaluate(p, env, calls) for p in e.parts[1:]))
        if op == Op.SLICE:
            return e
        if op in values.OBJECT_OPS:  # `kw`/`star`/`starstar` outside a call: nothing to follow
            return UNKNOWN
        return values.evaluate(e, env)

    def _param(self, name: str, env: values.Env) -> Expr:
        bound = env.bindings.get(name)
        if bound is not None:  # a default that names a global is bound as that name (values.bind_values)
            return self.global_value(bound.value) if bound.op == Op.GLOBAL else bound
        summary, info = self._info(env)
        if info is None:
            return UNKNOWN
        for p in info.params:  # passed something gblint does not know (a default is bound by values.bind)
            if p.name == name and p.annotation is not None:  # an instance of the declared type
                return self.instance_of(self.evaluate(p.annotation, self.module_env(summary.path), None))
        return UNKNOWN

    def instance_of(self, declared: Expr) -> Expr:
        """A value of the declared type ``declared`` (a class, None, a union of those)."""
        if declared.op == Op.UNION:
            return union(self.instance_of(p) for p in declared.parts)
        if isinstance(declared, Cls):
            return Inst(declared, ())
        if declared.op == Op.CONST and declared.value is None:
            return declared
        if isinstance(declared, Ext):
            # an annotation is a fact (issue 38): `x: torch.Tensor` holds a tensor
            return Expr(Op.TENSOR) if declared.name in tensors.TENSOR_TYPES else ExtInst(declared.name)
        return UNKNOWN

    def _local(self, name: str, env: values.Env) -> Expr:
        bound = env.locals.get(name)  # a comprehension's target, bound to one element
        if bound is not None:
            return bound
        summary, info = self._info(env)
        if info is None:
            return UNKNOWN
        bindings = info.locals.get(name, ())
        plain = tuple(v for v in bindings if v.op != Op.INPLACE)
        found = [self.evaluate(v, env, None) for v in plain]
        if any(p.name == name for p in info.params):
            found.append(self._param(name, env))
        if not found:
            return UNKNOWN
        changed = len(plain) < len(bindings)  # handed to a call that may change it in place
        if len(found) + changed > 1:  # each binding an alternative; one gblint records as not followed is none
            recorded = [v.op for v in plain] + [Op.PARAM]
            found = [values.OTHER if got.op == Op.UNKNOWN and op != Op.UNKNOWN else got
                     for got, op in zip(found, recorded)]
        if changed:  # what a change in place leaves of it (unknown where it may be anything, as recorded)
            found = keyed.local_changed(found, dict(info.local_keys).get(name), lambda e: self.evaluate(e, env, None))
        return union(found)

    def _free(self, name: str, env: values.Env) -> Expr:
        outer = env.outer
        if isinstance(outer, Ctx):
            outer_env = self._ctx_env(outer)
            summary, info = self._info(outer_env)
            if info is not None:
                if any(p.name == name for p in info.params) or name in info.locals:
                    return self._local(name, outer_env)
                if name in info.local_defs:
                    return self._def(info.local_defs[name], outer_env)
                return self._free(name, outer_env)
            return UNKNOWN
        summary, info = self._info(env)  # a closure whose making gblint did not see: its definer, unbound
        if info is None or "." not in info.qualname:
            return UNKNOWN
        parent = summary.functions.get(info.qualname.rsplit(".", 1)[0])
        if parent is None:
            return UNKNOWN
        parent_env = self.frame_env(Frame(summary.path, parent), None)
        if name in parent.local_defs:
            return self._def(parent.local_defs[name], parent_env)
        if any(p.name == name for p in parent.params) or name in parent.locals:
            return self._local(name, parent_env)
        return self._free(name, parent_env)

    def _ctx_env(self, ctx: Ctx) -> values.Env:
        return Env.from_key(ctx.env, frame=Here(ctx.path, ctx.qualname), resolver=self)

    def ctx_of(self, env: values.Env) -> Optional[Ctx]:
        """The :class:`Ctx` of ``env`` (for a closure made in it)."""
        here = env.frame
        if here is None:
            return None
        key = self._key(env)
        return Ctx(here.path, here.qualname, key[:1] + (None,) + key[2:])  # its frame left out

    def _def(self, qualname: str, env: values.Env) -> Expr:
        """The function ``qualname`` of the current file, as its definition makes it (a closure
        of the enclosing frame when it is nested), decorators applied."""
        here = env.frame
        if here is None:
            return UNKNOWN
        summary = self.project.by_path.get(here.path)
        if summary is None or qualname not in summary.functions:
            return UNKNOWN
        func = Func(here.path, qualname)
        parent = qualname.rsplit(".", 1)[0] if "." in qualname else None
        ctx = None
        if parent is not None and parent in summary.functions:
            e = env
            while e is not None:  # the frame that defines it: this one, or one the closure came from
                h = e.frame
                if h is not None and h.qualname == parent:
                    ctx = self.ctx_of(e)
                    break
                outer = e.outer
                e = self._ctx_env(outer) if isinstance(outer, Ctx) else None
        return self.defined(Closure(func, ctx) if ctx is not None else func)

    # ------------------------------------------------------------------ globals
    def global_value(self, dotted: str) -> Expr:
        """What the dotted name ``dotted`` is: a function (decorated), a class, a module, a
        module-level value, or a library object."""
        found = self._globals.get(dotted)
        if found is None:
            self._globals[dotted] = BOTTOM  # a global defined by itself
            found = self._globals[dotted] = self._global(dotted)
        return found

    def _global(self, dotted: str) -> Expr:
        if dotted.startswith("builtins."):
            return Ext(dotted)
        project = self.project
        head = dotted.split(".")[0]
        owner, _, last = dotted.rpartition(".")
        if last == "__name__" and owner and project.by_module.get(head) is not None:
            summary = project.module(owner)
            if summary is not None and "__name__" not in summary.module_values:
                return values.module_name(owner)
        if head == "torch" or head in ("typing", "functools", "collections", "dataclasses", "math", "types"):
            if project.by_module.get(head) is None:
                return Ext(dotted)
        found = project.lookup(dotted)
        if found is not None:
            summary, rest = found
            out = []
            if rest in summary.functions and "." not in rest:
                out.append(self.defined(Func(summary.path, rest)))
            elif rest in summary.classes:
                out.append(self.class_effects.decorated(summary, rest))
            elif "." in rest and rest.split(".")[0] in summary.classes:
                cls_name, _, attr = rest.rpartition(".")
                if cls_name in summary.classes:
                    got = self.class_attr(Cls(summary.path, cls_name), attr, None, None)
                    out.append(UNKNOWN if got is None else got)
            name, _, attrs = rest.partition(".")
            rebound = summary.global_stores.get(name, ()) if (summary.path, name) in self._facts()[3] else ()
            assigned = summary.module_values.get(name, ()) + rebound
            if any(self.may_run(f) for f in summary.changed_by.get(name, ())):  # a registry a function fills
                assigned = tuple(values.changed_in_place(v) for v in assigned)
            if len(assigned) > 1:  # rebound too: a list grown by sure appends is only maybe what it holds
                assigned = tuple(values.changed_in_place(v) if v.op == Op.SEQ and v.value == values.GROWN else v
                                 for v in assigned)
            if assigned and (not attrs or name not in summary.classes):  # `config.DEBUG = True` elsewhere: changed
                module = self.module_env(summary.path)
                value = self.changed(name, union(self.evaluate(v, module, None) for v in assigned), summary.path)
                for attr in attrs.split(".") if attrs else ():
                    value = self.attribute(value, attr, None)
                out.append(value)
            return union(out) if out else UNKNOWN
        if project.module(dotted) is not None:
            return Module(dotted)
        if project.by_module.get(head) is None and (project.loader is None or project.module(head) is None):
            return Ext(dotted)
        return UNKNOWN

    # ------------------------------------------------------------------ decorators
    def defined(self, func: Obj) -> Expr:
        """``func`` (a :class:`Func` or :class:`Closure`) with its decorators applied, bottom
        up: a decorator of the checked code is called, and what it returns is what the name
        holds when that is a function; library decorators that keep the function
        (:data:`gblint.core.semantics.TRANSPARENT_DECORATORS`) and those whose result gblint cannot
        tell keep it as it is."""
        found = self._defined.get(func)
        if found is not None:
            return found
        self._defined[func] = func  # a decorator that refers back to the function
        base = func.func if isinstance(func, Closure) else func
        summary = self.project.by_path.get(base.path)
        info = summary.functions.get(base.qualname) if summary is not None else None
        value: Expr = func
        if info is not None:
            env = self._ctx_env(func.outer) if isinstance(func, Closure) else self.module_env(base.path)
            for d in reversed(info.decorators):
                if _transparent(d.qualname) or d.expr is None:
                    continue
                deco = self.evaluate(d.expr, env, None)
                result = self.calls.apply(deco, Args((value,)), None, want=True)
                kept = [p for p in (result.parts if result.op == Op.UNION else (result,)) if _callable(p)]
                if kept:  # what it returns that can be called (an unknown part is no evidence of more)
                    value = union(kept)
        self._defined[func] = value
        return value

    # ------------------------------------------------------------------ attributes
    def attribute(self, base: Expr, name: str, calls: Optional[list]) -> Expr:
        """``base.name``; what reading it runs (a property's getter, ``__getattribute__``)
        goes into ``calls``."""
        if base.op == Op.UNION and base.value == values.EACH:
            return Expr(Op.UNION, values.EACH, tuple(self.attribute(p, name, calls) for p in base.parts))
        if base.op == Op.UNION:
            return union(self.attribute(p, name, calls) for p in base.parts)
        if base == values.OTHER:  # what is read from an unknown alternative is one too
            return base
        if base.op in (Op.TENSOR, Op.DEVICE):
            return devices.attribute(base, name, self.dtype_of(base) if base.op == Op.TENSOR else None,
                                     self.dtypes_changed())
        if isinstance(base, Module):
            return self.global_value(f"{base.name}.{name}")
        if isinstance(base, Ext):
            return Ext(f"{base.name}.{name}")
        if isinstance(base, Cls):
            got = self.class_attr(base, name, None, calls)
            return UNKNOWN if got is None else self.changed(name, got, base.path)
        if isinstance(base, Inst):
            return self.instance_attr(base, name, calls)
        if isinstance(base, Super):
            got = self.class_attr(base.cls, name, base.recv, calls, after=True)
            if got is None and isinstance(base.recv, Inst) and name in ("__getitem__", "get"):
                items = dict(base.recv.init).get(ITEMS)
                if items is not None:  # a dict subclass built from a known mapping
                    return Method(items, name)
            if got is None and name == "get" and isinstance(base.recv, Inst):
                return Method(base.recv, "get")  # a Mapping's get: its __getitem__
            if got is None and name == "__call__" and isinstance(base.recv, Inst) and self.calls.is_module(base.recv):
                return Method(base.recv, "__call__")  # nn.Module.__call__: hooks and forward
            return UNKNOWN if got is None else got
        if base.op == Op.DICT and base.value in ("moduledict", "namespace"):
            found = values._lookup(base, const(name))
            if found is not None and found.op != Op.UNKNOWN:
                return found
        if isinstance(base, ExtInst) and base.name.startswith("torch.nn.") and (held := tensors.module_attribute(
                base.name.rsplit(".", 1)[-1], name)) is not None:
            return held  # `self.proj.weight`: a Parameter torch's __init__ made; `self.proj.bias`: None if bias=False
        if isinstance(base, (ExtInst, Partial, Disabled)) or base.op in (Op.SEQ, Op.DICT, Op.FILTERED, Op.CONST):
            return Method(base, name)
        return UNKNOWN

    def dtype_of(self, tensor: Expr) -> Optional[str]:
        """The dtype of the ``tensor`` value (``float32``...), or None when not known: a factory's
        default dtype is float32 unless a file of the project changes dtypes (:meth:`dtypes_changed`;
        torch/__init__.py, ``get_default_dtype``)."""
        if tensor.value != DEFAULT_DTYPE:
            return tensor.value
        return None if self.dtypes_changed() else "float32"

    def called_by_program(self) -> frozenset:
        """The names of the methods the program may call on its objects after building them
        (:func:`gblint.abstract.changes.program_changes`'s ``called``), of the files read so far."""
        return self._facts()[2]

    def base_names(self, cls: Cls):
        """``(held, outside)`` of ``cls`` (see :func:`gblint.abstract.type_tests.isinstance_of`)."""
        held, outside = set(), set()
        for summary, info in self.class_mro(cls):
            held.add((summary.path, info.qualname))
            outside.update(b for b in info.bases if self.project.class_info(summary, Dotted(b)) is None)
            if info.metaclass:  # its __instancecheck__ may answer anything: no library's, as far as gblint knows
                outside.add(f"<metaclass {info.metaclass}>")
        return held, outside

    def importable(self, dotted: str) -> bool:
        """Whether the module of the library name ``dotted`` may be imported when the program runs: a module of the
        project, or one installed here (:func:`gblint.core.fs.installed`). A name from a package that is not installed
        is bound by no run that gets past its import (``try: from torch_sparse import SparseTensor``, ``except
        ImportError:`` a fallback class)."""
        top = dotted.split(".")[0]
        return top in self.project.by_module or any(m.startswith(top + ".") for m in self.project.by_module) \
            or installed(top)

    def dtypes_changed(self) -> bool:
        """Whether a file of the project read so far calls ``torch.set_default_dtype`` or uses
        autocast (``torch.autocast``: layers then compute in a lower precision)."""
        return self._facts()[0]

    def changed(self, name: str, value: Expr, path: Optional[str] = None) -> Expr:
        """``value`` (attribute ``name`` as the object's code sets it), or maybe another when a
        file read so far stores ``name`` on some other object (:attr:`FileSummary.stored_attrs`), or
        stores attributes it names at run time (:data:`gblint.core.namespace.ANY`: ``setattr(cfg, key, v)``,
        ``cfg.__dict__.update(overrides)``) and ``value`` is a constant (a setting that picks a class
        or a branch; the submodules and functions an object holds are left to stores by name) of an object
        whose class (or module) is defined at ``path`` (None: not known), in a file that imports, or is
        imported by, the storing one (:func:`gblint.abstract.changes.import_groups`). Stores by a computed name in the
        packages followed with ``--follow-imports`` are not counted (``PretrainedConfig.from_dict``'s
        ``setattr(config, key, value)``: reached by name only, it would leave every setting of the package unknown)."""
        stored = self._facts()[1]
        if value.op == Op.UNKNOWN:
            return value
        if name in stored or (self._stored_by_name(stored, path) and a_setting(value)):
            return union((value, UNKNOWN))
        return value

    def in_place(self, name: str) -> bool:
        """Whether a file read so far changes in place the container an attribute ``name`` of some object holds
        through another object than a method's own ``self`` (:data:`gblint.core.namespace.IN_PLACE`)."""
        stored = self._facts()[1]
        return IN_PLACE + name in stored or IN_PLACE + ANY in stored

    def _stored_by_name(self, stored: frozenset, path: Optional[str]) -> bool:
        """Whether code that may reach an object defined at ``path`` stores attributes it names at run time."""
        if self._storing[0] is not stored:  # asked for every read of a setting: once per files read
            followed = self.project.loader.followed_paths if self.project.loader is not None else ()
            self._storing = (stored, [s[len(ANY):] for s in stored
                                      if s.startswith(ANY) and s[len(ANY):] not in followed])
        storing = self._storing[1]
        if not storing or path is None:
            return bool(storing)
        if self._groups is None or self._groups[0] != len(self.project.by_path):
            self._groups = (len(self.project.by_path), import_groups(self.project.by_path.values()))
        groups = self._groups[1]
        return groups.get(path, -1) in {groups.get(p) for p in storing}

    def may_run(self, function: str) -> bool:
        """Whether a function named ``function`` may run, by the files read so far (:class:`ProgramChanges`)."""
        self._facts()
        return self._changes[1].reaches(function)

    def _facts(self) -> Tuple[bool, frozenset, frozenset, frozenset]:
        """Of the files read so far: whether one changes dtypes, and what the program may change
        after building objects (:func:`gblint.abstract.changes.program_changes`, taken in a file at a time
        as files load: :class:`gblint.abstract.changes.ProgramChanges`)."""
        known = self._memo_facts
        if known is None or known[0] != len(self.project.by_path):
            read = self.project.by_path
            followed = self.project.loader.followed_paths if self.project.loader is not None else ()
            drivers = frozenset(d.function.rsplit(".", 1)[-1] for s in read.values() if s.path not in followed
                                for d in s.regions if d.function)  # the checked files' functions that compile
            taken, changes, dtypes, driven = self._changes
            if len(taken) > len(read) or not driven <= drivers or any(read.get(p) is not s for p, s in taken.items()):
                taken, changes, dtypes, driven = {}, ProgramChanges(), False, frozenset()  # a file replaced
            for path, s in read.items():
                if taken.get(path) is not s:
                    taken[path] = s
                    changes.add(s)
                    dtypes = dtypes or s.sets_default_dtype
            changes.drive(drivers - driven)
            self._changes = (taken, changes, dtypes, drivers)
            known = self._memo_facts = (len(read), dtypes) + changes.result()
        return known[1:]

    def class_mro(self, cls: Cls):
        """``(summary, ClassInfo)`` of ``cls`` and its bases that the project holds, in
        method-resolution order (depth first, as far as the bases resolve)."""
        loaded = len(self.project.by_path)
        known = self._mros.get(cls)
        if known is None or known[0] != loaded:  # resolving a base may load a module: kept per files read
            summary = self.project.by_path.get(cls.path)
            info = summary.classes.get(cls.qualname) if summary is not None else None
            found = list(self.project.mro(summary, info)) if info is not None else []
            known = self._mros[cls] = (len(self.project.by_path), found)
        return list(known[1])

    def class_attr(self, cls: Cls, name: str, recv: Optional[Expr], calls: Optional[list],
                   after: bool = False) -> Optional[Expr]:
        """Attribute ``name`` looked up on class ``cls`` (from the class after it, for
        ``super()``), bound to ``recv`` (an instance, or None for the class itself): a method,
        a property's value (its getter is called), a classmethod or staticmethod, a class-body
        value, a nested class. None when no class of the project defines it."""
        mro = self.class_effects.after(cls, recv) if after else self.class_mro(cls)
        for summary, info in mro:
            stored = self.class_effects.stored_on_class(summary, info, name, recv)
            if stored is not None:
                return stored
            if name in info.methods:
                qual = info.methods[name]
                fi = summary.functions.get(qual)
                if fi is None:
                    continue
                names = {d.qualname for d in fi.decorators}
                func = self.defined(Func(summary.path, qual))
                if names & _PROPERTIES:
                    if recv is None or not isinstance(recv, Inst):
                        return UNKNOWN
                    if "functools.cached_property" in names and calls is not None:
                        return attr_hooks.cached_property_read(self, recv, name, func, calls)
                    return self.calls.apply(func, Args((recv,)), calls, want=True)
                if "staticmethod" in names:
                    return func
                if "classmethod" in names:
                    owner = recv.cls if isinstance(recv, Inst) else (recv if isinstance(recv, Cls) else cls)
                    return Bound(owner, func)
                return Bound(recv, func) if recv is not None else func
            if name in info.values:
                value = self.evaluate(info.values[name], self.module_env(summary.path), None)
                if recv is not None and isinstance(value, (Func, Closure)):
                    return Bound(recv, value)
                return value
            nested = f"{info.qualname}.{name}"
            if nested in summary.classes:
                return Cls(summary.path, nested)
        return nn_overlay.function_apply(self, cls, mro, calls) if name == "apply" else None

    def instance_attr(self, inst: Inst, name: str, calls: Optional[list]) -> Expr:
        """Attribute ``name`` of the instance ``inst`` (Python's order: a property of its class,
        what its methods assign, a dataclass field, a class attribute or method, then
        ``__getattr__``); reading it calls ``__getattribute__`` when its class defines one.
        Reads of one attribute of one class inside one another stop at :data:`_MAX_NESTED_READS`
        (unknown): each may read it from a new, bigger instance (scipy's sparse arrays)."""
        key = (inst.cls, name)
        depth = self._reading.get(key, 0)
        if depth >= _MAX_NESTED_READS:
            return UNKNOWN
        self._reading[key] = depth + 1
        try:
            return self._instance_attr(inst, name, calls)
        finally:
            self._reading[key] = depth

    def _instance_attr(self, inst: Inst, name: str, calls: Optional[list]) -> Expr:
        mro = self.class_mro(inst.cls)
        if calls is not None:
            for summary, info in mro:
                if "__getattribute__" in info.methods:
                    self.calls.apply(self.defined(Func(summary.path, info.methods["__getattribute__"])),
                                     Args((inst, const(name))), calls, want=False)
                    break
        for summary, info in mro:  # a property wins over the instance's own attributes
            qual = info.methods.get(name)
            if qual is not None:
                fi = summary.functions.get(qual)
                if fi is not None and {d.qualname for d in fi.decorators} & _PROPERTIES:
                    return self.class_attr(inst.cls, name, inst, calls)
                break
        found = self.class_effects.stored_by_init(inst, name)
        later = []  # what methods that do not build the instance assign
        init = dict(inst.init)
        sole = not found and self.class_effects.sole_building_store(mro, name)
        for summary, info in mro:
            building, other = self.class_effects.stores(summary, info, name, inst)
            for method, value in building or other:
                if building and sole:  # what its value reads of `self.<name>` is what the instance held before
                    got = self.class_effects.sole_store(inst, name, summary, info, method, value)
                else:
                    got = self.evaluate(value, self.method_env(inst, summary, method), None)
                if on_class(summary, method):  # `cls.forward = wrapper`: a class attribute, bound when read
                    got = union(Bound(inst, p) if isinstance(p, (Func, Closure)) else p
                                for p in (got.parts if got.op == Op.UNION else (got,)))
                (found if building else later).append(got)
            # a bare annotation (`_cache: Optional[T]`) in an nn.Module's body sets nothing: no generated __init__
            if name in info.fields and (name in info.values or not self.calls.is_module(inst)
                                        or self.calls.generated_init(inst.cls) is not None):
                found.append(init[name] if name in init else
                             self.evaluate(info.values[name], self.module_env(summary.path), None)
                             if name in info.values else UNKNOWN)
            if found:  # the most derived class that sets it while building the instance decides
                opened = keyed.opened(union(found), name, mro, self.in_place(name))
                value = self.class_effects.named_at_run_time(inst, mro, name, self.changed(name, opened, inst.cls.path))
                effects = self.class_effects
                if calls is not None and effects.held_by_module(inst, value):  # in `_modules`, not __dict__
                    effects.run_getattr(inst, name, calls, want=False)
                return value
        got = self.class_attr(inst.cls, name, inst, calls)
        if later:  # until one of those methods runs, the instance has its class's attribute
            return self.class_effects.named_at_run_time(inst, mro, name, self.changed(name, keyed.opened(
                values.alternatives(later + ([got] if got is not None else [])), name, mro, self.in_place(name)),
                inst.cls.path))
        if got is not None:  # a class's dict a method changes through `self` is changed for every instance
            return self.class_effects.named_at_run_time(inst, mro, name, self.changed(
                name, keyed.opened(got, name, mro, self.in_place(name)), inst.cls.path))
        fallback = self.class_effects.run_getattr(inst, name, calls, want=True)
        if fallback is not None:
            return fallback
        if name == "get" and self.class_attr(inst.cls, "__getitem__", inst, None) is not None:
            return Method(inst, "get")  # collections.abc.Mapping.get: its __getitem__
        if name in SELF_RETURNING_METHODS and self.calls.is_module(inst):
            return Method(inst, name)  # nn.Module.eval(), .to(device): the module itself
        return UNKNOWN

    def method_env(self, inst: Inst, summary: FileSummary, method: str) -> values.Env:
        """The environment a method of ``inst``'s class runs in: ``self`` is ``inst``; for the
        ``__init__`` that built it, the arguments it was built with."""
        info = summary.functions.get(method)
        if info is None or not info.params:
            return self.frame_env(Frame(summary.path, info), None) if info else self.module_env(summary.path)
        env = {info.params[0].name: inst.cls if on_class(summary, method) else inst}
        if info.name == "__init__":
            env.update(self.building.init_received(inst, Func(summary.path, method)))
        elif info.name not in self._facts()[2]:  # called only by the class's own code: by __init__, maybe
            env.update(self.building.called_by_init(inst, summary, method))
        for name in set(info.mutated) & set(env):  # a collection the body changes in place (`kwargs["k"] = v`)
            env[name] = keyed.changed(env[name], info, name, lambda k: values.evaluate(k, Env(env)))
        return self.frame_env(Frame(summary.path, info), Env(env))


_GLOBALS = Ext("builtins.globals")
_MAX_NESTED_READS = 16  # reads of one attribute of one class evaluated inside one another, at most


_PROPERTIES = frozenset({"property", "functools.cached_property", "builtins.property"})


def _transparent(qualname: str) -> bool:
    """Whether a decorator of this name keeps the function for tracing (a library's, or a
    property's ``setter``)."""
    return qualname in TRANSPARENT_DECORATORS or qualname.endswith((".setter", ".deleter", ".getter")) or \
        qualname.startswith(("torch.", "typing.", "abc.", "functools.", "contextlib.", "builtins."))


def _callable(v: Expr) -> bool:
    """Whether ``v`` is (or may be) something a call can run."""
    if v.op == Op.UNION:
        return any(_callable(p) for p in v.parts)
    return isinstance(v, (Func, Closure, Bound, Partial, Inst, Disabled))
