"""What gblint knows of values before the run, and which branches that decides.

Dynamo traces only the branch the run's values take (``docs/semantics.md`` §0, rule 6): code
behind a test that is false for the values a call passes is never traced, so a break there costs
nothing. Two halves:

* the summary stage turns a branch's test, a call's arguments and a parameter's default into
  :class:`gblint.model.Expr` values (:mod:`gblint.value_syntax`, the only half that needs libcst):
  literals, the function's own parameters (only while not rebound), ``self.training``, and
  ``unknown`` for the rest;
* the consequence walk binds each call's arguments to the callee's parameters (:func:`bind`:
  what the call passes, else the default) and decides tests with them (:func:`decide`), in
  three values: True, False, or None for "cannot tell before the run".
"""
from __future__ import annotations

import operator
from typing import Dict, Iterable, Optional, Sequence, Tuple

from .model import CallArgs, Expr, Param

UNKNOWN = Expr("unknown")
# an unknown value that is one alternative of several (an arm of an undecided `if`, one binding of
# a local bound more than once): evidence that a call through the value may run something else
OTHER = Expr("unknown", "other")
NOTNONE = Expr("notnone")
INDEX = Expr("notnone", "index")  # an int not known (what the sequence protocol passes to __getitem__): no tensor
DEFAULT_DTYPE = "default"  # a ``tensor`` value's dtype: the default one (gblint.interp.Interpreter.dtype_of)

Env = Dict[str, Expr]  # parameter name -> what the call passes (and RESOLVER -> a Resolver)

_PY_OPS = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
           "ge": operator.ge}


def const(value) -> Expr:
    """The constant ``value`` (None, bool, int, float or str)."""
    return Expr("const", value)


# ----------------------------------------------------------------------------- evaluation

# Ops that stand for objects the program makes (gblint.interp follows them; here they are not
# known unless an interpreter rides in the environment under RESOLVER).
OBJECT_OPS = frozenset({"local", "free", "global", "attr", "sub", "callv", "iter", "unpack", "def", "super", "enter",
                        "kw", "star", "starstar", "slice"})
_NOT_NONE_OPS = frozenset({"notnone", "seq", "dict", "set", "tensor", "filtered", "obj", "dtype"})


