# A frozen dataclass config changed with `object.__setattr__` (frozen dataclasses forbid plain assignment): in
# `__post_init__` with a literal name (only that field changes, to a known value), and by a helper with a name
# it is handed (`__dict__[key] = ...`). The branches read both fields.
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass(frozen=True)
class HeadConfig:
    dim: int = 4
    pool: str = "mean"
    clip: bool = False

    def __post_init__(self):
        object.__setattr__(self, "pool", "max")


def with_field(cfg, key, value):
    cfg.__dict__[key] = value
    return cfg


class Head(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.proj = nn.Linear(cfg.dim, cfg.dim)

    def forward(self, x):
        h = self.proj(x)
        if self.cfg.pool == "max":
            h = h.max(dim=0).values
        else:
            h = h.mean(dim=0)
        if self.cfg.clip:
            return h.clamp(-1, 1).tolist()
        return h


def main():
    cfg = with_field(HeadConfig(), "clip", True)
    torch.compile(Head(cfg), backend="eager")(torch.randn(3, 4))
