# torch functions Dynamo calls in the graph whose result is a Python int, str or bool it neither folds nor keeps
# (trace_rules.py in-graph lists; the stubs say `-> _int` / `-> str` / `-> _bool`): each call breaks (GB0208).
import torch


def tune(x: torch.Tensor):
    threads = torch.get_num_threads()
    x = x * threads
    cap = torch._C._get_cpu_capability()
    x = x + len(cap)
    if torch.is_anomaly_enabled():
        x = x - 1
    return x.relu()


class Tuned(torch.nn.Module):
    def forward(self, x):
        return tune(x + 1) * 2


def main():
    model = torch.compile(Tuned(), backend="eager")
    model(torch.randn(4))
