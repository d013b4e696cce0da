"""What gblint knows of values before the run, and which branches that decides.

Dynamo traces only the branch the run's values take (``docs/semantics.md`` §0, rule 6): code
behind a test that is false for the values a call passes is never traced, so a break there costs
nothing. Two halves:

* the summary stage turns a branch's test, a call's arguments and a parameter's default into
  :class:`gblint.core.model.Expr` values (:mod:`gblint.syntax.value_syntax`, the only half that needs libcst):
  literals, the function's own parameters (only while not rebound), ``self.training``, and
  ``unknown`` for the rest;
* the consequence walk binds each call's arguments to the callee's parameters (:func:`bind`:
  what the call passes, else the default) and decides tests with them (:func:`decide`), in
  three values: True, False, or None for "cannot tell before the run".
"""
from __future__ import annotations

import operator
from typing import Dict, Iterable, Optional, Sequence, Tuple

from . import grads, ndarrays
from .env import Env
from ..core.model import CallArgs, Expr, Param
from ..core.ops import Op
from .bools import bool_valued
from .layouts import STRIDED, device_part
from .sizes import op_fails

UNKNOWN = Expr(Op.UNKNOWN)
# an unknown value that is one alternative of several (an arm of an undecided `if`, one binding of
# a local bound more than once): evidence that a call through the value may run something else
OTHER = Expr(Op.UNKNOWN, "other")
NOTNONE = Expr(Op.NOTNONE)
MAYBE_ABSENT = Expr(Op.UNKNOWN, "maybe absent")  # a key's value in a BOUNDED dict that may lack the key
INDEX = Expr(Op.NOTNONE, "index")  # an int not known (what the sequence protocol passes to __getitem__): no tensor
# a ``notnone`` value's prefix: the ``__name__`` of the module named after it. Its text is not kept (a file run
# as a script is "__main__"), so tests on it stay undecided; ``sys.modules[__name__]`` is the module itself
MODULE_NAME = "module:"
DEFAULT_DTYPE = "default"  # a ``tensor`` value's dtype: the default one (gblint.abstract.interp.Interpreter.dtype_of)

_PY_OPS = {Op.EQ: operator.eq, Op.NE: operator.ne, Op.LT: operator.lt, Op.LE: operator.le, Op.GT: operator.gt,
           Op.GE: operator.ge}


def const(value) -> Expr:
    """The constant ``value`` (None, bool, int, float or str)."""
    return Expr(Op.CONST, value)


# ----------------------------------------------------------------------------- evaluation

# Ops that stand for objects the program makes (gblint.abstract.interp follows them; here they are not
# known unless the environment holds an interpreter, Env.resolver).
OBJECT_OPS = frozenset({Op.LOCAL, Op.FREE, Op.GLOBAL, Op.ATTR, Op.SUB, Op.CALLV, Op.ITER, Op.UNPACK, Op.DEF, Op.SUPER,
                        Op.ENTER, Op.KW, Op.STAR, Op.STARSTAR, Op.SLICE, Op.STORED})
_NOT_NONE_OPS = frozenset({Op.NOTNONE, Op.SEQ, Op.DICT, Op.SET, Op.TENSOR, Op.FILTERED, Op.OBJ, Op.DTYPE, Op.LAYOUT,
                           Op.DEVICE})
_AS_IS = frozenset({Op.CONST, Op.NOTNONE, Op.UNKNOWN, Op.OBJ, Op.TENSOR, Op.DTYPE, Op.LAYOUT, Op.DEVICE})  # each its own value
# The ops evaluate rejects (unknown): never a value alone, a `dict`'s key-value pair and a `tensor`'s `grad`
# part; what a protocol method of an object returns (gblint.abstract.interp follows it). evaluate, or decide for a test,
# dispatches on every other op (tests/test_ops.py).
REJECTED = frozenset({Op.KV, Op.GRAD, Op.PROTOCOL})


