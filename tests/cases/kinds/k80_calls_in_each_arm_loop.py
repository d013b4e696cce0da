# Each arm of a mode test calls a helper that reads a tensor element as a Python number (.item(), GB0124); the
# calls are in a loop, so whichever arm runs the frame is skipped (GB7000) and the test after them is never met.
import torch


def first_score(scores, j):
    return scores[j, 0].item()


def last_score(scores, j):
    return scores[j, -1].item()


def pick(scores: torch.Tensor, from_front: bool):
    picked = []
    for j in range(scores.shape[0]):
        if from_front:
            v = first_score(scores, j)
        else:
            v = last_score(scores, j)
        picked.append(v)
        if scores[j].sum() > 0:
            picked.append(0.0)
    return torch.tensor(picked)


class Picker(torch.nn.Module):
    def __init__(self, from_front):
        super().__init__()
        self.from_front = from_front

    def forward(self, scores):
        return pick(scores * 2, self.from_front) + 1


def main():
    model = torch.compile(Picker(len(__name__) > 100), backend="eager")
    model(torch.randn(3, 4))
