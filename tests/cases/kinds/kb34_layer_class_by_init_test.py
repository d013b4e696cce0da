# An __init__ that picks its submodule's class by a test of the config and the layer's index
# (`if idx not in cfg.only and cfg.experts > 0 and (idx + 1) % cfg.step == 0: self.mlp = Sparse() else: Dense()`,
# transformers' MoE decoder layers), each layer built in a comprehension over `range(cfg.layers)`. The store under a
# test false for the instance never runs (as kb25's, now for the building stores too), and `range` of a known int
# is its ints (Dynamo folds it): every layer is sparse, and `Sparse`'s `.nonzero()` breaks in the loop over the
# layers, definite; with `experts=0` every layer is dense: nothing to report. Before, each layer's `self.mlp` was
# either class: conditional on `self.mlp is Sparse`. (Layers of both classes, `step=2`, stay conditional: that the
# loop calls each layer of a list it iterates is not followed.)
import torch
from torch import nn


class Cfg:
    def __init__(self, layers=2, experts=4, step=1, only=None):
        self.layers = layers
        self.experts = experts
        self.step = step
        self.only = [] if only is None else only


class Sparse(nn.Module):
    def forward(self, x):
        hit = (x > 0).nonzero()
        return x + hit.sum()


class Dense(nn.Module):
    def forward(self, x):
        return x * 2


class Layer(nn.Module):
    def __init__(self, cfg, idx):
        super().__init__()
        if (idx not in cfg.only) and (cfg.experts > 0 and (idx + 1) % cfg.step == 0):
            self.mlp = Sparse()
        else:
            self.mlp = Dense()

    def forward(self, x):
        return self.mlp(x)


class Model(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layers = nn.ModuleList([Layer(cfg, i) for i in range(cfg.layers)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class DenseModel(Model):
    pass


def main():
    torch.compile(Model(Cfg(layers=2)), backend="eager")(torch.randn(4))
    torch.compile(DenseModel(Cfg(layers=3, experts=0)), backend="eager")(torch.randn(4))


if __name__ == "__main__":
    main()
