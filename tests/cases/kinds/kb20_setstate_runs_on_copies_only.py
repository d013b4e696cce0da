# __setstate__ runs only on an object made by copying or unpickling another, never on the instance the program
# built: the attribute holds what __init__ stored (None), so the branch on it does not run (no break).
import torch


class Gate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.flag = None

    def __setstate__(self, state):
        super().__setstate__(state)
        self.flag = torch.tensor(True)

    def forward(self, x):
        if self.flag is not None:
            torch._dynamo.graph_break()
        return x * 2


def main():
    torch.compile(Gate(), backend="eager")(torch.ones(2))
