"""Ops Dynamo refuses whatever the values, read from the installed torch (scripts/update_torch_ops.py), each a false
all-clear before: ops tagged ``dynamic_output_shape`` (``torch.bincount``, ``torch.linalg.lstsq``, ``F.ctc_loss``:
GB0036); Tensor methods whose stub returns a Python scalar that ``TensorVariable`` does not model
(``storage_offset()``, ``is_neg()``: GB0208); ``torch.is_inference_mode_enabled()`` (GB0046, its handler is one
``unimplemented``); ``torch._assert`` of a tensor condition (GB0033). The methods Dynamo models
(``data_ptr``, ``element_size``...) and ``torch._assert`` of a shape test do not break. Measured on torch 2.13."""
import torch
import torch.nn.functional as F


def use_bincount(x):
    i = (x.abs() * 3).long()
    return torch.bincount(i).float().sum() + i.bincount(minlength=4).float().sum() + x


def use_lstsq(x):
    a = torch.randn(4, 3)
    b = torch.randn(4, 2)
    return torch.linalg.lstsq(a, b).solution.sum() + x


def use_ctc(x):
    lp = torch.randn(5, 2, 4).log_softmax(2)
    tg = torch.randint(1, 4, (2, 3))
    return F.ctc_loss(lp, tg, torch.tensor([5, 5]), torch.tensor([3, 3])) + x


def use_offset(x):
    o = x.storage_offset()
    return x + o


def use_flags(x):
    n = x.is_neg()
    return x + 1, n


def use_same(x, y):
    s = x.is_same_size(y)
    return x + 1, s


def use_infer(x):
    if torch.is_inference_mode_enabled():
        return x - 1
    return x + 1


def use_assert(x):
    torch._assert(x.sum() > -1e9, "too small")
    return x + 1


def modelled(x):
    torch._assert(x.shape[0] > 0, "empty")
    p = x.data_ptr()
    s = x.untyped_storage()
    return x + x.element_size() + x.get_device() + x.is_contiguous(), p, s


def spelled_as_functions(x):
    n = torch.is_neg(x)
    o = torch.Tensor.storage_offset(x)
    return x + o, n


def main():
    for f in [use_bincount, use_lstsq, use_ctc, use_offset, use_flags, use_infer, use_assert, modelled,
              spelled_as_functions]:
        torch.compile(f, backend="eager")(torch.randn(4))
    torch.compile(use_same, backend="eager")(torch.randn(4), torch.randn(4))


if __name__ == "__main__":
    main()
