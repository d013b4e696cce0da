"""Dynamo switched off at the top of a file under a test (an environment variable): what is compiled may run
eagerly, so every diagnostic is conditional on it (found by a helper: a definite diagnostic before)."""
import os
import torch

if os.environ.get("PROBE_EAGER", "1") == "1":
    torch.compiler.set_stance("force_eager")


@torch.compile(backend="eager")
def f(x):
    print("f")
    return x + 1


def main():
    f(torch.ones(3))


main()
