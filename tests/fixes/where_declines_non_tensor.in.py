# gblint-fix: --unsafe-fixes
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, inp, oup):
        super().__init__()
        self.use_res = inp == oup  # ints: `torch.where(self.use_res, ...)` would raise TypeError
        self.lin = nn.Linear(inp, oup)

    def forward(self, x):
        y = self.lin(x)
        if self.use_res:
            y = x + y
        return y


compiled = torch.compile(Block(4, 4))
