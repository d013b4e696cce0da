"""Python objects Dynamo cannot model: ``contextvars.ContextVar``, ``obj.__class__ = X``, a
``__getattr__`` bound to a builtin, sets of tensors made outside the frame.

Source: ``torch/_dynamo/variables/user_defined.py`` (``__class__`` assignment GB4271,
non-function ``__getattr__`` GB0256), ``variables/builder.py`` (wrapping a set with tensors
GB0222), ``variables/base.py`` (an unsupported method, GB0156); semantics.md §8.3, §8.6, §8.16.
"""
import libcst as cst

from gblint.core.model import EventKind, Expr, Kind
from gblint.core.ops import Op

from .base import Rule
from .notes import file_note, instance_classes, is_global, local_note, note_local

CONTEXT_VAR = "contextvars.ContextVar"
# builtins whose first argument is consumed as an iterable (the set is wrapped when it is read)
CONSUMERS = frozenset({"len", "list", "tuple", "sorted", "sum", "set", "frozenset", "iter", "min", "max", "enumerate",
                       "zip", "any", "all", "reversed"})


class ContextVarCall(Rule):
    code = "GBL127"
    name = "context-var"
    gb_ids = ("GB0156", "GB6815")
    node_types = (cst.Call,)
    summary = "`.get()`, `.set()` or `.reset()` of a `contextvars.ContextVar` inside compiled code."
    why = "Dynamo has no model of context variables: each call is an unsupported method call and breaks the graph."
    hint = "Read the context variable before calling the compiled function and pass the value in."
    source = "torch/_dynamo/variables/base.py: call_method (Unsupported method call); semantics.md §8.16"
    use_instead = (
        'import contextvars\n'
        'import torch\n'
        "MODE = contextvars.ContextVar('mode', default='train')\n"
        '@torch.compile\n'
        'def f(x, mode):\n'
        '    x = x.relu()\n'
        "    if mode == 'eval':\n"
        '        return x\n'
        '    return x * 0.5\n'
        'def step(x):\n'
        '    return f(x, MODE.get())  # read the variable outside the compiled call\n'
    )
    measured = "tests/fixtures/measured/v32_contextvar.py"
    examples_fire = (
        "import contextvars\n"
        "import torch\n"
        "MODE = contextvars.ContextVar('mode', default='train')\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    x = x.relu()\n"
        "    if MODE.get() == 'eval':  # expect: GBL127\n"
        "        return x\n"
        "    return x * 0.5\n",
    )
    examples_clean = (
        "import torch\n"
        "SETTINGS = {'mode': 'train'}\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    if SETTINGS.get('mode') == 'eval':\n"
        "        return x\n"
        "    return x * 0.5\n",
    )

    def check(self, node, ctx):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("get", "set", "reset") \
                and CONTEXT_VAR in instance_classes(func.value, ctx):
            if ctx.holds("contextvar-get-traced"):  # torch >=2.14 (docs/semantics.md §8.11)
                if func.attr.value == "get":
                    return None
                return self.site(node, f"`.{func.attr.value}()` of a `contextvars.ContextVar`", gb_ids=("GB6815",))
            return self.site(node, f"`.{func.attr.value}()` of a `contextvars.ContextVar`", gb_ids=("GB0156",))
        return None


class ClassAssignment(Rule):
    code = "GBL133"
    name = "class-assignment"
    gb_ids = ("GB4271",)
    node_types = (cst.Assign,)
    summary = "Assigning `obj.__class__` inside compiled code."
    why = "Dynamo does not trace swapping an object's class: the graph ends here."
    hint = "Swap the class before calling the compiled function, or build an object of the right class."
    source = "torch/_dynamo/variables/user_defined.py: __class__ assignment; semantics.md §8.16"
    use_instead = (
        'import torch\n'
        'class A:\n'
        '    pass\n'
        'class B(A):\n'
        '    pass\n'
        '@torch.compile\n'
        'def f(x, obj):\n'
        '    return x + 1\n'
        'def prepare(obj):\n'
        '    obj.__class__ = B  # before the compiled call\n'
    )
    measured = "tests/fixtures/measured/v31_class_swap.py"
    examples_fire = (
        "import torch\n"
        "class A:\n"
        "    pass\n"
        "class B(A):\n"
        "    pass\n"
        "@torch.compile\n"
        "def f(x, obj):\n"
        "    obj.__class__ = B  # expect: GBL133\n"
        "    return x + 1\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x, obj):\n"
        "    kind = obj.__class__\n"
        "    return x + 1\n",
    )

    def check(self, node, ctx):
        for t in node.targets:
            if isinstance(t.target, cst.Attribute) and t.target.attr.value == "__class__":
                return self.site(t.target, "assignment to `obj.__class__`")
        return None


