"""Dynamo's own marking functions called inside compiled code.

``torch._dynamo.allow_in_graph(fn)``, ``disallow_in_graph(fn)`` and ``torch.compiler.disable(fn)``
are meant to run once, outside: called while Dynamo traces, each is a function marked as skipped
(GB0007), and calling what ``disable`` returned is a call of a disabled function (GB0098, or GB0099
with ``recursive=False``). Source: ``torch/_dynamo/trace_rules.py`` (``torch._dynamo`` is skipped),
``torch/_dynamo/decorators.py``; semantics.md §8.18.
"""
import libcst as cst

from gblint.core.semantics import DISABLE

from .base import Rule
from .notes import forget_local, local_note, note_local

#: from torch 2.14 the disable calls break with ids of their own (docs/semantics.md §8.11)
OWN_IDS = {"torch._dynamo.disable": "GB0376", "torch.compiler.disable": "GB0377"}
MARKERS = frozenset({"torch._dynamo.allow_in_graph", "torch.compiler.allow_in_graph", "torch._dynamo.disallow_in_graph",
                     *DISABLE})


def _disable_call(node, ctx):
    """For a call of ``torch.compiler.disable(fn, ...)``: whether it is recursive; else None."""
    if not isinstance(node, cst.Call) or ctx.resolve(node.func) not in DISABLE or not node.args:
        return None
    for a in node.args:
        if a.keyword is not None and a.keyword.value == "recursive":
            return not (isinstance(a.value, cst.Name) and a.value.value == "False")
    if len(node.args) >= 2 and node.args[1].keyword is None:
        return not (isinstance(node.args[1].value, cst.Name) and node.args[1].value.value == "False")
    return True


class DynamoApiInRegion(Rule):
    code = "GBL130"
    name = "dynamo-api-in-region"
    gb_ids = ("GB0007", "GB0098", "GB0099", "GB0376", "GB0377")
    node_types = (cst.Call, cst.Assign)
    summary = ("`torch._dynamo.allow_in_graph(fn)`, `disallow_in_graph(fn)` or `torch.compiler.disable(fn)` called "
               "inside compiled code, and the call of the function `disable` returned there.")
    why = ("Dynamo skips its own marking functions (GB0007): each call breaks the graph, and calling the disabled "
           "function it returned breaks it again (GB0098; GB0099 with recursive=False).")
    hint = ("Apply `allow_in_graph` / `torch.compiler.disable` once at module level (as a decorator, or "
            "`fn = torch.compiler.disable(fn)`) and only call the result in the region.")
    source = "torch/_dynamo/trace_rules.py; torch/_dynamo/decorators.py; semantics.md §8.18"
    use_instead = (
        'import torch\n'
        'def clip(t):\n'
        '    return t.clamp(-1, 1)\n'
        'g = torch._dynamo.allow_in_graph(clip)  # at import time, not while tracing\n'
        '@torch.compile\n'
        'def f(x):\n'
        '    return g(x) * 2\n'
    )
    measured = "tests/fixtures/measured/v34_allow_disable_in_region.py"
    examples_fire = (
        "import torch\n"
        "def clip(t):\n"
        "    return t.clamp(-1, 1)\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    g = torch._dynamo.allow_in_graph(clip)  # expect: GBL130\n"
        "    h = torch.compiler.disable(clip)  # expect: GBL130\n"
        "    return g(x) + h(x)  # expect: GBL130\n",
    )
    examples_clean = (
        "import torch\n"
        "def clip(t):\n"
        "    return t.clamp(-1, 1)\n"
        "g = torch._dynamo.allow_in_graph(clip)\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return g(x) * 2\n",
    )

    def check(self, node, ctx):
        if isinstance(node, cst.Assign):
            recursive = _disable_call(node.value, ctx)
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    if recursive is None:
                        forget_local(ctx, "disabled", t.target.value)
                    else:
                        note_local(ctx, "disabled", t.target.value, "recursive" if recursive else "shallow")
            return None
        sites = []
        q = ctx.resolve(node.func)
        if q in MARKERS:
            gb = OWN_IDS.get(q, "GB0007") if ctx.holds("disable-call-own-ids") else "GB0007"
            sites.append(self.site(node, f"`{q}(...)` called inside the region", gb_ids=(gb,)))
        recursive = _disable_call(node.func, ctx)
        if recursive is None and isinstance(node.func, cst.Name):
            how = local_note(ctx, "disabled", node.func.value)
            recursive = None if how is None else how == "recursive"
        if recursive is not None:
            sites.append(self.site(node, "calls the function `torch.compiler.disable` returned inside the region",
                                   gb_ids=("GB0098",) if recursive else ("GB0099",)))
        return sites or None
