"""What gblint knows about tensor values without importing torch.

Kinds used across the engine (:class:`gblint.core.model.Kind`, whose members equal these words):
``"S"`` a Python scalar read out of tensor data (``.item()``, ``float(t)``: a real value after
the break, a symbolic one where scalars are captured), ``"~"`` probably a tensor (a user
function's result when called with tensors: counted as traced ops, never reported), ``"T"`` a
tensor, ``"P"`` a Python value Dynamo guards on (sizes, dtypes, constants), ``"M"`` an
``nn.Module`` object, ``"?"`` unknown, and ``"p:NAME"`` "a tensor if parameter NAME turns out
to be one" (resolved once the whole function has been read).
"""
from __future__ import annotations

from ..core import semantics as _semantics
from ..core.model import PARAM_PREFIX, Expr, Kind
from ..core.ops import Op

# Attributes of a tensor that are Python values (guards, not data): branching on them
# is not a graph break (semantics.md §1, "shape/numel branches").
PY_ATTRS = frozenset({
    "shape", "dtype", "device", "ndim", "is_cuda", "is_cpu", "is_meta", "is_sparse", "is_quantized",
    "requires_grad", "is_leaf", "layout", "names", "itemsize", "nbytes", "is_nested", "is_mkldnn",
    "grad_fn", "output_nr", "_version",
})
#: attributes of a tensor that hold a tensor; ``grad`` is not one: it is None until a backward reaches the tensor, and
#: always for a tensor that requires none (torch/_C/__init__.pyi: ``grad: Tensor | None``; measured: tests/cases/kinds kd2)
TENSOR_ATTRS = frozenset({"T", "mT", "H", "mH", "data", "real", "imag"})

# Tensor methods whose result is a Python value: these, and those whose stub says so (``PY_METHODS`` below).
_PY_METHODS = frozenset({
    "item", "tolist", "size", "dim", "numel", "ndimension", "nelement", "is_contiguous",
    "is_floating_point", "is_complex", "data_ptr", "element_size", "get_device", "stride",
    "storage_offset", "__len__", "is_pinned", "is_shared", "is_signed", "untyped_storage",
    "numpy", "type", "__repr__", "__str__", "register_hook", "backward",
    # nn.Module hook registrations (on a receiver not known to be a module): a handle, no op
    "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
    "register_full_backward_pre_hook", "register_backward_hook",
})

# Method names that, called on a parameter, show that the parameter is a tensor. Names
# shared with str/list/dict (split, index, count, copy, get...) are left out on purpose.
TENSOR_METHODS = frozenset("""
abs absolute acos add add_ addcdiv addcmul addmm all allclose amax amin angle any argmax argmin
argsort asin atan atan2 baddbmm bernoulli bfloat16 bmm bool byte cdist ceil char chunk clamp clamp_
clip clone contiguous cos cosh cpu cuda cumprod cumsum detach detach_ diag diagonal diff digamma dim
div div_ dot double eq erf exp exp_ expand expand_as expm1 fill_ flatten flip float floor fmod frac
gather ge gelu half heaviside hardtanh index_add index_fill index_select int inverse isnan isinf
is_floating_point item kthvalue le lerp lgamma log log10 log1p log2 log_softmax logical_and logical_not
logical_or logsumexp long lt masked_fill masked_fill_ masked_scatter masked_select matmul max maximum mean
median min minimum mm mode mul mul_ multinomial mv nan_to_num narrow ne neg negative new_empty new_full
new_ones new_tensor new_zeros nonzero norm normal_ numel numpy outer permute pin_memory pow prod
quantile reciprocal relu relu_ remainder repeat repeat_interleave requires_grad_ reshape reshape_as
roll rot90 round rsqrt scatter scatter_ scatter_add select sigmoid sign sin sinh size slice_scatter
softmax softplus sort sqrt square squeeze std sub sub_ sum swapaxes t take tan tanh tile to tolist
topk trace transpose tril triu true_divide trunc type_as unbind unflatten unfold uniform_ unique
unsqueeze var view view_as where zero_ backward register_hook retain_grad float16 argwhere count_nonzero
""".split())
#: Tensor methods that test the dtype (torch/_C/__init__.pyi: ``is_floating_point``, ``is_complex``), each as a test
#: of the dtype's name (torch/_C/_VariableFunctions.pyi dtype names: ``float32``, ``bfloat16``, ``float8_e4m3fn``)
DTYPE_TESTS = {
    "is_floating_point": lambda dtype: dtype.startswith(("float", "bfloat")),
    "is_complex": lambda dtype: dtype.startswith("complex"),
}
#: the classes whose instances are tensors (torch/_tensor.py, torch/nn/parameter.py), as annotations name them
TENSOR_TYPES = frozenset({"torch.Tensor", "torch._tensor.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter",
                          "torch.nn.Buffer", "torch.nn.parameter.Buffer"})