class BuiltinGetattr(Rule):
    code = "GBL131"
    name = "builtin-getattr"
    gb_ids = ("GB0256",)
    node_types = (cst.Attribute,)
    effect = "skip"
    summary = ("An attribute read, inside compiled code, of an object whose class binds `__getattr__` to a builtin "
               "(`__getattr__ = dict.get`, an attribute-style dict).")
    why = ("Dynamo inlines a Python `__getattr__` but cannot trace a builtin one (GB0256): it is not an instruction "
           "it can resume at, so the graph up to the last checkpoint is kept and the rest of the frame runs eagerly "
           "(the whole frame without a checkpoint).")
    hint = "Read the value with `cfg['name']`, or define `def __getattr__(self, name): return self[name]`."
    source = "torch/_dynamo/variables/user_defined.py: UserDefinedObjectVariable.var_getattr; semantics.md §8.6"
    use_instead = (
        'import torch\n'
        'from types import SimpleNamespace\n'
        'CFG = SimpleNamespace(scale=2.0)\n'
        '@torch.compile\n'
        'def f(x):\n'
        '    return x * CFG.scale\n'
    )
    measured = "tests/fixtures/measured/v54_getattr_builtin.py"
    examples_fire = (
        "import torch\n"
        "class Cfg(dict):\n"
        "    __getattr__ = dict.get\n"
        "CFG = Cfg(scale=2.0)\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return x * CFG.scale  # expect: GBL131\n",
    )
    examples_clean = (
        "import torch\n"
        "class Cfg(dict):\n"
        "    def __getattr__(self, name):\n"
        "        return self[name]\n"
        "CFG = Cfg(scale=2.0)\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return x * CFG.scale * CFG['scale']\n",
    )

    def check(self, node, ctx):
        notes = ctx.builder.rule_notes
        if not notes or node.attr.value.startswith("__") or node.attr.value in _DICT_ATTRS:
            return None
        module = ctx.builder.summary.module
        for cls in instance_classes(node.value, ctx):
            qual = cls[len(module) + 1:] if module and cls.startswith(module + ".") else cls
            bound = file_note(ctx, ("builtin-getattr", qual))
            info = ctx.builder.summary.classes.get(qual)
            if bound and not (info and node.attr.value in info.methods):
                return self.site(node, f"`.{node.attr.value}` of a `{qual}`, whose `__getattr__` is `{bound}`",
                                 outcome="tail")
        return None


_DICT_ATTRS = frozenset(dir(dict))


class TensorSetUse(Rule):
    code = "GBL134"
    name = "tensor-set"
    gb_ids = ("GB0222",)
    node_types = (cst.For, cst.Call, cst.Comparison)
    effect = "skip"
    summary = ("The first read, inside compiled code, of a set holding tensors that comes from outside the frame "
               "(an argument the call passes, or a global).")
    why = ("Dynamo cannot wrap a set with tensors (GB0222) when the frame reads it: not at an instruction it can "
           "resume at, so the graph up to the last checkpoint is kept and the rest of the frame runs eagerly (the "
           "whole frame without a checkpoint). A set built inside the region is fine.")
    hint = "Pass a list or tuple of tensors instead of a set."
    source = "torch/_dynamo/variables/builder.py: VariableBuilder (wrap a set with tensors); semantics.md §8.3"
    use_instead = (
        'import torch\n'
        'EXTRA = (torch.ones(3), torch.zeros(3))  # a tuple keeps its order\n'
        '@torch.compile\n'
        'def f(x):\n'
        '    for t in EXTRA:\n'
        '        x = x + t\n'
        '    return x\n'
    )
    measured = "tests/fixtures/measured/v44_set_iteration.py"
    examples_fire = (
        "import torch\n"
        "EXTRA = {torch.ones(3), torch.zeros(3)}\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    for t in EXTRA:  # expect: GBL134\n"
        "        x = x + t\n"
        "    return x\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x, bias):\n"
        "    return x + sum(bias)  # expect: GBL134\n"
        "def main():\n"
        "    f(torch.ones(3), {torch.ones(3), torch.zeros(3)})\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x, y):\n"
        "    acc = x\n"
        "    for t in {x, y}:\n"
        "        acc = acc + t\n"
        "    return acc\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x, ids):\n"
        "    return x + len(ids)\n"
        "def main():\n"
        "    f(torch.ones(3), {1, 2})\n",
    )

    def check(self, node, ctx):
        if isinstance(node, cst.For):
            candidates = [node.iter]
        elif isinstance(node, cst.Call):
            if ctx.resolve(node.func) not in CONSUMERS or not node.args or node.args[0].keyword is not None:
                return None
            candidates = [node.args[0].value]
        else:
            if not any(isinstance(c.operator, (cst.In, cst.NotIn)) for c in node.comparisons):
                return None
            candidates = [c.comparator for c in node.comparisons]
        for expr in candidates:
            if not isinstance(expr, cst.Name) or local_note(ctx, "set-read", expr.value):
                continue
            name = expr.value
            if is_global(ctx, name) and file_note(ctx, ("tensor-set", name)):
                note_local(ctx, "set-read", name)
                return self.site(node, f"the global set `{name}` holds tensors", outcome="tail")
            if name in ctx.params and name not in ctx.rebound and ctx.lookup(name) != Kind.TENSOR:
                note_local(ctx, "set-read", name)
                return self.site(node, f"argument `{name}`, a set holding tensors", outcome="tail",
                                 gate=Expr(Op.TENSOR_SET, parts=(Expr(Op.PARAM, name),)),
                                 gate_text=f"`{name}` is a set of tensors")
        return None


