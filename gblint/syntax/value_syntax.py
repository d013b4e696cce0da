"""Source to values: the summary stage's half of :mod:`gblint.abstract.values`.

Turns a branch's test, a call's arguments and a parameter's default (libcst nodes) into
:class:`gblint.core.model.Expr` values that :mod:`gblint.abstract.values` evaluates later without libcst:
literals, the function's own parameters (only while not rebound), locals bound once above,
``self.training``, calls of helpers, and ``unknown`` for the rest.
"""
from __future__ import annotations

import contextlib
from typing import Optional, Tuple

import libcst as cst

from ..core.model import BlockKind, CallArgs, Expr, Kind, Param
from ..core.ops import Op
from ..core.names import BUILTIN_NAMES, dotted
from ..abstract.tensors import TENSOR_FUNCTIONS
from .factories import DTYPES, LAYOUTS, device_value, factory_tensor, literal_expr
from .loops import _each_index, _names_bound, covers
from .traversal import names_in
from ..abstract.values import EACH, NOTNONE, UNKNOWN, const

_COMPARE = {cst.Equal: Op.EQ, cst.NotEqual: Op.NE, cst.LessThan: Op.LT, cst.LessThanEqual: Op.LE,
            cst.GreaterThan: Op.GT, cst.GreaterThanEqual: Op.GE, cst.Is: Op.IS, cst.IsNot: Op.ISNOT,
            cst.In: Op.IN, cst.NotIn: Op.NOTIN}
# Calls whose value under Dynamo is known: TorchScript is not running while Dynamo traces.
_KNOWN_CALLS = {"torch.jit.is_scripting": False, "torch.jit.is_tracing": False,
                "torch._C._get_tracing_state": None}


def name_expr(name: str, scope) -> Expr:
    """What the name ``name`` read in ``scope`` stands for: a literal, the function's own
    parameter (while not rebound), a value bound once above (outside loops), a ``local`` of the
    function, a ``free`` name of an enclosing function, or a ``global`` (an import's target, this
    module's global, a builtin)."""
    if name in ("True", "False", "None"):
        return const({"True": True, "False": False, "None": None}[name])
    s, own = scope, True
    while s is not None and s.info is not None:
        if any(name in entry[1] for entry in s.comp_names):
            return Expr(Op.LOCAL, name + COMP) if own else Expr(Op.FREE, name + COMP)
        if name in s.params or (name == s.self_name and s.info.params and s.info.params[0].name == name):
            if own and name not in s.rebound:
                return Expr(Op.PARAM, name)
            return _bound_value(s, name) if own else Expr(Op.FREE, name)
        if name in s.env or name in s.bound_names or name in s.info.local_defs:
            if name in s.info.local_defs and name not in s.bound_names:
                return Expr(Op.DEF, s.info.local_defs[name])
            return _bound_value(s, name) if own else Expr(Op.FREE, name)
        s, own = s.parent, False
    return global_expr(name, scope)


def _bound_value(s, name: str) -> Expr:
    """What the local ``name`` of ``s`` holds here: what the arm of the innermost tracked ``if``
    bound it to (:meth:`gblint.syntax.bindings.Bindings.enter_if_values`), what it was bound to
    above on every path (outside loops, or in ``for`` loops whose target and body never bind it:
    no later step changes it), else any of its bindings (``local``)."""
    frames = s.if_values
    if frames and not any(b.kind == BlockKind.LOOP for b in s.blocks[frames[-1].depth:]):
        for frame in reversed(frames):  # innermost first: what this arm bound, else what the name held before
            if name in frame.untracked[frame.arm]:
                break  # bound in this arm in a way not followed (a nested block)
            bound = frame.arms[frame.arm].get(name)
            if bound is not None:
                return bound
            if name in frame.prev:  # bound in the other arm only: that binding does not reach this one
                before = frame.prev[name]
                return before if before is not None else Expr(Op.LOCAL, name)
    for block in reversed(s.blocks):
        element = s.loop_values.get(id(block), {}).get(name) if block.kind == BlockKind.LOOP else None
        if element is not None:
            return element  # a `for` target the loop's body never rebinds: the element of this step
    if frames and any(name in f.prev for f in frames):
        return Expr(Op.LOCAL, name)  # bound in an arm of an `if` around, in a way not followed
    local = s.local_values.get(name)
    if local is not None and not any(b.kind == BlockKind.LOOP for b in s.blocks):
        return local  # bound above on every path, outside loops: the value it was bound to
    if local is not None and not _holds_container(local) and all(
            name not in s.loop_runs.get(id(b), (None, (name,)))[1] for b in s.blocks if b.kind == BlockKind.LOOP):
        return local  # nor bound by a `for` loop around (its target, its body), nor a container a step may change
    return Expr(Op.LOCAL, name)


