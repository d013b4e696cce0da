# A plain config class built from a named preset by a factory function; the mixer class comes from a
# module-level registry dict keyed by the config's string. Only the picked (non-default) mixer breaks.
import torch
import torch.nn as nn

PRESETS = {
    "base": {"width": 6, "mixer": "mean"},
    "sparse": {"width": 6, "mixer": "topk"},
}


class MixerConfig:
    def __init__(self, width=4, mixer="mean", depth=1):
        self.width = width
        self.mixer = mixer
        self.depth = depth


def config_for(name):
    return MixerConfig(**PRESETS[name])


class MeanMixer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.lin = nn.Linear(cfg.width, cfg.width)

    def forward(self, x):
        return self.lin(x).mean(dim=0, keepdim=True) + x


class TopKMixer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.lin = nn.Linear(cfg.width, cfg.width)

    def forward(self, x):
        h = self.lin(x)
        keep = h.sum(dim=1).nonzero()
        return x + h[keep.squeeze(1)].sum(dim=0)


MIXERS = {"mean": MeanMixer, "topk": TopKMixer}


class Model(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.mixer = MIXERS[cfg.mixer](cfg)
        self.out = nn.Linear(cfg.width, 1)

    def forward(self, x):
        return self.out(self.mixer(x))


def main():
    model = Model(config_for("sparse"))
    torch.compile(model, backend="eager")(torch.randn(5, 6))