def evaluate(e: Expr, env: Env) -> Expr:
    """The value of ``e`` with the parameters bound as in ``env``: a ``const``, ``notnone``,
    ``tensor``, a ``seq``, ``dict`` or ``set`` of values, an object (:mod:`gblint.abstract.objects`), a
    ``union`` of those, or ``unknown``. Objects are followed only when ``env`` holds an interpreter
    (``env.resolver``, a :class:`gblint.abstract.interp.Interpreter`)."""
    op = e.op
    if op in _AS_IS:  # a set, not a tuple of members: on the hot path (3.11 looks an enum member up slowly)
        return e
    if op == Op.PARAM:
        return env.bindings.get(e.value, UNKNOWN)
    if op == Op.TRAINING:  # known when the code sets the compiled module's mode (gblint.syntax.regions)
        return env.mode or UNKNOWN
    if op in OBJECT_OPS:
        interp = env.resolver
        return interp.value(e, env) if interp is not None else UNKNOWN
    if op == Op.SEQ:
        return spliced(e.value, [Expr(Op.STAR, parts=(evaluate(p.parts[0], env),)) if p.op == Op.STAR
                                 else evaluate(p, env) for p in e.parts])
    if op == Op.SET:
        return Expr(op, e.value, tuple(evaluate(p, env) for p in e.parts))
    if op == Op.DICT:
        return Expr(Op.DICT, e.value, tuple(Expr(Op.KV, parts=(evaluate(kv.parts[0], env), evaluate(kv.parts[1], env)))
                                           for kv in e.parts))
    if op == Op.UNION:
        return union(evaluate(p, env) for p in e.parts)
    if op == Op.INPLACE:  # alone, without the local's other bindings (gblint.abstract.interp reads them): not known
        return UNKNOWN
    if op == Op.ARITH:  # a tensor when an operand is one (torch/_C/__init__.pyi: Tensor.__add__... -> Tensor)
        parts = [evaluate(p, env) for p in e.parts]
        if any(_tensor(p) for p in parts):
            return _with_scalars(e.value, parts) or ndarrays.result_of([p for p in parts if _tensor(p)])
        return _arith(e.value, parts) or NOTNONE
    if op in _PY_OPS:  # a comparison with a tensor is a tensor (torch/_C/__init__.pyi: Tensor.__gt__... -> Tensor)
        parts = [evaluate(p, env) for p in e.parts]
        if any(_tensor(p) for p in parts) and not any(p.op == Op.CONST and p.value is None for p in parts):
            return ndarrays.result_of([p for p in parts if _tensor(p)])
    if op == Op.IFELSE:
        truth = decide(e.parts[0], env)
        if truth is None:
            return alternatives((evaluate(e.parts[1], env), evaluate(e.parts[2], env)))
        return evaluate(e.parts[1] if truth else e.parts[2], env)
    if op in (Op.AND, Op.OR):  # Python's value: the operand that decides, not a bool
        first = evaluate(e.parts[0], env)
        truth = truth_of(first)
        if truth is None:
            second = evaluate(e.parts[1], env)
            if second == const(op == Op.OR) and bool_valued(e.parts[0]):
                return second  # `isinstance(a, C) or True`: a bool or'd with True is True, and'd with False False
            return union((first, second))
        return first if truth == (op == Op.OR) else evaluate(e.parts[1], env)
    if op in (Op.ITEMS, Op.GET):
        inner = evaluate(e.parts[0], env)
        if (inner.op == Op.OBJ or (inner.op == Op.FILTERED and inner.value == "dict")) and env.resolver is not None:
            # a method of a program object (a Mapping's `get`...), or of a dict comprehension
            args = tuple(evaluate(p, env) for p in e.parts[1:])
            return env.resolver.calls.call_method(inner, e.value if op == Op.ITEMS else "get", args)
    if op == Op.ITEMS:
        inner = evaluate(e.parts[0], env)
        if inner.op == Op.UNION:  # each dict's view; None has none (the call raises), so no value
            got = [_view(p, e.value) for p in inner.parts if not (p.op == Op.CONST and p.value is None)]
            return union(got) if got else UNKNOWN
        return _view(inner, e.value)
    if op == Op.CONCAT:  # an f-string: known when every part is a string or a number
        pieces = [evaluate(p, env) for p in e.parts]
        if all(p.op == Op.CONST and isinstance(p.value, (str, int)) and not isinstance(p.value, bool) for p in pieces):
            return const("".join(str(p.value) for p in pieces))
        return NOTNONE
    if op == Op.COMP:
        if env.resolver is not None:
            return env.resolver.value(e, env)
        inner = evaluate(e.parts[0], env)
        if inner.op in (Op.SEQ, Op.DICT) and not inner.parts and inner.value not in OPEN:
            return Expr(Op.DICT if e.value == "dict" else Op.SEQ)  # a comprehension over nothing is empty
        return NOTNONE
    if op == Op.FILTERED:
        inner = evaluate(e.parts[0], env)
        if inner.op in (Op.SEQ, Op.DICT) and not inner.parts and inner.value not in OPEN:
            return Expr(Op.SEQ)  # a comprehension over nothing is empty
        if len(e.parts) > 1:
            return Expr(Op.FILTERED, e.value, (inner,) + tuple(evaluate(p, env) for p in e.parts[1:]))
        return NOTNONE
    if op == Op.GET:
        inner = evaluate(e.parts[0], env)
        if inner.op in (Op.SEQ, Op.DICT) and not inner.parts and inner.value not in OPEN:  # an empty `**kwargs`
            return evaluate(e.parts[2], env)
        if inner.op == Op.DICT:
            key = evaluate(e.parts[1], env)
            found = _lookup(inner, key)
            if found is None:
                return evaluate(e.parts[2], env)
            if found is UNKNOWN and inner.parts and len(inner.parts) <= _MAX_ENTRIES:
                # a key not decided: one of the entries or the default (`CHOICES.get(len(inputs), greedy)`)
                more = (UNKNOWN,) if inner.value in OPEN else ()
                return union(tuple(kv.parts[1] for kv in inner.parts) + (evaluate(e.parts[2], env),) + more)
            return present(found, evaluate(e.parts[2], env))
        return UNKNOWN
    if op == Op.LEN:
        inner = evaluate(e.parts[0], env)
        if inner.op in (Op.SEQ, Op.DICT) and inner.value not in OPEN:
            return const(len(inner.parts))
        if inner.op == Op.CONST and isinstance(inner.value, str):
            return const(len(inner.value))
        return UNKNOWN
    if op == Op.FOLD:
        return _fold(e.value, evaluate(e.parts[0], env))
    if op in REJECTED:
        return UNKNOWN
    truth = decide(e, env)
    return UNKNOWN if truth is None else const(truth)


