"""Language constructs Dynamo does not trace: class statements, module construction,
``sorted`` with a key, uncaught ``raise``.

Source: ``torch/_dynamo/symbolic_convert.py`` (LOAD_BUILD_CLASS, RAISE_VARARGS),
``variables/builtin.py`` (sorted), ``variables/torch.py`` (nn.Parameter); semantics.md §1.
"""
import libcst as cst

from gblint.syntax import value_syntax
from gblint.core.model import BlockKind, Expr
from gblint.core.ops import Op
from gblint.abstract.tensors import PY_METHODS, TENSOR_METHOD_RESULTS, maybe_tensor
from gblint.syntax.traversal import code_of

from .base import Rule


class ClassStatement(Rule):
    code = "GBL112"
    name = "class-statement"
    gb_ids = ("GB8977",)
    node_types = (cst.ClassDef,)
    summary = "A `class` statement inside compiled code."
    why = "Dynamo cannot trace `__build_class__`: the graph ends here."
    hint = "Define the class at module level."
    source = "torch/_dynamo/variables/builtin.py: __build_class__; semantics.md §1"
    use_instead = (
        "import torch\n"
        "class Config:\n"
        "    scale = 2.0\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return x * Config.scale\n"
    )
    measured = "tests/cases/examples/069_class_and_linear_inside.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    class Config:  # expect: GBL112\n"
        "        scale = 2.0\n"
        "    return x * Config.scale\n",
    )
    examples_clean = (
        "import torch\n"
        "class Config:\n"
        "    scale = 2.0\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return x * Config.scale\n",
    )

    def check(self, node, ctx):
        return self.site(node, f"`class {node.name.value}` statement")


# torch.nn modules whose constructor makes an nn.Parameter, with the keyword that turns the
# parameters off (measured: `LayerNorm(8, elementwise_affine=False)`, `InstanceNorm1d(4)`,
# pooling, padding and activations build inside the region without a break)
_AFFINE = ("affine", True)
_PARAM_MODULES = {
    **{name: None for name in (
        "Linear", "Bilinear", "LazyLinear", "Embedding", "EmbeddingBag", "RNN", "LSTM", "GRU", "RNNCell",
        "LSTMCell", "GRUCell", "MultiheadAttention", "Transformer", "TransformerEncoder",
        "TransformerDecoder", "TransformerEncoderLayer", "TransformerDecoderLayer", "PReLU",
        "AdaptiveLogSoftmaxWithLoss")},
    **{f"{lazy}Conv{t}{d}d": None for lazy in ("", "Lazy") for t in ("", "Transpose") for d in (1, 2, 3)},
    **{f"{lazy}BatchNorm{d}d": _AFFINE for lazy in ("", "Lazy") for d in (1, 2, 3)},
    "SyncBatchNorm": _AFFINE, "GroupNorm": _AFFINE,
    "LayerNorm": ("elementwise_affine", True), "RMSNorm": ("elementwise_affine", True),
    **{f"{lazy}InstanceNorm{d}d": ("affine", False) for lazy in ("", "Lazy") for d in (1, 2, 3)},
}


class ModuleConstruction(Rule):
    code = "GBL113"
    name = "module-construction"
    gb_ids = ("GB0264",)
    node_types = (cst.Call,)
    summary = "An `nn.Module` (with its `nn.Parameter`s) constructed inside compiled code."
    why = "Creating parameters inside the region is not traceable: the graph ends here."
    hint = "Construct modules once in `__init__` and only call them in `forward`."
    source = "torch/_dynamo/variables/torch.py: nn.Parameter constructor; semantics.md §1"
    use_instead = (
        "import torch\n"
        "layer = torch.nn.Linear(4, 4)  # built once, outside\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return layer(x)\n"
    )
    measured = "tests/cases/examples/069_class_and_linear_inside.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    layer = torch.nn.Linear(4, 4)  # expect: GBL113\n"
        "    return layer(x)\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    bias = torch.nn.Parameter(torch.zeros(4))  # expect: GBL113\n"
        "    return x + bias\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    p = torch.nn.Parameter(x)\n"
        "    return p * 2\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    x = torch.nn.ConstantPad1d((1, 1), 0)(x)\n"
        "    x = torch.nn.MaxPool1d(2)(x)\n"
        "    x = torch.nn.InstanceNorm1d(4)(x)\n"
        "    return torch.nn.LayerNorm(8, elementwise_affine=False)(x)\n",
    )
    def check(self, node, ctx):
        q = ctx.resolve(node.func) or ""
        if q in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
            # a parameter of a tensor made in the region (not of a name: an input's parameter is traced)
            data = next((a.value for a in node.args if a.keyword is None or a.keyword.value == "data"), None)
            if data is None or isinstance(data, (cst.Name, cst.Attribute)):
                return None
            return self.site(node, f"`{q}(...)` builds an nn.Parameter of a tensor made inside the region")
        if not (q.startswith("torch.nn.") and q.count(".") == 2):
            return None
        last = q.rsplit(".", 1)[-1]
        if last not in _PARAM_MODULES:
            return None
        switch = _PARAM_MODULES[last]
        if switch is not None:
            keyword, default = switch
            given = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == keyword), None)
            if given is None and not default:
                return None  # off unless asked for (`InstanceNorm1d(4)` has no parameters)
            if isinstance(given, cst.Name) and given.value == "False":
                return None
        return self.site(node, f"`{q}(...)` builds an nn.Module with parameters inside the region")


