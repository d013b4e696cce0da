"""What ``isinstance``, ``callable``, ``inspect.isclass`` and ``inspect.isfunction`` decide about the program's values
(:mod:`gblint.abstract.objects`, constants and displays), before the run: Dynamo evaluates these on the
real objects and traces only the branch they select (``torch/_dynamo/variables/builtin.py``
``call_isinstance``)."""
from __future__ import annotations

import sys
from typing import Optional

from ..core.model import Expr
from ..core.ops import Op
from .objects import Bound, Closure, Cls, Disabled, Ext, Func, Inst, Partial
from .ndarrays import is_ndarray, isinstance_ndarray
from .layouts import STRIDED
from .values import UNKNOWN, const

_FUNCTIONS = (Func, Closure, Bound, Partial, Disabled)
# what a function object may be an instance of (``isinstance(f, Callable)``...): anything else it is not
_FUNCTION_TYPES = frozenset({"builtins.object", "types.FunctionType", "types.LambdaType", "types.MethodType",
                             "collections.abc.Callable", "typing.Callable", "functools.partial"})


def callable_of(v: Expr) -> Expr:
    """``callable(v)``: True for functions and classes of the program, False for constants and
    displays, else not known."""
    found = {_callable_one(p) for p in (v.parts if v.op == Op.UNION else (v,))}
    return const(found.pop()) if len(found) == 1 and None not in found else UNKNOWN


def _callable_one(v: Expr) -> Optional[bool]:
    if isinstance(v, _FUNCTIONS + (Cls,)):
        return True
    if v.op in (Op.CONST, Op.SEQ, Op.DICT, Op.SET):
        return False
    return None


def isclass_of(v: Expr) -> Expr:
    """``inspect.isclass(v)``: True for classes, False for functions, instances of the program
    and constants (a registry's ``cls(*args) if inspect.isclass(cls) else cls``), else not known."""
    found = {True if isinstance(p, Cls) else False if isinstance(p, _FUNCTIONS + (Inst,)) or p.op in (
        Op.CONST, Op.SEQ, Op.DICT, Op.SET) else None for p in (v.parts if v.op == Op.UNION else (v,))}
    return const(found.pop()) if len(found) == 1 and None not in found else UNKNOWN


def isfunction_of(v: Expr, program_function) -> Expr:
    """``inspect.isfunction(v)`` (``isinstance(v, types.FunctionType)``): True for a ``def`` or
    ``lambda`` of the program written without decorators (a module-level ``@staticmethod`` is a
    staticmethod object), False for bound methods, partials, classes, instances and constants
    (``default_val() if isfunction(default_val) else default_val``), else not known.
    ``program_function`` is :meth:`gblint.abstract.invoke.Calls.program_function` (a function object to its
    frame)."""
    found = set()
    for p in (v.parts if v.op == Op.UNION else (v,)):
        if isinstance(p, (Func, Closure)):
            frame, _ = program_function(p)
            found.add(None if frame is None or frame.info.decorators else True)
        elif isinstance(p, (Bound, Partial, Cls, Inst)) or p.op in (Op.CONST, Op.SEQ, Op.DICT, Op.SET):
            found.add(False)
        else:
            found.add(None)
    return const(found.pop()) if len(found) == 1 and None not in found else UNKNOWN


def isinstance_of(v: Expr, types: Expr, bases_of=None, importable=None) -> Expr:
    """``isinstance(v, types)`` where ``v`` is a function object of the program, None, a
    constant, a tuple or list, a plain dict, or an instance of a class of the program (with
    ``bases_of``: a :class:`Cls` -> ``(held, outside)``, the ``(path, qualname)`` of the classes
    of its MRO the project holds and the dotted names of the bases it does not), and ``types``
    names classes: whether one of them is a type such an object belongs to; else not known."""
    if types.op == Op.UNION and types.parts:  # one of several classes (a fallback defined when an import fails)
        # ``importable`` (a library's dotted name -> bool): a class of a package not installed is never bound
        alive = [t for t in types.parts if not (isinstance(t, Ext) and importable is not None
                                                and not importable(t.name))] or list(types.parts)
        found = {isinstance_of(v, t, bases_of, importable) for t in alive}
        return found.pop() if len(found) == 1 else UNKNOWN
    names = []
    for t in (types.parts if types.op == Op.SEQ else (types,)):
        if isinstance(t, Cls):
            names.append(t.qualname)
        elif isinstance(t, Ext):
            names.append(t.name)
        else:
            return UNKNOWN
    found = set()
    for p in (v.parts if v.op == Op.UNION else (v,)):
        if isinstance(p, _FUNCTIONS):
            found.add(any(n in _FUNCTION_TYPES for n in names))
        elif p.op == Op.CONST and p.value is None:
            found.add(any(n in ("builtins.object", "types.NoneType") for n in names))
        elif p.op in (Op.CONST, Op.SEQ, Op.DICT) and (p.op != Op.DICT or p.value is None):
            found.add(_isinstance_value(p, names))
        elif isinstance(p, Inst) and bases_of is not None:
            found.add(_isinstance_inst(p, types, bases_of))
        elif is_ndarray(p):
            found.add(isinstance_ndarray(names))
        elif p.op == Op.TENSOR and STRIDED in p.parts:
            found.add(_isinstance_plain_tensor(types, bases_of))
        elif p.op == Op.TENSOR:
            found.add(_isinstance_tensor(names))
        else:
            return UNKNOWN
    return const(found.pop()) if len(found) == 1 and None not in found else UNKNOWN