def evaluate(e: Expr, env: Env) -> Expr:
    """The value of ``e`` with the parameters bound as in ``env``: a ``const``, ``notnone``,
    ``tensor``, a ``seq``, ``dict`` or ``set`` of values, an object (:mod:`gblint.objects`), a
    ``union`` of those, or ``unknown``. Objects are followed only when ``env`` carries an interpreter under
    :data:`RESOLVER` (:class:`gblint.interp.Interpreter`)."""
    op = e.op
    if op in ("const", "notnone", "unknown", "obj", "tensor", "dtype"):
        return e
    if op == "param":
        return env.get(e.value, UNKNOWN)
    if op == "training":  # known when the code sets the compiled module's mode (gblint.regions)
        return env.get(MODE, UNKNOWN)
    if op in OBJECT_OPS:
        interp = env.get(RESOLVER)
        return interp.value(e, env) if interp is not None else UNKNOWN
    if op in ("seq", "set"):
        return Expr(op, e.value, tuple(evaluate(p, env) for p in e.parts))
    if op == "dict":
        return Expr("dict", e.value, tuple(Expr("kv", parts=(evaluate(kv.parts[0], env), evaluate(kv.parts[1], env)))
                                           for kv in e.parts))
    if op == "union":
        return union(evaluate(p, env) for p in e.parts)
    if op == "arith":  # a tensor when an operand is one (torch/_C/__init__.pyi: Tensor.__add__... -> Tensor)
        parts = [evaluate(p, env) for p in e.parts]
        return Expr("tensor") if any(p.op == "tensor" for p in parts) else NOTNONE
    if op in _PY_OPS:  # a comparison with a tensor is a tensor (torch/_C/__init__.pyi: Tensor.__gt__... -> Tensor)
        parts = [evaluate(p, env) for p in e.parts]
        if any(p.op == "tensor" for p in parts) and not any(p.op == "const" and p.value is None for p in parts):
            return Expr("tensor")
    if op == "ifelse":
        truth = decide(e.parts[0], env)
        if truth is None:
            return alternatives((evaluate(e.parts[1], env), evaluate(e.parts[2], env)))
        return evaluate(e.parts[1] if truth else e.parts[2], env)
    if op in ("and", "or"):  # Python's value: the operand that decides, not a bool
        first = evaluate(e.parts[0], env)
        truth = truth_of(first)
        if truth is None:
            return union((first, evaluate(e.parts[1], env)))
        return first if truth == (op == "or") else evaluate(e.parts[1], env)
    if op in ("items", "get"):
        inner = evaluate(e.parts[0], env)
        if (inner.op == "obj" or (inner.op == "filtered" and inner.value == "dict")) and RESOLVER in env:
            # a method of a program object (a Mapping's `get`...), or of a dict comprehension
            args = tuple(evaluate(p, env) for p in e.parts[1:])
            return env[RESOLVER].call_method(inner, e.value if op == "items" else "get", args)
    if op == "items":
        inner = evaluate(e.parts[0], env)
        if inner.op == "seq":
            return inner  # `d.items()` of what `**kwargs` collected before, as long as `d`
        if inner.op == "dict":
            if e.value == "keys":
                return Expr("seq", parts=tuple(kv.parts[0] for kv in inner.parts))
            if e.value == "values":
                return Expr("seq", parts=tuple(kv.parts[1] for kv in inner.parts))
            return Expr("seq", parts=tuple(Expr("seq", parts=kv.parts) for kv in inner.parts))
        return UNKNOWN
    if op == "concat":  # an f-string: known when every part is a string or a number
        pieces = [evaluate(p, env) for p in e.parts]
        if all(p.op == "const" and isinstance(p.value, (str, int)) and not isinstance(p.value, bool) for p in pieces):
            return const("".join(str(p.value) for p in pieces))
        return NOTNONE
    if op == "comp":
        if RESOLVER in env:
            return env[RESOLVER].value(e, env)
        inner = evaluate(e.parts[0], env)
        if inner.op in ("seq", "dict") and not inner.parts and inner.value not in OPEN:
            return Expr("dict" if e.value == "dict" else "seq")  # a comprehension over nothing is empty
        return NOTNONE
    if op == "filtered":
        inner = evaluate(e.parts[0], env)
        if inner.op in ("seq", "dict") and not inner.parts and inner.value not in OPEN:
            return Expr("seq")  # a comprehension over nothing is empty
        if len(e.parts) > 1:
            return Expr("filtered", e.value, (inner,) + tuple(evaluate(p, env) for p in e.parts[1:]))
        return NOTNONE
    if op == "get":
        inner = evaluate(e.parts[0], env)
        if inner.op in ("seq", "dict") and not inner.parts and inner.value not in OPEN:  # an empty `**kwargs`
            return evaluate(e.parts[2], env)
        if inner.op == "dict":
            key = evaluate(e.parts[1], env)
            found = _lookup(inner, key)
            return evaluate(e.parts[2], env) if found is None else found
        return UNKNOWN
    if op == "len":
        inner = evaluate(e.parts[0], env)
        if inner.op in ("seq", "dict") and inner.value not in OPEN:
            return const(len(inner.parts))
        if inner.op == "const" and isinstance(inner.value, str):
            return const(len(inner.value))
        return UNKNOWN
    if op == "fold":
        return _fold(e.value, evaluate(e.parts[0], env))
    truth = decide(e, env)
    return UNKNOWN if truth is None else const(truth)


def _fold(name: str, inner: Expr) -> Expr:
    """``all(x)`` or ``any(x)`` of the value ``inner``: known when ``inner`` is a sequence or
    dict of known length whose elements' truth is known, or when one element decides (a false
    one for ``all``, a true one for ``any``)."""
    if inner.op not in ("seq", "dict") or inner.value in OPEN:
        return UNKNOWN
    items = tuple(kv.parts[0] for kv in inner.parts) if inner.op == "dict" else inner.parts
    truths = [truth_of(p) for p in items]
    stop = name == "any"  # the element value that decides: True for any, False for all
    if stop in truths:
        return const(stop)
    return UNKNOWN if None in truths else const(not stop)