def _fold(name: str, inner: Expr) -> Expr:
    """``all(x)`` or ``any(x)`` of the value ``inner``: known when ``inner`` is a sequence or
    dict of known length whose elements' truth is known, or when one element decides (a false
    one for ``all``, a true one for ``any``)."""
    if inner.op not in (Op.SEQ, Op.DICT) or inner.value in OPEN:
        return UNKNOWN
    items = tuple(kv.parts[0] for kv in inner.parts) if inner.op == Op.DICT else inner.parts
    truths = [truth_of(p) for p in items]
    stop = name == "any"  # the element value that decides: True for any, False for all
    if stop in truths:
        return const(stop)
    return UNKNOWN if None in truths else const(not stop)


def alternatives(found: Sequence[Expr]) -> Expr:
    """One of the values ``found``, each a real alternative (what either arm of an undecided
    test gives): an unknown one among known ones is kept as :data:`OTHER`."""
    if len(found) > 1 and any(v.op != Op.UNKNOWN for v in found):
        found = [OTHER if v.op == Op.UNKNOWN else v for v in found]
    return union(found)


_ARITH = {"Add": operator.add, "Subtract": operator.sub, "Multiply": operator.mul, "FloorDivide": operator.floordiv,
          "Divide": operator.truediv, "Modulo": operator.mod, "BitAnd": operator.and_, "BitOr": operator.or_,
          "BitXor": operator.xor}
# whether a value is a tensor: one, or one of several that all are (two alternatives that differ in their facts)
_tensor = lambda v: v.op == Op.TENSOR or (v.op == Op.UNION and bool(v.parts) and all(p.op == Op.TENSOR for p in v.parts))  # noqa: E731


def _with_scalars(name: str, parts) -> Optional[Expr]:
    """Arithmetic ``name`` of one plain tensor and a Python number (``torch.rand(32) * 2``): a tensor on that device,
    of that dtype where it is a floating one, or an integer one with an int other than by ``/`` (Python scalars take
    part in type promotion below tensors: torch/_prims_common ``elementwise_dtypes``); None for other operands."""
    tensors = [p for p in parts if p.op == Op.TENSOR]
    if len(tensors) != 1 or len(parts) != 2 or ndarrays.NDARRAY in tensors[0].parts or not all(
            p.op == Op.CONST and type(p.value) in (int, float, bool) for p in parts if p is not tensors[0]):
        return None
    t, number = tensors[0], next(p.value for p in parts if p is not tensors[0])
    floating = t.value == DEFAULT_DTYPE or str(t.value).startswith(("float", "bfloat"))
    integral = str(t.value).startswith(("int", "uint")) and type(number) is int and name in _INT_KEEPING
    return Expr(Op.TENSOR, t.value if floating or integral else None,
                ((STRIDED,) if STRIDED in t.parts else ()) + device_part(t, ""))


_INT_KEEPING = frozenset({"Add", "Subtract", "Multiply", "FloorDivide", "Modulo"})  # int tensor op int: that dtype


def _arith(name: str, parts) -> Optional[Expr]:
    """Python's result of the arithmetic ``name`` (a libcst operator's class name) of two numbers that are
    constants (``num_layers - 2``); None for anything else, or a result too big to be a setting."""
    if len(parts) != 2 or name not in _ARITH or not all(
            p.op == Op.CONST and type(p.value) in (int, float, bool) for p in parts):
        return None
    try:
        got = _ARITH[name](parts[0].value, parts[1].value)
    except (ArithmeticError, ValueError):
        return None
    return const(got) if not isinstance(got, int) or got.bit_length() <= 128 else None


