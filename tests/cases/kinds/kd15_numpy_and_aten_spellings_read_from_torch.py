"""Top-level NumPy functions ``torch._numpy`` has none of, ``torch.ops.aten`` spellings of ops whose output size
depends on data, and ``Tensor.is_inference()``, refused while ``fake_tensor_disable_inference_mode`` is on."""
import numpy as np
import torch


@torch.compile(backend="eager")
def nan_mean(x: torch.Tensor):
    a = np.array([1.0, 2.0])
    return x + np.nanmean(a)


@torch.compile(backend="eager")
def is_in(x: torch.Tensor):
    a = np.array([1.0, 2.0])
    return x + np.isin(a, [1.0]).sum()


@torch.compile(backend="eager")
def interpolate(x: torch.Tensor):
    a = np.array([1.0, 2.0])
    return x + np.interp(1.5, a, a)


@torch.compile(backend="eager")
def lex_sort(x: torch.Tensor):
    a = np.array([2.0, 1.0])
    return x + np.lexsort((a,)).sum()


@torch.compile(backend="eager")
def traced_numpy(x: torch.Tensor):
    a = np.array([1.0, 2.0])
    b = np.where(a > 1.0, a, 0.0)
    return x + np.mean(a) + np.clip(b, 0.0, 1.0).sum() + np.nan_to_num(a).sum() + np.cumsum(a).sum()


@torch.compile(backend="eager")
def aten_nonzero(x: torch.Tensor):
    return torch.ops.aten.nonzero.default(x).sum() + 1


@torch.compile(backend="eager")
def aten_unique(x: torch.Tensor):
    return torch.ops.aten.unique_consecutive.default(x)[0].sum() + 1


@torch.compile(backend="eager")
def aten_add(x: torch.Tensor):
    return torch.ops.aten.add.Tensor(x, x) + torch.ops.aten.mul(x, 2)


@torch.compile(backend="eager")
def inference(x: torch.Tensor):
    flag = x.is_inference()
    return x + 1 if flag else x - 1


def main():
    x = torch.ones(3)
    for f in (nan_mean, is_in, interpolate, lex_sort, traced_numpy, aten_nonzero, aten_unique, aten_add, inference):
        f(x)


main()
