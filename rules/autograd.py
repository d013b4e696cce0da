"""Autograd inside the compiled region: ``.backward()``, ``torch.autograd.grad``, hooks,
``requires_grad_()``, assignment to ``.data``, ``ctx.mark_dirty`` in an ``autograd.Function``.

Source: ``torch/_dynamo/variables/tensor.py`` (method_backward, method_register_hook,
method_requires_grad_, setattr of data); ``torch/_dynamo/variables/misc.py``
(AutogradFunctionVariable.call_apply, AutogradFunctionContextVariable.call_method); semantics.md §1.
"""
import libcst as cst

from gblint.syntax import value_syntax
from gblint.core.model import Expr, Kind, param_kind
from gblint.core.ops import Op
from gblint.core.semantics import AUTOGRAD_FUNCTION
from gblint.abstract.tensors import maybe_tensor, torch_call_kind
from gblint.abstract.grads import CONTEXT_FIRST, GRAD_OFF_DECORATORS, off_in
from gblint.syntax.traversal import code_of, literal

from .base import Rule
from .notes import forget_local, local_note, note_local


class BackwardCall(Rule):
    code = "GBL115"
    name = "autograd-in-region"
    gb_ids = ("GB0123", "GB9186")
    node_types = (cst.Call,)
    summary = "`loss.backward()` or `torch.autograd.grad(...)` inside the compiled region."
    why = "Dynamo does not trace the backward call: the graph ends here (compiled autograd aside)."
    hint = "Compile the forward and loss only; call `.backward()` outside the compiled function."
    source = "torch/_dynamo/variables/tensor.py: method_backward; semantics.md §1"
    use_instead = (
        "import torch\n"
        "@torch.compile\n"
        "def loss_of(x, w):\n"
        "    return (x @ w).sum()\n"
        "def step(x, w):\n"
        "    loss = loss_of(x, w)\n"
        "    loss.backward()  # outside the compiled function\n"
        "    return loss\n"
    )
    measured = "tests/fixtures/measured/r01_backward_in_region.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def step(x, w):\n"
        "    loss = (x @ w).sum()\n"
        "    loss.backward()  # expect: GBL115\n"
        "    return loss\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def step(x, w):\n"
        "    return (x @ w).sum()\n"
        "def train(x, w):\n"
        "    step(x, w).backward()\n",
    )

    def check(self, node, ctx):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "backward":
            k = ctx.kind(func.value)
            if maybe_tensor(k) or k == "?":
                return self.site(node, "`.backward()`", gb_ids=("GB0123",), needs=k if maybe_tensor(k) else None)
        if ctx.resolve(func) in ("torch.autograd.grad", "torch.autograd.backward"):
            return self.site(node, f"`{ctx.resolve(func)}(...)`", gb_ids=("GB9186",))
        return None


class TensorHook(Rule):
    code = "GBL116"
    name = "tensor-hook"
    gb_ids = ("GB8985", "GB0225")
    node_types = (cst.Call,)
    summary = ("`t.register_hook(...)` or `t.requires_grad_()` on a tensor inside the region, or a torch function "
               "creating a tensor with `requires_grad=True` (`torch.zeros(n, requires_grad=x.requires_grad)`: "
               "when the value is true).")
    why = "Hooks and requires_grad changes on intermediates break the graph."
    hint = "Register hooks and set requires_grad outside the compiled function."
    source = ("torch/_dynamo/variables/tensor.py: method_register_hook / method_requires_grad_; "
              "torch/_dynamo/variables/torch.py: call_function (`requires_grad` in kwargs and its constant value "
              "true: GB0225); semantics.md §1")
    use_instead = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x, y):\n"
        "    return x * y\n"
        "def step(x):\n"
        "    y = torch.ones(3).requires_grad_()  # outside the compiled function\n"
        "    return f(x, y)\n"
    )
    measured = "tests/fixtures/measured/r02_requires_grad_in_region.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    y = torch.ones(3)\n"
        "    y.requires_grad_()  # expect: GBL116\n"
        "    return x * y\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    y = torch.zeros(3, requires_grad=True)  # expect: GBL116\n"
        "    return x * y\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return x.detach() * 2\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return x * torch.ones(3, requires_grad=False)\n",
    )

    def check(self, node, ctx):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("register_hook", "requires_grad_"):
            k = ctx.kind(func.value)
            if maybe_tensor(k):
                return self.site(node, f"`.{func.attr.value}(...)` on a tensor", needs=k)
            return None
        return self.creation_with_grad(node, ctx)

    def creation_with_grad(self, node, ctx):
        """``torch.zeros(..., requires_grad=V)``: Dynamo breaks when ``V`` (a constant to it: a literal, a
        guarded flag, ``x.requires_grad``) is true (GB0225); definite for a literal ``True`` or a value the
        walk decides, else conditional on ``V`` as written."""
        arg = next((a for a in node.args if a.keyword is not None and a.keyword.value == "requires_grad"), None)
        if arg is None:
            return None
        q = ctx.resolve(node.func) or ""
        if not q.startswith("torch.") or q.startswith("torch.nn.") or torch_call_kind(q) != Kind.TENSOR:
            return None
        value = arg.value
        if isinstance(value, (cst.Name, cst.Integer)) and (value.value == "None" or literal(value) is not None):
            if not literal(value):
                return None  # `requires_grad=False`: no break
            return self.site(node, f"`{code_of(node.func)}(...)` with `requires_grad=True`",
                             gb_ids=("GB0225",))
        detail = f"`{code_of(node.func)}(...)` with `requires_grad`"
        return self.site(node, detail, gb_ids=("GB0225",), gate_kind="branch",
                         gate=value_syntax.expr_of(value, ctx), gate_text=code_of(value))