EACH = "each"  # a ``union`` of the items of a list a loop takes one per step (each runs), a ``sub`` that makes one


def module_name(name: str) -> Expr:
    """The ``__name__`` of the module ``name`` (dotted), as a value (:data:`MODULE_NAME`)."""
    return Expr(Op.NOTNONE, MODULE_NAME + name)


def named_module(v: Expr) -> Optional[str]:
    """The dotted module name the value ``v`` spells: a string constant, or a module's
    ``__name__`` (:func:`module_name`); None for any other value."""
    if v.op == Op.CONST and isinstance(v.value, str):
        return v.value
    if v.op == Op.NOTNONE and isinstance(v.value, str) and v.value.startswith(MODULE_NAME):
        return v.value[len(MODULE_NAME):]
    return None


def union(values: Iterable[Expr]) -> Expr:
    """One of ``values`` (flattened, each once): the value itself when there is one, an
    empty ``union`` when there is none (nothing reaches here)."""
    out: Dict[Expr, None] = {}  # insertion-ordered; hashing beats comparing each new part with each kept one
    for v in values:
        if v.op == Op.UNION:
            out.update(dict.fromkeys(v.parts))
        else:
            out[v] = None
    if len(out) == 1:
        return next(iter(out))
    return Expr(Op.UNION, parts=tuple(out))


_MAX_ENTRIES = 16  # a dict read with a key not decided: one of at most this many entries, else not known


def present(found: Expr, default: Optional[Expr] = None) -> Expr:
    """What a lookup that found ``found`` gives where it says the key may be missing (a :data:`MAYBE_ABSENT` part,
    gblint.abstract.keyed): its other parts or ``default`` (``d.get(key, default)``); without a default, its other parts
    (``d[key]``: a missing key raises, so what follows runs only where the key is there)."""
    if not maybe_absent(found):
        return found
    return union([p for p in found.parts if p != MAYBE_ABSENT] + ([default] if default is not None else []))


def maybe_absent(v: Expr) -> bool:
    """Whether the entry value ``v`` says its key may be missing (a union with :data:`MAYBE_ABSENT`)."""
    return v.op == Op.UNION and MAYBE_ABSENT in v.parts


def _lookup(d: Expr, key: Expr) -> Optional[Expr]:
    """The value of ``key`` in the dict value ``d``: None when ``d`` certainly lacks it (every
    key known), ``unknown`` when that cannot be told."""
    if key.op != Op.CONST or any(kv.parts[0].op != Op.CONST for kv in d.parts):
        return UNKNOWN
    for kv in d.parts:
        if kv.parts[0].value == key.value:
            return kv.parts[1]
    return UNKNOWN if more_keys(d) else None


def truth_of(v: Expr) -> Optional[bool]:
    """Whether the value ``v`` is true (None: not known; a tensor's truth is data)."""
    if v.op == Op.CONST:
        return bool(v.value)
    if v.op in (Op.SEQ, Op.DICT):
        if v.value in (CHANGED, BOUNDED):
            return None
        return bool(v.parts) if v.value not in OPEN or v.parts else None
    if v.op == Op.SET and v.parts:
        return True  # a display with elements (equal ones collapse, but one remains)
    if v.op == Op.OBJ:
        return v.truth
    if v.op == Op.UNION and v.parts:
        found = {truth_of(p) for p in v.parts}
        return found.pop() if len(found) == 1 else None
    return None


