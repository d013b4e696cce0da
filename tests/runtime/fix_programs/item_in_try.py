# `.item()` alone in a `try` whose handler catches only KeyError: the break in the `try` skips the
# frame; `.item()` cannot raise KeyError, so gblint moves it out of the `try` (measured:
# tests/test_fix_runtime.py).
import torch


@torch.compile(backend="eager")
def scaled(x):
    t = x.sum()
    try:
        s = t.item()
    except KeyError:
        s = 0.0
    y = x * 2
    return y * s


def main():
    scaled(torch.randn(4))
