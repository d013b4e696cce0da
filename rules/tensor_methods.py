"""Tensor methods, torch functions and constructors Dynamo refuses: in-place resizes, ``share_memory_``,
``retain_grad``, sparse constructors, ``requires_grad`` assignment, ``torch.is_inference_mode_enabled()``, and the
Tensor methods returning a Python scalar Dynamo does not model (``storage_offset()``, ``is_neg()``).

Source: ``torch/_dynamo/variables/tensor.py`` (``method_resize_``, ``method_share_memory_``...: read by
scripts/update_torch_ops.py, ``refused``), ``variables/torch.py`` (sparse constructors,
``handle_is_inference_mode_enabled``); gb_registry.md "yes" entries GB0046, GB0108, GB0126, GB0127, GB0129, GB0130,
GB0206, GB0208, GB0374, GB4197. ``t.set_()`` does not break in 2.13 (semantics.md §1). Measured:
tests/cases/kinds/kd6.
"""
import libcst as cst

from gblint.abstract.tensors import REFUSED_FUNCS, REFUSED_METHODS, UNMODELLED_SCALAR_METHODS, maybe_tensor

from .base import Rule

#: ``retain_grad`` is refused as an attribute (``method_attr_retain_grad``), which the reading of torch leaves out
METHODS = {**REFUSED_METHODS, "retain_grad": "GB0108"}
#: less ``is_nonzero``, which reads tensor data first (GB0033: rules/indexing.py reports it)
SCALAR_METHODS = UNMODELLED_SCALAR_METHODS - {"is_nonzero"}
SPARSE = {"torch.sparse_coo_tensor", "torch.sparse_csr_tensor", "torch.sparse_csc_tensor",
          "torch.sparse_bsr_tensor", "torch.sparse_bsc_tensor", "torch.sparse_compressed_tensor"}


class UnsupportedTensorMethod(Rule):
    code = "GBL125"
    name = "unsupported-tensor-method"
    gb_ids = ("GB0126", "GB0127", "GB0129", "GB0130", "GB4197", "GB0108", "GB0374", "GB0206", "GB0046", "GB0208")
    node_types = (cst.Call, cst.Assign)
    summary = ("A tensor method, torch function or constructor Dynamo does not trace: `resize_`, `resize_as_`, "
               "`share_memory_`, `retain_grad`, `storage_offset()` and other Python-valued methods it does not "
               "model, `torch.is_inference_mode_enabled()`, sparse constructors, or assigning `t.requires_grad`.")
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
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    if torch.is_inference_mode_enabled():  # expect: GBL125\n"
        "        return x\n"
        "    return x + 1\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x: torch.Tensor):\n"
        "    return x + x.storage_offset() + torch.is_neg(x)  # expect: GBL125\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    y = x.clone()\n"
        "    y.set_(x)\n"
        "    return y.reshape(4)\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return x + x.element_size() + x.get_device() + x.is_contiguous() + x.data_ptr() * 0\n",
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
        q = ctx.resolve(func)
        receiver, spelled = None, ""
        if isinstance(func, cst.Attribute) and q is None and func.attr.value in SCALAR_METHODS:
            receiver, spelled = func.value, f"`.{func.attr.value}()`"
        elif q and q.rpartition(".")[0] in ("torch", "torch.Tensor") and q.rpartition(".")[2] in SCALAR_METHODS \
                and node.args and node.args[0].keyword is None:
            receiver, spelled = node.args[0].value, f"`{q}(...)`"  # `torch.is_neg(x)`, `torch.Tensor.storage_offset(x)`
        if receiver is not None:
            k = ctx.kind(receiver)
            return self.site(node, f"{spelled} returns a Python value Dynamo does not model", gb_ids=("GB0208",),
                             needs=k) if maybe_tensor(k) else None
        if q in REFUSED_FUNCS:
            return self.site(node, f"`{q}()` is refused by Dynamo", gb_ids=(REFUSED_FUNCS[q],))
        if q in SPARSE:
            return self.site(node, f"`{q}(...)` creates a sparse tensor", gb_ids=("GB0374",))
        return None