def decide(e: Expr, env: Env) -> Optional[bool]:
    """Whether the test ``e`` is true for the values in ``env`` (None: not known before the run)."""
    op = e.op
    if op == Op.NOT:
        inner = decide(e.parts[0], env)
        return None if inner is None else not inner
    if op in (Op.AND, Op.OR):
        parts = [decide(p, env) for p in e.parts]
        stop = op == Op.OR  # the value that decides the whole: True for `or`, False for `and`
        if stop in parts:
            return stop
        return None if None in parts else not stop
    if op == Op.XOR:
        a, b = (decide(p, env) for p in e.parts)
        return None if a is None or b is None else a != b
    if op in (Op.IS, Op.ISNOT):
        same = _identical(evaluate(e.parts[0], env), evaluate(e.parts[1], env))
        return None if same is None else same == (op == Op.IS)
    if op in (Op.IN, Op.NOTIN):
        found = _member(evaluate(e.parts[0], env), evaluate(e.parts[1], env))
        return None if found is None else found == (op == Op.IN)
    if op == Op.OP_FAILS:
        return op_fails(e.value, evaluate(e.parts[0], env), evaluate(e.parts[1], env))
    if op == Op.HOLDS_TENSOR:
        return holds_tensor(evaluate(e.parts[0], env))
    if op == Op.CHANGES:  # whether a callee may change what it is handed (gblint.abstract.handing)
        return env.resolver.changes(e, env) if env.resolver is not None else None
    if op == Op.GRAD_OFF:  # no tensor of parts requires grad (what AutogradFunctionVariable.call_apply tests)
        return grads.grad_off([evaluate(p, env) for p in e.parts], e.value == grads.CONTEXT_FIRST)
    if op == Op.FUNCTION_APPLY:
        return grads.function_apply(evaluate(e.parts[0], env))
    if op == Op.TENSOR_SEQ:  # a tuple or list with a tensor in it (what `assert args` cannot test)
        v = evaluate(e.parts[0], env)
        return holds_tensor(v) if v.op == Op.SEQ else False if v.op in (Op.CONST, Op.DICT, Op.SET, Op.TENSOR) else None
    if op == Op.TENSOR_SET:
        v = evaluate(e.parts[0], env)
        if v.op == Op.SET:
            return holds_tensor(v)
        return False if v.op in (Op.CONST, Op.SEQ, Op.DICT, Op.TENSOR) else None
    if op in _PY_OPS:
        a, b = evaluate(e.parts[0], env), evaluate(e.parts[1], env)
        if a.op == Op.SEQ and b.op == Op.SEQ and a.value not in OPEN and b.value not in OPEN:
            return _compare_tuples(op, a, b)
        if a.op == Op.CONST and b.op == Op.CONST:
            try:
                return bool(_PY_OPS[op](a.value, b.value))
            except TypeError:
                return None
        if a.op == b.op and a.op in (Op.DTYPE, Op.LAYOUT, Op.DEVICE) and op in (Op.EQ, Op.NE):
            return (a.value == b.value) == (op == Op.EQ)
        if op in (Op.EQ, Op.NE) and a.op != Op.UNION and b.op != Op.UNION and \
                {a.op, b.op} & {Op.CONST} and ({a.op, b.op} - {Op.CONST}) <= _NOT_NONE_OPS and \
                (a if a.op == Op.CONST else b).value is None and a.op != b.op:
            return op == Op.NE  # `x == None` with x certainly not None
        return None
    return truth_of(evaluate(e, env))


def _compare_tuples(op: str, a: Expr, b: Expr) -> Optional[bool]:
    """``a OP b`` for two sequences of constants (``sys.version_info >= (3, 12)``). ``sys.version_info`` holds only
    (major, minor) of its five items: the longer against a tuple of at most two (``<= (3, 11)`` is False on 3.11);
    where the rest would decide (a longer tuple with the same start), not known."""
    if any(p.op != Op.CONST for p in a.parts + b.parts):
        return None
    x, y = tuple(p.value for p in a.parts), tuple(p.value for p in b.parts)
    n = min(len(x), len(y))
    for version, other in ((a, y), (b, x)):
        if version.value == "version" and x[:n] == y[:n]:
            if len(other) > len(version.parts):
                return None
            x, y = (x + (0,), y) if version is a else (x, y + (0,))  # more items than the other: it is greater
    try:
        return bool(_PY_OPS[op](x, y))
    except TypeError:
        return None


def _identical(a: Expr, b: Expr) -> Optional[bool]:
    if a.op == Op.UNION or b.op == Op.UNION:
        found = {_identical(p, q) for p in (a.parts if a.op == Op.UNION else (a,))
                 for q in (b.parts if b.op == Op.UNION else (b,))}
        return found.pop() if len(found) == 1 else None
    if a.op == Op.CONST and b.op == Op.CONST:
        if a.value is None or b.value is None or isinstance(a.value, bool) or isinstance(b.value, bool):
            return a.value is b.value
        return None  # `is` between numbers or strings: interning decides, not gblint
    if a.op == b.op and a.op in (Op.DTYPE, Op.LAYOUT):
        return a.value == b.value  # each dtype, each layout is one object
    if (a.op == Op.CONST and a.value is None and b.op in _NOT_NONE_OPS) or \
            (b.op == Op.CONST and b.value is None and a.op in _NOT_NONE_OPS):
        return False
    return None


def _member(item: Expr, container: Expr) -> Optional[bool]:
    if container.op == Op.CONST and isinstance(container.value, str):  # `"=" in spec`: a substring
        return item.value in container.value if item.op == Op.CONST and isinstance(item.value, str) else None
    if container.op == Op.DICT:
        container = Expr(Op.SEQ, container.value, tuple(kv.parts[0] for kv in container.parts))
    if container.op != Op.SEQ or container.value in OPEN or item.op != Op.CONST or any(p.op != Op.CONST for p in container.parts):
        return None
    return any(p.value == item.value for p in container.parts)  # Python's `in`: `True in (1, 2)` holds