TENSOR_READS = PY_ATTRS | TENSOR_ATTRS | TENSOR_METHODS  # names a read of a tensor's attribute may have

# torch.* callables whose result is not a tensor.
PY_TORCH_FUNCS = frozenset({
    "torch.is_tensor", "torch.is_grad_enabled", "torch.is_inference_mode_enabled", "torch.is_floating_point",
    "torch.is_complex", "torch.numel", "torch.get_default_dtype", "torch.get_default_device",
    "torch.compiler.is_compiling", "torch._dynamo.is_compiling", "torch.compiler.is_dynamo_compiling",
    "torch.cuda.is_available", "torch.cuda.device_count", "torch.device", "torch.dtype", "torch.Size",
    "torch.finfo", "torch.iinfo", "torch.is_autocast_enabled", "torch.jit.is_scripting", "torch.jit.is_tracing",
    "torch.backends.mps.is_available", "torch.get_autocast_gpu_dtype", "torch.result_type",
    "torch.promote_types", "torch.can_cast", "torch.is_nonzero", "torch.equal",
})

def _torch_ops() -> dict:
    """``gblint/data/torch_ops-<release>.json`` of the newest release packaged, written by
    ``scripts/update_torch_ops.py`` from the installed torch's stubs and ``native_functions.yaml``."""
    import json
    import os
    folder = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
    names = sorted((n for n in os.listdir(folder) if n.startswith("torch_ops-") and n.endswith(".json")),
                   key=lambda n: tuple(int(x) for x in n[len("torch_ops-"):-len(".json")].split(".")))
    if not names:
        return {}
    with open(os.path.join(folder, names[-1]), encoding="utf-8") as fh:
        return json.load(fh)


_TORCH_OPS = _torch_ops()
#: Tensor methods whose result is a Python value: the stubs' (scripts/update_torch_ops.py ``python_methods``:
#: ``is_inference() -> _bool``) and those the stubs type otherwise (``tolist``, ``type``, hook registrations)
PY_METHODS = _PY_METHODS | frozenset(_TORCH_OPS.get("python_methods", ()))
_DATA_DEPENDENT = _TORCH_OPS.get("data_dependent", {})
#: ``torch.nn`` module classes whose ``forward`` returns a Tensor (torch/nn/modules: ``-> Tensor``)
TENSOR_MODULES = frozenset(_TORCH_OPS.get("tensor_modules", ()))
#: the methods a ``torch.nn`` class's own ``forward`` calls on ``self`` (a subclass's override runs there)
FORWARD_CALLS = {k: frozenset(v) for k, v in _TORCH_OPS.get("forward_calls", {}).items()}
#: the attributes a ``torch.nn`` class's ``__init__`` always sets to a ``Parameter`` (``Linear.weight``)
PARAMETERS = {k: frozenset(v) for k, v in _TORCH_OPS.get("parameters", {}).items()}
#: the other attributes its ``__init__`` sets or registers (``Linear.bias``: None for ``bias=False``; ``in_features``)
HELD_ATTRIBUTES = {k: frozenset(v) for k, v in _TORCH_OPS.get("held_attributes", {}).items()}
#: the functions every overload of whose stub returns a tensor (scripts/update_torch_ops.py)
TENSOR_FUNCTIONS = frozenset(["torch." + n for n in _TORCH_OPS.get("tensor_functions", ())]
                             + ["torch.nn.functional." + n for n in _TORCH_OPS.get("functional", ())])
