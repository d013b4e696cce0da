"""``torch.compiler.set_stance("force_eager")`` at module level: every compiled object runs its code as it is, nothing
is traced (a definite GBL107 before). Measured on torch 2.13: no break."""
import torch

torch.compiler.set_stance("force_eager")


def loud(x):
    print("loud")
    return x + 1


def main():
    torch.compile(loud, backend="eager")(torch.randn(4))


if __name__ == "__main__":
    main()