def bind(args: Optional[CallArgs], params: Sequence[Param], caller: Env, bound: bool) -> Env:
    """What each parameter of a callee holds when called with ``args`` from a frame whose
    parameters hold ``caller``: the argument passed (evaluated in the caller), else the
    default, else unknown (also when a ``*x``/``**x`` may pass it; what they unpack is used
    when its value is known). ``bound``: a method called on an instance (its first parameter
    is the instance, not an argument). Empty for a call gblint did not record arguments of."""
    if args is None:
        return Env()
    positional = [evaluate(a, caller) for a in args.positional]
    keywords = [(k, evaluate(v, caller)) for k, v in args.keywords]
    star, starstar = args.star, args.starstar
    if star and args.rest:
        rest = [evaluate(r, caller) for r in args.rest]
        if all(r.op == Op.SEQ for r in rest):
            positional += [p for r in rest for p in r.parts]
            star = any(r.value in OPEN for r in rest)
    if starstar and args.rest_kw:
        rest = [evaluate(r, caller) for r in args.rest_kw]
        if all(r.op == Op.DICT and all(kv.parts[0].op == Op.CONST and isinstance(kv.parts[0].value, str)
                                      for kv in r.parts) for r in rest):
            keywords += [(kv.parts[0].value, kv.parts[1]) for r in rest for kv in r.parts]
            starstar = any(more_keys(r) for r in rest)
    return Env(bind_values(positional, keywords, star, starstar, params, bound), resolver=caller.resolver)


def bind_values(positional: Sequence[Expr], keywords: Sequence[Tuple[str, Expr]], star: bool, starstar: bool,
                params: Sequence[Param], bound: bool) -> Dict[str, Expr]:
    """:func:`bind` for arguments already evaluated: ``positional`` values, ``keywords``
    ``(name, value)`` pairs, ``star``/``starstar`` whether more may come unseen. The bindings
    (parameter name -> value), not an :class:`Env`."""
    params = list(params)
    if bound and params and params[0].kind == "pos":
        params = params[1:]
    env: Dict[str, Expr] = {}
    pos_params = [p for p in params if p.kind == "pos"]
    for p, a in zip(pos_params, positional):
        env[p.name] = a
    given = dict(keywords)
    names = {p.name for p in params if p.kind in ("pos", "kwonly")}
    for p in params:  # what `*args` and `**kwargs` collect (open: the call may pass more unseen)
        if p.kind == "star" and (not star or len(positional) > len(pos_params)):
            env[p.name] = Expr(Op.SEQ, OPEN_SEQ if star else None, tuple(positional[len(pos_params):]))
        elif p.kind == "starstar":
            rest = tuple(Expr(Op.KV, parts=(const(k), v)) for k, v in keywords if k not in names)
            env[p.name] = Expr(Op.DICT, OPEN_DICT if starstar else BOUNDED if any(
                maybe_absent(kv.parts[1]) for kv in rest) else None, rest)
    for p in params:
        if p.name in env or p.kind in ("star", "starstar"):
            continue
        if p.name in given:  # a keyword a BOUNDED dict may lack: what it holds, else the default
            env[p.name] = present(given[p.name], p.default) if p.default is not None else given[p.name]
        elif starstar or (star and p.kind == "pos") or p.default is None:
            env[p.name] = UNKNOWN
        else:
            env[p.name] = p.default
    return {k: v for k, v in env.items() if v.op != Op.UNKNOWN and not (v.value in OPEN and not v.parts)}


OPEN_SEQ = "open"  # a `seq` value: these items first, maybe more (what `*args` got from `f(x, *unknown)`)
OPEN_DICT = "open"  # a `dict` value: these keys at least (what `**kwargs` got from `f(k=v, **unknown)`)
CHANGED = "changed"  # a `seq`/`dict` a function changed in place: these items maybe, in another order, maybe more
GROWN = "grown"  # a `seq` module code grew by appends that surely ran: each item there, in some order and number
GROWN_MODULES = "grown modulelist"  # an nn.ModuleList of a GROWN list
APPENDED = "appended"  # a `seq` alternative a method's `xs.append(v)` adds: a piece of the list bound first
BOUNDED = "bounded"  # a `dict` value: these keys at most; one valued MAYBE_ABSENT maybe not there (gblint.abstract.keyed)
OPEN = frozenset({OPEN_SEQ, OPEN_DICT, CHANGED, GROWN, GROWN_MODULES, BOUNDED})


