"""``torch._dynamo.config.disable = True`` at module level: Dynamo compiles nothing (a definite GBL107 before).
Measured on torch 2.13: no break."""
import torch
import torch._dynamo

torch._dynamo.config.disable = True


def loud(x):
    print("loud")
    return x + 1


def main():
    torch.compile(loud, backend="eager")(torch.randn(4))


if __name__ == "__main__":
    main()