class SortedWithKey(Rule):
    code = "GBL114"
    name = "sort-with-key"
    gb_ids = ("GB0207",)
    node_types = (cst.Call,)
    summary = "`sorted(...)` of tensors with a `key` that returns a tensor (a shape, `len` or a constant key is fine)."
    why = "Sorting by a non-constant key needs tensor values in Python: the graph ends here."
    hint = "Stack the tensors and use `torch.sort` / `torch.argsort` on the keys."
    source = "torch/_dynamo/variables/builtin.py: call_sorted; semantics.md §1"
    use_instead = (
        "import torch\n"
        "@torch.compile\n"
        "def f(a, b, c):\n"
        "    stacked = torch.stack([a, b, c])\n"
        "    order = torch.argsort(stacked.sum(dim=tuple(range(1, stacked.dim()))))\n"
        "    return stacked[order[0]] * 2\n"
    )
    measured = "tests/cases/examples/070_sorted_key_lambda.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor):\n"
        "    ordered = sorted([a, b, c], key=lambda t: t.sum())  # expect: GBL114\n"
        "    return ordered[0] * 2\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x, names: list):\n"
        "    return x * len(sorted(names))\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(a: torch.Tensor, b: torch.Tensor):\n"
        "    ordered = sorted([a, b], key=lambda t: t.shape[0])  # an int key: sorted in the graph\n"
        "    return ordered[0] * 2\n",
    )

    def check(self, node, ctx):
        q = ctx.resolve(node.func)
        key = next((a for a in node.args if a.keyword is not None and a.keyword.value == "key"), None)
        if key is None or q != "sorted" or not node.args or node.args[0].keyword is not None:
            return None
        seq = node.args[0].value
        elems = [e.value for e in seq.elements] if isinstance(seq, (cst.List, cst.Tuple)) else [seq]
        kinds = [ctx.kind(e) for e in elems if not isinstance(e, cst.StarredElement)]
        result = _key_result(key.value, ctx)
        if result == "python":
            return None  # Dynamo sorts by constant keys (ints, shapes, strings) in the graph
        needs = next((k for k in kinds if maybe_tensor(k)), None)
        if result == "tensor":
            if needs is not None:
                return self.site(node, "`sorted(..., key=...)` over tensors with a tensor-valued key", needs=needs)
            return self.site(node, "`sorted(..., key=...)` with a tensor-valued key", gate_kind="branch",
                             gate=Expr(Op.HOLDS_TENSOR, parts=(value_syntax.expr_of(seq, ctx),)),
                             gate_text=f"`{code_of(seq)}` holds tensors")
        if needs is None:
            return None
        return self.site(node, "`sorted(..., key=...)` over tensors", needs=needs, gate_kind="branch",
                         gate=Expr(Op.UNKNOWN), gate_text=f"`{code_of(key.value)}` returns a tensor")


_PY_KEY_BUILTINS = frozenset({"len", "id", "str", "repr", "hash", "type"})


def _key_result(key, ctx) -> str:
    """What a ``sorted`` key (a libcst expression) returns for a tensor element: ``"tensor"`` when its
    torch stub says so (``lambda t: t.sum()``), ``"python"`` for a constant, a shape, ``len``, ``id``, a
    method the stub types as a Python value (``dim``, ``numel``), ``"unknown"`` otherwise.

    Dynamo (torch/_dynamo/variables/builtin.py, call_sorted) breaks only on a key that is not a
    constant: a tensor (GB0207); ints from static shapes sort in the graph (measured, 2.13)."""
    if isinstance(key, cst.Name) and ctx.resolve(key) in _PY_KEY_BUILTINS:
        return "python"
    if not isinstance(key, cst.Lambda) or len(key.params.params) != 1:
        return "unknown"
    param = key.params.params[0].name.value
    body = key.body
    if isinstance(body, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString)) or \
            isinstance(body, cst.Name) and body.value in ("True", "False", "None"):
        return "python"
    if isinstance(body, cst.Subscript) and isinstance(body.value, cst.Attribute) and \
            body.value.attr.value == "shape" and _names(body.value.value, param):
        return "python"
    if isinstance(body, cst.Call):
        if isinstance(body.func, cst.Name) and body.func.value in _PY_KEY_BUILTINS and body.args and \
                _names(body.args[0].value, param):
            return "python"
        if isinstance(body.func, cst.Attribute) and _names(body.func.value, param):
            attr = body.func.attr.value
            if attr in PY_METHODS and attr not in ("item", "tolist"):
                return "python"
            if attr in TENSOR_METHOD_RESULTS:
                return "tensor"
    return "unknown"


