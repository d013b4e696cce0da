"""Dynamo's tables: the names whose behaviour under ``torch.compile`` gblint knows by heart.

Context managers a break can resume inside (``docs/semantics.md`` §2), the ones Dynamo cannot
wrap, the decorators that change how a call is traced (``torch.compiler.disable``,
``nonstrict_trace``, ``error_on_graph_break``), the names that compile something or test whether
Dynamo is compiling, and the modules Dynamo does not trace. Plain data, no logic: the summary
(:mod:`gblint.syntax.summary`), the index and the consequence model read it.
"""
from __future__ import annotations

import sys

RESUMABLE_MANAGERS = frozenset({
    "torch.no_grad", "torch.enable_grad", "torch.set_grad_enabled", "torch.inference_mode",
    "torch.autograd.no_grad", "torch.autograd.enable_grad", "torch.autograd.set_grad_enabled",
    "torch.autograd.grad_mode.no_grad", "torch.autograd.grad_mode.enable_grad",
    "torch.autograd.grad_mode.set_grad_enabled", "torch.autograd.grad_mode.inference_mode",
    "torch.autocast", "torch.amp.autocast", "torch.cpu.amp.autocast", "torch.cuda.amp.autocast",
    "torch.amp.autocast_mode.autocast", "contextlib.nullcontext",
    "torch.profiler.record_function", "torch.autograd.profiler.record_function",
    "torch.profiler.profile", "torch.autograd.profiler.profile",
    "torch.autograd.graph.disable_saved_tensors_hooks", "torch.nn.attention.sdpa_kernel",
    "torch._dynamo.error_on_graph_break", "torch._dynamo.patch_dynamo_config",
    "torch._dynamo.dont_skip_tracing", "torch._C.DisableTorchFunction",
    "torch._C.DisableTorchFunctionSubclass", "torch.cuda.device", "torch.accelerator.device_index",
    "torch._dynamo.disable_nested_graph_breaks",
})
UNSUPPORTED_MANAGERS = frozenset({
    "torch.device", "open", "io.open", "builtins.open", "tempfile.TemporaryDirectory",
    "tempfile.NamedTemporaryFile", "os.scandir", "zipfile.ZipFile", "tarfile.open", "gzip.open",
})
NON_RESUMABLE_GB = {"warnings.catch_warnings": "GB0092", "torch.autograd.forward_ad.dual_level": "GB0092",
                    "torch.fx.traceback.annotate": "GB0279"}
# Managers whose trace raises an internal Dynamo error where the fact named holds (gblint.core.versions.FACTS):
# the compiled call raises (docs/semantics.md §8.13)
FAILING_MANAGERS = {"torch.cpu.amp.autocast": "cpu-amp-autocast-fails"}
CONTEXTMANAGER_DECORATORS = frozenset({"contextlib.contextmanager", "contextlib.asynccontextmanager"})
IS_COMPILING = frozenset({"torch.compiler.is_compiling", "torch._dynamo.is_compiling",
                          "torch.compiler.is_dynamo_compiling", "torch._utils.is_compiling"})
COMPILE_NAMES = frozenset({"torch.compile"})
# `set_stance("force_eager")` makes every compiled object run its code as it is (torch/compiler/__init__.py; measured,
# tests/cases/kinds kd7), as `torch._dynamo.config.disable = True` does; other stances compile the first call
STANCE_SETTERS = frozenset({"torch.compiler.set_stance", "torch._dynamo.set_stance"})
EAGER_STANCES = frozenset({"force_eager"})
# helpers that return torch.compiler.is_compiling() under another name (transformers, timm, ...)
COMPILING_PREDICATES = frozenset({"is_compiling", "is_dynamo_compiling", "is_torchdynamo_compiling", "is_tracing",
                                  "is_torchdynamo_exporting", "is_exporting", "is_dynamo_exporting"})
CONTAINER_CLASSES = {"torch.nn.ModuleList": "list", "torch.nn.Sequential": "sequential",
                     "torch.nn.ModuleDict": "dict", "torch.nn.modules.container.ModuleList": "list",
                     "torch.nn.modules.container.Sequential": "sequential"}
DYNAMO_CONFIG_PREFIXES = ("torch._dynamo.config.",)

# Managers that change grad or autocast mode: entering one is an op in the traced graph.
GRAD_MODE_MANAGERS = ("torch.no_grad", "torch.enable_grad", "torch.set_grad", "torch.inference_mode",
                      "torch.autocast", "torch.amp", "torch.cpu.amp", "torch.cuda.amp")

