# A plain config changed by overrides the way command-line tools do: `vars(opts).update(...)` in one place,
# `setattr(opts, key, value)` over a dict of overrides in another. A branch in forward reads the changed field;
# gblint must not take the default's arm as the one taken.
import torch
import torch.nn as nn

OVERRIDES = {"norm": "rms", "gain": 2.0}


class Options:
    def __init__(self):
        self.norm = "layer"
        self.gain = 1.0
        self.debug = False


def load(opts):
    for key, value in OVERRIDES.items():
        setattr(opts, key, value)
    return opts


class Norm(nn.Module):
    def __init__(self, opts):
        super().__init__()
        self.opts = opts
        self.ln = nn.LayerNorm(4)

    def forward(self, x):
        if self.opts.debug:
            print("debug", x.shape)
        if self.opts.norm == "rms":
            scale = x.pow(2).mean(-1, keepdim=True).rsqrt()
            return (x * scale).tolist()
        return self.ln(x)


def main():
    opts = load(Options())
    vars(opts).update(debug=True)
    torch.compile(Norm(opts), backend="eager")(torch.randn(2, 4))
