# Results of torch.nn.functional functions torch/nn/functional.pyi re-exports from torch._C._nn (one_hot, pad) are
# tensors by their stubs: the position count made from them and handed to a helper is read as an int (GB0033).
import torch
import torch.nn.functional as F


def safe_one_hot(indexes, max_length):
    max_index = indexes.max() + 1
    return F.one_hot(indexes, max(max_index + 1, max_length))


def shifted_cumsum(t):
    return F.pad(t, (1, 0)).cumsum(dim=-1)[..., :-1]


class Dispatch(torch.nn.Module):
    def forward(self, index):
        mask = F.one_hot(index, 4).float()
        position = (shifted_cumsum(mask) * mask).sum(dim=-1)
        return safe_one_hot(position.long(), 4)


def main():
    model = torch.compile(Dispatch(), backend="eager")
    model(torch.tensor([0, 1, 1, 3]))
