"""Data-dependent control flow: Python ``if``/``while``/ternary/``and``/``or`` on a tensor.

Source: ``torch/_dynamo/symbolic_convert.py`` ``generic_jump`` ("Data-dependent branching",
GB0170). Branches on shapes, ``numel()``, ``dim()``, ``dtype``, ``isinstance`` are guards,
not breaks; ``assert`` on a tensor is rewritten to ``torch._assert`` (semantics.md §1).
"""
import libcst as cst

from gblint.tensors import maybe_tensor

from .base import Rule


class DataDependentBranch(Rule):
    code = "GBL105"
    name = "data-dependent-branch"
    gb_ids = ("GB0170",)
    node_types = (cst.If, cst.While, cst.IfExp, cst.BooleanOperation)
    summary = "A Python branch (`if`, `while`, ternary, `and`/`or`) whose condition is a tensor."
    why = "Python must know the tensor's value to pick a branch: the graph ends here (a frame skip inside a loop)."
    hint = "Compute both branches and select with `torch.where(cond, a, b)`, or use `torch.cond`."
    source = "torch/_dynamo/symbolic_convert.py: generic_jump; semantics.md §1"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(g, max_norm):\n"
        "    norm = g.norm()\n"
        "    if norm > max_norm:  # expect: GBL105\n"
        "        g = g * (max_norm / norm)\n"
        "    return g\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    y = x * 2 if x.mean() > 0 else -x  # expect: GBL105\n"
        "    ok = (y.min() > -10) and (y.max() < 10)  # expect: GBL105\n"
        "    return y * ok\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    if x.shape[0] > 2:\n"
        "        x = x * 2\n"
        "    if x.numel() % 2 == 0 and x.dim() == 1:\n"
        "        x = x + 1\n"
        "    if isinstance(x, torch.Tensor):\n"
        "        x = x - 1\n"
        "    assert (x.abs() < 1e6).all()\n"
        "    return x\n",
        "import torch\n"
        "from transformers.utils import is_tracing\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    if not is_tracing(x) and (x[:, -1] == 0).all():\n"
        "        return None\n"
        "    return x\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x, limit):\n"
        "    if limit < 0:\n"
        "        limit = 0\n"
        "    return x.clamp(max=limit)\n",
    )

    def check(self, node, ctx):
        if isinstance(node, (cst.If, cst.While)):
            test = node.test
            if ctx.compiling_guard(test) is not None:
                return None
        elif isinstance(node, cst.IfExp):
            test = node.test
        else:
            test = node.left
        k = ctx.kind(test)
        if k == "S":
            # a branch on `.item()`: a real Python value after the `.item()` break, but a data-dependent
            # guard where scalars are captured (fullgraph=True, capture_scalar_outputs=True)
            captured = bool(ctx.config("capture_scalar_outputs", False))
            return self.site(test, "branch on a scalar read from a tensor (data-dependent guard)",
                             needs_capture=not captured, gb_ids=("GB0170",))
        if maybe_tensor(k):
            what = {cst.If: "`if`", cst.While: "`while`", cst.IfExp: "conditional expression"}.get(type(node))
            if what is None:
                op = "and" if isinstance(node.operator, cst.And) else "or"
                what = f"`{op}`"
            return self.site(test, f"{what} on a tensor value (data-dependent branching)", needs=k,
                             python_value=True)
        return None
