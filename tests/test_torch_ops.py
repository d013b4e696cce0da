"""Ops whose Python result is read out of tensor data (gblint/data/torch_ops-*.json, written by
scripts/update_torch_ops.py from the installed torch's stubs and native_functions.yaml, never importing torch).

Measured on torch 2.13.0, Python 3.11, CPU, ``backend="eager"``, TORCH_LOGS=graph_breaks, each in
``if OP: ...`` of a compiled function:
- ``torch.equal(a, b)``, ``a.equal(b)``, ``torch.allclose(a, b)``, ``a.allclose(b)``: GB0033 (Data
  dependent operator, ``aten.equal.default`` / ``aten.allclose.default``), resumed: +1 graph.
- ``torch.is_nonzero(t)`` / ``t.is_nonzero()``: GB0033 too (through ``aten._local_scalar_dense``); its ATen op
  carries no tag (CompositeImplicit), so torch's files do not say it: named in rules/indexing.py.
- ``is_same_size``, ``is_conj``, ``is_neg``, ``is_signed``, ``is_set_to``, ``is_distributed``, ``_is_zerotensor``: a
  break of another kind (GB0208 "torch.* op returned non-Tensor": ``refused["unmodelled_scalar_methods"]``, GBL125;
  tests/cases/kinds kd6); ``is_inference``: GB0045; ``torch.numel(t) > 3``: no break (metadata).
"""
import os

from gblint.abstract.tensors import DATA_DEPENDENT_FUNCS, DATA_DEPENDENT_METHODS

from .conftest import ROOT, lint, triples


def test_ops_read_from_torch_files():
    """The packaged table holds the tagged ops (item is GBL102's)."""
    assert {"torch.equal", "torch.allclose"} <= DATA_DEPENDENT_FUNCS
    assert {"equal", "allclose"} <= DATA_DEPENDENT_METHODS and "item" not in DATA_DEPENDENT_METHODS


def test_refused_ops_read_from_torch_files():
    """torch/_dynamo/variables/tensor.py and torch.py: handlers that are one ``unimplemented``, with their id; the
    Python-valued methods ``TensorVariable`` has no ``method_`` for, not those it has (``element_size``, aliases such
    as ``method_nelement = method_numel``); ``dynamic_output_shape`` ops by their exported names."""
    from gblint.abstract.tensors import (DYNAMIC_OUTPUT_FUNCS, DYNAMIC_OUTPUT_METHODS, REFUSED_FUNCS, REFUSED_METHODS,
                                         UNMODELLED_SCALAR_METHODS)
    assert REFUSED_FUNCS["torch.is_inference_mode_enabled"] == "GB0046"
    assert REFUSED_METHODS["resize_"] == "GB0126" and REFUSED_METHODS["share_memory_"] == "GB4197"
    assert {"storage_offset", "is_neg", "is_same_size", "is_set_to"} <= UNMODELLED_SCALAR_METHODS
    assert not {"element_size", "get_device", "is_contiguous", "nelement", "ndimension", "dim", "numel", "item",
                "data_ptr", "equal", "allclose"} & UNMODELLED_SCALAR_METHODS
    assert {"torch.bincount", "torch.linalg.lstsq", "torch.nn.functional.ctc_loss", "torch.nonzero", "torch.unique",
            "torch.unique_consecutive", "torch.masked_select", "torch.argwhere"} <= DYNAMIC_OUTPUT_FUNCS
    assert {"bincount", "nonzero", "unique", "masked_select"} <= DYNAMIC_OUTPUT_METHODS
    assert "torch.nonzero_static" not in DYNAMIC_OUTPUT_FUNCS and "torch.where" not in DYNAMIC_OUTPUT_FUNCS


