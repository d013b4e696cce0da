# A config class whose __init__ stores each keyword by name (`setattr(self, key, value)` over **kwargs): its class
# default says `verbose = False`, the driver builds it with `verbose=True`. Dynamo breaks at the print (GB0059
# family). Before, gblint took the class default and printed "All checks passed"; now the attribute may be any
# value: the print is reported, conditional on it.
import torch


class Options:
    verbose = False
    scale = 2.0

    def __init__(self, **overrides):
        for key, value in overrides.items():
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


def main():
    model = torch.compile(Net(Options(verbose=True)), backend="eager")
    model(torch.ones(2, 4))
