import torch
import torch.nn as nn


class Perturb(nn.Module):
    def __init__(self, base):
        super().__init__()
        self.base = base

    def forward(self, x):
        return self.base(x) + 1


class Scaled(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n
        self.register_buffer("scale", torch.ones(4))

    def forward(self, x):
        return x * self.scale * self.n


class Biased(nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(4))

    def forward(self, x):
        return x + self.bias


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        y = Perturb(self.lin)(x)
        y = Scaled(2)(y)
        return Biased()(y)


def main():
    model = torch.compile(Net(), backend="eager")
    model(torch.randn(2, 4))


if __name__ == "__main__":
    main()