#: the Tensor methods every overload of whose stub returns a tensor (``class TensorBase``)
TENSOR_METHOD_RESULTS = frozenset(_TORCH_OPS.get("tensor_methods", ()))
#: ``torch._C`` functions by their name under it, ``"tensor"`` or ``"python"`` as their stubs say
#: (``torch/_C/__init__.pyi``: ``_get_tracing_state() -> TracingState``); one not listed is not known
C_FUNCTIONS = {"torch._C." + k: v for k, v in _TORCH_OPS.get("c_functions", {}).items()}
#: torch functions Dynamo calls in the graph whose result is a Python bool, int or str it neither folds nor keeps:
#: a call breaks (GB0208), by every name torch exports them under (scripts/update_torch_ops.py)
PYTHON_RESULTS = _TORCH_OPS.get("python_results", {})
#: torch functions Dynamo calls in the graph whose stub or annotation says they return a Python scalar
PYTHON_VALUED = frozenset(_TORCH_OPS.get("python_valued", ()))
#: torch functions Dynamo calls in the graph that are ``@contextmanager`` generators it does not model
#: (``torch.backends.cuda.sdp_kernel``, ``torch.random.fork_rng``): a ``with`` on one skips the frame (GB0208, GB0142)
TORCH_CONTEXT_MANAGERS = frozenset(_TORCH_OPS.get("context_managers", ()))
#: every manager Dynamo cannot enter: the hand-kept list (not torch's own) and torch's, read from its files
UNSUPPORTED_MANAGERS = _semantics.UNSUPPORTED_MANAGERS | TORCH_CONTEXT_MANAGERS
#: NumPy functions whose ``torch._numpy`` counterpart surely returns a Python bool, int or str: a call breaks (GB0208)
NUMPY_PYTHON_RESULTS = {"numpy." + k: v for k, v in _TORCH_OPS.get("numpy_python_results", {}).items()}
#: ``numpy.random`` functions that, given no size, read a Python scalar out of a tensor (GB0033): where their ``size``
#: parameter is, -1 for ``*size`` (scripts/update_torch_ops.py ``numpy_scalar_results``)
NUMPY_SCALAR_RESULTS = _TORCH_OPS.get("numpy_scalar_results", {})
#: NumPy functions whose ``torch._numpy`` counterpart is a reduction: a 0-d tensor even of Python values
#: (scripts/update_torch_ops.py ``numpy_reductions``)
NUMPY_REDUCTIONS = frozenset(_TORCH_OPS.get("numpy_reductions", ()))
#: NumPy functions whose ``torch._numpy`` counterpart returns a torch function's tensor: an ndarray (abstract.ndarrays)
NUMPY_ARRAY_RESULTS = frozenset(_TORCH_OPS.get("numpy_array_results", ()))
# torch functions (``torch.equal``) and Tensor methods (``t.allclose(u)``) whose Python result is read out
# of tensor data (their ATen op is tagged ``data_dependent_output``): Dynamo breaks there (GB0033).
DATA_DEPENDENT_FUNCS = frozenset("torch." + n for n in _DATA_DEPENDENT.get("functions", ()))
DATA_DEPENDENT_METHODS = frozenset(_DATA_DEPENDENT.get("methods", ()))
#: where the stubs type a parameter as an int or ints: ``{"functions" | "functional" | "methods": {name: {"pos": [...],
#: "rest": n, "kw": [...]}}}`` (scripts/update_torch_ops.py ``int_params``)
INT_PARAMS = {k: _TORCH_OPS.get("int_params", {}).get(k, {}) for k in ("functions", "functional", "methods")}
_DYNAMIC = _TORCH_OPS.get("dynamic_output_shape", {})
#: torch functions and Tensor methods whose ATen op's output size depends on tensor data (tagged
#: ``dynamic_output_shape``: ``torch.bincount``, ``torch.linalg.lstsq``, ``.nonzero()``): a call breaks (GB0036)
DYNAMIC_OUTPUT_FUNCS = frozenset(_DYNAMIC.get("functions", ()))
DYNAMIC_OUTPUT_METHODS = frozenset(_DYNAMIC.get("methods", ()))
DYNAMIC_OUTPUT_ATEN = frozenset(_DYNAMIC.get("aten", ()))  # the ATen ops' own names (``torch.ops.aten.nonzero``)
_REFUSED = _TORCH_OPS.get("refused", {})
#: what Dynamo's trackers refuse whatever the arguments, with the ``gb_type`` of the break: torch functions
#: (``torch.is_inference_mode_enabled``) and Tensor methods (``resize_``); and the Tensor methods whose stub
#: returns a Python scalar that ``TensorVariable`` does not model (``storage_offset``: GB0208)
REFUSED_FUNCS = _REFUSED.get("functions", {})
REFUSED_METHODS = _REFUSED.get("methods", {})
UNMODELLED_SCALAR_METHODS = frozenset(_REFUSED.get("unmodelled_scalar_methods", ()))
_SKIPPED_STDLIB = _TORCH_OPS.get("skipped_stdlib", {})
#: standard-library modules whose functions Dynamo skips (``BUILTIN_SKIPLIST``: GB0007), less those it inlines when
#: compiled code calls them (``copy``); and the skipped functions it runs on constant arguments (``re.match``)
SKIPPED_STDLIB = frozenset(_SKIPPED_STDLIB.get("modules", ())) - frozenset(_SKIPPED_STDLIB.get("inline_when_called", ()))
FOLDED_STDLIB = frozenset(_SKIPPED_STDLIB.get("folded_with_constants", ()))