def test_numpy_module_names_read_from_torch_files():
    """torch/_numpy/random.py, fft.py, linalg.py: the names they bind; a function of those modules with none of its
    name breaks (GB0294), a class is not claimed."""
    from gblint.abstract.tensors import numpy_untraced
    assert numpy_untraced("numpy.random.permutation") and numpy_untraced("numpy.random.default_rng")
    # names local to torch._numpy's functions are not in its namespace: `np.random.f` breaks (GB0294, measured)
    assert numpy_untraced("numpy.random.f")
    assert numpy_untraced("numpy.linalg.eigvalsh") is False and numpy_untraced("numpy.fft.fftfreq") is False
    assert not numpy_untraced("numpy.random.normal") and not numpy_untraced("numpy.random.RandomState")
    assert not numpy_untraced("numpy.zeros") and not numpy_untraced("torch.randn")
    # the top-level namespace, filled by `import *` and loops: over-counted, so what is traced is never claimed (kd15)
    assert numpy_untraced("numpy.nanmean") and numpy_untraced("numpy.isin") and numpy_untraced("numpy.lexsort")
    # NumPy 2's aliases are the same objects as the functions they name: traced (measured by a helper, numpy 2.4)
    for alias in ("concat", "acos", "permute_dims", "atan2", "bitwise_invert", "asin", "bitwise_left_shift"):
        assert not numpy_untraced(f"numpy.{alias}"), alias
    for traced in ("mean", "where", "clip", "nan_to_num", "cumsum", "float32", "array", "einsum", "abs", "maximum",
                   "isfinite", "result_type", "ndim", "iinfo"):
        assert not numpy_untraced(f"numpy.{traced}"), traced


def test_python_methods_and_aten_spellings_read_from_torch_files():
    """torch/_C/__init__.pyi: the Tensor methods whose stub returns a Python scalar have no tensor result
    (``is_inference() -> _bool``); ``method_is_inference`` refuses while ``config.fake_tensor_disable_inference_mode``
    (true by default) is on (GB0045); the ATen names of ``dynamic_output_shape`` ops (kd15)."""
    from gblint.abstract.tensors import DYNAMIC_OUTPUT_ATEN, PY_METHODS, REFUSED_METHODS
    assert {"is_inference", "is_neg", "storage_offset", "dim", "numel"} <= PY_METHODS
    assert not {"add", "sum", "nonzero", "view"} & PY_METHODS
    assert REFUSED_METHODS["is_inference"] == "GB0045"
    assert {"nonzero", "unique_consecutive", "bincount", "masked_select"} <= DYNAMIC_OUTPUT_ATEN
    assert not {"add", "mul", "where", "nonzero_static"} & DYNAMIC_OUTPUT_ATEN


def test_numpy_random_scalars_read_from_torch_files():
    """torch/_numpy/random.py: the functions that end in ``array_or_scalar(..., return_scalar=size == ())``, where
    their size is (-1: ``*size``), ``rand`` through ``random_sample``, ``random`` as its alias; a call breaks only
    without a size (measured: tests/cases/kinds kd2)."""
    import libcst as cst

    from gblint.abstract.tensors import NUMPY_SCALAR_RESULTS, numpy_scalar_call
    assert NUMPY_SCALAR_RESULTS["numpy.random.rand"] == -1 and NUMPY_SCALAR_RESULTS["numpy.random.randn"] == -1
    assert NUMPY_SCALAR_RESULTS["numpy.random.uniform"] == 2 and NUMPY_SCALAR_RESULTS["numpy.random.random"] == 0
    assert "numpy.random.choice" not in NUMPY_SCALAR_RESULTS and "numpy.random.shuffle" not in NUMPY_SCALAR_RESULTS
    call = lambda text: cst.parse_expression(text)  # noqa: E731
    assert numpy_scalar_call("numpy.random.rand", call("np.random.rand()"))
    assert not numpy_scalar_call("numpy.random.rand", call("np.random.rand(3)"))
    assert numpy_scalar_call("numpy.random.uniform", call("np.random.uniform(0, 2)"))
    assert not numpy_scalar_call("numpy.random.uniform", call("np.random.uniform(0, 2, 5)"))
    assert not numpy_scalar_call("numpy.random.uniform", call("np.random.uniform(size=5)"))
    assert not numpy_scalar_call("numpy.random.uniform", call("np.random.uniform(*args)"))
    assert not numpy_scalar_call("numpy.random.seed", call("np.random.seed()"))