def _holds_container(v: Expr) -> bool:
    """Whether ``v`` may be (or hold) a list, dict or set display, which a loop's body may change in place without
    binding the name (``rot.pop()``)."""
    return v.op in (Op.SEQ, Op.DICT, Op.SET, Op.LOCAL, Op.UNKNOWN) or any(_holds_container(p) for p in v.parts)


def loop_runs(node: cst.For, scope) -> tuple:
    """``(test, names)`` of the ``for`` statement ``node``: a test that holds when its body runs at least one
    step (``n > 0`` for ``range(n)``, ``b > a`` for ``range(a, b)``, True for a non-empty display; None when not
    known; ``t`` for ``xs if t else ()``, whose other arm is empty) and the names its target and body bind (what a
    later step may change)."""
    it, test = node.iter, None
    guard = empty_arm(node)
    if guard is not None:
        test = expr_of(guard[0], scope)
        test = Expr(Op.NOT, parts=(test,)) if guard[1] else test
    elif isinstance(it, cst.Call) and scope.resolve(it.func) == "range" and 1 <= len(it.args) <= 2 \
            and not any(a.star or a.keyword for a in it.args):
        bounds = [expr_of(a.value, scope) for a in it.args]
        test = Expr(Op.GT, parts=(bounds[-1], bounds[0] if len(bounds) == 2 else const(0)))
    elif isinstance(it, (cst.List, cst.Tuple)) and it.elements and not any(
            isinstance(e, cst.StarredElement) for e in it.elements):
        test = const(True)
    names = frozenset(_names_bound(node.body)) | frozenset(names_in(node.target))
    return test, names, covers(node, names)


def empty_arm(node: cst.For) -> Optional[Tuple[cst.BaseExpression, bool]]:
    """``(test, negated)`` of a ``for`` loop over a conditional expression one arm of which is empty (``for t in xs
    if t else ():`` runs only when ``t`` holds; negated for ``() if t else xs``), else None."""
    it = node.iter
    if isinstance(it, cst.IfExp) and _no_items(it.orelse) != _no_items(it.body):
        return it.test, _no_items(it.body)
    return None


def _no_items(node: cst.BaseExpression) -> bool:
    """Whether ``node`` is an empty tuple, list or dict display (``()``, ``[]``, ``{}``)."""
    return isinstance(node, (cst.Tuple, cst.List, cst.Dict)) and not node.elements


def loop_values(node: cst.For, scope) -> dict:
    """What each name the target of the ``for`` statement ``node`` binds holds throughout its
    body, for the names the body binds nowhere else (in any statement, nested ones included):
    the element (or a part of it) the step took. ``{}`` for ``async for`` and starred targets."""
    if node.asynchronous is not None:
        return {}
    rebound = _names_bound(node.body)
    out: dict = {}

    def bind(target, value: Expr) -> bool:
        if isinstance(target, cst.Name):
            if target.value not in rebound:
                out[target.value] = value
            return True
        if isinstance(target, (cst.Tuple, cst.List)):
            if any(isinstance(e, cst.StarredElement) for e in target.elements):
                return False
            return all([bind(e.value, Expr(Op.UNPACK, i, (value,))) for i, e in enumerate(target.elements)])
        return True

    return out if bind(node.target, Expr(Op.ITER, parts=(expr_of(node.iter, scope),))) else {}


