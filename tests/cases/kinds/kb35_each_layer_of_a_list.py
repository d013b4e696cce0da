# A loop over a list of layers whose body runs to its end at every step (`for layer in self.layers: x = layer(x)`)
# calls every layer, one per step: a break in one of them is a break for sure, whichever classes the others are
# (as kb18 for `for i in range(len(L)): L[i](x)`). Before, the loop's name held any one of the layers: the break
# was conditional on `layer is Sparse`. (kb36: a loop that may leave early.)
import torch
from torch import nn


class Sparse(nn.Module):
    def forward(self, x):
        hit = (x > 0).nonzero()
        return x + hit.sum()


class Dense(nn.Module):
    def forward(self, x):
        return x * 2


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Dense(), Sparse(), Dense()])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def main():
    torch.compile(Stack(), backend="eager")(torch.randn(4))


if __name__ == "__main__":
    main()