def test_numpy_reductions_read_from_torch_files():
    """torch/_numpy/_reductions_impl.py: its public functions and aliases (``max = amax``); no ufunc."""
    from gblint.abstract.tensors import NUMPY_REDUCTIONS
    assert {"numpy.prod", "numpy.sum", "numpy.mean", "numpy.max", "numpy.amax"} <= NUMPY_REDUCTIONS
    assert not {"numpy.ceil", "numpy.sqrt", "numpy.floor"} & NUMPY_REDUCTIONS


def test_equal_in_condition_breaks():
    """tests/cases/harness/h02: `if torch.equal(x, self.reference):` in forward: GB0033 at the call."""
    got = lint("""
        import torch
        @torch.compile(backend="eager")
        def f(x, ref):
            if torch.equal(x, ref):
                return x
            return x * 2
        def main():
            f(torch.ones(3), torch.ones(3))
        """, torch_version="2.13.0", python_version=(3, 11))
    assert [(d.code, d.line) for d in got] == [("GBL139", 5)]
    assert got[0].certainty == "definite"


def test_allclose_method_in_helper_breaks_nested():
    """A second program of the kind, measured: `a.allclose(b)` returned by a helper the compiled function
    branches on breaks in the helper (GB0033 at 3, nested through `f` line 7)."""
    got = lint("""
        import torch
        def close(a, b):
            return a.allclose(b)
        @torch.compile(backend="eager")
        def f(x, y):
            z = x * 2
            if close(z, y):
                return z
            return z + 1
        def main():
            f(torch.ones(3), torch.ones(3) * 2)
        """, torch_version="2.13.0", python_version=(3, 11))
    assert ("GBL301", 4) in [(d.code, d.line) for d in got] or ("GBL139", 4) in [(d.code, d.line) for d in got], \
        triples(got)


def test_not_a_tensor_receiver_is_clean():
    """`math.isclose` and a method `equal` of a non-tensor value are not these ops."""
    got = lint("""
        import torch
        @torch.compile(backend="eager")
        def f(x, n: int):
            if n == 3:
                return x
            return x * 2
        """, torch_version="2.13.0", python_version=(3, 11))
    assert got == []


def test_layer_results_are_tensors_by_torchs_annotations():
    """``torch.nn`` classes whose ``forward`` is annotated ``-> Tensor`` (read from torch/nn/modules) return
    tensors: an ``nn.Embedding``'s output handed to a helper that branches on its data is a proven tensor,
    so the break (GB0170, Data-dependent branching; measured on 2.13, eager) is definite; an ``nn.LSTM``
    returns a tuple and is not in the table."""
    from gblint.abstract.tensors import TENSOR_MODULES
    assert {"Linear", "Embedding", "Conv2d", "LayerNorm"} <= TENSOR_MODULES
    assert not {"LSTM", "GRU", "RNN", "MultiheadAttention", "Sequential"} & TENSOR_MODULES
    got = lint("""
        import torch
        import torch.nn as nn
        def positive(h):
            if h.sum() > 0:
                return h
            return -h
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(10, 4)
            def forward(self, ids):
                return positive(self.emb(ids))
        def main():
            torch.compile(Net(), backend="eager")(torch.tensor([1, 2]))
        """, torch_version="2.13.0", python_version=(3, 11))
    assert [(d.code, d.line, d.certainty) for d in got] == [("GBL301", 5, "definite")], triples(got)


