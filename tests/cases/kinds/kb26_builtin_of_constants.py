# max(), min(), abs(), int() of constants are constants (Dynamo folds them): a layer built with num_relations=3
# stores max(3, 1) = 3, so `if self.num_relations <= 1` is false and the loop over its relations runs, breaking at
# `.item()` in the loop (the frame is skipped). Before, max() of constants was not known: the skip was conditional.
import torch


class FiLM(torch.nn.Module):
    def __init__(self, num_relations=1):
        super().__init__()
        self.num_relations = max(num_relations, 1)
        self.scale = abs(-2)

    def forward(self, x):
        if self.num_relations <= 1:
            return x * self.scale
        for i in range(self.num_relations):
            x = x + x.sum().item()
        return x


def main():
    torch.compile(FiLM(num_relations=3), backend="eager")(torch.ones(3))