# the Python types a constant, a tuple or list, or a plain dict of the program may be checked against
_VALUE_TYPES = {"builtins.str": (str,), "builtins.int": (int,), "builtins.float": (float,), "builtins.bool": (bool,),
                "builtins.complex": (complex,), "builtins.bytes": (bytes,), "builtins.object": (object,),
                "numbers.Number": (int, float, complex), "numbers.Real": (int, float), "numbers.Integral": (int,),
                "builtins.list": (list,), "builtins.tuple": (tuple,), "builtins.dict": (dict,),
                "collections.OrderedDict": (), "builtins.set": (), "builtins.frozenset": (),
                "torch.Tensor": (), "torch.nn.Module": (), "torch.nn.modules.module.Module": ()}


def _isinstance_value(p: Expr, names) -> Optional[bool]:
    """``isinstance(p, names)`` for a constant, sequence (a list or a tuple: gblint does not tell
    them apart) or plain dict ``p``; None when a name is not a type of :data:`_VALUE_TYPES`,
    or when only telling a list from a tuple would decide."""
    kinds = (type(p.value),) if p.op == Op.CONST else (list, tuple) if p.op == Op.SEQ else (dict,)
    answers = set()
    for kind in kinds:
        hit = False
        for n in names:
            types = _VALUE_TYPES.get(n)
            if types is None:
                return None
            hit = hit or any(issubclass(kind, t) for t in types)
        answers.add(hit)
    return answers.pop() if len(answers) == 1 else None


# what a value torch made (a tensor, maybe a Parameter) is an instance of, and what it is surely not
_TENSOR_TYPES = frozenset({"torch.Tensor", "torch._tensor.Tensor", "torch._C.TensorBase", "builtins.object"})
_NOT_TENSOR_TYPES = frozenset(n for n in _VALUE_TYPES if n not in _TENSOR_TYPES) | {"types.NoneType"}


def _isinstance_tensor(names) -> Optional[bool]:
    """``isinstance(t, names)`` for a tensor ``t`` (Dynamo answers it from the value's type,
    torch/_dynamo/variables/builtin.py ``call_isinstance``): True when one of ``names`` is
    ``torch.Tensor`` or a base of it, False when each is a Python value type or ``nn.Module``,
    else (a subclass such as ``nn.Parameter``, a class of the program) not known."""
    if any(n in _TENSOR_TYPES for n in names):
        return True
    return False if all(n in _NOT_TENSOR_TYPES for n in names) else None


# torch classes whose metaclass answers isinstance for a plain tensor in Python (torch/autograd/variable.py,
# VariableMeta: True) but not under Dynamo (measured on 2.13: the branch does not run): not decided
_TENSOR_ALIASES = frozenset({"torch.autograd.Variable", "torch.autograd.variable.Variable"})


def _isinstance_plain_tensor(types: Expr, bases_of) -> Optional[bool]:
    """``isinstance(t, types)`` for ``t`` a plain ``torch.Tensor`` (:data:`gblint.abstract.layouts.STRIDED`: a factory made
    it, or a method of one): its class is ``torch.Tensor`` itself, so it is an instance of ``Tensor``, its bases and
    ``Variable`` only; of no other torch class (``nn.Parameter``'s metaclass asks for ``_is_param``, which it has
    not), no Python value type, and no class of the program whose bases are all of the program (or ``object``)
    and that has no metaclass (which could answer otherwise). Else not known."""
    answer = False
    for t in (types.parts if types.op == Op.SEQ else (types,)):
        if isinstance(t, Ext):
            if t.name in _TENSOR_TYPES:
                return True
            if t.name in _TENSOR_ALIASES or not (t.name in _NOT_TENSOR_TYPES or t.name.startswith("torch.")):
                answer = None
        elif isinstance(t, Cls) and bases_of is not None:
            _held, outside = bases_of(t)
            if not outside <= {"object", "builtins.object"}:
                answer = None
        else:
            answer = None
    return answer


def _isinstance_inst(p: Inst, types: Expr, bases_of) -> Optional[bool]:
    """``isinstance(p, types)`` for an instance of a class of the program: True when one of
    ``types`` is in its MRO; False when each is a class of the program outside it and every base
    the project does not hold is a library's (which no class of the program is a base of);
    else not known."""
    held, outside = bases_of(p.cls)
    unknown = False
    for t in (types.parts if types.op == Op.SEQ else (types,)):
        if isinstance(t, Cls):
            if (t.path, t.qualname) in held:
                return True
        elif isinstance(t, Ext) and (t.name in outside or t.name == "builtins.object"):
            return True
        else:
            unknown = True
    if unknown or any(name.split(".")[0] not in _LIBRARIES for name in outside):
        return None
    return False


# packages whose classes are no subclass of a class of the checked program
_LIBRARIES = frozenset(getattr(sys, "stdlib_module_names", ())) | {"torch", "builtins", "typing", "numpy", "abc"}