def alternatives(found: Sequence[Expr]) -> Expr:
    """One of the values ``found``, each a real alternative (what either arm of an undecided
    test gives): an unknown one among known ones is kept as :data:`OTHER`."""
    if len(found) > 1 and any(v.op != "unknown" for v in found):
        found = [OTHER if v.op == "unknown" else v for v in found]
    return union(found)


def union(values: Iterable[Expr]) -> Expr:
    """One of ``values`` (flattened, each once): the value itself when there is one, an
    empty ``union`` when there is none (nothing reaches here)."""
    out = []
    for v in values:
        for p in (v.parts if v.op == "union" else (v,)):
            if p not in out:
                out.append(p)
    return out[0] if len(out) == 1 else Expr("union", parts=tuple(out))


def _lookup(d: Expr, key: Expr) -> Optional[Expr]:
    """The value of ``key`` in the dict value ``d``: None when ``d`` certainly lacks it (every
    key known), ``unknown`` when that cannot be told."""
    if key.op != "const" or any(kv.parts[0].op != "const" for kv in d.parts):
        return UNKNOWN
    for kv in d.parts:
        if kv.parts[0].value == key.value:
            return kv.parts[1]
    return UNKNOWN if d.value in OPEN else None


def truth_of(v: Expr) -> Optional[bool]:
    """Whether the value ``v`` is true (None: not known; a tensor's truth is data)."""
    if v.op == "const":
        return bool(v.value)
    if v.op in ("seq", "dict"):
        if v.value == CHANGED:
            return None
        return bool(v.parts) if v.value not in OPEN or v.parts else None
    if v.op == "set" and v.parts:
        return True  # a display with elements (equal ones collapse, but one remains)
    if v.op == "obj":
        return v.truth
    if v.op == "union" and v.parts:
        found = {truth_of(p) for p in v.parts}
        return found.pop() if len(found) == 1 else None
    return None


def decide(e: Expr, env: Env) -> Optional[bool]:
    """Whether the test ``e`` is true for the values in ``env`` (None: not known before the run)."""
    op = e.op
    if op == "not":
        inner = decide(e.parts[0], env)
        return None if inner is None else not inner
    if op in ("and", "or"):
        parts = [decide(p, env) for p in e.parts]
        stop = op == "or"  # the value that decides the whole: True for `or`, False for `and`
        if stop in parts:
            return stop
        return None if None in parts else not stop
    if op == "xor":
        a, b = (decide(p, env) for p in e.parts)
        return None if a is None or b is None else a != b
    if op in ("is", "isnot"):
        same = _identical(evaluate(e.parts[0], env), evaluate(e.parts[1], env))
        return None if same is None else same == (op == "is")
    if op in ("in", "notin"):
        found = _member(evaluate(e.parts[0], env), evaluate(e.parts[1], env))
        return None if found is None else found == (op == "in")
    if op == "op_fails":
        return op_fails(e.value, evaluate(e.parts[0], env), evaluate(e.parts[1], env))
    if op == "holds_tensor":
        return holds_tensor(evaluate(e.parts[0], env))
    if op == "changes":  # whether a callee may change what it is handed (gblint.handing)
        return env[RESOLVER].changes(e, env) if RESOLVER in env else None
    if op == "tensor_seq":  # a tuple or list with a tensor in it (what `assert args` cannot test)
        v = evaluate(e.parts[0], env)
        return holds_tensor(v) if v.op == "seq" else False if v.op in ("const", "dict", "set", "tensor") else None
    if op == "tensor_set":
        v = evaluate(e.parts[0], env)
        if v.op == "set":
            return holds_tensor(v)
        return False if v.op in ("const", "seq", "dict", "tensor") else None
    if op in _PY_OPS:
        a, b = evaluate(e.parts[0], env), evaluate(e.parts[1], env)
        if a.op == "seq" and b.op == "seq" and a.value not in OPEN and b.value not in OPEN:
            return _compare_tuples(op, a, b)
        if a.op == "const" and b.op == "const":
            try:
                return bool(_PY_OPS[op](a.value, b.value))
            except TypeError:
                return None
        if a.op == "dtype" and b.op == "dtype" and op in ("eq", "ne"):
            return (a.value == b.value) == (op == "eq")
        if op in ("eq", "ne") and a.op != "union" and b.op != "union" and \
                {a.op, b.op} & {"const"} and ({a.op, b.op} - {"const"}) <= _NOT_NONE_OPS and \
                (a if a.op == "const" else b).value is None and a.op != b.op:
            return op == "ne"  # `x == None` with x certainly not None
        return None
    return truth_of(evaluate(e, env))


