"""What a call the interpreter could not follow means for what was analysed
(:meth:`Gaps.unfollowed`): a gap, a call whose target is known only when the code runs or
lies in a package that is not followed, said with what would fix it; or no gap at all, a library's
own call: a method of a tensor or of a builtin value (torch's or Python's own, whatever it holds),
of the frame's ``*args``/``**kwargs``, of a library base class, or a break site a rule reports."""
from __future__ import annotations

from typing import Dict, Optional, Protocol, Tuple

from . import nn_overlay, tensors, values
from .env import Env
from ..core.model import Dotted, EventKind, Expr, Frame
from ..core.ops import Op
from ..core.semantics import EXTERNAL_HEADS
from .objects import Cls, Ext, ExtInst, Inst, Method, Super

#: packages whose calls are no gap (never "not followed"): the standard library, torch, numpy, triton
LIBRARY_HEADS = frozenset(getattr(__import__("sys"), "stdlib_module_names", ())) | {"torch", "builtins", "typing",
                                                                                "numpy", "np", "triton", "__future__"}
#: what calling these builtins makes is a value of that type, whatever the argument: its methods are Python's
_BUILTIN_TYPES = frozenset(f"builtins.{n}" for n in (
    "str", "repr", "format", "ascii", "int", "float", "bool", "complex", "bytes", "bytearray", "list", "tuple", "dict",
    "set", "frozenset", "sorted", "range"))
#: values whose methods are torch's (a tensor, a dtype) or Python's (a constant, a list, tuple, dict or set)
_KNOWN_KINDS = frozenset({Op.TENSOR, Op.DTYPE, Op.CONST, Op.SEQ, Op.DICT, Op.SET})


class GapsHost(Protocol):
    """What :class:`Gaps` asks of the interpreter (:class:`gblint.abstract.interp.Interpreter`)."""

    project: object

    def frame_env(self, frame: Frame, env: Optional[Env]) -> Env: ...

    def value(self, e: Expr, env: Env) -> Expr: ...

    def class_mro(self, cls: Cls) -> list: ...  # for gblint.abstract.nn_overlay.torch_base


def _alternatives(fn: Expr) -> tuple:
    """The values a called ``fn`` may be: the parts of a union, and of the unions in an :data:`gblint.abstract.values.EACH`
    union (each item of a list a loop takes in turn, itself maybe one of several)."""
    if fn.op != Op.UNION:
        return (fn,)
    if fn.value != values.EACH:
        return fn.parts
    return tuple(q for p in fn.parts for q in (p.parts if p.op == Op.UNION else (p,)))


PARTLY = "(only its known values were followed)"  # the end of the reason of a call followed in part


def partly(reason: str) -> bool:
    """Whether a call not followed for ``reason`` was followed to some of the values it may be, not all."""
    return reason.endswith(PARTLY)


