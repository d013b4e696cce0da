"""Tensor methods and constructors Dynamo refuses: in-place resizes, ``share_memory_``,
``retain_grad``, sparse constructors, ``requires_grad`` assignment.

Source: ``torch/_dynamo/variables/tensor.py`` (``method_resize_``, ``method_share_memory_``...),
``variables/torch.py`` (sparse constructors); gb_registry.md "yes" entries GB0108, GB0126,
GB0127, GB0129, GB0130, GB0206, GB0374, GB4197. ``t.set_()`` does not break in 2.13 (semantics.md §1).
"""
import libcst as cst

from gblint.abstract.tensors import maybe_tensor

from .base import Rule

METHODS = {
    "resize_": "GB0126", "resize_as_": "GB0127", "sparse_resize_": "GB0129",
    "sparse_resize_and_clear_": "GB0130", "share_memory_": "GB4197", "retain_grad": "GB0108",
}
SPARSE = {"torch.sparse_coo_tensor", "torch.sparse_csr_tensor", "torch.sparse_csc_tensor",
          "torch.sparse_bsr_tensor", "torch.sparse_bsc_tensor", "torch.sparse_compressed_tensor"}


class UnsupportedTensorMethod(Rule):
    code = "GBL125"
    name = "unsupported-tensor-method"
    gb_ids = ("GB0126", "GB0127", "GB0129", "GB0130", "GB4197", "GB0108", "GB0374", "GB0206")
    node_types = (cst.Call, cst.Assign)
    summary = ("A tensor method or constructor Dynamo does not trace: `resize_`, `resize_as_`, `share_memory_`, "
               "`retain_grad`, sparse constructors, or assigning `t.requires_grad`.")
    why = "Each is refused by Dynamo's tensor tracker: the graph ends here."
    hint = "Do storage changes and sparse construction outside the compiled region; use out-of-place ops inside."
    source = "torch/_dynamo/variables/tensor.py; docs/gb_registry.md"
    use_instead = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x, buf):\n"
        "    buf = buf[:4] * 1  # out of place: no storage change\n"
        "    return buf + x.sum()\n"
    )
    measured = "tests/fixtures/measured/r05_resize_in_region.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x, buf, idx, vals):\n"
        "    buf = buf * 1\n"
        "    buf.resize_(4)  # expect: GBL125\n"
        "    s = torch.sparse_coo_tensor(idx, vals)  # expect: GBL125\n"
        "    return buf + s.to_dense().sum()\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    y = x.clone()\n"
        "    y.set_(x)\n"
        "    return y.reshape(4)\n",
    )

    def check(self, node, ctx):
        if isinstance(node, cst.Assign):
            for t in node.targets:
                tgt = t.target
                if isinstance(tgt, cst.Attribute) and tgt.attr.value == "requires_grad":
                    k = ctx.kind(tgt.value)
                    if maybe_tensor(k):
                        return self.site(tgt, "assignment to `t.requires_grad`", gb_ids=("GB0206",), needs=k)
            return None
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in METHODS:
            k = ctx.kind(func.value)
            if maybe_tensor(k):
                return self.site(node, f"`.{func.attr.value}()` on a tensor", gb_ids=(METHODS[func.attr.value],),
                                 needs=k)
            return None
        q = ctx.resolve(func)
        if q in SPARSE:
            return self.site(node, f"`{q}(...)` creates a sparse tensor", gb_ids=("GB0374",))
        return None