def _names(node, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


class UncaughtRaise(Rule):
    code = "GBL124"
    name = "uncaught-raise"
    gb_ids = ("GB0088",)
    effect = "skip"
    node_types = (cst.Raise,)
    summary = ("A `raise` that no `try` in the compiled frame (or its callers) handles, where the values gblint "
               "knows make it run. Under a test those values do not decide, in an `except` body, as "
               "`raise NotImplementedError` or as the fallback after branches that return, it is an error path "
               "(reported with `--error-paths`).")
    why = "An exception leaving the traced frame makes Dynamo give up on the frame: it is skipped and runs eagerly."
    hint = ("Validate inputs before calling the compiled function, or use `torch._check(...)` for tensor "
            "conditions.")
    source = "torch/_dynamo/symbolic_convert.py: RAISE_VARARGS (Observed exception); semantics.md §1"
    use_instead = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x, limit):\n"
        "    x = x * 2\n"
        "    return x.clamp(max=limit)\n"
        "def step(x, limit):\n"
        "    if limit < 0:  # validated before the compiled call\n"
        "        raise ValueError('negative')\n"
        "    return f(x, limit)\n"
    )
    measured = "tests/cases/examples/071_uncaught_raise.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x, limit):\n"
        "    x = x * 2\n"
        "    if limit < 0:\n"
        "        raise ValueError('negative')  # expect: GBL124\n"
        "    return x.clamp(max=limit)\n"
        "def main():\n"
        "    try:\n"
        "        f(torch.ones(2), -1.0)\n"
        "    except ValueError:\n"
        "        pass\n",
    )
    examples_fire = examples_fire + (
        "import torch\n"
        "@torch.compile\n"
        "def pick(batch):\n"
        "    try:\n"
        "        return batch['ids'] * 2\n"
        "    except KeyError as err:\n"
        "        raise ValueError('no ids') from err  # expect: GBL124\n"
        "def main():\n"
        "    try:\n"
        "        pick({'mask': torch.ones(3)})\n"
        "    except ValueError:\n"
        "        pass\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def pick(batch):\n"
        "    try:\n"
        "        return batch['ids'] * 2\n"
        "    except KeyError:\n"
        "        raise\n"
        "def main():\n"
        "    pick({'ids': torch.ones(3)})\n",
        "import torch\n"
        "def parse(mode):\n"
        "    if mode not in ('sum', 'mean'):\n"
        "        raise ValueError(mode)\n"
        "    return mode\n"
        "@torch.compile\n"
        "def f(x, mode):\n"
        "    try:\n"
        "        mode = parse(mode)\n"
        "    except ValueError:\n"
        "        mode = 'sum'\n"
        "    return x.sum()\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x, limit=1.0):\n"
        "    if limit < 0:\n"
        "        raise ValueError('negative')  # a validation path: no call makes it run\n"
        "    return x.clamp(max=limit)\n"
        "def main():\n"
        "    f(torch.ones(2))\n",
    )

    def check(self, node, ctx):
        if node.exc is None:  # a re-raise: in an `except` body, which runs only when the `try` body is known to raise
            at = node
            tries = ctx.builder.try_nodes
            if ctx.holds("bare-raise-at-origin") and tries and ctx.blocks and ctx.blocks[-1].kind == BlockKind.ERROR_PATH \
                    and len(tries[-1].body.body) == 1:
                # torch >=2.14 reports the line that raised first (docs/semantics.md §8.11)
                stmt = tries[-1].body.body[0]
                small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and stmt.body else stmt
                at = getattr(small, "value", None) if isinstance(small, (cst.Assign, cst.Expr, cst.Return)) else None
                at = at if isinstance(at, cst.BaseExpression) else node
            return self.site(at, "`raise` re-raises an exception that leaves the compiled frame", outcome="raise")
        return self.site(node, "`raise` of an exception that leaves the compiled frame", outcome="raise")


#: metaclasses whose instances' ``__call__`` is ``type.__call__`` (a slot wrapper): a metaclass deriving
#: directly from one of these reaches it through ``super().__call__``
_TYPE_CALL_BASES = frozenset({"type", "builtins.type", "abc.ABCMeta"})


