"""Calls, for the object interpreter (:mod:`gblint.abstract.interp`): what calling an object runs.

A function or closure runs its frame with its parameters bound; a bound method adds its
receiver; a class builds an instance (``__init__``, a dataclass's ``__post_init__``; an
``nn.Module`` built inside a compiled region is a break of its own); an instance runs its
``forward`` and hooks (an ``nn.Module``) or ``__call__``; library functions that call or return
what they are given are followed (``checkpoint``, ``functools.partial``, ``getattr``, the module
containers, ``torch.compile``, ``torch.compiler.disable``). :class:`Calls` is held by
:class:`gblint.abstract.interp.Interpreter` as ``calls``.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Sequence, Tuple

from . import keyed, layouts, ndarrays, nn_overlay, tensors, type_tests, values
from ..core.model import Dotted, Expr, FileSummary, Frame
from ..core.ops import Op
from .objects import (ITEMS, Bound, Closure, Cls, Disabled, Ext, ExtInst, Func, Inst, Method, Obj, Partial, Super,
                      Wraps)
from ..core.semantics import (CHECKPOINT, CHECKPOINT_OPTIONS, COMPILE_NAMES, DATACLASS_DECORATORS, DISABLE, RNN_MODULES,
                              SAME_DTYPE_MODULES, SELF_RETURNING_METHODS, STR_METHODS)
from .calling import BOTTOM, UNSEEN, Args, CallsHost, Target
from .folding import fold_builtin
from .grads import GRAD, method_grad
from .values import UNKNOWN, Env, const, union

_MAX_DEPTH = 24  # calls whose results are evaluated inside one another, at most
_MAX_RECURSION = 3  # results of one function evaluated inside one another, at most
# function bodies evaluated for one region, at most (harness drivers: under 6,000); then a result is not known: calls
MAX_RUNS = 50_000  # on it are listed as not followed, tests on it conditional (a call graph forking at every level)
_IN_PLACE = frozenset({Op.SEQ, Op.DICT})  # the values values.changed_in_place changes


class Calls:
    """Calling objects, for the interpreter ``interp`` (a :class:`CallsHost`) that holds it as
    ``interp.calls``: what a call runs (:meth:`targets`, :meth:`apply`), building instances,
    library calls, the compiled objects. Keeps the bounds of one region's evaluation: calls whose
    results are evaluated inside one another (``_depth``), results of one function inside one
    another (``_recursion``), function bodies evaluated (``runs``, reset by the region walk)."""

    def __init__(self, interp: CallsHost):
        self.interp = interp
        self.project = interp.project
        self._depth = 0
        self._recursion: Dict[Tuple[str, str], int] = {}  # (path, qualname) -> results being evaluated
        self.runs = 0  # function bodies evaluated since the region walk began (MAX_RUNS)

    # ------------------------------------------------------------------ calls
    def arguments(self, parts: Sequence[Expr], env: values.Env, calls: Optional[list]) -> Args:
        """A ``callv``'s argument parts, evaluated (``*x``/``**x`` unpacked when their values are known)."""
        positional: List[Expr] = []
        keywords: List[Tuple[str, Expr]] = []
        star = starstar = False
        for p in parts:
            if p.op == Op.KW:
                keywords.append((p.value, self.interp.evaluate(p.parts[0], env, calls)))
            elif p.op == Op.STAR:
                v = _same_length(self.interp.evaluate(p.parts[0], env, calls))
                if v.op == Op.SEQ and not star:
                    positional.extend(v.parts)
                    star = v.value in values.OPEN
                else:
                    star = True
            elif p.op == Op.STARSTAR:
                v = self.interp.evaluate(p.parts[0], env, calls)
                if v.op == Op.DICT and all(kv.parts[0].op == Op.CONST and isinstance(kv.parts[0].value, str)
                                          for kv in v.parts):
                    keywords.extend((kv.parts[0].value, kv.parts[1]) for kv in v.parts)
                    starstar = starstar or values.more_keys(v)
                else:
                    starstar = True
            elif star:
                star = True  # a positional argument after an unpacked `*x`: its place is not known
            else:
                positional.append(self.interp.evaluate(p, env, calls))
        return Args(tuple(positional), tuple(keywords), star, starstar)

    def event_args(self, ev, env: values.Env, calls: Optional[list]) -> Args:
        """The arguments of the call event ``ev`` (its :class:`gblint.core.model.CallArgs`), evaluated."""
        return self.call_args(ev.args, env, calls)

    def call_args(self, a, env: values.Env, calls: Optional[list] = None) -> Args:
        """Recorded arguments (a :class:`gblint.core.model.CallArgs`, or None: not known), evaluated."""
        if a is None:
            return UNSEEN
        parts = list(a.positional) + [Expr(Op.KW, k, (v,)) for k, v in a.keywords]
        parts += [Expr(Op.STAR, parts=(r,)) for r in a.rest] + [Expr(Op.STARSTAR, parts=(r,)) for r in a.rest_kw]
        args = self.arguments(parts, env, calls)
        return dataclasses.replace(args, star=args.star or (a.star and not a.rest),
                                   starstar=args.starstar or (a.starstar and not a.rest_kw))

    def targets(self, frame: Frame, ev, env: Optional[values.Env]) -> List[Target]:
        """What the call (or attribute read) ``ev`` of ``frame``, its parameters holding ``env``,
        runs: the frames its function (and its arguments' attribute reads) lead to."""
        env = self.interp.frame_env(frame, env)
        calls: List[Target] = []
        if ev.func is None:
            return calls
        fn = self.interp.evaluate(ev.func, env, calls)
        if ev.read and ev.args is None:
            return calls
        args = self.event_args(ev, env, calls)
        self.apply(fn, args, calls, want=False)
        if ev.func.op == Op.ATTR:  # hooks registered on a child module by its owner
            owner = self.interp.evaluate(ev.func.parts[0], env, None)
            for part in owner.parts if owner.op == Op.UNION else (owner,):
                if isinstance(part, Inst):
                    self._hooks(part, ev.func.value, args, calls)
        return calls

    def apply(self, fn: Expr, args: Args, calls: Optional[list], want: bool) -> Expr:
        """Call ``fn`` with ``args``: what it runs goes into ``calls`` (when not None), and,
        with ``want``, what it returns is returned."""
        if fn.op == Op.UNION:
            if calls is None:
                return union(self.apply(p, args, calls, want) for p in fn.parts)
            return self._apply_union(fn, args, calls, want)
        if self._depth > _MAX_DEPTH:
            return UNKNOWN
        self._depth += 1
        try:
            return self._apply(fn, args, calls, want)
        finally:
            self._depth -= 1

    def _always_raises(self, fn: Expr) -> bool:
        """Whether calling ``fn`` (a function of the program, maybe bound) raises on every path:
        its body ends in a ``raise`` and has no ``return`` (:attr:`FunctionInfo.results` empty)."""
        frame, _ = self.program_function(fn)
        return frame is not None and not frame.info.results and not frame.info.is_generator

    def program_function(self, fn: Expr) -> Tuple[Optional[Frame], int]:
        """The frame of the program's function that calling ``fn`` runs (a :class:`Func`, maybe a
        :class:`Closure` of one, maybe :class:`Bound`), and how many receivers the binding passes
        first (1 for a bound method); ``(None, 0)`` for any other value."""
        recv = 0
        if isinstance(fn, Bound):
            fn, recv = fn.func, 1
        if isinstance(fn, Closure):
            fn = fn.func
        if not isinstance(fn, Func):
            return None, 0
        summary = self.project.by_path.get(fn.path)
        info = summary.functions.get(fn.qualname) if summary is not None else None
        return (Frame(fn.path, info) if info is not None else None), recv

    def _apply_union(self, fn: Expr, args: Args, calls: list, want: bool) -> Expr:
        """Call the union ``fn``, one of several values: a frame that only some of its known
        values run is a target only maybe, marked with what it was called as
        (:attr:`Target.maybe`); one every known value runs is certain."""
        results, per = [], []
        if fn.value == values.EACH:  # each item of a list, one per step of a loop: each one runs
            for p in fn.parts:
                results.append(self.apply(p, args, calls, want))
            return union(results)
        for p in fn.parts:
            mine: List[Target] = []
            results.append(self.apply(p, args, mine, want))
            per.append((p, mine))
        # a part gblint does not know is no evidence of another callee (it is most often what
        # gblint could not follow of the same object): only known parts that differ make it maybe
        known = [mine for p, mine in per if p.op != Op.UNKNOWN or p.value == values.OTHER.value]
        common = set.intersection(*({_target_key(t) for t in mine} for mine in known)) if known else set()
        joined = _joined_targets([t for _p, mine in per for t in mine if _target_key(t) in common and not t.maybe])
        for p, mine in per:
            label = _label(p)
            for t in mine:
                if _target_key(t) in common and not t.maybe:
                    calls.extend(joined.pop(_target_key(t), ()))  # for every alternative, the first time
                else:
                    calls.append(t if t.maybe else dataclasses.replace(t, maybe=label))
        return union(results)

    def _apply(self, fn: Expr, args: Args, calls: Optional[list], want: bool) -> Expr:
        if isinstance(fn, (Func, Closure)):
            return self._run(fn, args, calls, want)
        if isinstance(fn, Bound):
            return self.apply(fn.func, args.prepend(fn.recv), calls, want)
        if isinstance(fn, Cls):
            return self.instantiate(fn, args, calls)
        if isinstance(fn, Inst):
            return self.call_instance(fn, args, calls, want)
        if isinstance(fn, Partial):
            merged = Args(fn.args + args.positional, fn.keywords + args.keywords, args.star, args.starstar)
            return self.apply(fn.func, merged, calls, want)
        if isinstance(fn, Disabled):
            if calls is not None:
                calls.append(Target(None, kind="disabled", name=_label(fn.inner)))
            return UNKNOWN
        if isinstance(fn, Wraps):
            return args.positional[0] if args.positional else UNKNOWN
        if isinstance(fn, Ext):
            return self.library_call(fn.name, args, calls, want)
        if isinstance(fn, Method):
            return self._builtin_method(fn, args, calls, want)
        if fn.op == Op.SEQ and fn.value == "sequential":
            for layer in fn.parts:
                self.apply(layer, args, calls, False)
            return values.NOTNONE
        if isinstance(fn, ExtInst):
            if fn.name in RNN_MODULES and calls is not None:
                calls.append(Target(None, kind="rnn", name=fn.name))
            first = args.positional[0] if args.positional else None
            last = fn.name.rsplit(".", 1)[-1]
            if fn.name.startswith("torch.nn.") and last in SAME_DTYPE_MODULES \
                    and first is not None and first.op == Op.TENSOR:
                dtype = None if self.interp.dtypes_changed() else self.interp.dtype_of(first)
                # a layer's output is a tensor, of its input's dtype; with parameters, one that requires grad
                return Expr(Op.TENSOR, dtype, ((GRAD,) if tensors.PARAMETERS.get(last) else ())
                            + layouts.method_layout("forward", first))
            if fn.name.startswith("torch.nn.") and last in tensors.TENSOR_MODULES:
                return Expr(Op.TENSOR)  # its forward is annotated `-> Tensor` (gblint/data/torch_ops-*.json)
            return values.NOTNONE if fn.name.startswith("torch.nn.") else UNKNOWN
        return UNKNOWN

    def _run(self, fn: Obj, args: Args, calls: Optional[list], want: bool) -> Expr:
        """Run the function ``fn`` (a :class:`Func` or :class:`Closure`) with ``args``."""
        base = fn.func if isinstance(fn, Closure) else fn
        summary = self.project.by_path.get(base.path)
        info = summary.functions.get(base.qualname) if summary is not None else None
        if info is None:
            return UNKNOWN
        env = Env(values.bind_values(args.positional, args.keywords, args.star, args.starstar, info.params, False),
                  outer=fn.outer if isinstance(fn, Closure) else None)
        frame = Frame(base.path, info)
        env = self.interp.frame_env(frame, env)
        self.interp.class_effects.note_param_stores(info, env)
        star = {p.name for p in info.params if p.kind == "star"}  # `*args` is a tuple: nothing changes it in place
        # only a list or dict is changed in place (values.changed_in_place): any other value is not tested
        changed = [n for n in info.mutated if n not in star and n in env.bindings
                   and env.bindings[n].op in _IN_PLACE and values.changed_by(info, n, env)]
        for name in changed:  # a collection the function changes before (or while) reading it
            env.bindings[name] = keyed.changed(env.bindings[name], info, name, lambda k: self.interp.evaluate(k, env, None))
        if calls is not None:
            calls.append(Target(frame, env))
        if not want:
            return UNKNOWN
        if not info.results and not info.is_generator:
            return BOTTOM  # every path raises: the call returns nothing
        key = (base.path, base.qualname)
        depth = self._recursion.get(key, 0)
        self.runs += 1
        if depth >= _MAX_RECURSION or self.runs > MAX_RUNS:  # each level may have new arguments: no memo stops it
            return UNKNOWN
        self._recursion[key] = depth + 1
        try:
            return union(self.interp.evaluate(r, env, None) for r in info.results)
        finally:
            self._recursion[key] = depth

    def call_method(self, recv: Expr, name: Optional[str], args: Tuple[Expr, ...]) -> Expr:
        """What ``recv.name(*args)`` returns (``name`` None: ``items``), for :mod:`gblint.abstract.values`."""
        return self.apply(self.interp.attribute(recv, name or "items", None), Args(tuple(args)), None, want=True)

    def call_own_method(self, recv: Expr, name: str, args: Args, calls: Optional[list], default: Expr) -> Expr:
        """``recv.name(*args)`` when ``recv``'s class defines ``name``; else ``default``."""
        if recv.op == Op.UNION:
            return union(self.call_own_method(p, name, args, calls, default) for p in recv.parts)
        if isinstance(recv, Inst):
            method = self.interp.class_attr(recv.cls, name, recv, None)
        elif isinstance(recv, Cls):
            meta = self._metaclass(recv)
            method = self.interp.class_attr(meta, name, recv, None) if meta is not None else None
        else:
            method = None
        if method is None:
            return default
        return self.apply(method, args, calls, want=True)

    def _metaclass(self, cls: Cls) -> Optional[Cls]:
        for summary, info in self.interp.class_mro(cls):
            if info.metaclass:  # resolved as a base is: a class of this module, or an imported one
                local = self.project.class_info(summary, Dotted(info.metaclass))
                found = Cls(local[0].path, local[1].qualname) if local else self.interp.global_value(info.metaclass)
                return found if isinstance(found, Cls) else None
        return None

    def instantiate(self, cls: Cls, args: Args, calls: Optional[list]) -> Expr:
        """``cls(*args)``: an nn.Module whose torch base makes parameters, built inside a compiled
        region, is a break of its own (``construct``, :meth:`gblint.dynamo.index.Project.builds_parameters`);
        any other class runs its metaclass's ``__call__``, ``__init__``, and a
        dataclass's ``__post_init__``/``__setattr__``. Returns the instance."""
        summary = self.project.by_path.get(cls.path)
        info = summary.classes.get(cls.qualname) if summary is not None else None
        if info is None:
            return UNKNOWN
        generated = self.generated_init(cls)
        own = None if generated is not None else self.interp.class_attr(cls, "__init__", None, None)
        if self.project.is_module_class(summary, info) and self.project.builds_parameters(summary, info):
            if calls is not None:
                calls.append(Target(None, kind="construct", name=cls.qualname))
            return Inst(cls, self.init_values(cls, args, generated, own))
        inst = Inst(cls, self.init_values(cls, args, generated, own)
                    + (self._items_given(args) if generated is None and own is None else ()))
        meta = self._metaclass(cls)
        if meta is not None:
            call = self.interp.class_attr(meta, "__call__", cls, None)
            if call is not None:
                self.apply(call, args, calls, want=False)
        init = None if own is None else self.interp.class_attr(cls, "__init__", inst, None)
        if init is not None:
            self.apply(init, args, calls, want=False)
            if self._always_raises(init):  # a placeholder for a missing dependency: no instance is made
                return BOTTOM
        elif generated is not None:
            # the generated __init__ assigns each field (through a __setattr__ the class defines,
            # unless frozen: object.__setattr__), then calls __post_init__ (dataclasses._init_fn)
            setattr_ = None if generated.kwargs.get("frozen") == "True" else \
                self.interp.class_attr(cls, "__setattr__", inst, None)
            if setattr_ is not None:
                self.apply(setattr_, Args((UNKNOWN, UNKNOWN)), calls, want=False)
            for wrapper in self._stored_through_meta(cls, "__init__"):
                self.apply(wrapper, args.prepend(inst), calls, want=False)
            method = self.interp.class_attr(cls, "__post_init__", inst, None)
            if method is not None:
                self.apply(method, Args(), calls, want=False)
        return inst

    def _stored_through_meta(self, cls: Cls, name: str) -> List[Expr]:
        """The functions a metaclass's ``__setattr__`` stores instead of the value it is given, when
        the class is assigned ``name`` (``@dataclass`` sets the generated ``__init__`` with
        ``setattr(cls, "__init__", fn)``, which runs ``type(cls).__setattr__``): the callable
        values its value parameter is rebound to (a wrapper it defines), which the class then holds."""
        meta = self._metaclass(cls)
        setattr_ = self.interp.class_attr(meta, "__setattr__", None, None) if meta is not None else None
        if not isinstance(setattr_, Func):
            return []
        summary = self.project.by_path.get(setattr_.path)
        info = summary.functions.get(setattr_.qualname) if summary is not None else None
        if info is None or len(info.params) != 3 or not info.locals.get(info.params[2].name):
            return []
        env = self.interp.frame_env(Frame(setattr_.path, info), Env({info.params[0].name: cls, info.params[1].name: const(name)}))
        found = [self.interp.evaluate(v, env, None) for v in info.locals[info.params[2].name]]
        return [p for v in found for p in (v.parts if v.op == Op.UNION else (v,)) if isinstance(p, (Func, Closure))]

    def generated_init(self, cls: Cls):
        """The dataclass decorator (a :class:`gblint.core.model.Decorator`) whose generated
        ``__init__`` building ``cls`` runs: the first class of the MRO that defines ``__init__``
        in its body or is a dataclass (``init=False`` generates none); None when it is a method.
        A dataclass subclass of a class with its own ``__init__`` replaces that ``__init__``."""
        for _, info in self.interp.class_mro(cls):
            if "__init__" in info.methods or "__init__" in info.values:
                return None
            for d in info.decorators:
                if d.qualname in DATACLASS_DECORATORS and d.kwargs.get("init") != "False":
                    return d
        return None

    @staticmethod
    def _items_given(args: Args) -> Tuple[Tuple[str, Expr], ...]:
        """``(ITEMS, mapping)`` when a class with no ``__init__`` of the project's is built from
        one known mapping (a ``dict``/``OrderedDict`` subclass: ``Table({...})``): the library
        base's ``__init__`` holds its items, which ``super().__getitem__`` then reads."""
        if len(args.positional) != 1 or args.keywords or args.star or args.starstar \
                or args.positional[0].op != Op.DICT or args.positional[0].value in values.OPEN:
            return ()
        return ((ITEMS, args.positional[0]),)

    def init_values(self, cls: Cls, args: Args, generated, init) -> Tuple[Tuple[str, Expr], ...]:
        """What the instance is built with: the arguments bound to the parameters of ``init``,
        the ``__init__`` Python calls (unbound; None when there is none of the project's), unknown
        ones left out, or to the dataclass fields when ``generated`` (:meth:`generated_init`) builds
        it: a field given a value gblint does not know, or one an unpacked ``*x``/``**x`` may give,
        is unknown, never its default (a preset splatted into the config picks the class)."""
        if isinstance(init, (Func, Closure)):  # a closure: an `__init__` a class decorator put there
            base = init.func if isinstance(init, Closure) else init
            summary = self.project.by_path.get(base.path)
            info = summary.functions.get(base.qualname) if summary is not None else None
            if info is not None:
                env = values.bind_values(args.positional, args.keywords, args.star, args.starstar, info.params, True)
                return tuple(sorted(env.items()))
        if generated is not None:
            fields = []
            for _, info in reversed(self.interp.class_mro(cls)):
                fields.extend(f for f in info.fields if f not in fields)
            given = dict(zip(fields, args.positional))
            given.update((k, v) for k, v in args.keywords if k in fields)
            unseen = fields[len(args.positional):] if args.starstar or args.star else ()
            given.update((f, UNKNOWN) for f in unseen if f not in given)
            # the generated `__init__` sets a field to the dataclass's own default: a subclass that is no
            # dataclass re-assigning it in its body does not change what the instance holds
            for _, info in self.interp.class_mro(cls):
                if generated in info.decorators:
                    break
                given.update((f, UNKNOWN) for f in fields if f not in given and (f in info.values or f in info.fields))
            return tuple(sorted(given.items()))
        return ()

    def call_instance(self, inst: Inst, args: Args, calls: Optional[list], want: bool) -> Expr:
        """Calling the instance ``inst``: an ``nn.Module`` runs its pre-hooks, ``forward`` and
        hooks (``torch/nn/modules/module.py`` ``_call_impl``); anything else its ``__call__``."""
        summary = self.project.by_path.get(inst.cls.path)
        info = summary.classes.get(inst.cls.qualname) if summary is not None else None
        if info is None:
            return UNKNOWN
        for s, c in self.interp.class_mro(inst.cls):
            if s.module.startswith("torch.nn.modules."):
                break  # torch itself is followed: nn.Module's own __call__ is module_call
            if "__call__" in c.methods or "__call__" in c.values:  # an nn.Module's override too
                call = self.interp.class_attr(inst.cls, "__call__", inst, None)
                return self.apply(call, args, calls, want) if call is not None else UNKNOWN
        if self.project.is_module_class(summary, info):
            return self.module_call(inst, args, calls, want)
        return UNKNOWN

    def module_call(self, inst: Inst, args: Args, calls: Optional[list], want: bool) -> Expr:
        """``nn.Module.__call__`` on the instance ``inst``: its pre-hooks, ``forward`` and
        hooks (``torch/nn/modules/module.py`` ``_call_impl``), as a class that overrides
        ``__call__`` reaches it through ``super().__call__(...)``."""
        self._hooks(inst, "", args, calls, pre=True)
        forward = self.interp.instance_attr(inst, "forward", calls)
        base = nn_overlay.torch_base(self.interp, inst.cls) if forward.op == Op.UNKNOWN else None
        if base is not None:  # torch's own forward runs: it calls the subclass's overrides of its helpers
            result = nn_overlay.torch_forward(self.interp, inst, args, calls, base)
        else:
            result = self.apply(forward, args, calls, want)
        self._hooks(inst, "", args, calls, pre=False)
        return result

    def _hooks(self, owner: Inst, attr: str, args: Args, calls: Optional[list], pre: Optional[bool] = None) -> None:
        """The hooks the class of ``owner`` registers on itself (``attr`` empty) or on its
        attribute ``attr``, called as the module calls them."""
        if calls is None:
            return
        for summary, info in self.interp.class_mro(owner.cls):
            for kind in (("\0prehooks",) if pre else ("\0hooks",) if pre is False else ("\0prehooks", "\0hooks")):
                for method, value in info.assigned.get(kind + attr, ()):
                    hook = self.interp.evaluate(value, self.interp.method_env(owner, summary, method), None)
                    self.apply(hook, Args((UNKNOWN,) * (2 if kind == "\0prehooks" else 3)), calls, want=False)

    def library_call(self, name: str, args: Args, calls: Optional[list], want: bool) -> Expr:
        """A call of a library function or class gblint does not read: the ones that call or
        return what they are given are followed (``checkpoint``, ``partial``, ``getattr``,
        the module containers, ``torch.compile``, ``torch.compiler.disable``...)."""
        first = args.positional[0] if args.positional else None
        if (folded := fold_builtin(name, args.positional, args.keywords)) is not None:
            return folded
        if name in COMPILE_NAMES:
            return first if first is not None else UNKNOWN
        if name.startswith("torch.") and name[6:] in tensors.DTYPE_TESTS and first is not None \
                and first.op == Op.TENSOR and len(args.positional) == 1 and not args.keywords:
            return self._builtin_method(Method(first, name[6:]), Args(()), calls, want)  # `torch.is_complex(x)`
        if name in DISABLE:
            return Disabled(first) if first is not None else UNKNOWN
        if name == "functools.wraps":
            return Wraps()
        if name == "functools.partial" and first is not None:
            return Partial(first, args.positional[1:], args.keywords)
        if name in CHECKPOINT and first is not None:
            if calls is not None:
                inner: List[Target] = []
                self.apply(first, Args(args.positional[1:], tuple(kv for kv in args.keywords
                                                                  if kv[0] not in CHECKPOINT_OPTIONS)),
                           inner, want=False)
                calls.extend(dataclasses.replace(t, flat=True) for t in inner)
            return values.NOTNONE
        short = name.rsplit(".", 1)[-1]
        if name.startswith("torch.nn.") and short in ("ModuleList", "ParameterList"):
            if first is not None and first.op == Op.SEQ and first.value not in values.OPEN:
                return Expr(Op.SEQ, "modulelist", first.parts)  # a list display: each layer in its place
            if first is not None and first.op == Op.SEQ and first.value == values.GROWN:
                return Expr(Op.SEQ, values.GROWN_MODULES, first.parts)  # each layer there, in some places
            items = self.interp.items.iterate(first) if first is not None else BOTTOM
            return Expr(Op.SEQ, "modulelist", (items,)) if items.op not in (Op.UNION,) or items.parts else Expr(Op.SEQ, "modulelist")
        if name.startswith("torch.nn.") and short == "Sequential":
            if len(args.positional) == 1 and args.positional[0].op == Op.DICT:
                return Expr(Op.SEQ, "sequential", tuple(kv.parts[1] for kv in args.positional[0].parts))
            return Expr(Op.SEQ, "sequential", args.positional)
        if name.startswith("torch.nn.") and short in ("ModuleDict", "ParameterDict"):
            return Expr(Op.DICT, "moduledict", first.parts if first is not None and first.op == Op.DICT else ())
        if name in ("builtins.dict", "collections.OrderedDict"):  # a copy: what a mapping or pairs not known held
            kind = values.OPEN_DICT if args.star or args.starstar or (first is not None and first.op != Op.DICT) \
                else first.value if first is not None else None
            base = first.parts if first is not None and first.op == Op.DICT else ()
            return Expr(Op.DICT, kind, base + tuple(Expr(Op.KV, parts=(const(k), v)) for k, v in args.keywords))
        if name == "types.SimpleNamespace":
            return Expr(Op.DICT, "namespace", tuple(Expr(Op.KV, parts=(const(k), v)) for k, v in args.keywords))
        if name in ("builtins.list", "builtins.tuple") and first is not None:
            return first if first.op == Op.SEQ else Expr(Op.FILTERED, parts=(first, self.interp.items.iterate(first)))
        if name in ("builtins.iter", "builtins.reversed", "builtins.sorted") and first is not None:
            return first if first.op == Op.SEQ else Expr(Op.FILTERED, parts=(first, self.interp.items.iterate(first)))
        if name == "builtins.len" and isinstance(first, Inst):
            return self.call_own_method(first, "__len__", Args(), calls, default=UNKNOWN)
        if name == "builtins.next" and first is not None:
            return self.interp.items.iterate(first)
        if name == "builtins.enumerate" and first is not None:
            # the count is an int, never a tensor (a break that needs it to be one cannot happen)
            return Expr(Op.FILTERED, parts=(first, Expr(Op.SEQ, parts=(values.INDEX, self.interp.items.iterate(first)))))
        if name == "builtins.zip" and args.positional:
            return Expr(Op.FILTERED, parts=(args.positional[0],
                                            Expr(Op.SEQ, parts=tuple(self.interp.items.iterate(a) for a in args.positional))))
        if name == "builtins.getattr" and len(args.positional) >= 2:
            return self._getattr_named(first, args.positional[1], args.positional[2:], calls)
        if name == "importlib.import_module" and len(args.positional) == 1 and not args.keywords:
            return self.interp.items.module_object(first)
        if name == "builtins.callable" and len(args.positional) == 1:
            return type_tests.callable_of(first)
        if name == "builtins.isinstance" and len(args.positional) == 2:
            return type_tests.isinstance_of(first, args.positional[1], self.interp.base_names, self.interp.importable)
        if name == "inspect.isclass" and len(args.positional) == 1:
            return type_tests.isclass_of(first)
        if name == "torch.is_tensor" and len(args.positional) == 1 and not args.keywords:  # isinstance(x, Tensor)
            if ndarrays.is_ndarray(first):  # True under Dynamo, unlike isinstance (measured: tests/cases/kinds/kc5)
                return const(True) if first.op != Op.UNION else UNKNOWN
            return type_tests.isinstance_of(first, Ext("torch.Tensor"), self.interp.base_names)
        if name == "inspect.isfunction" and len(args.positional) == 1:  # a decorated def may be no function
            return type_tests.isfunction_of(first, self.program_function)
        if name == "builtins.super" and len(args.positional) == 2 and isinstance(first, Cls):
            return Super(first, args.positional[1])
        if name == "builtins.type" and isinstance(first, Inst):
            return first.cls
        if name in tensors.TENSOR_FUNCTIONS:  # its stub returns a Tensor (torch/_C/_VariableFunctions.pyi)
            return Expr(Op.TENSOR)
        if name in tensors.NUMPY_ARRAY_RESULTS:  # an ndarray, which Dynamo traces as a tensor
            return ndarrays.ndarray()
        if name in tensors.TENSOR_TYPES:  # `nn.Parameter(data)`, `nn.Buffer(data)`: a tensor (torch/nn/parameter.py)
            return Expr(Op.TENSOR)
        if name.startswith("torch.") and short[:1].isupper():
            return ExtInst(name)
        if name.startswith("torch."):
            return values.NOTNONE
        return ExtInst(name) if short[:1].isupper() else UNKNOWN

    def _getattr_named(self, obj: Expr, name: Expr, default: Tuple[Expr, ...], calls: Optional[list]) -> Expr:
        """``getattr(obj, name[, default])``: the attribute when ``name`` is a string constant, one
        of several when it is one of several (each a real alternative); else unknown."""
        names = name.parts if name.op == Op.UNION else (name,)
        if not names or any(n.op != Op.CONST or not isinstance(n.value, str) for n in names):
            return UNKNOWN
        found = []
        for n in names:
            got = self.interp.attribute(obj, n.value, calls)
            if default and (got.op == Op.UNKNOWN or any(p.op == Op.UNKNOWN for p in got.parts)):
                got = union((got, default[0]))  # the attribute may be missing: then the default
            found.append(got)
        return found[0] if len(found) == 1 else values.alternatives(found)

    def _builtin_method(self, fn: Method, args: Args, calls: Optional[list], want: bool) -> Expr:
        """A method of a container, a library instance or a constant."""
        recv, name = fn.recv, fn.name
        if recv.op == Op.TENSOR and name in tensors.DTYPE_TESTS and not args.positional and not args.keywords:
            dtype = self.interp.dtype_of(recv)  # `preds.is_floating_point()` of a tensor whose dtype is known
            return UNKNOWN if dtype is None else const(tensors.DTYPE_TESTS[name](dtype))
        if recv.op == Op.TENSOR:  # torch/_C/__init__.pyi: the method returns a Tensor
            inputs = None if args.star or args.starstar else args.positional + tuple(v for _, v in args.keywords)
            return Expr(Op.TENSOR, parts=method_grad(name, recv, inputs) + layouts.method_layout(name, recv)) \
                if name in tensors.TENSOR_METHOD_RESULTS else UNKNOWN
        if recv.op == Op.CONST and isinstance(recv.value, str) and name in STR_METHODS and not args.keywords \
                and all(a.op == Op.CONST and isinstance(a.value, (str, int)) for a in args.positional):
            try:  # a constant's own method, computed (`query.lower().replace("-", "")`)
                return const(getattr(recv.value, name)(*(a.value for a in args.positional)))
            except (TypeError, ValueError):
                return UNKNOWN
        if recv.op == Op.DICT:
            if name == "__getitem__" and args.positional:
                return self.interp.items.subscript(recv, args.positional[0], calls)
            if name in ("items", "values", "keys"):
                return values.view(recv, name)
            if name in ("get", "pop", "setdefault") and args.positional:
                found = values._lookup(recv, args.positional[0])
                default = args.positional[1] if len(args.positional) > 1 else const(None)
                return default if found is None else \
                    union((found, default)) if found.op == Op.UNKNOWN else values.present(found, default)
        if recv.op == Op.FILTERED and recv.value == "dict" and len(recv.parts) == 3:  # a dict comprehension
            source, key, value = recv.parts
            if name in ("items", "values", "keys"):
                item = {"items": Expr(Op.SEQ, parts=(key, value)), "values": value, "keys": key}[name]
                return Expr(Op.FILTERED, parts=(source, item))
            if name in ("get", "pop", "__getitem__") and args.positional:
                return value if name == "__getitem__" else union((value, args.positional[1] if len(args.positional) > 1
                                                                   else const(None)))
        if isinstance(recv, Inst) and name == "__call__":
            return self.module_call(recv, args, calls, want)
        if isinstance(recv, Inst) and name == "get" and args.positional:
            found = self.call_own_method(recv, "__getitem__", Args(args.positional[:1]), calls, default=UNKNOWN)
            if found.op not in (Op.UNKNOWN, Op.UNION) or (found.op == Op.UNION and found.parts
                                                         and not any(p.op == Op.UNKNOWN for p in found.parts)):
                return found  # the key is there: `get` returns what `__getitem__` does
            return union((found, args.positional[1] if len(args.positional) > 1 else const(None)))
        if isinstance(recv, ExtInst) and recv.name.startswith("torch.nn.") and name in SELF_RETURNING_METHODS:
            return recv
        if isinstance(recv, Inst) and name in SELF_RETURNING_METHODS and self.is_module(recv):
            return recv
        if isinstance(recv, Disabled) and name in SELF_RETURNING_METHODS:
            return recv
        return UNKNOWN

    # ------------------------------------------------------------------ regions
    def compiled(self, summary: FileSummary, value: Expr, function: Optional[str]) -> List[Target]:
        """The frames calling the compiled object ``value`` (written in ``function`` of
        ``summary``, or at module level) runs first: its ``forward`` (through its decorators'
        wrappers), or the function itself."""
        return self.calls_of(self.compiled_object(summary, value, function), UNSEEN)

    def compiled_object(self, summary: FileSummary, value: Expr, function: Optional[str]) -> Expr:
        """The object ``value`` (written in ``function`` of ``summary``, or at module level) is."""
        if function is not None and function in summary.functions:
            info = summary.functions[function]
            env = self.interp.frame_env(Frame(summary.path, info), None)
            cls = info.class_name and summary.classes.get(info.class_name)
            if cls and info.params and info.params[0].name not in env.bindings and info.decorators == [] \
                    and not self._subclassed(summary, cls.qualname):
                # `self.step = torch.compile(self.slow_step)` in a method: `self` is an instance of the class (no
                # class of the files read derives from it, so no override of what it names)
                env.bindings[info.params[0].name] = Inst(Cls(summary.path, cls.qualname), ())
        else:
            env = self.interp.module_env(summary.path)
        return self.interp.evaluate(value, env, None)

    def _subclassed(self, summary: FileSummary, qualname: str) -> bool:
        """Whether a class of the files read names a class of the name of ``qualname`` (of ``summary``, or another of
        that name) as a base."""
        tail = qualname.rsplit(".", 1)[-1]
        return any(b.rsplit(".", 1)[-1] == tail
                   for s in self.project.by_path.values() for c in s.classes.values() for b in c.bases)

    def calls_of(self, obj: Expr, args: Args) -> List[Target]:
        """The frames calling the compiled object ``obj`` with ``args`` runs first."""
        calls: List[Target] = []
        for part in obj.parts if obj.op == Op.UNION else (obj,):
            if isinstance(part, Cls):  # `torch.compile(Net)`: its instances' forward
                part = Inst(part, ())
            if isinstance(part, Inst) and self.is_module(part):
                self.call_instance(part, args, calls, want=False)  # forward, and the module's own hooks
            elif isinstance(part, (Func, Closure, Bound, Partial)):
                self.apply(part, args, calls, want=False)
        return [t for t in calls if t.frame is not None]

    def is_module(self, inst: Inst) -> bool:
        summary = self.project.by_path.get(inst.cls.path)
        info = summary.classes.get(inst.cls.qualname) if summary is not None else None
        return info is not None and self.project.is_module_class(summary, info)