class Gaps:
    """Why calls were not followed, asked of ``interp`` (a :class:`GapsHost`); caches, per ``(path,
    class qualname)``, the buffers a class registers (:meth:`_buffers`)."""

    def __init__(self, interp: GapsHost):
        self.interp = interp
        self.project = interp.project
        self._buffer_names: Dict[Tuple[str, str], frozenset] = {}

    def unfollowed(self, frame: Frame, ev, env: Optional[values.Env] = None) -> Optional[str]:
        """Why the call ``ev`` of ``frame`` (its parameters holding ``env``), which resolved to
        nothing, was not followed, in words
        with what would fix it; None when it is a library's own call (torch, the standard
        library, a container's method): no gap in what was analysed."""
        if ev.func is None:
            return None
        if frame.info is not None and any(e.kind == EventKind.BREAK and e.span == ev.span for e in frame.info.events):
            return None  # the call is a break site a rule reports (`x.item()`): Dynamo breaks there, nothing is missed
        if ev.func.op == Op.ATTR and ev.func.parts and self._container_param(frame, ev.func.parts[0]):
            return None  # a method of the frame's *args tuple or **kwargs dict
        if self._module_base_method(frame, ev.func):
            return None  # `self.register_buffer(...)`: nn.Module's own method, no class of the project defines it
        fenv = self.interp.frame_env(frame, env)
        if ev.func.op == Op.ATTR and ev.func.parts and isinstance(self.interp.value(ev.func.parts[0], fenv), Super):
            return None  # no class of the project defines it: the library base's method (dict.__setitem__)
        if self._method_of_builtin(frame, ev.func, fenv):
            return None  # a method of a tensor, a number, a string or a container: torch's or Python's own
        fn = self.interp.value(ev.func, fenv)
        parts = _alternatives(fn)
        for p in parts:
            if isinstance(p, Ext):
                head = p.name.split(".")[0]
                if head not in LIBRARY_HEADS and self.project.loader is not None \
                        and head not in self.project.loader.followed and self.project.by_module.get(head) is None:
                    return f"package `{head}` is not followed: pass --follow-imports {head}"
        if len(parts) > 1 and any(p.op == Op.UNKNOWN for p in parts):
            return self._partly(ev)  # its known values are the library's, but the code may put another there
        if any(isinstance(p, Inst) and nn_overlay.torch_base(self.interp, p.cls) is not None for p in parts):
            return None  # a subclass of a torch.nn class that keeps torch's forward: torch's own code runs
        # a class of the project whose building runs no code of it (no __init__ of its own) is no gap either
        if any(isinstance(p, (Ext, ExtInst, Method, Cls)) or p.op in (Op.CONST, Op.SEQ, Op.DICT, Op.TENSOR) for p in parts):
            return None
        return f"what `{ev.call_text}` is depends on values known only when the code runs"

    def partly_unfollowed(self, frame: Frame, ev, env: Optional[values.Env] = None) -> Optional[str]:
        """Why the call ``ev`` of ``frame`` (its parameters holding ``env``), followed to what its function
        may be, may also run code that was not followed: that function may also be a value known only when
        the code runs (a layer picked by a name, an item of a list filled at run time, a cycle of values
        gblint widened); None when every value it may be was followed."""
        if ev.func is None:
            return None
        fn = self.interp.value(ev.func, self.interp.frame_env(frame, env))
        parts = _alternatives(fn)
        if len(parts) < 2 or not any(p.op == Op.UNKNOWN for p in parts):
            return None
        return self._partly(ev)

    @staticmethod
    def _partly(ev) -> str:
        return f"what `{ev.call_text}` is depends in part on values known only when the code runs {PARTLY}"

    def library_name(self, frame: Frame, ev, env: Optional[values.Env] = None) -> Optional[str]:
        """The dotted name of the library class (or its method) that the call ``ev`` of ``frame``
        (its parameters holding ``env``) runs, when that is all it may run: an instance of a class of
        a library gblint does not read (``self.proj = nn.Linear(...)`` then ``self.proj(x)``, a layer
        of an ``nn.ModuleList`` of them), or a method of one (``self.rnn.flatten_parameters()``);
        the first when it may be one of several. None when the call may run anything else. Dynamo
        traces such a call as the library's ops (its ``nn.Module`` is an ``UnspecializedNNModuleVariable``
        or a ``NNModuleVariable`` whose ``forward`` is inlined), so it is no gap gblint leaves."""
        info = frame.info
        root = ev.func
        while root is not None and root.op == Op.ATTR and root.parts:
            root = root.parts[0]
        if root is None or (root.op == Op.PARAM and not (info is not None and info.class_name and info.params
                                                            and root.value == info.params[0].name)):
            return None  # a parameter's method: what the caller passes, not a library class the frame holds
        found = self._library_value(self.interp.value(ev.func, self.interp.frame_env(frame, env)))
        if found is None and info is not None and info.class_name and info.params \
                and info.decorator("staticmethod", "classmethod") is None:
            # `self` not known where the walk reached the call (a model the driver loads): any
            # instance of the method's class, its attributes as its methods assign them
            inst = Inst(Cls(frame.path, info.class_name), ())
            fenv = self.interp.frame_env(frame, Env({info.params[0].name: inst}))
            found = self._library_value(self.interp.value(ev.func, fenv))
        return found

    @staticmethod
    def _library_value(fn) -> Optional[str]:
        """The first dotted name of the library classes (or their methods) that every object ``fn``
        may be is, or None (a builtin value's method is Python's own, not a library class's)."""
        names = []
        for p in _alternatives(fn):
            if isinstance(p, Method) and isinstance(p.recv, ExtInst):
                names.append(f"{p.recv.name}.{p.name}")
            elif isinstance(p, ExtInst):
                names.append(p.name)
            else:
                return None
        if names and all(n.split(".")[0] in EXTERNAL_HEADS and n.split(".")[0] != "builtins" for n in names):
            return names[0]
        return None

    def _module_base_method(self, frame: Frame, func: Expr) -> bool:
        """Whether ``func`` is ``self.NAME`` in a method of an ``nn.Module`` class of the project
        that neither defines nor assigns ``NAME`` along its bases: ``torch.nn.Module``'s own
        method (``register_buffer``, ``add_module``, ``apply``)."""
        if not (func.op == Op.ATTR and func.parts and func.parts[0].op == Op.PARAM and func.parts[0].value == "self"
                and frame.info is not None and frame.info.class_name):
            return False
        summary = self.project.by_path.get(frame.path)
        cls = summary.classes.get(frame.info.class_name) if summary is not None else None
        if cls is None or not self.project.is_module_class(summary, cls):
            return False
        name = func.value
        for s, c in self.project.mro(summary, cls):
            if name in c.methods or name in c.attrs or name in c.assigned or name in c.values:
                return False  # the program's own method or attribute
            for base in c.bases:  # every base the project's or torch's: no unread class may define it
                if not (base.startswith("torch.nn.") or base in ("nn.Module", "Module")) \
                        and self.project.class_info(s, Dotted(base)) is None:
                    return False
        return True

    def _method_of_builtin(self, frame: Frame, func: Expr, env: values.Env) -> bool:
        """Whether the call of ``func`` (in ``frame``) is a method of a value known to be a tensor
        or a builtin value, whatever it holds (``t.view`` of a tensor, ``getattr(x, "sin")`` of
        one, ``name.startswith`` after ``name = str(x)``, ``"a b".split``): torch's or Python's
        own method, never the program's, so not following it is no gap in what was analysed."""
        if func.op == Op.ATTR and func.parts:
            receiver = func.parts[0]
        elif func.op == Op.CALLV and len(func.parts) == 3 and func.parts[0].op == Op.GLOBAL \
                and func.parts[0].value == "builtins.getattr" and func.parts[2].op == Op.CONST \
                and isinstance(func.parts[2].value, str):
            receiver = func.parts[1]
        else:
            return False
        if receiver.op == Op.CALLV and receiver.parts and receiver.parts[0].op == Op.GLOBAL \
                and receiver.parts[0].value in _BUILTIN_TYPES:
            return True  # a str, int, list ... whatever it was made from
        return self._tensor_valued(frame, receiver, env)

    def _tensor_valued(self, frame: Frame, e: Expr, env: values.Env, depth: int = 0) -> bool:
        """Whether ``e`` (a value of ``frame``) is known to be a tensor or a builtin value: it
        evaluates to one (every value it may have), or it is an item or slice of a tensor, a
        tensor method's result (``t.float()``, not ``t.tolist()``), a tensor attribute (``t.T``),
        or a buffer the frame's class registers (``self.register_buffer("mask", ...)`` then
        ``self.mask``)."""
        if depth < 8:
            if e.op == Op.SUB and e.parts:  # an item of a tensor (or a str); a list's or dict's item is anything
                if self._tensor_valued(frame, e.parts[0], env, depth + 1) and not self._collection(e.parts[0], env):
                    return True
            elif e.op == Op.CALLV and e.parts and e.parts[0].op == Op.ATTR and e.parts[0].parts \
                    and e.parts[0].value in tensors.TENSOR_METHODS and e.parts[0].value not in tensors.PY_METHODS:
                if self._tensor_valued(frame, e.parts[0].parts[0], env, depth + 1):
                    return True
            elif e.op == Op.ATTR and e.parts and e.value in tensors.TENSOR_ATTRS:
                if self._tensor_valued(frame, e.parts[0], env, depth + 1):
                    return True
            elif e.op == Op.ATTR and e.parts and e.parts[0].op == Op.PARAM and frame.info is not None \
                    and frame.info.class_name and frame.info.params and e.parts[0].value == frame.info.params[0].name \
                    and e.parts[0].value not in frame.info.locals and frame.info.decorator("staticmethod") is None \
                    and e.value in self._buffers(frame):
                return True
        value = self.interp.value(e, env)
        parts = value.parts if value.op == Op.UNION else (value,)
        return bool(parts) and all(p.op in _KNOWN_KINDS for p in parts)

    def _collection(self, e: Expr, env: values.Env) -> bool:
        """Whether ``e`` may be a list, tuple, dict or set (an ``nn.ModuleList`` of layers included)."""
        value = self.interp.value(e, env)
        return any(p.op in (Op.SEQ, Op.DICT, Op.SET) for p in (value.parts if value.op == Op.UNION else (value,)))

    def _buffers(self, frame: Frame) -> frozenset:
        """The buffer names the class of method ``frame`` and its bases register with a constant
        name and a value that is not ``None`` (``self.register_buffer("mask", torch.ones(4))``)."""
        summary = self.project.by_path.get(frame.path)
        cls = summary.classes.get(frame.info.class_name) if summary is not None else None
        if cls is None:
            return frozenset()
        key = (frame.path, cls.qualname)
        found = self._buffer_names.get(key)
        if found is None:
            names = set()
            for owner, info in self.project.mro(summary, cls):
                for fn in owner.functions.values():
                    if fn.class_name != info.qualname:
                        continue
                    for ev in fn.events:
                        args = ev.args.positional if ev.args is not None else ()
                        if ev.func is not None and ev.func.op == Op.ATTR and ev.func.value == "register_buffer" \
                                and len(args) >= 2 and args[0].op == Op.CONST and isinstance(args[0].value, str) \
                                and not (args[1].op == Op.CONST and args[1].value is None):
                            names.add(args[0].value)
            found = self._buffer_names[key] = frozenset(names)
        return found

    @staticmethod
    def _container_param(frame: Frame, value: Expr) -> bool:
        """Whether ``value`` is ``frame``'s ``*args`` or ``**kwargs`` parameter, not rebound."""
        if value.op != Op.PARAM or frame.info is None:
            return False
        return any(p.name == value.value and p.kind in ("star", "starstar") for p in frame.info.params) \
            and value.value not in frame.info.locals