def known_global(target: str, scope) -> Optional[Expr]:
    """The value of the module global ``target`` (dotted) that is known before the run, inside a
    function: ``typing.TYPE_CHECKING`` is False when the code runs; ``sys.version_info`` is the
    checked Python's ``(major, minor)`` (``--python-version``); ``torch.float16`` and the other
    dtypes are ``dtype`` values, aliases made one (``torch.half`` is ``torch.float16``). None for
    any other."""
    if scope.info is None:
        return None
    if target in _TYPE_CHECKING:
        return const(False)
    if target in DTYPES:
        return Expr(Op.DTYPE, DTYPES[target])
    if target in LAYOUTS:
        return Expr(Op.LAYOUT, LAYOUTS[target])
    if target == "sys.version_info":
        version = getattr(getattr(scope.builder, "settings", None), "python_version", None)
        if version:
            return Expr(Op.SEQ, "version", tuple(const(int(v)) for v in tuple(version)[:2]))
    return None


_TYPE_CHECKING = frozenset({"typing.TYPE_CHECKING", "typing_extensions.TYPE_CHECKING"})


def global_expr(name: str, scope) -> Expr:
    """The global ``name`` (not bound in any enclosing function) as a dotted ``global``; read
    by module-level code, what the module bound it to last, above (module code runs in order)."""
    target = scope.imports.lookup(name)
    builder = scope.builder
    if target is not None:
        imported = known_global(target, scope) or Expr(Op.GLOBAL, target)
        module = builder.summary.module
        if scope.info is not None and module and (name in builder.summary.classes or name in builder.summary.functions
                                                  or name in builder.summary.module_values):
            # also a class or def of the module (the fallback of `try: from pkg import X` / `except ImportError:`)
            return Expr(Op.UNION, parts=(imported, Expr(Op.GLOBAL, f"{module}.{name}")))
        if scope.info is None and not builder.class_stack and builder.summary.module_values.get(name):
            # module code after `try: import x` / `except ImportError: x = None`: the import or what the module bound
            # since (measured: tests/cases/kinds kd4)
            return Expr(Op.UNION, parts=(imported, builder.summary.module_values[name][-1]))
        return imported
    if scope.info is None and not builder.class_stack and builder.summary.module_values.get(name):
        return builder.summary.module_values[name][-1]
    module = builder.summary.module
    cls = builder.class_stack[-1] if builder.class_stack and scope.info is None else None
    if cls is not None and (name in cls.methods or name in cls.values):  # a class-body name, in the class body
        return Expr(Op.GLOBAL, f"{module}.{cls.qualname}.{name}" if module else f"{cls.qualname}.{name}")
    if name == "__name__" and module and name not in builder.summary.module_names:
        return Expr(Op.GLOBAL, f"{module}.__name__")  # the module's own name (gblint.abstract.interp: `sys.modules[__name__]`)
    if name in BUILTIN_NAMES and name not in builder.summary.module_names:
        return Expr(Op.GLOBAL, "builtins." + name)
    return Expr(Op.GLOBAL, f"{module}.{name}" if module else name)


_MAX_NESTING = 48  # deeper expressions (generated code, `not not ... x`) are not followed


def expr_of(node: cst.BaseExpression, scope) -> Expr:
    """``node`` (a test, an argument, an assigned or called value) in ``scope`` (a
    :class:`gblint.syntax.scope.FunctionScope`) as an :class:`Expr`: literals and the tests over them
    (decided by :mod:`gblint.abstract.values`), ``self.training``, names (:func:`name_expr`), and the
    attributes, items, calls, containers and comprehensions built from them (followed by
    :mod:`gblint.abstract.interp`); anything else, and anything nested deeper than 48 levels, is
    ``unknown``."""
    builder = scope.builder
    if builder.expr_depth >= _MAX_NESTING:
        return UNKNOWN
    builder.expr_depth += 1
    try:
        return _expr_of(node, scope)
    finally:
        builder.expr_depth -= 1