# NumPy under Dynamo (``config.trace_numpy``, on by default): a call of a ``numpy``/``numpy.fft``/
# ``numpy.linalg``/``numpy.random`` function is traced as its ``torch._numpy`` counterpart and its
# result is an ndarray variable, a tensor in the graph, whatever the arguments (``np.array(sizes)``
# of Python ints too): torch/_dynamo/variables/misc.py ``NumpyVariable.call_function`` wraps every
# result with ``NumpyNdarrayVariable.create`` except the constant collections it folds
# (``np.dtype``, ``np.iinfo``, ``np.finfo``: ``np_constant_collections_map``) and ``issubdtype``
# (``constant_fold_functions``). ``if`` on such a result breaks (GB0170, measured:
# tests/cases/kinds). These torch._numpy functions return Python values, not arrays
# (torch/_numpy/_funcs_impl.py: ``ndim``, ``shape``, ``size``, ``isscalar``, ``iscomplexobj``,
# ``isrealobj``, ``allclose``, ``array_equal``, ``array_equiv``, ``common_type``, ``min_scalar_type``;
# torch/_numpy/_dtypes.py: ``result_type``, ``can_cast``, ``issubdtype``); the scalar types
# (``np.float32(x)``...) are classes, not functions: their result is not claimed either.
NUMPY_MODULES = ("numpy.", "numpy.fft.", "numpy.linalg.", "numpy.random.")
NUMPY_PY_FUNCS = frozenset({
    "ndim", "shape", "size", "isscalar", "iscomplexobj", "isrealobj", "allclose", "array_equal", "array_equiv",
    "common_type", "min_scalar_type", "result_type", "can_cast", "issubdtype", "promote_types", "dtype", "iinfo",
    "finfo", "isdtype", "iterable", "get_printoptions", "set_printoptions", "seterr", "geterr", "errstate",
    "seed", "get_state", "set_state", "default_rng", "RandomState", "Generator",
})
NUMPY_TYPES = frozenset({
    "bool_", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "intp", "uintp",
    "float16", "float32", "float64", "half", "single", "double", "longdouble", "complex64", "complex128",
    "csingle", "cdouble", "int_", "uint", "float_", "complex_", "short", "ushort", "intc", "uintc", "long",
    "ulong", "longlong", "ulonglong", "byte", "ubyte", "generic", "number", "integer", "floating",
    "complexfloating", "signedinteger", "unsignedinteger", "inexact", "ndarray", "matrix", "object_", "str_",
    "bytes_", "void", "datetime64", "timedelta64",
})


