import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self, train_x, debug=True):
        super().__init__()
        self.train_inputs = (train_x,)
        self.debug = debug
        self.lin = nn.Linear(1, 1)

    def forward(self, *args):
        train_inputs = list(self.train_inputs) if self.train_inputs is not None else []
        inputs = [i.unsqueeze(-1) if i.ndimension() == 1 else i for i in args]
        if self.training:
            if self.debug:
                if not all(
                    torch.equal(train_input, input) for train_input, input in zip(train_inputs, inputs, strict=True)
                ):
                    raise RuntimeError("You must train on the training inputs!")
            return self.lin(inputs[0])
        return self.lin(inputs[0]).detach()


def main():
    x = torch.linspace(0, 1, 6)
    model = torch.compile(Regressor(x.unsqueeze(-1)), backend="eager")
    model(x)