def _expr_of(node: cst.BaseExpression, scope) -> Expr:
    handed = getattr(scope, "handed", None)
    if handed and id(node) in handed:
        return handed[id(node)]
    if isinstance(node, cst.Name):
        return name_expr(node.value, scope)
    if isinstance(node, cst.Attribute):
        if node.attr.value == "training" and isinstance(node.value, cst.Name) and node.value.value == scope.self_name:
            return Expr(Op.TRAINING)
        stored = scope.stored_value(node) if hasattr(scope, "stored_value") else None
        if stored is not None:  # `self.flag = a or b` just before: what it stored, where the class keeps it as is
            return Expr(Op.STORED, node.attr.value, (Expr(Op.ATTR, node.attr.value, (expr_of(node.value, scope),)),
                                                     stored))
        head = _head(node)
        if head is not None and name_expr(head, scope).op == Op.GLOBAL:
            q = scope.resolve(node)
            target = scope.imports.lookup(head)
            if q and target is not None:
                return known_global(q, scope) or Expr(Op.GLOBAL, q)
        return Expr(Op.ATTR, node.attr.value, (expr_of(node.value, scope),))
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return Expr(Op.NOT, parts=(expr_of(node.expression, scope),))
    if isinstance(node, cst.BooleanOperation):
        op = Op.AND if isinstance(node.operator, cst.And) else Op.OR
        return Expr(op, parts=(expr_of(node.left, scope), expr_of(node.right, scope)))
    if isinstance(node, cst.Comparison):
        left = expr_of(node.left, scope)
        pairs = []
        for target in node.comparisons:
            right = expr_of(target.comparator, scope)
            op = _COMPARE.get(type(target.operator))
            pairs.append(Expr(op, parts=(left, right)) if op else UNKNOWN)
            left = right
        return pairs[0] if len(pairs) == 1 else Expr(Op.AND, parts=tuple(pairs))
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitXor):
        return Expr(Op.XOR, parts=(expr_of(node.left, scope), expr_of(node.right, scope)))
    if isinstance(node, (cst.Tuple, cst.List)):  # a starred item unpacked where the value is known (values.spliced)
        return Expr(Op.SEQ, parts=tuple(Expr(Op.STAR, parts=(expr_of(e.value, scope),))
                                        if isinstance(e, cst.StarredElement) else expr_of(e.value, scope)
                                        for e in node.elements))
    if isinstance(node, cst.Set) and not any(isinstance(e, cst.StarredElement) for e in node.elements):
        return Expr(Op.SET, parts=tuple(expr_of(e.value, scope) for e in node.elements))
    if isinstance(node, cst.Dict) and all(isinstance(e, cst.DictElement) for e in node.elements):
        return Expr(Op.DICT, parts=tuple(Expr(Op.KV, parts=(expr_of(e.key, scope), expr_of(e.value, scope)))
                                        for e in node.elements))
    if isinstance(node, cst.IfExp):
        return Expr(Op.IFELSE, parts=(expr_of(node.test, scope), expr_of(node.body, scope),
                                     expr_of(node.orelse, scope)))
    if isinstance(node, cst.NamedExpr):
        return expr_of(node.value, scope)
    if isinstance(node, cst.Subscript):
        return Expr(Op.SUB, EACH if _each_index(node, scope) else None, (expr_of(node.value, scope), _key(node, scope)))
    if isinstance(node, cst.Lambda):
        qual = scope.builder.lambda_qual(node)
        return Expr(Op.DEF, qual) if qual else NOTNONE
    if isinstance(node, cst.Call):
        return call_expr(node, scope)
    if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
        return comp_expr(node, scope)
    if isinstance(node, cst.FormattedString) and all(
            isinstance(p, cst.FormattedStringText) or (p.format_spec is None and p.conversion is None)
            for p in node.parts):  # f"output_{k}": a string when every part is known
        return Expr(Op.CONCAT, parts=tuple(const(p.value) if isinstance(p, cst.FormattedStringText)
                                          else expr_of(p.expression, scope) for p in node.parts))
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _ARITHMETIC):
        return Expr(Op.ARITH, type(node.operator).__name__, (expr_of(node.left, scope), expr_of(node.right, scope)))
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus, cst.BitInvert)):
        literal = literal_expr(node)  # `-1`; `-x` of a tensor is a tensor (Tensor.__neg__, __pos__, __invert__)
        return literal if literal.op == Op.CONST else Expr(Op.ARITH, type(node.operator).__name__,
                                                             (expr_of(node.expression, scope),))
    if _never_none(node):
        return NOTNONE
    return literal_expr(node)