def spliced(kind: Optional[str], parts: Sequence[Expr]) -> Expr:
    """The ``seq`` value of a display whose evaluated ``parts`` may hold ``star`` items (``(f, *fns)``): each
    spliced in where what it unpacks is a list or tuple of known length; from the first that is not, the items
    are not known (the display holds the ones before it, then more: :data:`OPEN_SEQ`)."""
    out: list = []
    for p in parts:
        inner = p.parts[0] if p.op == Op.STAR else None
        if inner is not None and (inner.op != Op.SEQ or inner.value in OPEN or any(q.op == Op.STAR for q in inner.parts)):
            return Expr(Op.SEQ, OPEN_SEQ, tuple(out))
        out.extend((p,) if inner is None else inner.parts)
    return Expr(Op.SEQ, kind, tuple(out))


def _view(inner: Expr, which: str) -> Expr:
    """``inner.keys()``, ``.values()`` or ``.items()`` (``which``) of a value that is not a union."""
    if inner.op == Op.SEQ:
        return inner  # `d.items()` of what `**kwargs` collected before, as long as `d`
    return view(inner, which) if inner.op == Op.DICT else UNKNOWN


def view(d: Expr, which: str) -> Expr:
    """``d.keys()``, ``.values()`` or ``.items()`` (``which``) of the dict ``d``; a BOUNDED dict's: some of them."""
    if more_keys(d):
        return UNKNOWN
    got = [kv.parts[0] if which == "keys" else kv.parts[1] if which == "values" else Expr(Op.SEQ, parts=kv.parts)
           for kv in d.parts]
    return Expr(Op.SEQ, BOUNDED if d.value == BOUNDED else None, tuple(got))


def more_keys(d: Expr) -> bool:
    """Whether the dict value ``d`` may hold keys besides those it lists."""
    return d.value in OPEN and d.value != BOUNDED


def changed_by(info, name: str, env: Env) -> bool:
    """Whether the function ``info`` (a :class:`gblint.core.model.FunctionInfo`), its parameters
    holding ``env``, may change the collection its parameter ``name`` holds: some place it does
    so is not behind a branch test that is false for these values (a deprecation wrapper's
    ``kwargs[new] = kwargs.pop(old)`` under ``if old in kwargs``, called without ``old``)."""
    if name not in info.mutated:
        return False
    sites = [when for n, when in info.mutated_when if n == name]
    return not sites or any(decide(when, env) is not False for when in sites)


def changed_in_place(v: Expr) -> Expr:
    """What the collection ``v`` may hold after a function changed it in place (``kwargs.pop(k)``,
    ``kwargs[k] = v``, ``args.append(x)``): each item it held, or something else, maybe gone,
    maybe more (a deprecation wrapper renaming a keyword still passes the others on). Any other
    value is returned as it is."""
    if v.op == Op.SEQ:
        return Expr(Op.SEQ, CHANGED, tuple(union((p, OTHER)) for p in v.parts))
    if v.op == Op.DICT:
        return Expr(Op.DICT, CHANGED, tuple(Expr(Op.KV, parts=(kv.parts[0], union((kv.parts[1], OTHER))))
                                           for kv in v.parts))
    return v


#: a binding of a local (``FunctionInfo.locals``): a call it was handed may have changed what it holds in
#: place (gblint.syntax.bindings), so it may hold what :func:`changed_object` makes of its other bindings
INPLACE = Expr(Op.INPLACE)


def changed_object(v: Expr) -> Expr:
    """What the object ``v`` may be after a callee it was handed changed it in place (:data:`INPLACE`):
    the same tensor (an in-place op keeps it one, of a dtype, shape or grad not known), the same
    immutable constant or not-None object; anything else (a collection, an instance whose attributes
    may change) not known."""
    if v.op == Op.UNION:
        return union(changed_object(p) for p in v.parts)
    if v.op == Op.TENSOR:
        return Expr(Op.TENSOR)
    if v.op in (Op.CONST, Op.DTYPE, Op.NOTNONE):
        return v
    return UNKNOWN


def env_key(env: Env) -> tuple:
    """A hashable form of ``env`` (for memoising per call context; the resolver left out): its
    bindings as sorted ``(name, value)`` pairs, then :meth:`Env.context`."""
    return (tuple(sorted(env.bindings.items(), key=lambda kv: kv[0])),) + env.context()


def merge(envs: Iterable[Env]) -> Env:
    """What every one of ``envs`` agrees on (for a function called from several places): the
    bindings they all hold, each field where they all hold the same (else its default)."""
    envs = list(envs)
    if not envs:
        return Env()
    first, rest = envs[0], envs[1:]
    out = Env({k: v for k, v in first.bindings.items() if all(e.bindings.get(k) == v for e in rest)},
              resolver=first.resolver if all(e.resolver is first.resolver for e in rest) else None)
    for name in ("frame", "outer", "mode", "read", "via", "before_self"):
        if all(getattr(e, name) == getattr(first, name) for e in rest):
            setattr(out, name, getattr(first, name))
    for name in ("before", "locals"):
        setattr(out, name, {k: v for k, v in getattr(first, name).items()
                            if all(getattr(e, name).get(k) == v for e in rest)})
    return out


