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
NOTNONE = Expr("notnone")

Env = Dict[str, Expr]  # parameter name -> what the call passes (and RESOLVER -> a Resolver)

_PY_OPS = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
           "ge": operator.ge}


def const(value) -> Expr:
    """The constant ``value`` (None, bool, int, float or str)."""
    return Expr("const", value)


# ----------------------------------------------------------------------------- evaluation

def evaluate(e: Expr, env: Env) -> Expr:
    """The value of ``e`` with the parameters bound as in ``env``: a ``const``, ``notnone``,
    ``tensor``, a ``seq``, ``dict`` or ``set`` of values, or ``unknown``."""
    op = e.op
    if op in ("const", "notnone", "unknown", "tensor"):
        return e
    if op == "param":
        return env.get(e.value, UNKNOWN)
    if op == "training":
        return UNKNOWN  # the mode (`.eval()` / `.train()`) is not known before the run yet
    if op in ("seq", "dict", "set"):
        return Expr(op, parts=tuple(evaluate(p, env) for p in e.parts))
    if op in ("and", "or"):  # Python's value: the operand that decides, not a bool
        first = evaluate(e.parts[0], env)
        truth = truth_of(first)
        if truth is None:
            return UNKNOWN
        return first if truth == (op == "or") else evaluate(e.parts[1], env)
    if op in ("items", "filtered"):
        inner = evaluate(e.parts[0], env)
        if inner.op == "seq" and (op == "items" or not inner.parts):
            return inner  # `d.items()` as long as `d`; a comprehension over nothing is empty
        return NOTNONE if op == "filtered" else UNKNOWN
    if op == "get":
        inner = evaluate(e.parts[0], env)
        if inner.op == "seq" and not inner.parts:  # an empty `**kwargs`: the default
            return evaluate(e.parts[2], env)
        key = evaluate(e.parts[1], env)
        if inner.op == "dict" and key.op == "const":
            pairs = dict(zip(inner.parts[::2], inner.parts[1::2]))
            return pairs.get(key, evaluate(e.parts[2], env))
        return UNKNOWN
    if op == "call":
        resolve = env.get(RESOLVER)
        found = resolve.value(e.value) if resolve is not None else None
        if found is None:
            return UNKNOWN
        params, body = found
        return evaluate(body, bind(CallArgs(tuple(e.parts)), params, env, bound=False))
    if op == "len":
        inner = evaluate(e.parts[0], env)
        if inner.op == "seq":
            return const(len(inner.parts))
        if inner.op == "dict":
            return const(len(inner.parts) // 2)
        if inner.op == "const" and isinstance(inner.value, str):
            return const(len(inner.value))
        return UNKNOWN
    truth = decide(e, env)
    return UNKNOWN if truth is None else const(truth)


class Resolver:
    """Wraps a function ``dotted name -> (params, return Expr) or None`` (see the ``call`` op)
    so that it can ride in an :data:`Env` under :data:`RESOLVER`."""

    def __init__(self, fn):
        self.value = fn
        self.op = "resolver"


RESOLVER = "\0resolve"  # an Env key: the Resolver of helper functions (never a parameter name)


def truth_of(v: Expr) -> Optional[bool]:
    """Whether the value ``v`` is true (None: not known; a tensor's truth is data)."""
    if v.op == "const":
        return bool(v.value)
    if v.op in ("seq", "dict"):
        return bool(v.parts)
    if v.op == "set" and v.parts:
        return True  # a display with elements (equal ones collapse, but one remains)
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
    if op == "tensor_set":
        v = evaluate(e.parts[0], env)
        if v.op == "set":
            return holds_tensor(v)
        return False if v.op in ("const", "seq", "dict", "tensor") else None
    if op in _PY_OPS:
        a, b = evaluate(e.parts[0], env), evaluate(e.parts[1], env)
        if a.op == "const" and b.op == "const":
            try:
                return bool(_PY_OPS[op](a.value, b.value))
            except TypeError:
                return None
        if op in ("eq", "ne") and {a.op, b.op} == {"const", "notnone"} and \
                (a if a.op == "const" else b).value is None:
            return op == "ne"  # `x == None` with x certainly not None
        return None
    return truth_of(evaluate(e, env))


def _identical(a: Expr, b: Expr) -> Optional[bool]:
    if a.op == "const" and b.op == "const":
        if a.value is None or b.value is None or isinstance(a.value, bool) or isinstance(b.value, bool):
            return a.value is b.value
        return None  # `is` between numbers or strings: interning decides, not gblint
    if (a.op == "const" and a.value is None and b.op in _NOT_NONE) or \
            (b.op == "const" and b.value is None and a.op in _NOT_NONE):
        return False
    return None


_NOT_NONE = ("notnone", "seq", "dict", "set", "tensor")


def _member(item: Expr, container: Expr) -> Optional[bool]:
    if container.op == "dict":  # a dict display's keys
        container = Expr("seq", parts=container.parts[::2])
    if container.op != "seq" or item.op != "const" or any(p.op != "const" for p in container.parts):
        return None
    return any(p.value == item.value for p in container.parts)  # Python's `in`: `True in (1, 2)` holds


def bind(args: Optional[CallArgs], params: Sequence[Param], caller: Env, bound: bool) -> Env:
    """What each parameter of a callee holds when called with ``args`` from a frame whose
    parameters hold ``caller``: the argument passed (evaluated in the caller), else the
    default, else unknown (also when a ``*x``/``**x`` may pass it). ``bound``: a method called
    on an instance (its first parameter is the instance, not an argument). Empty for a call
    gblint did not record arguments of."""
    if args is None:
        return {}
    params = list(params)
    if bound and params and params[0].kind == "pos":
        params = params[1:]
    env: Env = {}
    positional = [p for p in params if p.kind == "pos"]
    for p, a in zip(positional, args.positional):
        env[p.name] = evaluate(a, caller)
    given = dict(args.keywords)
    names = {p.name for p in params if p.kind in ("pos", "kwonly")}
    for p in params:  # what `*args` and `**kwargs` collect, when the call shows all of it
        if p.kind == "star" and not args.star:
            env[p.name] = Expr("seq", parts=tuple(evaluate(a, caller) for a in args.positional[len(positional):]))
        elif p.kind == "starstar" and not args.starstar:
            env[p.name] = Expr("seq", parts=tuple(evaluate(v, caller) for k, v in args.keywords if k not in names))
    for p in params:
        if p.name in env or p.kind in ("star", "starstar"):
            continue
        if p.name in given:
            env[p.name] = evaluate(given[p.name], caller)
        elif args.starstar or (args.star and p.kind == "pos") or p.default is None:
            env[p.name] = UNKNOWN
        else:
            env[p.name] = p.default
    if RESOLVER in caller:
        env[RESOLVER] = caller[RESOLVER]
    return {k: v for k, v in env.items() if v.op != "unknown"}


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


def is_constant(v: Expr) -> bool:
    """Whether ``v`` is a known constant or a tuple, list, dict or set display of them (no tensor
    can hide in it)."""
    return v.op == "const" or (v.op in ("seq", "dict", "set") and all(is_constant(p) for p in v.parts))


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
    if v.op in ("seq", "dict", "set"):
        inner = [holds_tensor(p) for p in v.parts]
        return True if True in inner else None
    return None


ERROR_PATH = "\0error-path"  # in a list of conditions: the site lies on an error path


def certainty_of(conditions: Sequence[str]) -> Tuple[str, str]:
    """``(certainty, condition)`` of a diagnostic whose site is reached under ``conditions``
    (the tests, as written, that gblint cannot decide; :data:`ERROR_PATH` for an error path):
    ``("error-path", "")``, ``("conditional", "when `TEST`")`` naming the innermost test (and
    how many more), or ``("definite", "")``."""
    if ERROR_PATH in conditions:
        return "error-path", ""
    if not conditions:
        return "definite", ""
    named = [c for c in conditions if c]
    text = f"when `{named[-1]}`" if named else "under a condition"
    if len(conditions) > 1:
        text += f" (and {len(conditions) - 1} more condition{'s' if len(conditions) > 2 else ''})"
    return "conditional", text
