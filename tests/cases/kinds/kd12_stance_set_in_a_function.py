"""Dynamo switched off and on inside a function: ``torch.compiler.set_stance("force_eager")`` before one compiled call
(nothing traced), ``set_stance("default")`` before another (traced: its ``print`` breaks), and
``torch._dynamo.config.patch(disable=True)`` around a third (nothing traced). Which calls run compiled depends on the
order of the calls at run time: every diagnostic of the file is conditional on Dynamo not being switched off (before:
definite, wrong for ``quiet`` and ``patched``). Measured on torch 2.13."""
import torch
import torch._dynamo


def quiet(x):
    print("run eagerly")
    return x + 1


def loud(x):
    print("traced")
    return x + 2


def patched(x):
    print("run eagerly too")
    return x + 3


def main():
    torch.compiler.set_stance("force_eager")
    torch.compile(quiet, backend="eager")(torch.randn(4))
    torch.compiler.set_stance("default")
    torch.compile(loud, backend="eager")(torch.randn(4))
    with torch._dynamo.config.patch(disable=True):
        torch.compile(patched, backend="eager")(torch.randn(4))


if __name__ == "__main__":
    main()
