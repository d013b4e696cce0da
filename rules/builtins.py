"""Builtins and skipped modules: ``print``, ``repr``/``str`` of tensors, f-strings,
``logging``, ``warnings``/``time``/``random``/``os``, ``copy.deepcopy``.

Source: ``torch/_dynamo/trace_rules.py`` (skip lists), ``variables/builtin.py``,
``variables/misc.py`` (logging); semantics.md §1.
"""
import libcst as cst

from gblint.core.model import Expr, Kind, LoggerValue
from gblint.core.ops import Op
from gblint.core.names import dotted
from gblint.core.semantics import TRACED_RANDOM
from gblint.abstract.tensors import (FOLDED_STDLIB, NUMPY_PYTHON_RESULTS, PYTHON_RESULTS, SKIPPED_STDLIB, maybe_tensor,
                                     numpy_scalar_call, numpy_untraced)

from .base import Rule
from .log_rewrites import REORDERABLE, cannot_reorder, reorder_tokens

SKIPPED_MODULES = ("warnings.", "time.", "random.", "os.", "pdb.", "tqdm.", "pandas.", "socket.", "subprocess.",
                   "shutil.", "json.", "pickle.", "datetime.", "uuid.", "threading.", "sys.stdout", "sys.stderr",
                   "traceback.", "psutil.")
# traced on every measured release (tests/fixtures/measured/n01_random_functions.py); time.monotonic_ns breaks
# like the other clocks (n10_time_functions.py)
NOT_SKIPPED = {"os.environ.get", "random.Random", "warnings.catch_warnings", "os.getenv", "random.randint",
               "random.uniform", "random.randrange", *TRACED_RANDOM}
SKIPPED_CALLS = {"torch.manual_seed", "torch.cuda.manual_seed", "torch.cuda.manual_seed_all", "torch.get_rng_state",
                 "torch.set_rng_state", "torch.random.get_rng_state", "torch.random.set_rng_state",
                 "torch.cuda.synchronize", "input", "breakpoint", "open", "exec", "copy.copy"}
# skipped-module functions that break only where a version-dependent fact holds (gblint.core.versions.FACTS)
TRACED_FROM = {"random.random": "random-state-breaks", "random.seed": "random-state-breaks",
               "random.shuffle": "random-state-breaks"}
# Dynamo's clock functions (torch/_dynamo/variables/functions.py: _TIME_FUNCTION_NAMES, 2.15), which
# break as GB9193 "Call to a time function" where fact "time-call-gb9193" holds
CLOCKS = frozenset(f"time.{n}" for n in ("clock_gettime", "clock_gettime_ns", "monotonic", "monotonic_ns",
                                          "perf_counter", "perf_counter_ns", "process_time", "process_time_ns",
                                          "thread_time", "thread_time_ns", "time", "time_ns"))
# C functions of the standard library that Dynamo has no rule for: skipped (GB0007), like a skipped
# module (torch/_dynamo/trace_rules.py: not builtins, operator, math or a polyfill); base64 is Python
# that calls binascii. struct.pack / struct.unpack are polyfilled (traced).
STDLIB_C_MODULES = ("zlib.", "binascii.", "hashlib.", "bisect.", "base64.", "struct.", "unicodedata.", "array.")
POLYFILLED = {"struct.pack", "struct.unpack"}
LOGGER_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}


def configured(ctx, name: str) -> bool:
    """Whether the file (or the settings) lists ``name`` in ``torch._dynamo.config``'s
    ``reorderable_logging_functions`` (Dynamo runs it after the graph) or ``ignore_logging_functions``
    (Dynamo drops the call): either way the call does not break the graph (semantics.md §8.10)."""
    return any(name in (ctx.config(setting, ()) or ()) for setting in
               ("reorderable_logging_functions", "ignore_logging_functions"))


def refused(ctx, name: str, node: cst.Call) -> bool:
    """Whether ``name`` is listed in ``reorderable_logging_functions`` (and not ignored) but Dynamo
    surely refuses to reorder this call of it (:func:`cannot_reorder`): it breaks again (GB0296,
    ``torch/_dynamo/variables/misc.py``: ``DebuggingVariable.can_reorder_logs``)."""
    return name in (ctx.config("reorderable_logging_functions", ()) or ()) \
        and name not in (ctx.config("ignore_logging_functions", ()) or ()) and cannot_reorder(node, ctx)


def _refused_site(rule, node, name: str):
    return rule.site(node, f"`{name}(...)` with an argument Dynamo cannot reorder (a size, a display, a stream)",
                     gb_ids=("GB0296",))


