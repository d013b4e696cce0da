"""Tensor -> Python value: ``.item()``, ``float/int/bool(t)``, ``.tolist()``, ``.numpy()``.

Source: ``torch/_dynamo/variables/tensor.py`` (``method_item``, ``method_tolist``,
``method_numpy``), ``config.capture_scalar_outputs`` / ``trace_numpy``; semantics.md §1, §7.1.
"""
import libcst as cst

from gblint.abstract.tensors import integer_tensor, maybe_tensor, numpy_folded, numpy_made

from .base import Rule


class ScalarExtraction(Rule):
    code = "GBL102"
    name = "tensor-item"
    gb_ids = ("GB0124", "GB0033")  # GB0033: a NumPy array's (a 0-d tensor's data read through torch._numpy)
    node_types = (cst.Call,)
    summary = ("`t.item()`, `float(t)`, `int(t)` or `bool(t)` on a tensor, or `int(np.prod(shape))` (a NumPy "
               "reduction), with `capture_scalar_outputs=False`.")
    why = "The value must be known in Python, so the graph ends here: +1 graph (a frame skip inside a loop)."
    hint = ("Keep the value a tensor (use `torch.where` / tensor arithmetic), or set "
            "`torch._dynamo.config.capture_scalar_outputs = True`.")
    source = ("torch/_dynamo/variables/tensor.py: method_item; semantics.md §1. Under fullgraph=True the scalar "
              "is captured symbolically (measured on 2.13): no error unless Python branches on it.")
    use_instead = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    m = x.mean()  # stays a 0-d tensor\n"
        "    p = x.abs().max()\n"
        "    return x - m - p\n"
    )
    measured = "tests/cases/examples/060_scalar_extraction.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    m = x.mean().item()  # expect: GBL102\n"
        "    p = float(x.abs().max())  # expect: GBL102\n"
        "    return x - m - p\n",
    )
    examples_clean = (
        "import torch\n"
        "torch._dynamo.config.capture_scalar_outputs = True\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return x - x.mean().item()\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x, n: int):\n"
        "    return x * float(n) + int(x.shape[0])\n",
    )

    def check(self, node, ctx):
        if ctx.config("capture_scalar_outputs", False):
            return None
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "item" and not node.args:
            if ctx.kind(func.value) != "P":
                return self.site(node, "`.item()` turns a tensor into a Python scalar", python_value=True,
                                 capturable=True, gb_ids=("GB0124",))
            return None
        q = ctx.resolve(func)
        if q in ("float", "int", "bool", "complex") and len(node.args) == 1:
            k = ctx.kind(node.args[0].value)
            arg = node.args[0].value
            if maybe_tensor(k) and not numpy_folded(arg, ctx):
                # an ndarray's conversion reads its data through the 0-d tensor (GB0033; measured: kinds kd4)
                ids = ("GB0033",) if numpy_made(arg, ctx) else ("GB0124",)
                return self.site(node, f"`{q}(tensor)` turns a tensor into a Python scalar", needs=k, python_value=True,
                                 capturable=True, gb_ids=ids)
        return None


class ToList(Rule):
    code = "GBL103"
    name = "tensor-tolist"
    gb_ids = ("GB0109", "GB0033")  # a float tensor; an integer one breaks at each element's `.item()`
    node_types = (cst.Call,)
    summary = "`t.tolist()` on a tensor."
    why = "Builds Python numbers from tensor data: the graph ends here."
    hint = "Keep the data in a tensor; index it instead of converting it to a list."
    source = "torch/_dynamo/variables/tensor.py: method_tolist; semantics.md §1"
    use_instead = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    top = x.max()\n"
        "    return x / top\n"
    )
    measured = "tests/cases/examples/060_scalar_extraction.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    top = max(x.tolist())  # expect: GBL103\n"
        "    return x / top\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x, sizes: list):\n"
        "    return x * len(sizes)\n",
    )

    def check(self, node, ctx):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "tolist" and not node.args:
            if ctx.kind(func.value) != "P":
                ids = ("GB0033",) if integer_tensor(func.value, ctx) else ("GB0109",)
                return self.site(node, "`.tolist()` turns a tensor into Python numbers", python_value=True, gb_ids=ids)
        return None


class NumpyConversion(Rule):
    code = "GBL104"
    name = "tensor-numpy"
    gb_ids = ("GB0105", "GB0293", "GB0231")
    node_types = (cst.Call,)
    summary = "`t.numpy()` or a `numpy` call with `torch._dynamo.config.trace_numpy = False`."
    why = "With NumPy tracing off, the conversion and every NumPy call break the graph."
    hint = "Leave `trace_numpy` on (the default) or use torch ops instead of NumPy."
    source = "torch/_dynamo/variables/tensor.py: method_numpy; semantics.md §7.1"
    use_instead = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return torch.linalg.norm(x)\n"
    )
    measured = "tests/cases/examples/062_numpy_trace_numpy_off.py"
    examples_fire = (
        "import numpy as np\n"
        "import torch\n"
        "torch._dynamo.config.trace_numpy = False\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    arr = x.numpy()  # expect: GBL104\n"
        "    return np.linalg.norm(arr)  # expect: GBL104\n",
    )
    examples_clean = (
        "import numpy as np\n"
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return torch.as_tensor(np.sum(x.numpy()))\n",
    )

    def check(self, node, ctx):
        if ctx.config("trace_numpy", True):
            return None
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "numpy" and not node.args:
            if ctx.kind(func.value) != "P":
                return self.site(node, "`.numpy()` with trace_numpy=False", gb_ids=("GB0105",))
        q = ctx.resolve(func) or ""
        if q == "torch.from_numpy":
            return self.site(node, "`torch.from_numpy(...)` with trace_numpy=False", gb_ids=("GB0231",))
        if q.startswith("numpy."):
            return self.site(node, f"`{q}(...)` with trace_numpy=False", gb_ids=("GB0293",))
        return None