def _compare_tuples(op: str, a: Expr, b: Expr) -> Optional[bool]:
    """``a OP b`` for two sequences of constants (``sys.version_info >= (3, 12)``). A
    ``sys.version_info`` value holds only (major, minor): where the rest would decide (one is a
    prefix of the other), not known."""
    if any(p.op != "const" for p in a.parts + b.parts):
        return None
    x, y = tuple(p.value for p in a.parts), tuple(p.value for p in b.parts)
    n = min(len(x), len(y))
    if "version" in (a.value, b.value) and x[:n] == y[:n] and len(x) != len(y):
        return None
    try:
        return bool(_PY_OPS[op](x, y))
    except TypeError:
        return None


def _identical(a: Expr, b: Expr) -> Optional[bool]:
    if a.op == "union" or b.op == "union":
        found = {_identical(p, q) for p in (a.parts if a.op == "union" else (a,))
                 for q in (b.parts if b.op == "union" else (b,))}
        return found.pop() if len(found) == 1 else None
    if a.op == "const" and b.op == "const":
        if a.value is None or b.value is None or isinstance(a.value, bool) or isinstance(b.value, bool):
            return a.value is b.value
        return None  # `is` between numbers or strings: interning decides, not gblint
    if a.op == "dtype" and b.op == "dtype":
        return a.value == b.value  # each dtype is one object
    if (a.op == "const" and a.value is None and b.op in _NOT_NONE_OPS) or \
            (b.op == "const" and b.value is None and a.op in _NOT_NONE_OPS):
        return False
    return None


def _member(item: Expr, container: Expr) -> Optional[bool]:
    if container.op == "const" and isinstance(container.value, str):  # `"=" in spec`: a substring
        return item.value in container.value if item.op == "const" and isinstance(item.value, str) else None
    if container.op == "dict":
        container = Expr("seq", container.value, tuple(kv.parts[0] for kv in container.parts))
    if container.op != "seq" or container.value in OPEN or item.op != "const" or any(p.op != "const" for p in container.parts):
        return None
    return any(p.value == item.value for p in container.parts)  # Python's `in`: `True in (1, 2)` holds


def bind(args: Optional[CallArgs], params: Sequence[Param], caller: Env, bound: bool) -> Env:
    """What each parameter of a callee holds when called with ``args`` from a frame whose
    parameters hold ``caller``: the argument passed (evaluated in the caller), else the
    default, else unknown (also when a ``*x``/``**x`` may pass it; what they unpack is used
    when its value is known). ``bound``: a method called on an instance (its first parameter
    is the instance, not an argument). Empty for a call gblint did not record arguments of."""
    if args is None:
        return {}
    positional = [evaluate(a, caller) for a in args.positional]
    keywords = [(k, evaluate(v, caller)) for k, v in args.keywords]
    star, starstar = args.star, args.starstar
    if star and args.rest:
        rest = [evaluate(r, caller) for r in args.rest]
        if all(r.op == "seq" for r in rest):
            positional += [p for r in rest for p in r.parts]
            star = any(r.value in OPEN for r in rest)
    if starstar and args.rest_kw:
        rest = [evaluate(r, caller) for r in args.rest_kw]
        if all(r.op == "dict" and all(kv.parts[0].op == "const" and isinstance(kv.parts[0].value, str)
                                      for kv in r.parts) for r in rest):
            keywords += [(kv.parts[0].value, kv.parts[1]) for r in rest for kv in r.parts]
            starstar = any(r.value in OPEN for r in rest)
    env = bind_values(positional, keywords, star, starstar, params, bound)
    if RESOLVER in caller:
        env[RESOLVER] = caller[RESOLVER]
    return env