class PrintCall(Rule):
    code = "GBL107"
    name = "print-call"
    gb_ids = ("GB0059", "GB0296")
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
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    y = x + 1\n"
        "    print('y', y)  # expect: GBL107\n"
        "    return y\n",
        "import torch\n"
        "torch._dynamo.config.reorderable_logging_functions.add(print)\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    print('shape', x.shape)  # expect: GBL107\n"
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
        "import torch\n"
        "torch._dynamo.config.reorderable_logging_functions.add(print)\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    print('step', x.sum())\n"
        "    return x + 1\n",
    )

    def check(self, node, ctx):
        q = ctx.resolve(node.func)
        if q == "print":
            if refused(ctx, "print", node):
                return _refused_site(self, node, "print")
            if configured(ctx, "print"):
                return None  # Dynamo moves it after the graph (reorderable) or drops it (ignored)
            return self.site(node, "`print(...)`", fix_needs=reorder_tokens(node, ctx), gb_ids=self.gb_ids[:1])
        if q == "str" and len(node.args) == 1:
            k = ctx.kind(node.args[0].value)
            if maybe_tensor(k):
                return self.site(node, "`str(tensor)`", needs=k, gb_ids=self.gb_ids[:1])
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


class RangeOfTensor(Rule):
    code = "GBL143"
    name = "range-of-tensor"
    gb_ids = ("GB0059",)
    node_types = (cst.Call,)
    summary = ("`range(n)` where `n` is a tensor, or a NumPy value Dynamo traces as one "
               "(`range(np.prod(x.shape[1:]))`).")
    why = "Dynamo fails to trace the builtin `range` of a tensor: the graph ends here (a frame skip inside a loop)."
    hint = ("Hand `range` a Python int: a size from `x.shape`, `math.prod(x.shape[1:])` instead of `np.prod`, "
            "or a count computed outside the compiled region.")
    source = ("torch/_dynamo/variables/builtin.py: BuiltinVariable.call_function ('Failed to trace builtin "
              "operator', GB0059); measured on torch 2.13 (tests/cases/kinds/kb6_range_of_a_tensor.py)")
    torch_versions = ">=2.6,<2.14"  # measured on 2.13; later releases not measured
    measured = "tests/cases/kinds/kb6_range_of_a_tensor.py"
    use_instead = (
        "import math\n"
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    for _ in range(math.prod(x.shape[1:])):\n"
        "        x = x * 0.5\n"
        "    return x\n"
    )
    examples_fire = (
        "import numpy as np\n"
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    for _ in range(np.prod(x.shape[1:])):  # expect: GBL143\n"
        "        x = x * 0.5\n"
        "    return x\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x, n):\n"
        "    for _ in range(n.sum().long()):  # expect: GBL143\n"
        "        x = x * 2\n"
        "    return x\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    for _ in range(x.shape[0]):\n"
        "        x = x * 2\n"
        "    return x\n",
    )

    def check(self, node, ctx):
        if ctx.resolve(node.func) != "range" or not node.args:
            return None
        for a in node.args:
            k = ctx.kind(a.value)
            if maybe_tensor(k):
                return self.site(node, "`range()` of a tensor", needs=k)
        return None


class LoggingCall(Rule):
    code = "GBL109"
    name = "logging-call"
    gb_ids = ("GB0291", "GB0296")
    node_types = (cst.Call,)
    summary = "A `logging` call (`logger.info(...)`, `logging.warning(...)`) inside compiled code."
    why = "logging.Logger methods are not traced: the graph ends here."
    hint = ("Log outside the compiled region, or list the method in `torch._dynamo.config.ignore_logging_functions` "
            "(`torch._dynamo.config.ignore_logging_functions.add(logger.info)`: Dynamo drops the call).")
    source = "torch/_dynamo/variables/misc.py: LoggingLoggerVariable; semantics.md §1, §8.10"
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
        "import logging\n"
        "import torch\n"
        "log = logging.getLogger(__name__)\n"
        "torch._dynamo.config.ignore_logging_functions.add(log.info)\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    log.info('step')\n"
        "    return x + 1\n",
    )

    def check(self, node, ctx):
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in LOGGER_METHODS:
            return None
        q = ctx.resolve(func) or ""
        if q.startswith("logging."):
            if refused(ctx, q, node):
                return _refused_site(self, node, q)
            if configured(ctx, q):
                return None
            return self.site(node, f"`{q}(...)`", gb_ids=self.gb_ids[:1],
                             fix_needs=reorder_tokens(node, ctx) if q in REORDERABLE else None)
        if q in (ctx.config("ignore_logging_functions", ()) or ()):
            return None  # a Logger method is only dropped when ignored: reordering it is not supported
        base = func.value
        if isinstance(base, cst.Name):
            ref = ctx.builder.summary.module_names.get(base.value)
            local = ctx.values.get(base.value)
            if (isinstance(ref, LoggerValue) and ctx.lookup(base.value) is None) or isinstance(local, LoggerValue):
                return self.site(node, f"`{base.value}.{func.attr.value}(...)` (logging.Logger)",
                                 gb_ids=self.gb_ids[:1])
            if base.value in ("logger", "log", "_logger", "LOGGER", "_log") and ctx.lookup(base.value) is None:
                return self.site(node, f"`{base.value}.{func.attr.value}(...)` (logging.Logger)",
                                 gb_ids=self.gb_ids[:1])
        if isinstance(base, cst.Attribute) and base.attr.value in ("logger", "log", "_logger"):
            return self.site(node, f"`{dotted(func) or func.attr.value}(...)` (logging.Logger)",
                             gb_ids=self.gb_ids[:1])
        return None


