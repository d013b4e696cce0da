"""Explicit markers: ``torch._dynamo.graph_break()``, ``skip_frame()``, ``step_unsupported()``.

Source: ``torch/_dynamo/decorators.py`` and ``variables/functions.py`` (PyTorch 2.13);
semantics.md §1 table.
"""
import libcst as cst

from .base import Rule


class _MarkerRule(Rule):
    node_types = (cst.Call,)
    marker = ""
    aliases = {}
    outcome = "resume"

    def check(self, node, ctx):
        q = ctx.resolve(node.func)
        if q == self.marker:
            return self.site(node, f"`{self.marker}()`", outcome=self.outcome, gb_ids=self.gb_ids[:1])
        if q in self.aliases:
            return self.site(node, f"`{q}()`", outcome=self.outcome, gb_ids=(self.aliases[q],))
        return None


class ExplicitGraphBreak(_MarkerRule):
    code = "GBL101"
    name = "explicit-graph-break"
    gb_ids = ("GB0025", "GB0030")
    marker = "torch._dynamo.graph_break"
    aliases = {"torch._dynamo.comptime.comptime.graph_break": "GB0030", "torch._dynamo.comptime.graph_break": "GB0030"}
    summary = "A call of `torch._dynamo.graph_break()` inside compiled code."
    why = "Ends the current graph: +1 graph and a resume frame; a frame skip inside loops, `try` or some `with` blocks."
    hint = "Remove the `torch._dynamo.graph_break()` call."
    source = "torch/_dynamo/decorators.py: graph_break; semantics.md §1"
    use_instead = (
        "import torch\n"
        "import torch._dynamo as dynamo\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    x = x + 1\n"
        "    return x * 2\n"
    )
    measured = "tests/cases/examples/003_torch_alias_break_mid_function.py"
    examples_fire = (
        "import torch\n"
        "import torch._dynamo as dynamo\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    x = x + 1\n"
        "    dynamo.graph_break()  # expect: GBL101\n"
        "    return x * 2\n",
        "import torch\n"
        "from torch._dynamo import graph_break as gb\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    for _ in range(3):\n"
        "        x = x * 2\n"
        "        gb()  # expect: GBL201\n"
        "    return x\n",
    )
    examples_clean = (
        "import torch\n"
        "def f(x):\n"
        "    torch._dynamo.graph_break()\n"
        "    return x\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    if not torch.compiler.is_compiling():\n"
        "        torch._dynamo.graph_break()\n"
        "    return x\n",
    )


class SkipFrameMarker(_MarkerRule):
    code = "GBL121"
    name = "skip-frame-marker"
    gb_ids = ("GB4297",)
    marker = "torch._dynamo.skip_frame"
    outcome = "skip"
    effect = "skip"
    torch_versions = ">=2.13"
    summary = "A call of `torch._dynamo.skip_frame()`: the whole frame runs eagerly."
    why = "Dynamo throws away the graph traced so far and skips the frame."
    hint = "Remove the `torch._dynamo.skip_frame()` call, or use `torch.compiler.disable` on a helper."
    source = "torch/_dynamo/decorators.py: skip_frame; semantics.md §1"
    use_instead = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    x = x.sin()\n"
        "    return x\n"
    )
    measured = "tests/cases/examples/004_skip_frame_marker.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    x = x.sin()\n"
        "    torch._dynamo.skip_frame()  # expect: GBL121\n"
        "    return x\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return x.sin()\n",
    )


class StepUnsupportedMarker(_MarkerRule):
    code = "GBL122"
    name = "step-unsupported-marker"
    gb_ids = ("GB4636",)
    marker = "torch._dynamo.step_unsupported"
    outcome = "tail"
    torch_versions = ">=2.13"
    summary = "A call of `torch._dynamo.step_unsupported()`: graph up to the last checkpoint, rest eager."
    why = "Dynamo keeps the graph up to the last checkpoint (>= 2 ops) and runs the rest of the frame eagerly; without a checkpoint the frame is skipped."
    hint = "Remove the `torch._dynamo.step_unsupported()` call."
    source = "torch/_dynamo/decorators.py: step_unsupported; semantics.md §1"
    use_instead = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x, w):\n"
        "    h = torch.matmul(x, w)\n"
        "    h = h.relu()\n"
        "    return h + x\n"
    )
    measured = "tests/cases/examples/005_step_unsupported_marker.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x, w):\n"
        "    h = torch.matmul(x, w)\n"
        "    h = h.relu()\n"
        "    torch._dynamo.step_unsupported()  # expect: GBL122\n"
        "    return h + x\n",
    )
    examples_clean = (
        "import torch\n"
        "def f(x):\n"
        "    torch._dynamo.step_unsupported()\n"
        "    return x\n",
    )