def _same_length(v: Expr) -> Expr:
    """A union of closed sequences of one length as one sequence of the unions of their items
    (what ``f(*xs)`` passes where ``xs`` is one of several tuples of that length); where the
    union also holds values not known, each item may be something else too, and more may
    follow (open). Else ``v``."""
    if v.op != Op.UNION:
        return v
    seqs = [p for p in v.parts if p.op != Op.UNKNOWN]
    if not seqs or any(p.op != Op.SEQ or p.value in values.OPEN or len(p.parts) != len(seqs[0].parts) for p in seqs):
        return v
    other = (values.OTHER,) if len(seqs) < len(v.parts) else ()
    items = tuple(union([p.parts[i] for p in seqs] + list(other)) for i in range(len(seqs[0].parts)))
    return Expr(Op.SEQ, values.OPEN_SEQ if other else None, items)


def _joined_targets(targets: List[Target]) -> dict:
    """The targets to run for each frame (:func:`_target_key`) of ``targets``, the frames every
    alternative of a called union runs: one target where the alternatives bind a parameter to
    different values, the parameter holding one of them (their union; an unknown or missing one
    among them: also something else), so that what the frame does only for some of them
    (``self.step`` of one subclass) is decided there, under its own condition, and what it does for
    all of them is certain. Alternatives that differ in a mark (a closure's frame, the module mode)
    are different functions: each is run as it is."""
    groups: dict = {}
    for t in targets:
        group = groups.setdefault(_target_key(t), [])
        if t not in group:
            group.append(t)
    out: dict = {}
    for key, group in groups.items():
        envs = [t.env or Env() for t in group]
        marks = [(e.resolver,) + e.context() for e in envs]
        if len(group) == 1 or group[0].frame is None or any(m != marks[0] for m in marks):
            out[key] = group
            continue
        env = envs[0].replace(bindings={})
        for name in dict.fromkeys(n for e in envs for n in e.bindings):
            found = []
            for e in envs:
                v = e.bindings.get(name, UNKNOWN)
                if v not in found:
                    found.append(v)
            env.bindings[name] = found[0] if len(found) == 1 else values.alternatives(found)
        out[key] = [dataclasses.replace(group[0], env=env, flat=all(t.flat for t in group))]
    return out


def _target_key(t: Target) -> tuple:
    return (t.frame.path, t.frame.name) if t.frame is not None else (t.kind, t.name)


def _label(v: Expr) -> str:
    if isinstance(v, (Bound, Closure)):
        return _label(v.func)
    if isinstance(v, (Func, Cls)):
        return v.qualname
    if isinstance(v, (Ext, ExtInst)):
        return v.name
    if isinstance(v, Inst):
        return v.cls.qualname
    return "object"