#: operators that make a tensor of a tensor operand (torch's ``__add__``... return a Tensor)
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power,
               cst.MatrixMultiply)


def call_expr(node: cst.Call, scope) -> Expr:
    """A call as a value: the forms :mod:`gblint.abstract.values` reads directly (``len(x)``,
    ``d.items()``, ``d.get(k, v)``, ``torch.jit.is_scripting()``), else ``callv``."""
    func = node.func
    if scope.info is not None and scope.compiling_guard(node) is not None:
        return const(scope.compiling_guard(node))  # `torch.compiler.is_compiling()` and its aliases: True under Dynamo
    if len(node.args) == 1 and not node.args[0].star and node.args[0].keyword is None \
            and isinstance(func, cst.Name) and func.value == "len" and scope.lookup("len") is None:
        return Expr(Op.LEN, parts=(expr_of(node.args[0].value, scope),))
    if len(node.args) == 1 and not node.args[0].star and node.args[0].keyword is None \
            and isinstance(func, cst.Name) and func.value in _FOLDS and scope.lookup(func.value) is None:
        return Expr(Op.FOLD, value=func.value, parts=(expr_of(node.args[0].value, scope),))
    if isinstance(func, cst.Attribute) and not any(a.star for a in node.args):
        method, args = func.attr.value, [a.value for a in node.args if a.keyword is None]
        if method in ("items", "keys", "values") and not node.args:
            return Expr(Op.ITEMS, value=method, parts=(expr_of(func.value, scope),))
        if method == "get" and 1 <= len(args) == len(node.args) <= 2:
            default = expr_of(args[1], scope) if len(args) == 2 else const(None)
            return Expr(Op.GET, parts=(expr_of(func.value, scope), expr_of(args[0], scope), default))
    if not node.args:
        q = scope.resolve(func) or dotted(func)
        if q in _KNOWN_CALLS and _KNOWN_CALLS[q] is not None:
            return const(_KNOWN_CALLS[q])
    if isinstance(func, cst.Name) and func.value == "super" and not node.args and scope.lookup("super") is None:
        cls = scope.class_info
        first = scope.self_name
        if cls is not None and first:
            return Expr(Op.SUPER, cls.qualname, (name_expr(first, scope),))
        return UNKNOWN
    if scope.resolve(func) in TENSOR_FUNCTIONS:
        return factory_tensor(node, scope)  # a tensor a torch op makes (its stub says so)
    if scope.resolve(func) == "torch.device":
        return device_value(node) or UNKNOWN
    parts = [expr_of(func, scope)]
    for a in node.args:
        value = expr_of(a.value, scope)
        if a.star == "*":
            parts.append(Expr(Op.STAR, parts=(value,)))
        elif a.star == "**":
            parts.append(Expr(Op.STARSTAR, parts=(value,)))
        elif a.keyword is not None:
            parts.append(Expr(Op.KW, a.keyword.value, (value,)))
        else:
            parts.append(value)
    return Expr(Op.CALLV, parts=tuple(parts))


def comp_expr(node, scope) -> Expr:
    """A comprehension with one ``for``: ``comp`` (``value`` its kind: ``list``, ``set``, ``gen``,
    ``dict``; ``parts`` the iterable, the target as ``local`` names (a ``seq`` of them for a
    tuple), the ``if`` tests joined by ``and`` (``True`` without one), the element, and for a
    dict its value), which :mod:`gblint.abstract.interp` evaluates element by element when the iterable
    is known; more ``for``s: ``filtered`` over the first iterable."""
    f = node.for_in
    kind = {cst.ListComp: "list", cst.SetComp: "set", cst.GeneratorExp: "gen", cst.DictComp: "dict"}[type(node)]
    target = _target(f.target)
    stack = getattr(scope, "comp_names", None)
    with outside_comprehension(f, scope) if stack is not None else _NO_SHADOW:
        iterable = expr_of(f.iter, scope)
    bound, inner = set(), f
    while inner is not None:
        bound.update(names_in(inner.target))
        inner = inner.inner_for_in
    if stack is not None:
        stack.append((f, frozenset(bound), node))
    try:
        elt = (expr_of(node.key, scope), expr_of(node.value, scope)) if kind == "dict" else (expr_of(node.elt, scope),)
        if f.inner_for_in is not None or target is None or f.asynchronous is not None:
            return Expr(Op.FILTERED, "dict" if kind == "dict" else None, (iterable,) + elt)
        tests = [expr_of(c.test, scope) for c in f.ifs]
    finally:
        if stack is not None:
            stack.pop()
    test = const(True) if not tests else tests[0] if len(tests) == 1 else Expr(Op.AND, parts=tuple(tests))
    return Expr(Op.COMP, kind, (iterable, target, test) + elt)


