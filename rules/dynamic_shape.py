"""Ops whose output shape depends on data: ``nonzero``, ``unique``, boolean masks...

Source: ``torch/_dynamo/variables/tensor.py`` / ``torch.py`` ("Dynamic shape operator",
GB0036) with ``config.capture_dynamic_output_shape_ops = False``; semantics.md §1.
"""
import libcst as cst

from gblint.tensors import mask_kind, maybe_tensor

from .base import Rule

DYNAMIC_METHODS = {"nonzero", "unique", "unique_consecutive", "masked_select", "argwhere"}
DYNAMIC_FUNCS = {f"torch.{n}" for n in DYNAMIC_METHODS} | {"torch.Tensor.nonzero"}


class DynamicShapeOp(Rule):
    code = "GBL106"
    name = "dynamic-shape-op"
    gb_ids = ("GB0036", "GB0246")
    node_types = (cst.Call, cst.Subscript)
    summary = "An op whose output shape depends on tensor data (`nonzero`, `unique`, `x[mask]`, `masked_select`...)."
    why = "Dynamo cannot size the output without the data: the graph ends here."
    hint = ("Use a fixed-shape form (`torch.where(mask, x, 0)`, `repeat_interleave(..., output_size=n)`), or set "
            "`torch._dynamo.config.capture_dynamic_output_shape_ops = True`.")
    source = "torch/_dynamo/variables/torch.py; semantics.md §1"
    use_instead = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    pos = torch.where(x > 0, x, 0)  # same shape as x\n"
        "    return pos.sum()\n"
    )
    measured = "tests/cases/examples/064_dynamic_shape_ops.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    idx = x.nonzero()  # expect: GBL106\n"
        "    pos = x[x > 0]  # expect: GBL106\n"
        "    u = torch.unique(x.round())  # expect: GBL106\n"
        "    return idx.sum() + pos.sum() + u.sum()\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(labels):\n"
        "    return (labels == 2).nonzero(as_tuple=True)[0]  # expect: GBL106\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x, y):\n"
        "    keep = x[0] != x[1]\n"
        "    y = y[:, keep]  # expect: GBL106\n"
        "    x = x.clone()\n"
        "    x[~keep] += 1  # expect: GBL106\n"
        "    return x.sum() + y.sum()\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(h, keep):\n"
        "    keep = keep.to(h.device)\n"
        "    return h[~keep].sum()  # expect: GBL106\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return torch.where(x > 0, x, 0).sum() + x[0] + x[:, 1:].sum()\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    x = x.clone()\n"
        "    x[x > 0] = 0  # a masked write needs no data-dependent size\n"
        "    return x * 2\n",
        "import torch\n"
        "@torch.compile(fullgraph=True)\n"
        "def f(x):\n"
        "    idx = torch.nonzero(x > 0.5).squeeze(-1)\n"
        "    return x.index_select(0, idx).sum() + x[x > 0].sum() + torch.repeat_interleave(x, 2).sum()\n",
        "import torch\n"
        "torch._dynamo.config.capture_dynamic_output_shape_ops = True\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return x.nonzero()\n",
    )

    def check(self, node, ctx):
        """The sites are ``capturable``: under fullgraph=True Dynamo captures dynamic output shapes
        (semantics.md §8.1) and nothing breaks."""
        if ctx.config("capture_dynamic_output_shape_ops", False):
            return None
        site = self._check(node, ctx)
        if site is not None:
            site.capturable = True
        return site

    def _check(self, node, ctx):
        if isinstance(node, cst.Subscript):
            if id(node) in ctx.store_targets or not maybe_tensor(ctx.kind(node.value)):
                return None  # `x[mask] = v` writes in place: no data-dependent size (`x[mask] += v` reads)
            for element in node.slice:
                if isinstance(element.slice, cst.Index):
                    k = mask_kind(element.slice.value, ctx)
                    if k is not None:
                        return self.site(node, "boolean-mask indexing (output size depends on data)",
                                         needs=k)
            return None
        func = node.func
        q = ctx.resolve(func)
        if q in DYNAMIC_FUNCS:
            return self.site(node, f"`{q}(...)` has a data-dependent output shape")
        if q == "torch.repeat_interleave":
            args = [a.value for a in node.args if a.keyword is None]
            repeats = next((a.value for a in node.args if a.keyword and a.keyword.value == "repeats"), None)
            repeats = repeats if repeats is not None else (args[1] if len(args) > 1 else args[0] if args else None)
            if repeats is not None and not any(a.keyword and a.keyword.value == "output_size" for a in node.args):
                k = ctx.kind(repeats)
                if maybe_tensor(k):
                    return self.site(node, "`torch.repeat_interleave` with tensor repeats and no `output_size`",
                                     needs=k)
            return None
        if q == "torch.nn.functional.one_hot" and len(node.args) < 2 and \
                not any(a.keyword and a.keyword.value == "num_classes" for a in node.args):
            return self.site(node, "`F.one_hot(x)` without `num_classes` has a data-dependent output shape",
                             gb_ids=("GB0246",))
        if q == "torch.where" and len(node.args) == 1:
            return self.site(node, "`torch.where(cond)` with one argument has a data-dependent output shape")
        if isinstance(func, cst.Attribute) and func.attr.value in DYNAMIC_METHODS:
            k = ctx.kind(func.value)
            if maybe_tensor(k) and mask_kind(func.value, ctx) is not None and func.attr.value != "unique":
                k = "T"  # `(labels == 2).nonzero()`: a Python comparison gives a bool, which has no `.nonzero()`
            if maybe_tensor(k) or (k == "?" and func.attr.value in ("nonzero", "masked_select", "argwhere")):
                return self.site(node, f"`.{func.attr.value}()` has a data-dependent output shape",
                                 needs=k if maybe_tensor(k) else None)
            return None
        if isinstance(func, cst.Attribute) and func.attr.value == "repeat_interleave":
            if not any(a.keyword and a.keyword.value == "output_size" for a in node.args) and node.args:
                k = ctx.kind(node.args[0].value)
                if maybe_tensor(k):
                    return self.site(node, "`repeat_interleave` with tensor repeats and no `output_size`", needs=k)
            return None
        return None
