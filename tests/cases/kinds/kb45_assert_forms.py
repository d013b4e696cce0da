"""`assert` on a tensor: Dynamo turns it into `torch._assert_async` only when its bytecode is the plain jump on the
tested value followed by the raise, with no message or a constant one (`_detect_and_normalize_assert_statement` in
torch/_dynamo/symbolic_convert.py). `assert not t` (CPython inverts the jump), a chained comparison and a message
computed at run time (an f-string with a placeholder, `.format`, `%`, a global) branch on the tensor: GB0170.
A literal, implicitly joined or `+`-joined message, or an f-string with no placeholder, is one constant."""
import torch

SUFFIX = " must be positive"


@torch.compile(backend="eager")
def negated(x):
    y = x * 2
    assert not torch.isnan(y).any(), "nan in y"
    return y + 1


@torch.compile(backend="eager")
def negated_bare(x):
    y = x - 1
    assert not torch.isinf(y).any()
    return y * 3


@torch.compile(backend="eager")
def formatted(x, name: str):
    y = x + 2
    assert (y > 0).all(), "{} must be positive".format(name)
    return y * 2


@torch.compile(backend="eager")
def f_string(x, name: str):
    y = x + 3
    assert (y > 0).all(), f"{name} must be positive"
    return y - 1


@torch.compile(backend="eager")
def percent(x):
    y = x + 4
    assert (y > 0).all(), "y must be positive %d" % 3
    return y / 2


@torch.compile(backend="eager")
def from_global(x):
    y = x + 5
    assert (y > 0).all(), SUFFIX
    return y * 5


@torch.compile(backend="eager")
def chained(x, low, high):
    y = x * 3
    assert low <= y.sum() <= high, "out of range"
    return y + 2


@torch.compile(backend="eager")
def constant_messages(x):
    y = x + 6
    assert (y > 0).all(), "y" " must be positive"
    assert (y > 0).all(), "y" + " must be positive"
    assert (y > 0).all(), f"y must be positive"
    assert (y > 0).all(), ("y must be positive")
    assert y.sum() > 0
    assert not not (y > 0).all(), "y must be positive"
    return y * 6


def main():
    x = torch.ones(4)
    negated(x)
    negated_bare(x)
    formatted(x, "x")
    f_string(x, "x")
    percent(x)
    from_global(x)
    chained(x, 0.0, 100.0)
    constant_messages(x)