# Decorators on a callee that change what calling it does inside a compiled region.
DISABLE = ("torch.compiler.disable", "torch._dynamo.disable", "torch._disable_dynamo")
#: Decorators after which the name still holds the function Dynamo traces (a library's that
#: return it, or a wrapper Dynamo traces through to it); gblint.abstract.interp also keeps every
#: decorator of torch, typing, abc, functools and contextlib as it is.
#: the names a subclass of ``torch.autograd.Function`` has as base; its ``apply`` runs the
#: staticmethod ``forward(ctx, *args)``, traced by Dynamo's ``AutogradFunctionVariable``
#: (torch/_dynamo/variables/misc.py)
AUTOGRAD_FUNCTION = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})

TRANSPARENT_DECORATORS = frozenset({
    "staticmethod", "classmethod", "property", "functools.wraps", "functools.cached_property", "functools.lru_cache",
    "functools.cache", "torch.compile", "torch.compiler.disable", "torch._dynamo.disable", "torch.no_grad",
    "torch.inference_mode", "torch.enable_grad", "typing.overload", "abc.abstractmethod", "torch.jit.unused",
    "torch.jit.ignore", "torch.compiler.allow_in_graph", "torch._dynamo.nonstrict_trace",
    "torch._dynamo.error_on_graph_break", "contextlib.contextmanager", "dataclasses.dataclass"})
NONSTRICT = ("torch._dynamo.nonstrict_trace",)
#: decorators after which Dynamo calls the function without tracing its body: it puts the call in the graph
#: (``allow_in_graph``: TorchInGraphFunctionVariable; a ``custom_op`` is an operator, run on fake tensors) or runs it
#: once while tracing and keeps its result as a constant (``assume_constant_result``): a break in the body never
#: happens (torch/_dynamo/trace_rules.py, torch/_library/custom_ops.py; measured: tests/cases/kinds kd3)
#: ``@substitute_in_graph(f)`` makes Dynamo trace the decorated polyfill wherever compiled code calls ``f``
SUBSTITUTES = frozenset({"torch._dynamo.substitute_in_graph", "torch._dynamo.decorators.substitute_in_graph",
                         "torch.compiler.substitute_in_graph"})
OPAQUE = ("torch.compiler.allow_in_graph", "torch._dynamo.allow_in_graph", "torch.library.custom_op",
          "torch._library.custom_ops.custom_op", "torch._dynamo.assume_constant_result",
          "torch.compiler.assume_constant_result")
#: class attributes that are documentation only: no code Dynamo traces calls them or branches on
#: them, so what a class decorator stores there (transformers' ``auto_docstring`` builds ``cls.__doc__``
#: from the signatures with regular expressions) is noted as not known, never evaluated (Python's data
#: model: ``__doc__`` is "the class's documentation string")
DOC_ATTRIBUTES = frozenset({"__doc__"})
EOGB = ("torch._dynamo.error_on_graph_break",)

# nn modules Dynamo does not trace (GB0014)
RNN_MODULES = ("torch.nn.RNN", "torch.nn.GRU", "torch.nn.LSTM")
#: break sources that skip the frame making the call, but are a resumable (nested) graph break for
#: the frames that inline that one: the RNN wrap, GB0014 (measured on 2.13: measured/r04_lstm_module.py
#: skips the calling frame, measured/r06_lstm_nested.py splits the caller and skips only the callee)
#: ``ctx.mark_dirty`` (GBL141) is the same: inlined through ``apply`` it is a nested break, in the
#: ``forward`` frame compiled on its own it cannot resume (measured: tests/cases/kinds/k27)
#: and so is ``torch._dynamo.skip_frame()`` (GBL121) in an inlined helper: the helper alone is skipped, its caller
#: breaks at the call and resumes (measured: tests/cases/kinds/kb49)
CALLERS_RESUME = frozenset({"GBL118", "GBL121", "GBL141"})
# break sources that only log or print: a callee made of these is best disabled outright
LOGGING_RULES = ("print-call", "logging-call", "skipped-module-call", "tensor-repr")

# First components of dotted names whose calls are never followed (library code, builtins).
EXTERNAL_HEADS = frozenset({
    "torch", "builtins", "math", "numpy", "np", "functools", "itertools", "operator", "typing", "collections",
    "print", "len", "range", "isinstance", "super", "sum", "max", "min", "abs", "enumerate", "zip", "list",
    "tuple", "dict", "set", "int", "float", "bool", "str", "getattr", "setattr", "hasattr", "sorted",
    "reversed", "map", "filter", "any", "all", "round", "type", "id", "repr", "iter", "next", "logging",
    "warnings", "time", "random", "os", "sys", "copy", "re", "inspect", "dataclasses",
})