def bind_values(positional: Sequence[Expr], keywords: Sequence[Tuple[str, Expr]], star: bool, starstar: bool,
                params: Sequence[Param], bound: bool) -> Env:
    """:func:`bind` for arguments already evaluated: ``positional`` values, ``keywords``
    ``(name, value)`` pairs, ``star``/``starstar`` whether more may come unseen."""
    params = list(params)
    if bound and params and params[0].kind == "pos":
        params = params[1:]
    env: Env = {}
    pos_params = [p for p in params if p.kind == "pos"]
    for p, a in zip(pos_params, positional):
        env[p.name] = a
    given = dict(keywords)
    names = {p.name for p in params if p.kind in ("pos", "kwonly")}
    for p in params:  # what `*args` and `**kwargs` collect (open: the call may pass more unseen)
        if p.kind == "star" and (not star or len(positional) > len(pos_params)):
            env[p.name] = Expr("seq", OPEN_SEQ if star else None, tuple(positional[len(pos_params):]))
        elif p.kind == "starstar":
            env[p.name] = Expr("dict", OPEN_DICT if starstar else None,
                               tuple(Expr("kv", parts=(const(k), v)) for k, v in keywords if k not in names))
    for p in params:
        if p.name in env or p.kind in ("star", "starstar"):
            continue
        if p.name in given:
            env[p.name] = given[p.name]
        elif starstar or (star and p.kind == "pos") or p.default is None:
            env[p.name] = UNKNOWN
        else:
            env[p.name] = p.default
    return {k: v for k, v in env.items() if v.op != "unknown" and not (v.value in OPEN and not v.parts)}


OPEN_SEQ = "open"  # a `seq` value: these items first, maybe more (what `*args` got from `f(x, *unknown)`)
OPEN_DICT = "open"  # a `dict` value: these keys at least (what `**kwargs` got from `f(k=v, **unknown)`)
CHANGED = "changed"  # a `seq`/`dict` a function changed in place: these items maybe, in another order, maybe more
OPEN = frozenset({OPEN_SEQ, OPEN_DICT, CHANGED})