class DataAssignment(Rule):
    code = "GBL117"
    name = "tensor-data-assignment"
    gb_ids = ("GB0056",)
    node_types = (cst.Assign,)
    summary = "Assignment to `t.data` of a tensor created inside the region."
    why = ("Mutating `.data` of a tensor the graph computed is not traceable: the graph ends here (+1 graph). "
           "On a graph input, a global or a module's parameter Dynamo traces it (measured on 2.13).")
    hint = "Use `with torch.no_grad(): t.copy_(value)` instead."
    source = "torch/_dynamo/variables/tensor.py (setattr data); semantics.md §1"
    use_instead = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    y = x * 2\n"
        "    with torch.no_grad():\n"
        "        y.copy_(torch.ones(3))\n"
        "    return y + 1\n"
    )
    measured = "tests/fixtures/measured/r03_data_assignment.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    y = x * 2\n"
        "    y.data = torch.ones(3)  # expect: GBL117\n"
        "    return y + 1\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x, w):\n"
        "    with torch.no_grad():\n"
        "        w.copy_(w * 0.5)\n"
        "    return x @ w\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x, w):\n"
        "    w.data = w * 0.5\n"
        "    return x @ w\n",
    )

    def check(self, node, ctx):
        for t in node.targets:
            tgt = t.target
            # only a tensor the frame computed: `.data` of an input, a global or a parameter is traced
            if isinstance(tgt, cst.Attribute) and tgt.attr.value == "data" and isinstance(tgt.value, cst.Name):
                k = ctx.kind(tgt.value)
                if k == Kind.TENSOR or (maybe_tensor(k) and k != param_kind(tgt.value.value)):
                    return self.site(tgt, "assignment to `.data`", needs=None if k == Kind.TENSOR else k)
        return None


