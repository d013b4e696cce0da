"""Builtins and skipped modules: ``print``, ``repr``/``str`` of tensors, f-strings,
``logging``, ``warnings``/``time``/``random``/``os``, ``copy.deepcopy``.

Source: ``torch/_dynamo/trace_rules.py`` (skip lists), ``variables/builtin.py``,
``variables/misc.py`` (logging); semantics.md §1.
"""
import libcst as cst

from gblint.model import LoggerValue
from gblint.names import dotted
from gblint.tensors import maybe_tensor

from .base import Rule

SKIPPED_MODULES = ("warnings.", "time.", "random.", "os.", "pdb.", "tqdm.", "pandas.", "socket.", "subprocess.",
                   "shutil.", "json.", "pickle.", "datetime.", "uuid.", "threading.", "sys.stdout", "sys.stderr",
                   "traceback.", "psutil.")
NOT_SKIPPED = {"os.environ.get", "random.Random", "warnings.catch_warnings", "os.getenv", "time.monotonic_ns"}
SKIPPED_CALLS = {"torch.manual_seed", "torch.seed", "torch.cuda.manual_seed", "torch.cuda.manual_seed_all",
                 "torch.cuda.synchronize", "input", "breakpoint", "open", "exec"}
LOGGER_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}


class PrintCall(Rule):
    code = "GBL107"
    name = "print-call"
    gb_ids = ("GB0059",)
    node_types = (cst.Call,)
    summary = "`print(...)` or `str(tensor)` inside compiled code."
    why = "Dynamo cannot trace the builtin: the graph ends here (a frame skip inside a loop)."
    hint = "Remove the print, guard it with `if not torch.compiler.is_compiling():`, or log outside the region."
    source = "torch/_dynamo/variables/builtin.py; semantics.md §1"
    use_instead = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return x + 1\n"
        "def step(x):\n"
        "    print('step', x.shape)  # outside the compiled region\n"
        "    return f(x)\n"
    )
    measured = "tests/cases/examples/065_print_repr_logging.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    print('step', x.shape)  # expect: GBL107\n"
        "    return x + 1\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    if not torch.compiler.is_compiling():\n"
        "        print('eager path')\n"
        "    return x + 1\n",
        "import torch\n"
        "torch._dynamo.config.reorderable_logging_functions = {print}\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    print('step')\n"
        "    return x + 1\n",
    )

    def check(self, node, ctx):
        q = ctx.resolve(node.func)
        if q == "print":
            if "print" in (ctx.config("reorderable_logging_functions", ()) or ()):
                return None  # Dynamo moves it after the graph instead of breaking
            return self.site(node, "`print(...)`")
        if q == "str" and len(node.args) == 1:
            k = ctx.kind(node.args[0].value)
            if maybe_tensor(k):
                return self.site(node, "`str(tensor)`", needs=k)
        return None


class ReprOfTensor(Rule):
    code = "GBL108"
    name = "tensor-repr"
    gb_ids = ("GB0569",)
    node_types = (cst.Call,)
    summary = "`repr(tensor)` inside compiled code."
    why = "Formatting needs the tensor's values: the graph ends here."
    hint = "Format the tensor outside the compiled region."
    source = "torch/_dynamo/variables/builtin.py: call_repr; semantics.md §1"
    use_instead = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return x + 1\n"
        "def step(x):\n"
        "    y = f(x)\n"
        "    return y, repr(y)  # outside the compiled region\n"
    )
    measured = "tests/cases/examples/065_print_repr_logging.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    x = x + 1\n"
        "    text = repr(x)  # expect: GBL108\n"
        "    return x, text\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return x, repr(x.shape)\n",
    )

    def check(self, node, ctx):
        if ctx.resolve(node.func) == "repr" and len(node.args) == 1:
            k = ctx.kind(node.args[0].value)
            if maybe_tensor(k):
                return self.site(node, "`repr(tensor)`", needs=k)
        return None


