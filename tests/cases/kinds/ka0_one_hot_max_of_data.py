# A mixture-of-experts helper: the class count of a one-hot is read out of the indexes themselves, through a local
# and builtin max with a Python minimum (a tensor under Dynamo): F.one_hot needs an int, GB0033 at the call.
import torch
import torch.nn.functional as F


def safe_one_hot(indexes, max_length):
    max_index = indexes.max() + 1
    return F.one_hot(indexes, max(max_index + 1, max_length))


class Router(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = torch.nn.Linear(8, 4)

    def forward(self, x):
        expert = self.gate(x).argmax(dim=-1)
        mask = safe_one_hot(expert, 4)
        return mask.float().sum(0)


def main():
    model = torch.compile(Router(), backend="eager")
    model(torch.randn(6, 8))
