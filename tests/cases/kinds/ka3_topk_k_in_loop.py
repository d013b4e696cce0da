# topk whose k comes from data, inside a loop: the break cannot resume there, so the frame runs eagerly.
import torch


def keep_best(scores: torch.Tensor, steps: int):
    total = scores.new_zeros(())
    for _ in range(steps):
        k = (scores > 0).sum() + 1
        total = total + scores.topk(k=k).values.sum()
    return total


class Picker(torch.nn.Module):
    def forward(self, scores):
        return keep_best(scores * 1.0, 2)


def main():
    model = torch.compile(Picker(), backend="eager")
    model(torch.tensor([0.5, -1.0, 2.0, 0.1]))