def test_int_parameters_read_from_stubs():
    """Where torch's stubs type a parameter as ints, merged over the overloads (scripts/update_torch_ops.py
    ``int_params``): ``torch.zeros(*size)`` from its first position on, ``F.one_hot``'s ``num_classes``; a place an
    overload types as a Tensor (``x.max(other)``, ``x.narrow(dim, start: Tensor, length)``) is left out, one an
    overload types as a dtype (``x.view(dtype)``) is not."""
    from gblint.abstract.tensors import INT_PARAMS
    assert INT_PARAMS["functions"]["zeros"]["rest"] == 1 and "size" in INT_PARAMS["functions"]["zeros"]["kw"]
    assert INT_PARAMS["functional"]["one_hot"] == {"pos": [1], "kw": ["num_classes"]}
    assert 0 not in INT_PARAMS["methods"]["max"].get("pos", ())
    assert INT_PARAMS["methods"]["narrow"]["pos"] == [0, 2]
    assert 0 in INT_PARAMS["methods"]["view"]["pos"]
    assert "arange" not in INT_PARAMS["functions"]  # typed Number: GBL139 knows it from its own measurement


def test_int_places_merge_conservatively():
    """A synthetic stub: a place counts only where no overload may take a tensor there."""
    import ast
    import importlib.util
    spec = importlib.util.spec_from_file_location("update_torch_ops", os.path.join(ROOT, "scripts", "update_torch_ops.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    defs = ast.parse("def f(a: _int, b: Tensor, *, k: Optional[_int] = None) -> Tensor: ...\n"
                     "def f(a: str, b: _int, *rest: _int | SymInt) -> Tensor: ...\n"
                     "def f(a: Sequence[_int | SymInt], b: Number, c: _size) -> Tensor: ...\n").body
    assert mod.int_places(defs) == {"pos": [0, 2], "rest": 3, "kw": ["a", "c", "k"]}
    assert mod.int_places(defs[1:2]) == {"pos": [1], "rest": 2, "kw": ["b"]}


def test_data_of_a_parameter_is_conditional():
    """``idx.max() + 1`` of a parameter nobody proves a tensor is data only if it is one: the one-hot's break is
    conditional; the int parameter ``n`` handed to ``torch.zeros`` is no data at all."""
    got = lint("""
        import torch
        import torch.nn.functional as F
        def helper(idx, n):
            top = idx.max() + 1
            return F.one_hot(idx, top) + torch.zeros(n)
        @torch.compile(backend="eager")
        def f(idx, n):
            return helper(idx, n)
        """, torch_version="2.13.0", python_version=(3, 11))
    assert [(d.code, d.line, d.certainty) for d in got] == [("GBL301", 6, "conditional")], triples(got)


def test_a_rebinding_reads_the_binding_before_it():
    """The value of ``n = torch.zeros(n)`` reads the ``n`` bound before (data: breaks); einops' ``tensor =
    backend.reshape(tensor, shape)`` with an unknown ``backend`` does not make its own argument data (before this
    was kept apart, every einops call was a conditional false break)."""
    got = lint("""
        import torch
        def apply(backend, tensor, shapes):
            a, b = shapes
            if a is not None:
                tensor = backend.reshape(tensor, a)
            return tensor
        @torch.compile(backend="eager")
        def f(x, backend):
            n = x.max()
            n = torch.zeros(n)
            return apply(backend, x, ((2, 3), None)) + n
        """, torch_version="2.13.0", python_version=(3, 11))
    assert [(d.code, d.line) for d in got] == [("GBL139", 11)], triples(got)


def test_a_data_local_rebound_is_no_data():
    """Rebinding a data local by unpacking or as a ``for`` target ends its note."""
    got = lint("""
        import torch
        @torch.compile(backend="eager")
        def f(x):
            n = x.max()
            n, m = 3, 4
            j = x.max()
            out = torch.zeros(n)
            for j in range(2):
                out = out + torch.zeros(j + 1).sum()
            return out
        def main():
            f(torch.tensor([1, 2]))
        """, torch_version="2.13.0", python_version=(3, 11))
    assert got == [], triples(got)