class FormatTensor(Rule):
    code = "GBL123"
    name = "tensor-format"
    gb_ids = ("GB0088",)
    effect = "skip"
    node_types = (cst.FormattedString, cst.BinaryOperation)
    summary = "An f-string or `%` formatting of a tensor value."
    why = ("Formatting raises inside Dynamo's tracer (Observed exception); the frame cannot resume and is skipped. "
           "An f-string is formatted lazily: the failure is reported where the string is first used.")
    hint = "Format the value outside the compiled region, or format `t.shape` / a constant instead."
    source = "torch/_dynamo/variables/builtin.py (str.format / __format__); semantics.md §1"
    use_instead = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    x = x.relu()\n"
        "    label = f'value of shape {tuple(x.shape)}'\n"
        "    return x + len(label)\n"
    )
    measured = "tests/cases/examples/067_fstring_of_tensor.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    x = x.relu()\n"
        "    label = f'value={x.sum()}'\n"
        "    return x + len(label)  # expect: GBL123\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return x, 'mean=%s' % x.mean()  # expect: GBL123\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    label = f'shape={x.shape}'\n"
        "    return x + len(label)\n",
    )

    def check(self, node, ctx):
        if isinstance(node, cst.FormattedString):
            for part in node.parts:
                if isinstance(part, cst.FormattedStringExpression):
                    k = ctx.kind(part.expression)
                    if maybe_tensor(k):
                        return self.site(node, "an f-string formats a tensor", needs=k, outcome="skip")
            return None
        if isinstance(node.operator, cst.Modulo) and isinstance(node.left, (cst.SimpleString, cst.ConcatenatedString)):
            right = node.right
            items = [e.value for e in right.elements] if isinstance(right, cst.Tuple) else [right]
            for item in items:
                k = ctx.kind(item)
                if maybe_tensor(k):
                    return self.site(node, "`%` formatting of a tensor", needs=k, outcome="skip",
                                     gb_ids=("GB0088", "GB0208"))
        return None


class LoggingCall(Rule):
    code = "GBL109"
    name = "logging-call"
    gb_ids = ("GB0291",)
    node_types = (cst.Call,)
    summary = "A `logging` call (`logger.info(...)`, `logging.warning(...)`) inside compiled code."
    why = "logging.Logger methods are not traced: the graph ends here."
    hint = ("Log outside the compiled region, or list the function in "
            "`torch._dynamo.config.reorderable_logging_functions`.")
    source = "torch/_dynamo/variables/misc.py: LoggingLoggerVariable; semantics.md §1"
    use_instead = (
        "import logging\n"
        "import torch\n"
        "log = logging.getLogger(__name__)\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return x + 1\n"
        "def step(x):\n"
        "    log.info('step')  # outside the compiled region\n"
        "    return f(x)\n"
    )
    measured = "tests/cases/examples/065_print_repr_logging.py"
    examples_fire = (
        "import logging\n"
        "import torch\n"
        "log = logging.getLogger(__name__)\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    log.info('step')  # expect: GBL109\n"
        "    return x + 1\n",
    )
    examples_clean = (
        "import logging\n"
        "import torch\n"
        "log = logging.getLogger(__name__)\n"
        "log.info('import time')\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return x + 1\n",
    )

    def check(self, node, ctx):
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in LOGGER_METHODS:
            return None
        reorderable = ctx.config("reorderable_logging_functions", ()) or ()
        q = ctx.resolve(func) or ""
        if q.startswith("logging."):
            if q in reorderable:
                return None
            return self.site(node, f"`{q}(...)`")
        base = func.value
        if isinstance(base, cst.Name):
            ref = ctx.builder.summary.module_names.get(base.value)
            local = ctx.values.get(base.value)
            if (isinstance(ref, LoggerValue) and ctx.lookup(base.value) is None) or isinstance(local, LoggerValue):
                return self.site(node, f"`{base.value}.{func.attr.value}(...)` (logging.Logger)")
            if base.value in ("logger", "log", "_logger", "LOGGER", "_log") and ctx.lookup(base.value) is None:
                return self.site(node, f"`{base.value}.{func.attr.value}(...)` (logging.Logger)")
        if isinstance(base, cst.Attribute) and base.attr.value in ("logger", "log", "_logger"):
            return self.site(node, f"`{dotted(func) or func.attr.value}(...)` (logging.Logger)")
        return None


