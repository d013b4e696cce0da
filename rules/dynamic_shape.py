"""Ops whose output shape depends on data: ``nonzero``, ``unique``, boolean masks...

Source: ``torch/_dynamo/variables/tensor.py`` / ``torch.py`` ("Dynamic shape operator",
GB0036) with ``config.capture_dynamic_output_shape_ops = False``; semantics.md §1. Not of a tensor
``torch.tensor([])`` makes (or ``torch.cat`` of such): Dynamo knows its data, none, and the op's size (measured,
tests/cases/kinds/kb55; ``torch.zeros(0)`` breaks): where an ``if`` binds the operand to one in an arm, the break
happens only under the test of the other arm.
"""
from typing import List, Optional, Tuple

import libcst as cst

from gblint.syntax import factories, value_syntax
from gblint.core.model import Expr
from gblint.core.ops import Op
from gblint.abstract.tensors import (DYNAMIC_OUTPUT_ATEN, DYNAMIC_OUTPUT_FUNCS, DYNAMIC_OUTPUT_METHODS, mask_kind,
                                     maybe_tensor)
from gblint.syntax.traversal import code_of

from .base import Rule

#: (a gate's test, its words); no gate: a break whatever the values; NEVER: no break at all
Gate = Optional[Tuple[Expr, str]]
NEVER = (Expr(Op.CONST, value=False), "")

#: read from torch (``dynamic_output_shape`` tags, scripts/update_torch_ops.py), less what a rule of its own decides:
#: ``repeat_interleave`` breaks only with tensor repeats and no ``output_size``; ``index`` is ``x[mask]``
CONDITIONAL = {"repeat_interleave", "index"}
DYNAMIC_METHODS = DYNAMIC_OUTPUT_METHODS - CONDITIONAL
DYNAMIC_FUNCS = {q for q in DYNAMIC_OUTPUT_FUNCS if q.rpartition(".")[2] not in CONDITIONAL} \
    | {f"torch.Tensor.{n}" for n in DYNAMIC_METHODS}
#: the same ops called as ``torch.ops.aten.<op>`` or ``torch.ops.aten.<op>.<overload>`` (``one_hot``: its own rule)
DYNAMIC_ATEN = DYNAMIC_OUTPUT_ATEN - CONDITIONAL - {"one_hot"}


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
        "def f(x):\n"
        "    return torch.ops.aten.nonzero.default(x).sum()  # expect: GBL106\n",
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
        "@torch.compile\n"
        "def f(x):\n"
        "    empty = torch.tensor([], dtype=x.dtype)  # Dynamo knows its data (none): the sizes below are known\n"
        "    return x + torch.cat([empty, empty]).unique().sum() + torch.tensor([]).nonzero().sum()\n",
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
        if q in DYNAMIC_FUNCS or q and q.startswith("torch.ops.aten.") and q.split(".")[3] in DYNAMIC_ATEN:
            first = next((a.value for a in node.args if a.keyword is None), None)
            return self._gated(node, f"`{q}(...)` has a data-dependent output shape", None,
                               _with_data(first, ctx) if first is not None else None)
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
            if maybe_tensor(k):
                return self._gated(node, f"`.{func.attr.value}()` has a data-dependent output shape", k,
                                   _with_data(func.value, ctx))
            if k == "?" and func.attr.value in ("nonzero", "masked_select", "argwhere"):
                # what the receiver is not known here: a break only where the walk proves it a tensor (a gate)
                return self.site(node, f"`.{func.attr.value}()` has a data-dependent output shape",
                                 gate=Expr(Op.HOLDS_TENSOR, parts=(value_syntax.expr_of(func.value, ctx),)),
                                 gate_text=f"`{code_of(func.value)}` is a tensor")
            return None
        if isinstance(func, cst.Attribute) and func.attr.value == "repeat_interleave":
            if not any(a.keyword and a.keyword.value == "output_size" for a in node.args) and node.args:
                k = ctx.kind(node.args[0].value)
                if maybe_tensor(k):
                    return self.site(node, "`repeat_interleave` with tensor repeats and no `output_size`", needs=k)
            return None
        return None

    def _gated(self, node, detail: str, needs, gate: Gate):
        """The site of a dynamic-shape op whose operand holds data only under ``gate`` (:func:`_with_data`)."""
        if gate is NEVER:
            return None
        if gate is None:
            return self.site(node, detail, needs=needs)
        return self.site(node, detail, needs=needs, gate=gate[0], gate_kind="branch", gate_text=gate[1])


def _with_data(operand: cst.BaseExpression, ctx) -> Gate:
    """When the operand of a dynamic-shape op holds data: never when it is made by ``torch.tensor([])`` (a name
    bound to one, or ``torch.cat``/``torch.stack`` of such names), under the test of the arm that binds a name to
    another value where an ``if`` bound it to one in its other arm, always (None) otherwise (torch 2.13: Dynamo
    knows such a tensor's data, none, and the op's size; tests/cases/kinds/kb55)."""
    items: List[cst.BaseExpression] = [operand]
    if isinstance(operand, cst.Call) and ctx.resolve(operand.func) in ("torch.cat", "torch.stack") \
            and operand.args and isinstance(operand.args[0].value, (cst.List, cst.Tuple)):
        items = [e.value for e in operand.args[0].value.elements if isinstance(e, cst.Element)]
        if not items or len(items) != len(operand.args[0].value.elements):
            return None
    tests, words = [], []
    for item in items:
        if isinstance(item, cst.Call) and _empty(value_syntax.expr_of(item, ctx)):
            continue
        if not isinstance(item, cst.Name):
            return None
        name = item.value
        v = value_syntax.name_expr(name, ctx)
        if _empty(v):
            continue
        if v.op == Op.IFELSE and len(v.parts) == 3 and _empty(v.parts[1]) != _empty(v.parts[2]):
            test = v.parts[0] if _empty(v.parts[2]) else Expr(Op.NOT, parts=(v.parts[0],))
            tests.append(test)
            words.append(f"`{name}` holds data")
            continue
        return None
    if not tests:
        return NEVER
    test = tests[0] if len(tests) == 1 else Expr(Op.OR, parts=tuple(tests))
    return test, " or ".join(words)


def _empty(v: Expr) -> bool:
    return v.op == Op.TENSOR and factories.NO_DATA in v.parts
