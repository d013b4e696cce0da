"""Ops whose Python result is read out of tensor data (gblint/data/torch_ops-*.json, written by
scripts/update_torch_ops.py from the installed torch's stubs and native_functions.yaml, never importing torch).

Measured on torch 2.13.0, Python 3.11, CPU, ``backend="eager"``, TORCH_LOGS=graph_breaks, each in
``if OP: ...`` of a compiled function:
- ``torch.equal(a, b)``, ``a.equal(b)``, ``torch.allclose(a, b)``, ``a.allclose(b)``: GB0033 (Data
  dependent operator, ``aten.equal.default`` / ``aten.allclose.default``), resumed: +1 graph.
- ``torch.is_nonzero(t)`` / ``t.is_nonzero()``: GB0033 too (through ``aten._local_scalar_dense``); its ATen op
  carries no tag (CompositeImplicit), so torch's files do not say it: not reported yet.
- ``is_same_size``, ``is_conj``, ``is_neg``, ``is_signed``, ``is_inference``, ``is_set_to``,
  ``cudnn_is_acceptable``, ``is_distributed``, ``_is_zerotensor``: a break of another kind ("torch.* op
  returned non-Tensor"), not this one; ``torch.numel(t) > 3``: no break (metadata).
"""
from gblint.tensors import DATA_DEPENDENT_FUNCS, DATA_DEPENDENT_METHODS

from .conftest import lint, triples


def test_ops_read_from_torch_files():
    """The packaged table holds the tagged ops (item is GBL102's)."""
    assert {"torch.equal", "torch.allclose"} <= DATA_DEPENDENT_FUNCS
    assert {"equal", "allclose"} <= DATA_DEPENDENT_METHODS and "item" not in DATA_DEPENDENT_METHODS


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
    from gblint.tensors import TENSOR_MODULES
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
