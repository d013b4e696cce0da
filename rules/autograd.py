"""Autograd inside the compiled region: ``.backward()``, ``torch.autograd.grad``, hooks,
``requires_grad_()``, assignment to ``.data``.

Source: ``torch/_dynamo/variables/tensor.py`` (method_backward, method_register_hook,
method_requires_grad_, setattr of data); semantics.md §1.
"""
import libcst as cst

from gblint.tensors import maybe_tensor

from .base import Rule


class BackwardCall(Rule):
    code = "GBL115"
    name = "autograd-in-region"
    gb_ids = ("GB0123", "GB9186")
    node_types = (cst.Call,)
    summary = "`loss.backward()` or `torch.autograd.grad(...)` inside the compiled region."
    why = "Dynamo does not trace the backward call: the graph ends here (compiled autograd aside)."
    hint = "Compile the forward and loss only; call `.backward()` outside the compiled function."
    source = "torch/_dynamo/variables/tensor.py: method_backward; semantics.md §1"
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
    gb_ids = ("GB8985",)
    node_types = (cst.Call,)
    summary = "`t.register_hook(...)` or `t.requires_grad_()` on a tensor inside the region."
    why = "Hooks and requires_grad changes on intermediates break the graph."
    hint = "Register hooks and set requires_grad outside the compiled function."
    source = "torch/_dynamo/variables/tensor.py: method_register_hook / method_requires_grad_; semantics.md §1"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    y = torch.ones(3)\n"
        "    y.requires_grad_()  # expect: GBL116\n"
        "    return x * y\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return x.detach() * 2\n",
    )

    def check(self, node, ctx):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("register_hook", "requires_grad_"):
            k = ctx.kind(func.value)
            if maybe_tensor(k):
                return self.site(node, f"`.{func.attr.value}(...)` on a tensor", needs=k)
        return None


class DataAssignment(Rule):
    code = "GBL117"
    name = "tensor-data-assignment"
    gb_ids = ("GB0056",)
    node_types = (cst.Assign,)
    summary = "Assignment to `t.data` inside the region."
    why = "Mutating `.data` is not traceable: the graph ends here."
    hint = "Use `with torch.no_grad(): t.copy_(value)` instead."
    source = "torch/_dynamo/variables/tensor.py (setattr data); semantics.md §1"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x, w):\n"
        "    w.data = w * 0.5  # expect: GBL117\n"
        "    return x @ w\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x, w):\n"
        "    with torch.no_grad():\n"
        "        w.copy_(w * 0.5)\n"
        "    return x @ w\n",
    )

    def check(self, node, ctx):
        for t in node.targets:
            tgt = t.target
            if isinstance(tgt, cst.Attribute) and tgt.attr.value == "data":
                k = ctx.kind(tgt.value)
                if maybe_tensor(k) or k == "?":
                    return self.site(tgt, "assignment to `.data`")
        return None