def params_used(e: Optional[Expr]) -> Iterable[str]:
    """The parameter names ``e`` reads."""
    if e is None:
        return
    if e.op == Op.PARAM:
        yield e.value
    for p in e.parts:
        yield from params_used(p)


def forget(e: Optional[Expr], names) -> Optional[Expr]:
    """``e`` with every ``param`` among ``names`` made unknown (rebound in a loop, say)."""
    if e is None:
        return None
    if e.op == Op.PARAM and e.value in names:
        return UNKNOWN
    if not e.parts:
        return e
    return Expr(e.op, e.value, tuple(forget(p, names) for p in e.parts))


def forget_args(args: CallArgs, names) -> CallArgs:
    """``args`` with every ``param`` among ``names`` made unknown."""
    return CallArgs(tuple(forget(a, names) for a in args.positional),
                    tuple((k, forget(v, names)) for k, v in args.keywords), args.star, args.starstar)


def holds_tensor(v: Expr) -> Optional[bool]:
    """Whether the value ``v`` is or contains a tensor: True for a ``tensor`` or a display with
    one inside, False for constants and displays of them, None when gblint cannot tell."""
    if v.op == Op.TENSOR:
        return True
    if v.op == Op.UNION and v.parts:  # one of several values: decided only where they all agree
        found = {holds_tensor(p) for p in v.parts}
        return found.pop() if len(found) == 1 else None
    if is_constant(v):
        return False
    if v.op in (Op.SEQ, Op.SET):
        inner = [holds_tensor(p) for p in v.parts]
        return True if True in inner else None
    if v.op == Op.DICT:
        inner = [holds_tensor(kv.parts[1]) for kv in v.parts]
        return True if True in inner else None
    return None


def not_tensor(v: Optional[Expr]) -> bool:
    """Whether the value ``v`` (None: not known) is certainly not a tensor: a constant, a
    container, a program object (:mod:`gblint.abstract.objects`) other than a library's instance."""
    if v is None:
        return False
    if v.op == Op.UNION:
        return bool(v.parts) and all(not_tensor(p) for p in v.parts)
    if v.op == Op.OBJ:
        return type(v).__name__ not in ("ExtInst", "Method")
    return v.op in (Op.CONST, Op.SEQ, Op.DICT, Op.SET, Op.DTYPE, Op.DEVICE) or v == INDEX


def is_constant(v: Expr) -> bool:
    """Whether ``v`` is a known constant or a tuple, list, dict or set display of them (no tensor
    can hide in it)."""
    if v.op in (Op.SEQ, Op.DICT) and v.value in OPEN:
        return False
    return v.op in (Op.CONST, Op.DTYPE) or (v.op in (Op.SEQ, Op.SET) and all(is_constant(p) for p in v.parts)) or \
        (v.op == Op.DICT and all(is_constant(kv.parts[1]) for kv in v.parts))


ERROR_PATH = "\0error-path"  # in a list of conditions: the site lies on an error path
# a model runs in both modes (``model.train()`` is ``nn.Module``'s default, ``model.eval()`` for
# inference): where the code does not set it, a test that the mode alone decides is a condition on the
# mode (:data:`TRAIN_MODE`, :data:`EVAL_MODE`), not on the code
TRAIN_MODE = "\0train-mode"  # in a list of conditions: a test that holds exactly when `self.training`
EVAL_MODE = "\0eval-mode"  # ... exactly when `not self.training`
#: a diagnostic's ``condition`` when the mode is all it depends on (gblint.project.reporting shows it by default)
MODE_CONDITIONS = {TRAIN_MODE: "in training mode", EVAL_MODE: "in eval mode"}
MODE_TESTS = {TRAIN_MODE: "self.training", EVAL_MODE: "not self.training"}


def mentions(e: Expr, op: Op, value=None) -> bool:
    """Whether the value ``e`` has a part of op ``op`` (at any depth), of value ``value`` when one is given."""
    return (e.op == op and (value is None or e.value == value)) or any(mentions(p, op, value) for p in e.parts)


def mode_condition(test: Expr, env: Env) -> Optional[str]:
    """:data:`TRAIN_MODE` or :data:`EVAL_MODE` when ``env`` (of a module's method) leaves the mode
    open and the test ``test`` holds in exactly that mode (the rest of it decided by ``env``), else None."""
    if env.mode is not None:
        return None
    train = decide(test, env.replace(mode=const(True)))
    evaluated = decide(test, env.replace(mode=const(False)))
    if train is True and evaluated is False:
        return TRAIN_MODE
    if train is False and evaluated is True:
        return EVAL_MODE
    return None
