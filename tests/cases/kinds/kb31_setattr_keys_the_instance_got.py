# A config class whose __init__ stores the keywords it is built with by name (`setattr(self, key, value)` over the
# `**kwargs` left after its own parameters and a `pop`): an instance built without `verbose` holds its own
# `self.verbose = True`, so the print in `Net.forward` is a graph break for sure; before, any store by a run-time
# name made every setting of the class maybe another value (conditional). `Quiet` is built with `verbose=False`
# among its keywords: that store may change it, so the test stays undecided (here False: no break).
import torch


class Options:
    scale = 2.0

    def __init__(self, depth=2, **kwargs):
        self.verbose = True
        self.depth = depth
        kwargs.pop("legacy", None)
        for key, value in kwargs.items():
            setattr(self, key, value)


class Net(torch.nn.Module):
    def __init__(self, opts):
        super().__init__()
        self.opts = opts
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        if self.opts.verbose:
            print("input", x.shape)
        return self.lin(x) * self.opts.scale


class Quiet(torch.nn.Module):
    def __init__(self, opts):
        super().__init__()
        self.opts = opts

    def forward(self, x):
        if self.opts.verbose:
            print("quiet input", x.shape)
        return x * self.opts.scale


def main():
    torch.compile(Net(Options(depth=3, scale=1.5, legacy=True)), backend="eager")(torch.ones(2, 4))
    torch.compile(Quiet(Options(verbose=False)), backend="eager")(torch.ones(2, 4))


if __name__ == "__main__":
    main()