def changed_by(info, name: str, env: Env) -> bool:
    """Whether the function ``info`` (a :class:`gblint.model.FunctionInfo`), its parameters
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
    if v.op == "seq":
        return Expr("seq", CHANGED, tuple(union((p, OTHER)) for p in v.parts))
    if v.op == "dict":
        return Expr("dict", CHANGED, tuple(Expr("kv", parts=(kv.parts[0], union((kv.parts[1], OTHER))))
                                           for kv in v.parts))
    return v

RESOLVER = "\0resolve"  # an Env key: the interpreter (gblint.interp) objects are followed with
FRAME = "\0frame"  # an Env key: the function the environment belongs to (a gblint.objects.Here)
READ = "\0read"  # an Env key of a call target's values: it runs inside an attribute read (Target.read)
VIA = "\0via"  # an Env key of a call target's values: the target runs only when the called value is this one (a test in words)
MODE = "\0training"  # an Env key: ``self.training`` in the region (a const bool), when the code sets the mode
OUTER = "\0outer"  # an Env key: the frame a closure was made in (a gblint.objects.Ctx)


def env_key(env: Env) -> Tuple[Tuple[str, Expr], ...]:
    """A hashable form of ``env`` (for memoising per call context; the resolver left out)."""
    return tuple(sorted(((k, v) for k, v in env.items() if k != RESOLVER), key=lambda kv: kv[0]))


def merge(envs: Iterable[Env]) -> Env:
    """What every one of ``envs`` agrees on (for a function called from several places)."""
    envs = list(envs)
    if not envs:
        return {}
    first, rest = envs[0], envs[1:]
    return {k: v for k, v in first.items() if all(e.get(k) == v for e in rest)}


def params_used(e: Optional[Expr]) -> Iterable[str]:
    """The parameter names ``e`` reads."""
    if e is None:
        return
    if e.op == "param":
        yield e.value
    for p in e.parts:
        yield from params_used(p)


def forget(e: Optional[Expr], names) -> Optional[Expr]:
    """``e`` with every ``param`` among ``names`` made unknown (rebound in a loop, say)."""
    if e is None:
        return None
    if e.op == "param" and e.value in names:
        return UNKNOWN
    if not e.parts:
        return e
    return Expr(e.op, e.value, tuple(forget(p, names) for p in e.parts))


def forget_args(args: CallArgs, names) -> CallArgs:
    """``args`` with every ``param`` among ``names`` made unknown."""
    return CallArgs(tuple(forget(a, names) for a in args.positional),
                    tuple((k, forget(v, names)) for k, v in args.keywords), args.star, args.starstar)


def op_fails(op: str, a: Expr, b: Expr) -> Optional[bool]:
    """Whether the tensor op ``op`` (``matmul``, or ``broadcast`` for elementwise arithmetic) of
    ``a`` and ``b`` raises for their sizes: known only for tensors whose sizes the call shows
    (``torch.randn(2, 3)``); None otherwise."""
    if a.op != "tensor" or b.op != "tensor" or not a.parts or not b.parts:
        return None
    sa, sb = [d.value for d in a.parts], [d.value for d in b.parts]
    if op == "matmul":
        inner = sb[-2] if len(sb) >= 2 else sb[0]
        return sa[-1] != inner
    if op == "broadcast":
        return any(x != y and 1 not in (x, y) for x, y in zip(reversed(sa), reversed(sb)))
    return None


def holds_tensor(v: Expr) -> Optional[bool]:
    """Whether the value ``v`` is or contains a tensor: True for a ``tensor`` or a display with
    one inside, False for constants and displays of them, None when gblint cannot tell."""
    if v.op == "tensor":
        return True
    if is_constant(v):
        return False
    if v.op in ("seq", "set"):
        inner = [holds_tensor(p) for p in v.parts]
        return True if True in inner else None
    if v.op == "dict":
        inner = [holds_tensor(kv.parts[1]) for kv in v.parts]
        return True if True in inner else None
    return None


def not_tensor(v: Optional[Expr]) -> bool:
    """Whether the value ``v`` (None: not known) is certainly not a tensor: a constant, a
    container, a program object (:mod:`gblint.objects`) other than a library's instance."""
    if v is None:
        return False
    if v.op == "union":
        return bool(v.parts) and all(not_tensor(p) for p in v.parts)
    if v.op == "obj":
        return type(v).__name__ not in ("ExtInst", "Method")
    return v.op in ("const", "seq", "dict", "set", "dtype") or v == INDEX


def is_constant(v: Expr) -> bool:
    """Whether ``v`` is a known constant or a tuple, list, dict or set display of them (no tensor
    can hide in it)."""
    if v.op in ("seq", "dict") and v.value in OPEN:
        return False
    return v.op in ("const", "dtype") or (v.op in ("seq", "set") and all(is_constant(p) for p in v.parts)) or \
        (v.op == "dict" and all(is_constant(kv.parts[1]) for kv in v.parts))


ERROR_PATH = "\0error-path"  # in a list of conditions: the site lies on an error path


def certainty_of(conditions: Sequence[str]) -> Tuple[str, str]:
    """``(certainty, condition)`` of a diagnostic whose site is reached under ``conditions``
    (the tests, as written, that gblint cannot decide; :data:`ERROR_PATH` for an error path):
    ``("error-path", "")``, ``("conditional", "when `TEST`")`` naming the innermost test (and
    how many more), or ``("definite", "")``."""
    if ERROR_PATH in conditions:
        return "error-path", ""
    conditions = tuple(dict.fromkeys(conditions))  # one test met again through the calls on the way is one
    if not conditions:
        return "definite", ""
    named = [c for c in conditions if c]
    text = f"when `{named[-1]}`" if named else "under a condition"
    if len(conditions) > 1:
        text += f" (and {len(conditions) - 1} more condition{'s' if len(conditions) > 2 else ''})"
    return "conditional", text