# The concrete numeric scalar types: a call of one (``np.int64(n)``, ``np.float32(2.0)``) makes a NumPy
# scalar, which Dynamo traces as a 0-d ndarray (torch/_dynamo/variables/misc.py NumpyVariable; measured on
# 2.13: ``range(np.int64(3))`` breaks on an ndarray argument, ``if np.bool_(True):`` is a generic_jump on one).
NUMPY_SCALARS = frozenset({
    "bool_", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "intp", "uintp",
    "float16", "float32", "float64", "half", "single", "double", "complex64", "complex128", "csingle", "cdouble",
    "int_", "float_", "complex_", "short", "ushort", "intc", "uintc", "longlong", "ulonglong", "byte", "ubyte",
})


def numpy_scalar_call(qualname: str, node) -> bool:
    """Whether the call ``node`` (a ``libcst.Call`` of the resolved name ``qualname``) is one of
    :data:`NUMPY_SCALAR_RESULTS` given no size (``np.random.rand()``, ``np.random.uniform(0, 1)``): Dynamo breaks at it
    (GB0033) and it returns a Python number. With ``*args`` or ``**kwargs`` it is not known: False."""
    at = NUMPY_SCALAR_RESULTS.get(qualname)
    if at is None or any(a.star for a in node.args):
        return False
    positional = [a for a in node.args if a.keyword is None]
    if at == -1:
        return not positional
    return len(positional) <= at and not any(a.keyword is not None and a.keyword.value == "size" for a in node.args)


_NUMPY_MODULE_NAMES = {k: frozenset(v) for k, v in _TORCH_OPS.get("numpy_module_names", {}).items()}


def numpy_untraced(qualname: str) -> bool:
    """Whether ``qualname`` (a resolved dotted name) is a function of ``numpy``, ``numpy.random``, ``numpy.fft`` or
    ``numpy.linalg`` whose ``torch._numpy`` module binds no name of it (scripts/update_torch_ops.py
    ``numpy_module_names``): Dynamo breaks at the call (GB0294; ``np.random.permutation``, ``np.nanmean``). A class
    (``np.random.RandomState``: a break of another kind) is not claimed."""
    head, _, last = qualname.rpartition(".")
    names = _NUMPY_MODULE_NAMES.get(head)
    return names is not None and bool(last) and last[0].islower() and last not in names


def numpy_array_call(qualname: str) -> bool:
    """Whether calling ``qualname`` (a resolved dotted name) is a NumPy function whose result Dynamo
    traces as an ndarray, a tensor (see :data:`NUMPY_MODULES`; a scalar type, :data:`NUMPY_SCALARS`, too)."""
    if not qualname.startswith("numpy."):
        return False
    head, _, last = qualname.rpartition(".")
    if head + "." not in NUMPY_MODULES or not last or last.startswith("_") or not last[0].islower():
        return False
    return last not in NUMPY_PY_FUNCS and (last not in NUMPY_TYPES or last in NUMPY_SCALARS)


