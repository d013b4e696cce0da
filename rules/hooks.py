"""Training-loop machinery inside compiled code: module hooks registered or removed there,
submodules with backward hooks, optimizer steps.

Source: ``torch/utils/hooks.py`` (``RemovableHandle``: registering a hook in the region is a
``setattr()`` on an unsupported type, GB0467; a handle made outside the frame cannot be
represented, GB0013), ``torch/_dynamo/variables/distributed.py`` (``BackwardHookVariable``:
module-level backward hooks need compiled autograd, GB0083), ``torch/optim/optimizer.py``
(``step`` breaks with ``graph_break()`` in its wrapper, ``zero_grad`` is skipped, GB0008);
semantics.md §8.17.
"""
import libcst as cst

from gblint.core.names import dotted

from .base import Rule
from .notes import file_note, forget_local, instance_classes, local_note, note_file, note_local

REGISTER_HOOKS = frozenset({"register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
                            "register_full_backward_pre_hook", "register_backward_hook"})
# what calling a module with such a hook costs (measured on 2.13): full hooks GB0083, the old
# non-full register_backward_hook GB0104
BACKWARD_HOOKS = {"register_full_backward_hook": "GB0083", "register_full_backward_pre_hook": "GB0083",
                  "register_backward_hook": "GB0104"}
OPTIMIZER_NAMES = frozenset({"optimizer", "optim", "opt"})


def _register_call(node) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
        node.func.attr.value in REGISTER_HOOKS


class ModuleHookInRegion(Rule):
    code = "GBL128"
    name = "module-hook-in-region"
    gb_ids = ("GB0467",)
    node_types = (cst.Call, cst.Assign)
    summary = "A module hook registered inside compiled code (`m.register_forward_hook(...)`...)."
    why = "Registering builds a `RemovableHandle`, a `setattr()` Dynamo refuses (GB0467): the graph breaks."
    hint = "Register and remove hooks outside the compiled function (once, around the calls that need them)."
    source = "torch/utils/hooks.py: RemovableHandle; semantics.md §8.17"
    use_instead = (
        'import torch\n'
        'def show(m, args):\n'
        '    return None\n'
        '@torch.compile\n'
        'def run(layer, x):\n'
        '    return layer(x)\n'
        'def setup(layer):\n'
        '    layer.register_forward_pre_hook(show)  # once, before the compiled calls\n'
    )
    measured = "tests/fixtures/measured/v35_hooks_in_region.py"
    examples_fire = (
        "import torch\n"
        "def show(m, args):\n"
        "    return None\n"
        "@torch.compile\n"
        "def run(layer, x):\n"
        "    layer.register_forward_pre_hook(show)  # expect: GBL128\n"
        "    return layer(x)\n",
    )
    examples_clean = (
        "import torch\n"
        "def show(m, args):\n"
        "    return None\n"
        "@torch.compile\n"
        "def run(layer, x):\n"
        "    return layer(x)\n"
        "def main(layer, x):\n"
        "    h = layer.register_forward_pre_hook(show)\n"
        "    run(layer, x)\n"
        "    h.remove()\n",
    )

    def check(self, node, ctx):
        if isinstance(node, cst.Assign):
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    if _register_call(node.value):
                        note_local(ctx, "hook-handle", t.target.value)
                    else:
                        forget_local(ctx, "hook-handle", t.target.value)
            return None
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in REGISTER_HOOKS:  # nn.Module methods: no tensor has them
            return self.site(node, f"`.{func.attr.value}(...)` registers a module hook")
        return None


class HookHandleUse(Rule):
    code = "GBL138"
    name = "hook-handle-use"
    gb_ids = ("GB0013",)
    node_types = (cst.Call,)
    effect = "skip"
    summary = "`handle.remove()` inside compiled code of a hook handle registered there (after that break)."
    why = ("The handle was made by a call that broke the graph, so it lives in the resume frame, made outside it, "
           "and Dynamo cannot represent it (GB0013): not at an instruction it can resume at, so the graph up to "
           "the last checkpoint is kept and the rest runs eagerly (the whole frame without a checkpoint).")
    hint = "Register and remove hooks outside the compiled function (once, around the calls that need them)."
    source = "torch/_dynamo/variables/builder.py: wrap_removable_handle; semantics.md §8.17"
    use_instead = (
        'import torch\n'
        'def show(m, args):\n'
        '    return None\n'
        '@torch.compile\n'
        'def run(layer, x):\n'
        '    return layer(x)\n'
        'def step(layer, x):\n'
        '    h = layer.register_forward_pre_hook(show)\n'
        '    out = run(layer, x)\n'
        '    h.remove()  # the handle is used outside the compiled call\n'
        '    return out\n'
    )
    measured = "tests/fixtures/measured/v35_hooks_in_region.py"
    examples_fire = (
        "import torch\n"
        "def show(m, args):\n"
        "    return None\n"
        "@torch.compile\n"
        "def run(layer, x):\n"
        "    h = layer.register_forward_pre_hook(show)  # expect: GBL128\n"
        "    out = layer(x)\n"
        "    h.remove()  # expect: GBL138\n"
        "    return out\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def run(layer, x, jobs):\n"
        "    h = jobs.pop()\n"
        "    h.remove()\n"
        "    return layer(x)\n",
    )

    def check(self, node, ctx):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "remove" and not node.args \
                and isinstance(func.value, cst.Name) and local_note(ctx, "hook-handle", func.value.value):
            return self.site(node, f"`{func.value.value}.remove()` of a hook handle made by a call that broke the "
                                   "graph", outcome="tail")
        return None


