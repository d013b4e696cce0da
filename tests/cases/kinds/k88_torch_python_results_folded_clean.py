# Guard: torch functions returning Python values that Dynamo folds or handles (constant_fold_functions,
# grad mode, deterministic mode, the tracing state, is_compiling): no break.
import torch


class Folded(torch.nn.Module):
    def forward(self, x):
        x = x.to(torch.get_default_dtype())
        if torch.is_grad_enabled() and not torch.are_deterministic_algorithms_enabled():
            x = x * 2
        if torch.cuda.is_available() or torch._C._get_tracing_state() is not None:
            x = x + 1
        if not torch.compiler.is_compiling():
            x = x - 1
        return x


def main():
    model = torch.compile(Folded(), backend="eager")
    model(torch.randn(3))