VIEWS = frozenset({"values", "keys", "items"})


class DictIteratorAcrossBreak(Rule):
    code = "GBL137"
    name = "dict-iterator-across-break"
    gb_ids = ("GB0092",)
    node_types = (cst.Assign, cst.Call)
    effect = "skip"
    summary = ("`it = iter(d.values())` (or `.keys()`, `.items()`) read with `next(it)` after a graph break in the "
               "same frame.")
    why = ("At the break Dynamo must rebuild the live locals for the resume frame, and it cannot rebuild a "
           "dict-view iterator (GB0092 Reconstruction failure): the break cannot resume and the frame is skipped. "
           "Without a break in between, `next(iter(d.values()))` traces fine.")
    hint = "Take the values with `list(d.values())` (or index the dict by key) instead of keeping an iterator."
    source = "torch/_dynamo/variables/iter.py, symbolic_convert.py: create_call_resume_at; semantics.md §8.20"
    use_instead = (
        'import torch\n'
        '@torch.compile\n'
        'def f(x, d):\n'
        '    a, b = list(d.values())[:2]  # take the values before the break\n'
        "    print('between')\n"
        '    return x * a * b\n'
    )
    measured = "tests/fixtures/measured/v53_dict_iterators.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x, d):\n"
        "    it = iter(d.values())\n"
        "    a = next(it)\n"
        "    print('between')  # expect: GBL107\n"
        "    b = next(it)  # expect: GBL137\n"
        "    return x * a * b\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x, d):\n"
        "    it = iter(d.values())\n"
        "    a = next(it)\n"
        "    b = next(it)\n"
        "    return x * a * b\n",
    )

    def check(self, node, ctx):
        if isinstance(node, cst.Assign):
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    if _view_iterator(node.value, ctx):
                        note_local(ctx, "dict-iterator", t.target.value, ctx.builder.span(node).line)
                    else:
                        note_local(ctx, "dict-iterator", t.target.value, None)
            return None
        if ctx.resolve(node.func) != "next" or not node.args or not isinstance(node.args[0].value, cst.Name):
            return None
        name = node.args[0].value.value
        since = local_note(ctx, "dict-iterator", name)
        if not since:
            return None
        line = ctx.builder.span(node).line
        between = [ev.span.line for ev in ctx.pending if ev.kind == EventKind.BREAK and since < ev.span.line < line]
        if not between:
            return None
        note_local(ctx, "dict-iterator", name, None)
        return self.site(node, f"the dict-view iterator `{name}` (line {since}) is live across the graph break at "
                               f"line {between[0]}", outcome="skip")


def _view_iterator(node, ctx) -> bool:
    """Whether ``node`` is ``iter(d.values())`` / ``iter(d.keys())`` / ``iter(d.items())``."""
    if not isinstance(node, cst.Call) or ctx.resolve(node.func) != "iter" or len(node.args) != 1:
        return False
    inner = node.args[0].value
    return isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) and inner.func.attr.value in VIEWS \
        and not inner.args