# torch.* namespaces whose members are not tensor ops.
NON_OP_PREFIXES = (
    "torch._dynamo.", "torch.compiler.", "torch.cuda.", "torch.backends.", "torch.distributed.",
    "torch.utils.", "torch.jit.", "torch.profiler.", "torch.autograd.profiler.", "torch.nn.init.",
    "torch.nn.attention.", "torch.amp.", "torch.cpu.", "torch.fx.", "torch.library.", "torch.onnx.",
    "torch.testing.", "torch.hub.", "torch.multiprocessing.", "torch.optim.", "torch.export.",
)


def torch_call_kind(qualname: str) -> str:
    """Kind of the value a call of ``qualname`` returns; ``"?"`` if not a torch name."""
    if not (qualname == "torch" or qualname.startswith("torch.")):
        return Kind.UNKNOWN
    if qualname in PY_TORCH_FUNCS or qualname in PYTHON_VALUED:
        return Kind.PYTHON
    if qualname.startswith("torch._C._VariableFunctions."):
        return Kind.TENSOR if "torch." + qualname.rsplit(".", 1)[-1] in TENSOR_FUNCTIONS else Kind.UNKNOWN
    if qualname.startswith("torch._C."):
        # the binding's own stub, never a guess from the name: a private C function is no tensor op by default
        return {"tensor": Kind.TENSOR, "python": Kind.PYTHON}.get(C_FUNCTIONS.get(qualname, ""), Kind.UNKNOWN)
    last = qualname.rsplit(".", 1)[-1]
    if qualname.startswith("torch.nn.functional."):  # as its stub says (max_pool2d may return a tuple)
        return Kind.TENSOR if qualname in TENSOR_FUNCTIONS else Kind.UNKNOWN
    if qualname.startswith("torch.nn.") and last[:1].isupper():
        return Kind.TENSOR if last in ("Parameter", "Buffer") else Kind.MODULE
    if qualname in TENSOR_TYPES:
        return Kind.TENSOR
    if any(qualname.startswith(p) for p in NON_OP_PREFIXES):
        return Kind.UNKNOWN
    if last[:1].isupper():
        return Kind.PYTHON  # torch.Generator, torch.Size, torch.dtype objects ...
    if last.startswith("is_") or last.startswith("get_") or last.startswith("set_"):
        return Kind.PYTHON
    return Kind.TENSOR


def join(*kinds: str) -> str:
    """Kind of an arithmetic combination of operands."""
    if Kind.TENSOR in kinds:
        return Kind.TENSOR
    for k in kinds:
        if k.startswith(PARAM_PREFIX):
            return k
    if Kind.PROBABLE in kinds:
        return Kind.PROBABLE
    if Kind.SCALAR in kinds and all(k in (Kind.SCALAR, Kind.PYTHON) for k in kinds):
        return Kind.SCALAR
    if kinds and all(k == Kind.PYTHON for k in kinds):
        return Kind.PYTHON
    return Kind.UNKNOWN


def maybe_tensor(kind: str) -> bool:
    """True for a tensor, or a parameter that may turn out to be one (rules fire on these)."""
    return kind == Kind.TENSOR or kind.startswith(PARAM_PREFIX)


def likely_tensor(kind: str) -> bool:
    """Also true for ``"~"``: the result of a user function called with tensors. Used to
    estimate traced ops (checkpoints, graph counts), never to report a break."""
    return kind == Kind.PROBABLE or maybe_tensor(kind)


# What makes a boolean mask out of tensors (the result indexes with a data-dependent size).
MASK_FUNCS = frozenset({"torch.isnan", "torch.isinf", "torch.isfinite", "torch.isneginf", "torch.isposinf",
                        "torch.logical_and", "torch.logical_or", "torch.logical_not", "torch.logical_xor",
                        "torch.isin", "torch.eq", "torch.ne", "torch.gt", "torch.lt", "torch.ge", "torch.le",
                        "torch.greater", "torch.less", "torch.greater_equal", "torch.less_equal"})