class MarkDirty(Rule):
    code = "GBL141"
    name = "autograd-mark-dirty"
    gb_ids = ("GB2019", "GB0092")
    node_types = (cst.Call, cst.Return)
    effect = "skip"
    summary = ("`ctx.mark_dirty(x)` in the `forward` of a `torch.autograd.Function` (its in-place update of an "
               "input).")
    why = ("Dynamo supports `mark_dirty` only while it traces `Function.apply` with an input that requires grad "
           "(grad enabled) and only when `forward` returns each dirty input itself (`x.mul_(s); return x`). "
           "Otherwise: with no input requiring grad (or under `torch.no_grad()`) it inlines `forward` and breaks "
           "at `mark_dirty` (GB2019), a nested break for the frames that call `apply`; with one, a dirty input not "
           "returned as itself (`return x.mul_(s)` is a new value to Dynamo) breaks at the `apply` call (GB2464, "
           "GBL142). Either way `apply` then runs eagerly and `forward` is compiled as its own frame, where the "
           "break cannot resume (GB0092 Reconstruction failure): that frame is skipped.")
    hint = "Return the dirty input itself (`x.mul_(s); return x`), or update a copy instead of marking the input dirty."
    source = ("torch/_dynamo/variables/misc.py: AutogradFunctionVariable.call_apply (requires_grad and "
              "torch.is_grad_enabled()), AutogradFunctionContextVariable.call_method (mark_dirty without a proxy: "
              "GB2019); torch/_dynamo/variables/higher_order_ops.py: AutogradFunctionApplyVariable (GB2464)")
    use_instead = (
        "import torch\n"
        "class Scale(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x, s):\n"
        "        ctx.s = s\n"
        "        return x * s\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        return g * ctx.s, None\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return Scale.apply(x + 1, 2.0)\n"
    )
    measured = "tests/cases/kinds/k27_mark_dirty_plain_input.py"
    examples_fire = (
        "import torch\n"
        "class Scale(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x, s):\n"
        "        ctx.mark_dirty(x)  # expect: GBL141\n"
        "        x.mul_(s)\n"
        "        return x\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        return g, None\n"
        "@torch._dynamo.disable(recursive=False)\n"
        "def scale(x):\n"
        "    return Scale.apply(x, 2.0)\n"
        "@torch.compile\n"
        "def f(n):\n"
        "    return scale(torch.ones(n))  # expect: GBL119\n",
    )
    examples_clean = (
        "import torch\n"
        "class Scale(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x, s):\n"
        "        ctx.mark_dirty(x)\n"
        "        return x.mul_(s)\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        return g, None\n"
        "def f(x):\n"
        "    return Scale.apply(x + 1, 2.0)\n",
    )

    def check(self, node, ctx):
        """At ``ctx.mark_dirty(...)`` (or a local bound to it) the call and the names it marks are noted; at each
        ``return`` of that ``forward`` the break is reported at the noted call: unconditional when some dirty name
        is not returned as itself, else only where grad is off or no tensor argument requires grad (the gate; see
        :func:`gblint.abstract.values.decide`, op ``grad_off``). In a function handed the context (``_mark(ctx, x)``) it
        is reported there, definite only where grad is off at the ``apply``."""
        first = _function_ctx(ctx)
        if isinstance(node, cst.Call):
            holder = _marks_dirty(node, ctx)
            if holder is None:
                return None
            if first is None:  # a helper handed the context: whether forward returns the input as itself is not seen
                return self.site(node, f"`{holder}.mark_dirty(...)` in `{ctx.info.qualname}`", outcome="skip",
                                 gate_kind="branch", gate=Expr(Op.GRAD_OFF, CONTEXT_FIRST, (value_syntax.name_expr(holder, ctx), Expr(Op.UNKNOWN))),
                                 gate_text=f"{holder}.mark_dirty marks an input forward does not return as itself")
            if holder == first:
                names = tuple(a.value.value if isinstance(a.value, cst.Name) else "" for a in node.args)
                note_local(ctx, "mark-dirty", first, (node, names))
            return None
        if first is None:
            return None
        noted = local_note(ctx, "mark-dirty", first)
        if not noted:
            return None
        forget_local(ctx, "mark-dirty", first)
        call, names = noted
        returned = _returned_names(node.value)
        detail = f"`{first}.mark_dirty(...)` in `{ctx.info.qualname}`"
        if all(n and n in returned for n in names):
            inputs = [p.name for p in ctx.info.params[1:] if p.kind == "pos"]
            gate = Expr(Op.GRAD_OFF, CONTEXT_FIRST, tuple(value_syntax.name_expr(n, ctx) for n in [first] + inputs))
            return self.site(call, detail, outcome="skip", gate_kind="branch", gate=gate,
                             gate_text=" and ".join(f"not {n}.requires_grad" for n in inputs))
        others = sorted(n for n in returned if n not in names)
        if others:  # a returned name may hold a dirty input under another name (`y = x; return y`): not proven
            missing = next(n for n in names if not (n and n in returned))
            return self.site(call, detail, outcome="skip", gate_kind="branch", gate=Expr(Op.UNKNOWN),
                             gate_text=f"{others[0]} is not {missing or 'the dirty input'}")
        return self.site(call, detail, outcome="skip")


#: the autograd.Function of GBL144's examples
_MIX = ("import torch\n"
        "class Mix(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, a, b, x):\n"
        "        return x * a + b\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        return None, None, g\n")


