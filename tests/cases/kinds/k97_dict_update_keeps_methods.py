# `self.__dict__.update(kwargs)` in a module's own __init__: its settings may be anything, but its methods and the
# submodule it assigns by name are still what the class defines: the helper method's `.item()` breaks (GB0124
# family) and stays definite.
import torch


class Block(torch.nn.Module):
    mode = "fast"

    def __init__(self, **kwargs):
        super().__init__()
        self.__dict__.update(kwargs)
        self.proj = torch.nn.Linear(4, 4)

    def norm(self, h):
        return h / h.abs().max().item()

    def forward(self, x):
        return self.norm(self.proj(x))


def main():
    model = torch.compile(Block(mode="slow"), backend="eager")
    model(torch.ones(2, 4))