class MetaclassSuperCall(Rule):
    code = "GBL145"
    name = "metaclass-super-call"
    gb_ids = ("GB0006", "GB0156")
    node_types = (cst.Call,)
    summary = ("`super().__call__(...)` or `type.__call__(cls, ...)` in a metaclass's `__call__`, where Dynamo "
               "compiles that `__call__` as a frame of its own.")
    why = ("`type.__call__` is a slot wrapper, not a function: Dynamo cannot call it through `super()` (GB0006) nor "
           "as a method of `type` (GB0156), and the graph ends there. It compiles a metaclass's `__call__` on its own "
           "when the class is called from code that runs eagerly (a skipped frame) with a tensor among the arguments; "
           "called from compiled code, the class is built without tracing it: no break. Always conditional: a frame "
           "Dynamo declined once (no tensor in it) stays skipped for every class of the metaclass.")
    hint = "Remove the break that makes the caller run eagerly: built from compiled code, the class does not break."
    source = "torch/_dynamo/variables/misc.py: SuperVariable.call_method (GB0006); measured, tests/cases/kinds/kb46"
    measured = "tests/cases/kinds/kb46_metaclass_call_alone.py"
    use_instead = (
        "import abc\n"
        "import torch\n"
        "class Meta(abc.ABCMeta):\n"
        "    def __call__(cls, *args, **kwargs):\n"
        "        return super().__call__(*args, **kwargs)\n"
        "class Dist(metaclass=Meta):\n"
        "    def __init__(self, loc):\n"
        "        self.loc = loc\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    for i in range(2):\n"
        "        x = x + i  # no break: the frame is compiled, and the class is built in its graph\n"
        "    return Dist(x).loc * 2\n"
        "f(torch.ones(2))\n"
    )
    examples_fire = (
        "import abc\n"
        "import torch\n"
        "class Meta(abc.ABCMeta):\n"
        "    def __call__(cls, *args, **kwargs):\n"
        "        return super().__call__(*args, **kwargs)  # expect: GBL145\n"
        "class Dist(metaclass=Meta):\n"
        "    def __init__(self, loc):\n"
        "        self.loc = loc\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    for i in range(2):\n"
        "        print(i)  # expect: GBL201\n"
        "    return Dist(x).loc * 2\n"
        "f(torch.ones(2))\n",
    )
    examples_clean = (
        "import abc\n"
        "import torch\n"
        "class Meta(abc.ABCMeta):\n"
        "    def __call__(cls, *args, **kwargs):\n"
        "        return super().__call__(*args, **kwargs)\n"
        "class Dist(metaclass=Meta):\n"
        "    def __init__(self, loc):\n"
        "        self.loc = loc\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return Dist(x + 1).loc * 2  # built in the graph: the metaclass's __call__ is not traced\n"
        "f(torch.ones(2))\n",
    )

    def check(self, node, ctx):
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "__call__"):
            return None
        if isinstance(func.value, cst.Call) and ctx.resolve(func.value.func) == "super" and len(func.value.args) in (0, 2):
            what, gb_ids = "`super().__call__(...)`", self.gb_ids[:1]
        elif ctx.resolve(func.value) in ("type", "builtins.type"):
            what, gb_ids = "`type.__call__(...)`", self.gb_ids[1:]  # a method of `type` Dynamo does not trace
        else:
            return None
        info, cls = ctx.info, ctx.class_info
        if info is None or cls is None or info.name != "__call__" or not _TYPE_CALL_BASES.intersection(cls.bases):
            return None
        detail = f"{what} in a metaclass's `__call__`"
        # Dynamo compiles the frame only where it holds a tensor-related object (has_tensor_in_frame in
        # torch/_dynamo/convert_frame.py): the instance's arguments, as `cls` is a class (measured: `D(3)`,
        # `D()` and `D(holder)` of an object holding a tensor run eagerly, no break). A frame it declined is
        # skipped for good, for every class of the metaclass (its code object): so never definite, as an
        # earlier eager call with no tensor anywhere in the program leaves no break (found by a helper)
        args = [p.name for p in info.params[1:]]
        first = "no earlier eager call of it held none"
        if info.uses_torch:
            return self.site(node, detail, gb_ids=gb_ids, alone=True, gate_kind="branch", gate=Expr(Op.UNKNOWN),
                             gate_text=first)
        holds = Expr(Op.OR, parts=tuple(Expr(Op.HOLDS_TENSOR, parts=(Expr(Op.PARAM, n),)) for n in args))
        return self.site(node, detail, gb_ids=gb_ids, alone=True, gate_kind="branch",
                         gate=Expr(Op.AND, parts=(holds, Expr(Op.UNKNOWN))),
                         gate_text=f"the arguments hold a tensor and {first}")
