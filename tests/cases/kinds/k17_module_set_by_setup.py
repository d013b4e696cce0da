# A child module assigned by a setup method the driver calls before compiling (None in __init__).
import torch
import torch.nn as nn


class Monitor(nn.Module):
    def forward(self, h):
        peak = h.abs().max().item()
        return h / (1.0 + peak)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 5)
        self.monitor = None

    def attach_monitor(self):
        self.monitor = Monitor()

    def forward(self, x):
        h = self.fc(x)
        if self.monitor is not None:
            h = self.monitor(h)
        return h.sum()


def main():
    net = Net()
    net.attach_monitor()
    torch.compile(net, backend="eager")(torch.randn(2, 5))