MASK_METHODS = frozenset({"bool", "isnan", "isinf", "isfinite", "logical_and", "logical_or", "logical_not",
                          "logical_xor", "eq", "ne", "gt", "lt", "ge", "le", "greater", "less"})


def mask_kind(node, ctx):
    """The kind of ``node`` (a libcst expression in ``ctx``, a
    :class:`gblint.syntax.scope.FunctionScope`) when it is a boolean mask made from a tensor (a
    comparison, ``~`` (also of a tensor not known to be a mask: ``~`` of an index makes it one),
    ``&``/``|``, ``isnan``..., or a local bound to one, ``ctx.masks``); None otherwise."""
    import libcst as cst
    if isinstance(node, cst.Comparison):
        if all(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in node.comparisons):
            return None
        for part in [node.left] + [c.comparator for c in node.comparisons]:
            k = ctx.kind(part)
            if maybe_tensor(k):
                return k
        return None
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
        inner = mask_kind(node.expression, ctx)
        if inner is None and isinstance(node.expression, cst.Name):  # `x[~keep]`: `~` of an index is a mask's
            k = ctx.kind(node.expression)
            return k if maybe_tensor(k) else None
        return inner
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return mask_kind(node.left, ctx) or mask_kind(node.right, ctx)
    if isinstance(node, cst.Name):
        return Kind.TENSOR if node.value in ctx.masks else None
    if isinstance(node, cst.Call) and node.args:
        if ctx.resolve(node.func) in MASK_FUNCS:
            k = ctx.kind(node.args[0].value)
            return k if maybe_tensor(k) else None
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in MASK_METHODS:
        k = ctx.kind(node.func.value)
        return k if maybe_tensor(k) else None
    if isinstance(node, cst.Call) and _bool_dtype(node, ctx):
        return Kind.TENSOR
    return None


#: tensor methods that make a tensor of the dtype given (``x.new_ones(n, dtype=torch.bool)``, ``x.to(torch.bool)``)
_DTYPE_METHODS = frozenset({"to", "type", "new_ones", "new_zeros", "new_empty", "new_full", "new_tensor"})


def _bool_dtype(call, ctx) -> bool:
    """Whether ``call`` makes a boolean tensor by the dtype it is given: a torch function with ``dtype=torch.bool``
    (``torch.ones(n, dtype=torch.bool)``, ``torch.full(..., dtype=torch.bool)``), or a tensor's ``.to(torch.bool)``,
    ``.type(torch.bool)``, ``.new_ones(..., dtype=torch.bool)`` (torch/_C/__init__.pyi: the dtype decides the result's)."""
    import libcst as cst
    func = call.func
    q = ctx.resolve(func) or ""
    method = isinstance(func, cst.Attribute) and func.attr.value in _DTYPE_METHODS \
        and maybe_tensor(ctx.kind(func.value)) and q.split(".")[0] != "torch"
    if not method and not (q.startswith("torch.") and torch_call_kind(q) == Kind.TENSOR):
        return False
    for a in call.args:
        named = a.keyword is not None and a.keyword.value == "dtype"
        first = method and a.keyword is None and a is call.args[0] and func.attr.value in ("to", "type")
        if (named or first) and ctx.resolve(a.value) == "torch.bool":
            return True
    return False


#: Tensor methods whose result has an integer dtype (torch/_C/__init__.pyi, _refs): indices and counts
INTEGER_METHODS = frozenset({"long", "int", "short", "argmax", "argmin", "argsort", "nonzero", "count_nonzero"})
#: reductions that give an integer tensor when applied to a boolean mask (``(x > 0).sum()``: int64)
MASK_COUNTS = frozenset({"sum", "cumsum"})