class SkippedModuleCall(Rule):
    code = "GBL110"
    name = "skipped-module-call"
    gb_ids = ("GB0007", "GB0230", "GB0270", "GB0280")
    node_types = (cst.Call,)
    summary = "A call into a module Dynamo skips (`warnings`, `time`, `random`, `os`...) or `torch.manual_seed`."
    why = "Functions of skipped files run in Python: the graph ends at the call."
    hint = "Call it outside the compiled region, or pass the result in as an argument."
    source = "torch/_dynamo/trace_rules.py: BUILTIN_SKIPLIST / THIRDPARTY_SKIPLIST; semantics.md §1"
    use_instead = (
        "import random\n"
        "import torch\n"
        "@torch.compile\n"
        "def f(x, noise, start):\n"
        "    return x * noise + start\n"
        "def step(x, start):\n"
        "    return f(x, random.random(), start)  # drawn outside, passed in\n"
    )
    measured = "tests/cases/examples/066_warnings_time_random.py"
    examples_fire = (
        "import random\n"
        "import time\n"
        "import warnings\n"
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    warnings.warn('jitter')  # expect: GBL110\n"
        "    start = time.time()  # expect: GBL110\n"
        "    noise = random.random()  # expect: GBL110\n"
        "    return x * noise + start\n",
    )
    examples_clean = (
        "import math\n"
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return x * math.sqrt(2.0)\n",
    )

    def check(self, node, ctx):
        q = ctx.resolve(node.func)
        if not q:
            return None
        if q in SKIPPED_CALLS and q not in ("open", "exec"):
            return self.site(node, f"`{q}(...)` is marked as skipped by Dynamo")
        if q.startswith(SKIPPED_MODULES) and not q.startswith("os.path.") and q not in NOT_SKIPPED:
            return self.site(node, f"`{q}(...)` lives in a module Dynamo skips")
        if q == "exec":
            return self.site(node, "`exec(...)`", gb_ids=("GB0059",))
        if q == "torch.use_deterministic_algorithms" and any(
                a.keyword and a.keyword.value == "warn_only" and not (isinstance(a.value, cst.Name)
                                                                      and a.value.value == "False") for a in node.args):
            return self.site(node, "`torch.use_deterministic_algorithms(..., warn_only=True)`", gb_ids=("GB0230",))
        if q == "vars" and not node.args:
            return self.site(node, "`vars()` without arguments", gb_ids=("GB0270",))
        if q == "super" and len(node.args) == 1:
            return self.site(node, "one-argument `super(Cls)`", gb_ids=("GB0280",))
        return None


class DeepcopyTensor(Rule):
    code = "GBL111"
    name = "deepcopy-tensor"
    gb_ids = ("GB4198",)
    node_types = (cst.Call,)
    summary = "`copy.deepcopy(...)` of a tensor inside compiled code."
    why = "`copy` is a skipped module; deepcopy of a tensor breaks the graph."
    hint = "Use `t.clone()` (or `t.detach().clone()`)."
    source = "torch/_dynamo/variables/builtin.py; semantics.md §1"
    use_instead = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    before = x.clone()\n"
        "    return x * 2 - before\n"
    )
    measured = "tests/cases/examples/068_deepcopy_tensor.py"
    examples_fire = (
        "import copy\n"
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    before = copy.deepcopy(x)  # expect: GBL111\n"
        "    return x * 2 - before\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    before = x.clone()\n"
        "    return x * 2 - before\n",
    )

    def check(self, node, ctx):
        if ctx.resolve(node.func) in ("copy.deepcopy", "copy.copy"):
            return self.site(node, "`copy.deepcopy(...)`")
        return None