class ApplyDuplicateInput(Rule):
    code = "GBL144"
    name = "function-apply-duplicate-input"
    gb_ids = ("GB6297",)
    node_types = (cst.Call,)
    summary = "`Function.apply(x, x, ...)`: one tensor given to two inputs of a `torch.autograd.Function`."
    why = ("With grad on and an input that requires grad, Dynamo traces `Function.apply` as a higher-order op, "
           "which does not take the same tensor twice: the `apply` call breaks the graph (+1 graph) and runs "
           "eagerly; in a loop the frame is skipped. With no input requiring grad `forward` is inlined: no break.")
    hint = "Pass the tensor once and use it twice inside `forward`, or pass a view of it (`x.view_as(x)`) the second time."
    source = ("torch/_dynamo/variables/misc.py: AutogradFunctionVariable.call_apply; "
              "torch/_dynamo/variables/higher_order_ops.py: AutogradFunctionApplyVariable (GB6297)")
    use_instead = (
        "import torch\n"
        "class Mix(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, m, x):\n"
        "        return x * m + m\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        return None, g\n"
        "lin = torch.nn.Linear(2, 2)\n"
        "@torch.compile\n"
        "def f(m, x):\n"
        "    return Mix.apply(m, lin(x))\n"
    )
    measured = "tests/cases/kinds/kb22_apply_duplicate_input.py"
    examples_fire = (
        _MIX +
        "lin = torch.nn.Linear(2, 2)\n"
        "@torch.compile\n"
        "def f(n):\n"
        "    m = torch.ones(n)\n"
        "    return Mix.apply(m, m, lin(m))  # expect: GBL144\n",
    )
    examples_clean = (
        _MIX +
        "@torch.compile\n"
        "def f(n):\n"
        "    m = torch.ones(n)\n"
        "    return Mix.apply(m, m, torch.ones(n))  # no input requires grad: forward is inlined\n",
    )

    def check(self, node, ctx):
        """At ``F.apply(...)`` given the same name (or attribute) twice, a break gated on the facts Dynamo tests:
        ``F.apply`` is a ``torch.autograd.Function``'s (the interpreter's value of the callee), the repeated value is
        a tensor, and some input requires grad; never definite, since whether grad is on where the compiled code
        is called is not followed; none where this function turns grad off (a ``with`` block or a decorator)."""
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "apply") or len(node.args) < 2:
            return None
        inputs = [a.value for a in node.args if a.keyword is None and not a.star]
        seen, twice = set(), None
        for value in inputs:
            if isinstance(value, (cst.Name, cst.Attribute)):
                written = code_of(value)
                if written in seen:
                    twice = value
                    break
                seen.add(written)
        if twice is None or _grad_off_here(ctx):
            return None
        # whether grad is on where the compiled code is called (a caller's `torch.no_grad()`, `inference_mode()`, a
        # `set_grad_enabled(False)` statement, frozen parameters) is not followed: never a fact, so never definite
        gate = Expr(Op.AND, parts=(
            Expr(Op.FUNCTION_APPLY, parts=(value_syntax.expr_of(func, ctx),)),
            Expr(Op.HOLDS_TENSOR, parts=(value_syntax.expr_of(twice, ctx),)),
            Expr(Op.NOT, parts=(Expr(Op.GRAD_OFF, parts=tuple(value_syntax.expr_of(v, ctx) for v in inputs)),)),
            Expr(Op.UNKNOWN)))
        return self.site(node, f"`{code_of(func)}(...)` given `{code_of(twice)}` twice", gate=gate, gate_kind="branch",
                         gate_text=f"{code_of(twice)} is a tensor, an input requires grad and grad is on")


def _grad_off_here(ctx):
    """Whether grad is off where ``ctx`` is: inside ``with torch.no_grad():`` (or the like) or a function
    decorated ``@torch.no_grad()``."""
    if off_in(ctx.blocks):
        return True
    node = getattr(ctx, "def_node", None)
    for d in getattr(node, "decorators", ()):
        expr = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
        if ctx.resolve(expr) in GRAD_OFF_DECORATORS:
            return True
    return False


def _marks_dirty(node, ctx):
    """The parameter whose ``mark_dirty`` the call ``node`` calls (``ctx.mark_dirty(x)``, or through a local
    bound to it: ``dirty = ctx.mark_dirty; dirty(x)``), else None."""
    if ctx.info is None or not isinstance(node.func, (cst.Name, cst.Attribute)):
        return None
    func = value_syntax.expr_of(node.func, ctx)
    if func.op == Op.ATTR and func.value == "mark_dirty" and func.parts and func.parts[0].op == Op.PARAM:
        return func.parts[0].value
    return None


def _function_ctx(ctx):
    """The name of the context parameter when ``ctx`` is the ``forward`` of a subclass of
    ``torch.autograd.Function``, else None."""
    info, cls = ctx.info, ctx.class_info
    if info is None or cls is None or info.name != "forward" or not info.params:
        return None
    if not AUTOGRAD_FUNCTION & set(cls.bases):
        return None
    return info.params[0].name


def _returned_names(value):
    """The names a ``return`` returns as themselves: ``return x`` or ``return x, y``."""
    if isinstance(value, cst.Name):
        return {value.value}
    if isinstance(value, (cst.Tuple, cst.List)):
        return {e.value.value for e in value.elements if isinstance(e.value, cst.Name)}
    return set()
