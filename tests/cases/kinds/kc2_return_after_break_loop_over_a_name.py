"""A break in a loop body followed by a `return` laid out before the loop's jump back resumes (kb48) only when the
resume function can rebuild the loop's iterator. Over a name, that depends on what the name holds when the code
runs: a list or a tuple passed in, or a list built in the frame, is rebuilt and the frame resumes; an
`nn.ModuleList` is not and the frame is skipped."""
import torch


@torch.compile(backend="eager")
def over_list_argument(x, ws):
    for w in ws:
        print("step")
        if w.shape[0] == 7:
            return w
    return x * 2


@torch.compile(backend="eager")
def over_tuple_argument(x, ws):
    for w in ws:
        print("step")
        if w.shape[0] == 7:
            return w
    return x * 3


@torch.compile(backend="eager")
def over_local_list(x, a, b):
    ws = [a, b]
    for w in ws:
        print("step")
        if w.shape[0] == 7:
            return w
    return x * 4


class Stack(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(3, 3), torch.nn.Linear(3, 3)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
            print("layer")
            if x.shape[0] == 7:
                return x
        return x * 5


def main():
    x = torch.ones(3)
    over_list_argument(x, [torch.ones(2), torch.ones(2)])
    over_tuple_argument(x, (torch.ones(2), torch.ones(2)))
    over_local_list(x, torch.ones(2), torch.ones(2))
    torch.compile(Stack(), backend="eager")(torch.ones(2, 3))


if __name__ == "__main__":
    main()
