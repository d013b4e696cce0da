"""A local bound before a ``for`` loop, whose target and body never bind it, holds in every step what it held
before the loop: a setting picked by a known argument (``use_pope=False``) and handed to each layer the loop
builds decides the layer's test (Model: definite). A local the body binds again after using it holds that
value from the second step on (Rebound: the second layer breaks; conditional)."""
import torch
from torch import nn


class Attend(nn.Module):
    def forward(self, q):
        if q.sum() > 0:
            q = q * 2
        return q


class Layer(nn.Module):
    def __init__(self, rotary=None):
        super().__init__()
        self.rotary = rotary
        self.attend = Attend()

    def forward(self, x):
        if self.rotary is not None:
            x = self.attend(self.rotary(x))
        return x + 1


class Model(nn.Module):
    def __init__(self, depth=2, use_pope=False):
        super().__init__()
        if use_pope:
            rotary = None
        else:
            rotary = nn.Identity()
        self.layers = nn.ModuleList([])
        for index in range(depth):
            first = index == 0
            self.layers.append(nn.ModuleList([Layer(rotary=rotary)]))

    def forward(self, x):
        for (layer,) in self.layers:
            x = layer(x)
        return x


class Rebound(nn.Module):
    def __init__(self, depth=2):
        super().__init__()
        rotary = None
        self.layers = nn.ModuleList([])
        for index in range(depth):
            self.layers.append(Layer(rotary=rotary))
            rotary = nn.Identity()

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def main():
    x = torch.ones(4)
    torch.compile(Model(), backend="eager")(x)
    torch.compile(Rebound(), backend="eager")(x)


if __name__ == "__main__":
    main()
