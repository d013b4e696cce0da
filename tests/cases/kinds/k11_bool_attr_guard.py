# Guard: Python bools kept on the module (from comparisons of ints and a config flag) are no tensor.
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim_in, dim_out, use_bias=True):
        super().__init__()
        self.residual = dim_in == dim_out
        self.use_bias = use_bias
        self.lin = nn.Linear(dim_in, dim_out, bias=use_bias)
        self.register_buffer("scale", None)

    def forward(self, x):
        y = self.lin(x)
        if self.residual and self.use_bias:
            y = y + x
        if self.scale is not None:
            y = y * self.scale
        for i, d in enumerate(x.shape):
            if d > 1:
                y = y + i
        return y


def main():
    model = torch.compile(Block(4, 4), backend="eager")
    model(torch.randn(2, 4))
