"""A model gblint finds nothing to complain about (gblint reports nothing): shape branches are
guards, the assert is rewritten to torch._assert, and the loop over a constant range is unrolled."""
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, width: int = 32, depth: int = 3):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(width, width) for _ in range(depth)])

    def forward(self, x):
        if x.dim() == 1:
            x = x.unsqueeze(0)
        assert (x.abs() < 1e6).all(), "input overflow"
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


mlp = torch.compile(MLP(), fullgraph=True)
