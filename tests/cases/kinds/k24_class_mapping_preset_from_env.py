# A dataclass config's classmethod builds it from a preset whose name comes from the environment (unset when
# measured: the "global" preset, which keeps the field's default); its class-level mapping (a ClassVar) turns
# the attention kind into the class, read through getattr(config, "literal"). The kind is not a fact: each
# class the mapping may give is reported as conditional, never the default's class as definite.
import os
from dataclasses import dataclass
from typing import ClassVar

import torch
import torch.nn as nn


class WindowAttention(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.qk = nn.Linear(size, size)

    def forward(self, x):
        scores = self.qk(x) @ x.T
        window = int(scores.argmax())
        return torch.softmax(scores[:, : window + 1], dim=-1) @ x[: window + 1]


class DotAttention(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.qk = nn.Linear(size, size)

    def forward(self, x):
        return torch.softmax(self.qk(x) @ x.T, dim=-1) @ x


SETTINGS = {
    "global": {"size": 5},
    "dot": {"size": 5, "kind": "dot"},
}


@dataclass
class AttnSettings:
    classes: ClassVar[dict] = {"dot": DotAttention, "window": WindowAttention}
    size: int = 4
    kind: str = "window"

    @classmethod
    def preset(cls, name):
        return cls(**SETTINGS[name])

    def attention_class(self):
        return self.classes[self.kind]


class Encoder(nn.Module):
    def __init__(self, settings):
        super().__init__()
        make = getattr(settings, "attention_class")
        self.attn = make()(settings.size)

    def forward(self, x):
        return self.attn(x).sum()


def main():
    settings = AttnSettings.preset(os.environ.get("GBLINT_K24_PRESET", "global"))
    enc = torch.compile(Encoder(settings), backend="eager")
    enc(torch.randn(4, 5))
