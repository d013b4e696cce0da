# A BatchNorm1d subclass overrides _check_input_dim (called by torch's own _BatchNorm.forward) and logs there.
import torch
import torch.nn as nn


class LoggedNorm(nn.BatchNorm1d):
    def _check_input_dim(self, input):
        print("norm input", input.dim())


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.norm = LoggedNorm(4)

    def forward(self, x):
        return self.norm(self.fc(x)).relu().sum()


def main():
    torch.compile(Encoder(), backend="eager")(torch.randn(3, 4))
