"""Bodies Dynamo does not trace (each break in them was a definite diagnostic before): a ``torch.library.custom_op``
is an operator (its fake implementation runs while tracing), a ``torch.compiler.allow_in_graph`` function is put in
the graph as a call, an ``assume_constant_result`` function runs once while tracing and its result is kept as a
constant. Measured on torch 2.13: no break."""
import torch


@torch.library.custom_op("gbl::noisy", mutates_args=())
def noisy(x: torch.Tensor) -> torch.Tensor:
    print("inside custom op")
    if x.sum() > 0:
        return x * 2
    return x.clone()


@noisy.register_fake
def _(x):
    return torch.empty_like(x)


def use_op(x):
    return noisy(x) + 1


@torch.compiler.allow_in_graph
def opaque(x):
    print("opaque")
    return x + 1


def use_allowed(x):
    return opaque(x) * 2


@torch._dynamo.assume_constant_result
def setting():
    print("reading setting")
    return 3


def use_const(x):
    return x * setting()


def main():
    torch.compile(use_op, backend="eager")(torch.randn(4))
    torch.compile(use_allowed, backend="eager")(torch.randn(4))
    torch.compile(use_const, backend="eager")(torch.randn(4))


if __name__ == "__main__":
    main()