#: Third-party packages whose functions Dynamo never traces: ``THIRDPARTY_SKIPLIST`` of
#: ``torch/_dynamo/trace_rules.py`` (torch 2.13), and torch itself. Every other installed
#: package is inlined by default ("Inline by default", the module docstring there).
DYNAMO_SKIPPED_PACKAGES = frozenset({
    "fx2trt_oss", "hypothesis", "networkx", "numpy", "onnx", "onnxruntime", "onnx_tf", "pandas", "sklearn",
    "tabulate", "tensorflow", "tensorrt", "torch2trt", "tqdm", "tree", "tvm", "xarray", "torch", "functorch",
})
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))


def dynamo_traces_package(top: str) -> bool:
    """Whether Dynamo inlines the functions of installed top-level package ``top`` (str) when
    compiled code calls them: not the standard library, not :data:`DYNAMO_SKIPPED_PACKAGES`,
    not a name gblint treats as a library (:data:`EXTERNAL_HEADS`). Source:
    ``torch/_dynamo/trace_rules.py`` (``BUILTIN_SKIPLIST``, ``THIRDPARTY_SKIPLIST``, inline by default)."""
    return not (top in _STDLIB or top in DYNAMO_SKIPPED_PACKAGES or top in EXTERNAL_HEADS or top.startswith("_"))

#: Library functions that call a function they are given (its position among the arguments):
#: Dynamo traces that function as if it were called there. ``checkpoint`` runs it as a
#: higher-order op: a break inside makes the whole call a break of the caller (measured,
#: tests/cases/found 301).
CALLS_ARGUMENT = {"torch.utils.checkpoint.checkpoint": 0}

#: ``nn.Module`` methods that return the module itself: ``Net().eval()``, ``model.to(device)``
#: are still the ``Net`` instance (``torch/nn/modules/module.py``)
SELF_RETURNING_METHODS = frozenset({"eval", "train", "to", "cuda", "cpu", "xpu", "mps", "half", "float", "double",
                                    "bfloat16", "type", "requires_grad_", "share_memory", "to_empty", "apply",
                                    "zero_grad"})

#: ``torch.nn`` modules whose output has the dtype of their input (their parameters, float32 by
#: default, must match it or the call raises; autocast aside): a dtype test after them is known
SAME_DTYPE_MODULES = frozenset({
    "Linear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
    "LayerNorm", "GroupNorm", "RMSNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d",
    "InstanceNorm2d", "InstanceNorm3d", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "Identity", "ReLU", "GELU",
    "SiLU", "Mish", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "LeakyReLU", "ELU", "Hardswish", "Hardsigmoid",
    "Softplus", "PReLU", "ReLU6", "Flatten", "Unflatten", "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d",
    "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "Upsample"})

#: ``random`` functions Dynamo traces (their values become graph inputs, 0-d tensors in effect:
#: measured on 2.13, semantics.md §8.4); ``random.random()``, ``choice`` and ``gauss`` are skipped
#: instead (GB0007). ``RANDOM_METHODS`` are the methods a ``random.Random`` instance traces
#: (``RandomVariable._supported_fn_names`` in ``torch/_dynamo/variables/misc.py``).
TRACED_RANDOM = frozenset({"random.uniform", "random.randint", "random.randrange"})
RANDOM_METHODS = frozenset({"random", "randint", "randrange", "uniform"})

#: the class decorators that generate ``__init__`` from the fields
DATACLASS_DECORATORS = frozenset({"dataclasses.dataclass", "dataclass", "pydantic.dataclasses.dataclass", "attr.s",
                                  "attrs.define", "attr.define", "huggingface_hub.dataclasses.strict"})
#: ``checkpoint(fn, *args, **options)`` runs ``fn(*args)``: the options are its own (torch/utils/checkpoint.py)
CHECKPOINT = frozenset({"torch.utils.checkpoint.checkpoint"})
CHECKPOINT_OPTIONS = frozenset({"use_reentrant", "preserve_rng_state", "context_fn", "determinism_check", "debug"})
#: str methods that return a str or a bool computed from constants only
STR_METHODS = frozenset({"lower", "upper", "casefold", "title", "capitalize", "strip", "lstrip", "rstrip", "replace",
                         "startswith", "endswith", "removeprefix", "removesuffix", "isdigit", "isalpha", "isalnum",
                         "isidentifier", "islower", "isupper"})
