"""A module-level ``def print(...)`` shadows the builtin for the module's functions: their ``print(...)`` calls it,
and Dynamo inlines it (a definite GBL107 before). Measured on torch 2.13: no break."""
import torch


def print(*args, **kwargs):  # noqa: A001
    return None


def f(x):
    print("shadowed print", x)
    return x + 1


def main():
    torch.compile(f, backend="eager")(torch.randn(4))


if __name__ == "__main__":
    main()
