# A loop over every index of a layer list (range(len(L) - 1, -1, -1)) calls each layer in turn: the one whose
# inverse prints is called for sure (Flow.forward is skipped). Where the body may skip a step (continue), which
# layers run is not proven: conditional.
import torch


class A(torch.nn.Module):
    def inverse(self, x):
        return x - 1


class B(torch.nn.Module):
    def inverse(self, x):
        print("inverse", x.shape)
        return x + 1


class Flow(torch.nn.Module):
    def __init__(self, flows):
        super().__init__()
        self.flows = torch.nn.ModuleList(flows)

    def forward(self, x):
        for i in range(len(self.flows) - 1, -1, -1):
            x = self.flows[i].inverse(x)
        return x


class Picky(torch.nn.Module):
    def __init__(self, flows):
        super().__init__()
        self.flows = torch.nn.ModuleList(flows)

    def forward(self, x):
        for i in range(len(self.flows)):
            if i == 0:
                continue
            x = self.flows[i].inverse(x)
        return x


def main():
    torch.compile(Flow([A(), B(), A()]), backend="eager")(torch.ones(2))
    torch.compile(Picky([A(), B()]), backend="eager")(torch.ones(2))