# Suffix of a comprehension's own names among a function's locals: Python 3 binds them in the
# comprehension's scope, so a function's ``aggr`` is not the one of ``[aggr for aggr in vars(aggr)]``.
COMP = "@comp"


class outside_comprehension:
    """While reading the first ``for`` of a comprehension's iterable (``node``, a ``CompFor``):
    the comprehension's own names are not bound yet."""

    def __init__(self, node: cst.CompFor, scope) -> None:
        self.scope, self.node, self.saved = scope, node, None

    def __enter__(self):
        stack = self.scope.comp_names
        if stack and stack[-1][0] is self.node:
            self.saved = stack[-1]
            stack[-1] = (self.node, frozenset()) + stack[-1][2:]
        return self

    def __exit__(self, *exc) -> None:
        if self.saved is not None:
            self.scope.comp_names[-1] = self.saved


_NO_SHADOW = contextlib.nullcontext()


def _target(node) -> Optional[Expr]:
    """A comprehension's target as ``local`` names (a ``seq`` of them for a tuple); None for others."""
    if isinstance(node, cst.Name):
        return Expr(Op.LOCAL, node.value + COMP)
    if isinstance(node, (cst.Tuple, cst.List)):
        parts = [_target(e.value) for e in node.elements if not isinstance(e, cst.StarredElement)]
        if len(parts) == len(node.elements) and None not in parts:
            return Expr(Op.SEQ, parts=tuple(parts))
    return None


