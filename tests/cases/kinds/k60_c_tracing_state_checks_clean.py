# Guard: torch._C._get_tracing_state() (stub: -> TracingState, None when the JIT is not tracing) tested in a helper,
# an assert and a conditional expression; no value there is a tensor.
import torch


def check_size(size, dim=None):
    if not torch._C._get_tracing_state() and size == 0:
        raise ZeroDivisionError("size cannot be zero")
    return size if dim is None else -size


class Reducer(torch.nn.Module):
    def forward(self, x):
        n = check_size(x.shape[0])
        total = x.sum() * n
        assert torch._C._get_tracing_state() or total.shape == torch.Size([])
        return -(total.detach() if torch._C._get_tracing_state() else total)


def main():
    model = torch.compile(Reducer(), backend="eager")
    model(torch.randn(4, 3))