def integer_tensor(node, ctx) -> bool:
    """Whether ``node`` (a libcst expression in ``ctx``) is a tensor of an integer dtype by how it is
    made: an index or count method (``.long()``, ``.argmax()``), or ``sum`` of a boolean mask.
    Dynamo's ``method_tolist`` (torch/_dynamo/variables/tensor.py) breaks on ``.item()`` of each
    element of such a tensor (GB0033 Data dependent operator), not on its dtype (GB0109)."""
    import libcst as cst
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
        return False
    method = node.func.attr.value
    if method in INTEGER_METHODS:
        return maybe_tensor(ctx.kind(node.func.value))
    inner = node.func.value
    while isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) and inner.func.attr.value in (
            "to", "cpu", "detach", "flatten", "view", "reshape"):
        inner = inner.func.value
    return method in MASK_COUNTS and mask_kind(inner, ctx) is not None


def numpy_made(node, ctx) -> bool:
    """Whether ``node`` (a libcst expression in ``ctx``) is a tensor only as a NumPy array made in
    the frame from Python values (``np.prod(shape)``, ``np.array(sizes) % k``, a local bound to one,
    ``ctx.numpy_locals``), not from a traced tensor. Dynamo traces it as a tensor, so branching on
    it breaks, but what converting it back to a Python number does depends on the function (measured:
    ``int(np.ceil(n / 2))`` is folded, ``int(np.prod([2, 1]))`` breaks): no rule claims that."""
    import libcst as cst
    if isinstance(node, cst.Name):
        return node.value in ctx.numpy_locals
    if isinstance(node, cst.Call):
        q = ctx.resolve(node.func)
        if q and numpy_array_call(q):
            return not any(maybe_tensor(ctx.kind(a.value)) for a in node.args)
        return isinstance(node.func, cst.Attribute) and numpy_made(node.func.value, ctx)
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == ctx.self_name \
            and ctx.class_info is not None:
        return (ctx.class_info.qualname, node.attr.value) in getattr(ctx.builder, "numpy_attrs", ())
    if isinstance(node, (cst.Subscript, cst.Attribute)):
        return numpy_made(node.value, ctx)
    if isinstance(node, cst.UnaryOperation):
        return numpy_made(node.expression, ctx)
    if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation, cst.Comparison)):
        parts = [node.left, node.right] if not isinstance(node, cst.Comparison) else \
            [node.left] + [c.comparator for c in node.comparisons]
        tensors_in = [p for p in parts if maybe_tensor(ctx.kind(p))]
        return bool(tensors_in) and all(numpy_made(p, ctx) for p in tensors_in)
    return False


def numpy_reduction(node, ctx) -> bool:
    """Whether ``node`` (a libcst expression in ``ctx``) is a call of a NumPy reduction (:data:`NUMPY_REDUCTIONS`),
    which Dynamo traces as a 0-d tensor even of Python values (measured: tests/cases/kinds kd4)."""
    import libcst as cst
    return isinstance(node, cst.Call) and ctx.resolve(node.func) in NUMPY_REDUCTIONS


def numpy_folded(node, ctx) -> bool:
    """Whether converting ``node`` (a libcst expression in ``ctx``) to a Python number is folded by Dynamo: a NumPy
    array made from Python values (:func:`numpy_made`) other than a direct call of a reduction
    (:data:`NUMPY_REDUCTIONS`: ``int(np.prod(x.shape[1:]))`` reads the 0-d tensor's data, GB0033; ``int(np.ceil(n /
    2))`` does not; measured: tests/cases/kinds kd4)."""
    return not numpy_reduction(node, ctx) and numpy_made(node, ctx)


def module_attribute(cls: str, name: str):
    """What attribute ``name`` of an instance of the ``torch.nn`` class ``cls`` holds, as its ``__init__`` sets it: a
    tensor (a Parameter it always makes, :data:`PARAMETERS`), a value not known (one of :data:`HELD_ATTRIBUTES`:
    ``Linear.bias`` is None for ``bias=False``), or None where it sets no such attribute (a method, then)."""
    if name in PARAMETERS.get(cls, ()):
        return Expr(Op.TENSOR)
    if name in HELD_ATTRIBUTES.get(cls, ()):
        return Expr(Op.UNKNOWN)
    return None