class SkippedModuleCall(Rule):
    code = "GBL110"
    name = "skipped-module-call"
    gb_ids = ("GB0007", "GB0230", "GB0270", "GB0280", "GB0208", "GB9193", "GB0296", "GB0033", "GB0294")
    node_types = (cst.Call,)
    summary = ("A call into a module Dynamo skips (`warnings`, `time`, `random`, `os`, `copy.copy`, "
               "`importlib.import_module`...), a C "
               "function of the standard library it has no rule for (`zlib`, `binascii`, `hashlib`...), "
               "`torch.manual_seed`, a torch function whose Python result Dynamo neither folds nor keeps "
               "(`torch.get_num_threads()`, `torch._C._get_cpu_capability()`: GB0208), or a `numpy.random` "
               "function given no size (`np.random.rand()`: its `torch._numpy` counterpart calls `.item()`, GB0033), or "
               "a `numpy.random`/`fft`/`linalg` function `torch._numpy` has none of (`np.random.permutation`, GB0294).")
    why = "Functions of skipped files run in Python: the graph ends at the call."
    hint = "Call it outside the compiled region, or pass the result in as an argument."
    source = ("torch/_dynamo/trace_rules.py: BUILTIN_SKIPLIST / THIRDPARTY_SKIPLIST, the in-graph function lists; "
              "torch/_dynamo/variables/builder.py: wrap_fx_proxy_cls (\"torch.* op returned non-Tensor\"); "
              "torch/_numpy/random.py: array_or_scalar; torch/_dynamo/variables/misc.py: get_np_to_tnp_map; "
              "semantics.md §1")
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
        "    noise = random.gauss(0.0, 1.0)  # expect: GBL110\n"
        "    return x * noise + start\n",
        "import binascii\n"
        "import copy\n"
        "import torch\n"
        "@torch.compile\n"
        "def f(x, sizes):\n"
        "    salt = binascii.crc32(b'layer-3') % 7  # expect: GBL110\n"
        "    local = copy.copy(sizes)  # expect: GBL110\n"
        "    return x * salt + local[0]\n",
        "import importlib\n"
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    kernels = importlib.import_module('math')  # expect: GBL110\n"
        "    return x * kernels.pi\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    threads = torch.get_num_threads()  # expect: GBL110\n"
        "    return x / threads, torch._C._get_cpu_capability()  # expect: GBL110\n",
        "import numpy as np\n"
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    order = np.random.permutation(4)  # expect: GBL110\n"
        "    return x[order] * np.fft.fftfreq(4)\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    grad = torch.is_grad_enabled() and torch.are_deterministic_algorithms_enabled()\n"
        "    return x.to(torch.get_default_dtype()), grad, torch.cuda.is_available()\n",
        "import math\n"
        "import struct\n"
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    s = torch.seed()\n"
        "    return x * math.sqrt(2.0) + len(struct.pack('i', 3)), s\n",
        "import warnings\n"
        "import torch\n"
        "torch._dynamo.config.reorderable_logging_functions.add(warnings.warn)\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    warnings.warn('slow path')\n"
        "    return x + 1\n",
        "import math\n"
        "import random\n"
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return x * math.sqrt(2.0) + random.randint(0, 3)\n",
    )

    def check(self, node, ctx):
        q = ctx.resolve(node.func)
        if q and refused(ctx, q, node):
            return _refused_site(self, node, q)
        if not q or configured(ctx, q):
            return None
        if q in REORDERABLE and q.startswith(SKIPPED_MODULES):  # warnings.warn
            return self.site(node, f"`{q}(...)` lives in a module Dynamo skips", gb_ids=("GB0007",),
                             fix_needs=reorder_tokens(node, ctx))
        if q in SKIPPED_CALLS and q not in ("open", "exec"):
            return self.site(node, f"`{q}(...)` is marked as skipped by Dynamo", gb_ids=("GB0007",))
        if q.startswith(SKIPPED_MODULES) and not q.startswith("os.path.") and q not in NOT_SKIPPED:
            if q in TRACED_FROM and not ctx.holds(TRACED_FROM[q]):
                return None
            if q in CLOCKS and ctx.holds("time-call-gb9193"):
                return self.site(node, f"`{q}()` reads a clock", gb_ids=("GB9193",))
            return self.site(node, f"`{q}(...)` lives in a module Dynamo skips", gb_ids=("GB0007",))
        if q.startswith(STDLIB_C_MODULES) and q not in POLYFILLED:
            return self.site(node, f"`{q}(...)` is a C function of the standard library Dynamo has no rule for",
                             gb_ids=("GB0007",))
        if "." in q and q.split(".")[0] in SKIPPED_STDLIB and q not in FOLDED_STDLIB \
                and not q.startswith(SKIPPED_MODULES) and q not in NOT_SKIPPED:
            # importlib.import_module, linecache.getline: files Dynamo skips (re.match with constants it runs)
            return self.site(node, f"`{q}(...)` lives in a module Dynamo skips", gb_ids=("GB0007",))
        kind = PYTHON_RESULTS.get(q) or NUMPY_PYTHON_RESULTS.get(q)  # in the graph, its Python result neither
        if kind:  # folded nor kept (trace_rules.py, the stubs; torch/_numpy for NumPy: scripts/update_torch_ops.py)
            return self.site(node, f"`{q}()` returns a Python {kind} Dynamo cannot put in the graph",
                             gb_ids=("GB0208",))
        if numpy_untraced(q) and ctx.config("trace_numpy", True):  # no torch._numpy function of that name
            return self.site(node, f"`{q}()` has no `torch._numpy` counterpart for Dynamo to trace", gb_ids=("GB0294",))
        if numpy_scalar_call(q, node) and ctx.config("trace_numpy", True):  # torch/_numpy/random.py: `.item()`
            return self.site(node, f"`{q}()` without a size reads a Python number out of a tensor",
                             gb_ids=("GB0033",))
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
    summary = ("`copy.deepcopy(...)` of a tensor, or of a container that holds one, inside compiled code (of an "
               "argument: unless the call passes plain numbers and strings).")
    why = ("Dynamo traces deepcopy of plain containers, but not the copy of a tensor (GB4198): the graph ends "
           "here.")
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
        "import copy\n"
        "import torch\n"
        "@torch.compile\n"
        "def f(x, opts):\n"
        "    local = copy.deepcopy(opts)\n"
        "    return x * local['scale']\n"
        "def main():\n"
        "    f(torch.ones(2), {'scale': 2.0})\n",
    )

    def check(self, node, ctx):
        if ctx.resolve(node.func) != "copy.deepcopy" or not node.args:
            return None
        arg = node.args[0].value
        k = ctx.kind(arg)
        if maybe_tensor(k) and not (isinstance(arg, cst.Name) and arg.value in ctx.params):
            return self.site(node, "`copy.deepcopy(...)` of a tensor", needs=k)
        if isinstance(arg, cst.Name) and arg.value in ctx.params and arg.value not in ctx.rebound:
            if k == Kind.TENSOR:
                return self.site(node, "`copy.deepcopy(...)` of a tensor")
            # what the call passes decides: a dict of numbers is copied in the graph, a tensor is not
            return self.site(node, f"`copy.deepcopy({arg.value})`", gate_kind="branch",
                             gate=Expr(Op.HOLDS_TENSOR, parts=(Expr(Op.PARAM, arg.value),)),
                             gate_text=f"`{arg.value}` holds a tensor")
        if _plain_display(arg, ctx):
            return None
        return self.site(node, "`copy.deepcopy(...)`")


def _plain_display(node, ctx) -> bool:
    """Whether ``node`` is a literal display of numbers, strings and displays of them (no tensor)."""
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(node, cst.Name):
        return node.value in ("True", "False", "None")
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return all(not isinstance(e, cst.StarredElement) and _plain_display(e.value, ctx) for e in node.elements)
    if isinstance(node, cst.Dict):
        return all(isinstance(e, cst.DictElement) and _plain_display(e.key, ctx) and _plain_display(e.value, ctx)
                   for e in node.elements)
    return False