class BackwardHookedModule(Rule):
    code = "GBL129"
    name = "backward-hooked-module"
    gb_ids = ("GB0083", "GB0104")
    node_types = (cst.Call,)
    summary = ("A call, inside compiled code, of a submodule that got a module backward hook "
               "(`self.body.register_full_backward_hook(...)` in `__init__`).")
    why = ("Module-level backward hooks need compiled autograd (GB0083; GB0104 for the old non-full "
           "`register_backward_hook`): the graph breaks at the call, and under fullgraph=True the call fails.")
    hint = ("Use tensor hooks (`out.register_hook(...)`) on the submodule's output, or enable compiled autograd "
            "(`torch._dynamo.config.compiled_autograd = True`).")
    source = "torch/_dynamo/variables/distributed.py: BackwardHookVariable.create; semantics.md §8.17"
    use_instead = (
        'import torch\n'
        'class Net(torch.nn.Module):\n'
        '    def __init__(self):\n'
        '        super().__init__()\n'
        '        self.body = torch.nn.Linear(3, 3)\n'
        '    def forward(self, x):\n'
        '        return self.body(x * 2)\n'
        'def main():\n'
        '    net = torch.compile(Net())\n'
        '    out = net(torch.ones(2, 3, requires_grad=True))\n'
        '    out.register_hook(lambda grad: None)  # a tensor hook, outside the compiled call\n'
    )
    measured = "tests/fixtures/measured/v42_backward_hook.py"
    examples_fire = (
        "import torch\n"
        "class Net(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.body = torch.nn.Linear(3, 3)\n"
        "        self.body.register_full_backward_hook(lambda m, gi, go: None)\n"
        "    def forward(self, x):\n"
        "        return self.body(x * 2)  # expect: GBL129\n"
        "def main():\n"
        "    net = torch.compile(Net())\n"
        "    net(torch.ones(2, 3))\n",
    )
    examples_clean = (
        "import torch\n"
        "class Net(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.body = torch.nn.Linear(3, 3)\n"
        "        self.body.register_forward_hook(lambda m, i, o: None)\n"
        "    def forward(self, x):\n"
        "        return self.body(x * 2)\n"
        "def main():\n"
        "    net = torch.compile(Net())\n"
        "    net(torch.ones(2, 3))\n",
    )

    def check(self, node, ctx):
        func = node.func
        cls = ctx.class_info.qualname if ctx.class_info is not None else None
        if cls is None or not ctx.self_name:
            return None
        if isinstance(func, cst.Attribute) and func.attr.value in BACKWARD_HOOKS:
            attr = _self_attr(func.value, ctx)
            if attr is not None:
                note_file(ctx, ("backward-hook", cls, attr), BACKWARD_HOOKS[func.attr.value])
            return None
        attr = _self_attr(func, ctx)
        gb = file_note(ctx, ("backward-hook", cls, attr)) if attr is not None else None
        if gb:
            return self.site(node, f"`self.{attr}(...)` calls a module with a backward hook", gb_ids=(gb,))
        return None


def _self_attr(node, ctx):
    """``NAME`` when ``node`` is ``self.NAME``, else None."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == ctx.self_name:
        return node.attr.value
    return None


class OptimizerCall(Rule):
    code = "GBL132"
    name = "optimizer-in-region"
    gb_ids = ("GB0025", "GB0008")
    node_types = (cst.Call,)
    summary = "`optimizer.step()` or `optimizer.zero_grad()` of a `torch.optim` optimizer inside compiled code."
    why = ("`Optimizer.step` breaks the graph in its wrapper (`torch._dynamo.graph_break()`, GB0025) and "
           "`zero_grad` is a function Dynamo skips (GB0008): each call breaks the graph.")
    hint = "Compile the forward and loss; call `optimizer.step()` and `zero_grad()` outside the compiled function."
    source = "torch/optim/optimizer.py: Optimizer.profile_hook_step, zero_grad; semantics.md §8.17"
    use_instead = (
        'import torch\n'
        'model = torch.nn.Linear(3, 1)\n'
        'opt = torch.optim.SGD(model.parameters(), lr=0.1)\n'
        '@torch.compile\n'
        'def loss_of(x):\n'
        '    return model(x).sum()\n'
        'def update(x):\n'
        '    loss = loss_of(x)\n'
        '    loss.backward()\n'
        '    opt.step()  # the optimizer steps outside the compiled call\n'
        '    opt.zero_grad()\n'
    )
    measured = "tests/fixtures/measured/v33_optimizer_in_region.py"
    examples_fire = (
        "import torch\n"
        "model = torch.nn.Linear(3, 1)\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "@torch.compile\n"
        "def update(loss):\n"
        "    opt.step()  # expect: GBL132\n"
        "    opt.zero_grad()  # expect: GBL132\n"
        "    return loss * 1\n",
    )
    examples_clean = (
        "import torch\n"
        "model = torch.nn.Linear(3, 1)\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    model.zero_grad()\n"
        "    return model(x)\n",
    )

    def check(self, node, ctx):
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in ("step", "zero_grad"):
            return None
        classes = instance_classes(func.value, ctx)
        optim = any(c.startswith("torch.optim.") and not c.startswith("torch.optim.lr_scheduler.") for c in classes)
        last = (dotted(func.value) or "").rsplit(".", 1)[-1]
        if optim or (not classes and (last in OPTIMIZER_NAMES or last.endswith("_optimizer"))):
            gb = "GB0025" if func.attr.value == "step" else "GB0008"
            return self.site(node, f"`{dotted(func) or func.attr.value}()` of an optimizer", gb_ids=(gb,))
        return None
