# A loop over a list of layers, leaving it early (`break`) at a layer that comes first: the later layers may
# never run, so the break of the one after it stays conditional (here it never runs: no break, Dynamo skips nothing).
import torch
from torch import nn


class Dense(nn.Module):
    def forward(self, x):
        return x * 2


class SparseAfterStop(nn.Module):
    def forward(self, x):
        return x.nonzero().sum() + x


class Gated(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Dense(), SparseAfterStop()])

    def forward(self, x):
        for layer in self.layers:
            if isinstance(layer, Dense):
                x = layer(x)
                break
            x = layer(x)
        return x


def main():
    torch.compile(Gated(), backend="eager")(torch.randn(4))


if __name__ == "__main__":
    main()
