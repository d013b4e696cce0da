# `**kwargs` kept on the module (`self.kw = kwargs`), then a method adds to it through the attribute before
# the test on `kwargs`: the dict is not empty any more, so the print runs.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.kw = {}

    def remember(self):
        self.kw["a"] = 1

    def run(self, x, **kwargs):
        self.kw = kwargs
        self.remember()
        if kwargs:
            print("run got", sorted(kwargs))
        return self.fc(x)

    def forward(self, x):
        return self.run(x).sum()


def main():
    torch.compile(Net(), backend="eager")(torch.randn(2, 3))