def annotation_expr(node: cst.BaseExpression, scope) -> Optional[Expr]:
    """A parameter's or field's annotation as the value of the declared type: ``X | None``
    and ``Optional[X]``/``Union[X, Y]`` are a ``union``; a string (a forward reference) is read
    as the name it holds; None when nothing can be read."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        parts = tuple(p for p in (annotation_expr(node.left, scope), annotation_expr(node.right, scope)) if p)
        return Expr(Op.UNION, parts=parts) if parts else None
    if isinstance(node, cst.SimpleString):
        try:
            text = node.evaluated_value
        except Exception:
            return None
        if isinstance(text, str) and text.replace(".", "").isidentifier():
            head, _, rest = text.partition(".")
            base = name_expr(head, scope)
            for part in rest.split(".") if rest else ():
                base = Expr(Op.ATTR, part, (base,))
            return base
        return None
    if isinstance(node, cst.Subscript):
        q = scope.resolve(node.value) or ""
        if q in ("typing.Optional", "typing.Union", "Optional", "Union"):
            parts = tuple(p for e in node.slice if isinstance(e.slice, cst.Index)
                          for p in (annotation_expr(e.slice.value, scope),) if p)
            return Expr(Op.UNION, parts=parts) if parts else None
        return None  # `list[X]`, `Unpack[...]`: a container, not an instance of X
    if isinstance(node, (cst.Name, cst.Attribute)):
        if isinstance(node, cst.Name) and node.value == "None":
            return const(None)
        return expr_of(node, scope)
    return None


def _head(node: cst.BaseExpression) -> Optional[str]:
    while isinstance(node, cst.Attribute):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


def _key(node: cst.Subscript, scope) -> Expr:
    """The key of a subscript: its one index as a value, ``slice`` for a slice, a ``seq`` of
    several."""
    keys = []
    for element in node.slice:
        if isinstance(element.slice, cst.Index):
            keys.append(expr_of(element.slice.value, scope))
        else:
            keys.append(Expr(Op.SLICE))
    return keys[0] if len(keys) == 1 else Expr(Op.SEQ, parts=tuple(keys))


_FOLDS = frozenset({"all", "any"})  # builtins whose value values.evaluate computes
_NOT_NONE_CALLS = frozenset({"len", "int", "float", "bool", "str", "max", "min", "sum", "abs", "round", "tuple",
                             "list", "dict", "set", "range", "isinstance", "hasattr", "getattr"} - {"getattr"})
_NOT_NONE_METHODS = frozenset({"size", "dim", "numel", "nelement", "item", "tolist", "numpy", "keys", "values",
                               "items", "split", "chunk"})


def _never_none(node: cst.BaseExpression) -> bool:
    """Whether ``node`` can never be None: arithmetic, a size or shape, a builtin constructor."""
    if isinstance(node, cst.BinaryOperation):
        return True
    if isinstance(node, cst.Attribute):
        return node.attr.value in ("shape", "ndim", "dtype", "device")
    if isinstance(node, cst.Subscript):
        return _never_none(node.value) and isinstance(node.value, (cst.Attribute, cst.Call))
    if isinstance(node, cst.Call):
        if isinstance(node.func, cst.Name):
            return node.func.value in _NOT_NONE_CALLS
        if isinstance(node.func, cst.Attribute):
            return node.func.attr.value in _NOT_NONE_METHODS
    return False


def call_args(call: cst.Call, scope) -> CallArgs:
    """The arguments of ``call`` as values (see :func:`expr_of`); what ``*x`` and ``**x``
    unpack in ``rest`` and ``rest_kw``."""
    positional, keywords, star, starstar, rest, rest_kw = [], [], False, False, [], []
    for a in call.args:
        if a.star == "*":
            star = True
            rest.append(expr_of(a.value, scope))
        elif a.star == "**":
            starstar = True
            rest_kw.append(expr_of(a.value, scope))
        elif a.keyword is not None:
            keywords.append((a.keyword.value, expr_of(a.value, scope)))
        elif not star:
            positional.append(expr_of(a.value, scope))
        else:
            rest = [UNKNOWN]  # `f(*a, b)`: what `*a` unpacks cannot be placed
    return CallArgs(tuple(positional), tuple(keywords), star, starstar, tuple(rest), tuple(rest_kw))


def params_of(params: cst.Parameters, scope=None) -> Tuple[Param, ...]:
    """The parameters of a ``def`` in order, with their defaults as values and, given the
    ``scope`` the ``def`` is in, their annotations (:func:`annotation_expr`). A default that is
    not a literal is kept when it names a global (``act=nn.GELU``)."""
    def default(p):
        if p.default is None:
            return None
        value = literal_expr(p.default)
        if value.op == Op.UNKNOWN and scope is not None and isinstance(p.default, (cst.Name, cst.Attribute)):
            named = expr_of(p.default, scope)
            if named.op == Op.GLOBAL:
                return named
            if isinstance(p.default, cst.Name) and scope.info is None and not scope.builder.class_stack \
                    and named.op != Op.UNKNOWN:  # a module global the module assigns (`iface=DEFAULT_TABLE`)
                module = scope.builder.summary.module
                return Expr(Op.GLOBAL, f"{module}.{p.default.value}" if module else p.default.value)
        return value

    def annotation(p):
        if scope is None or p.annotation is None:
            return None
        return annotation_expr(p.annotation.annotation, scope)

    out = []
    for p in list(params.posonly_params) + list(params.params):
        out.append(Param(p.name.value, "pos", default(p), annotation(p)))
    if isinstance(params.star_arg, cst.Param):
        out.append(Param(params.star_arg.name.value, "star"))
    for p in params.kwonly_params:
        out.append(Param(p.name.value, "kwonly", default(p), annotation(p)))
    if params.star_kwarg is not None:
        out.append(Param(params.star_kwarg.name.value, "starstar"))
    return tuple(out)

