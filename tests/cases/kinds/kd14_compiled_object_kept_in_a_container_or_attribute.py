"""A compiled object kept only in a list, a dict or an attribute nobody reads is never run compiled; one called out
of its container, or stored as an attribute the code calls, is; a function replaced by ``substitute_in_graph(f)(p)``
called as a function is traced as its polyfill."""
import torch


def kept_in_list(x):
    if x.sum() > 0:
        return x + 1
    return x - 1


def kept_in_dict(x):
    if x.sum() > 1:
        return x + 2
    return x - 2


def kept_as_attribute(x):
    if x.sum() > 2:
        return x + 3
    return x - 3


def called_from_list(x):
    if x.sum() > 3:
        return x + 4
    return x - 4


def appended(x):
    if x.sum() > 4:
        return x + 5
    return x - 5


class Holder:
    pass


def helper(x):
    print("helper runs eagerly", x.shape)
    return x + 1


def polyfill(x):
    return x + 1


torch._dynamo.substitute_in_graph(helper)(polyfill)


@torch.compile(backend="eager")
def uses_helper(x):
    return helper(x) * 2


class Runner:
    def __init__(self):
        self.step = torch.compile(self.slow_step, backend="eager")

    def slow_step(self, x):
        if x.sum() > 5:
            return x + 6
        return x - 6

    def run(self, x):
        return self.step(x)


class Net(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 6:
            return x + 7
        return x - 7


def main():
    x = torch.ones(3)
    fns = [torch.compile(kept_in_list, backend="eager")]
    table = {"f": torch.compile(kept_in_dict, backend="eager")}
    h = Holder()
    h.fn = torch.compile(kept_as_attribute, backend="eager")
    kept_in_list(x), kept_in_dict(x), kept_as_attribute(x)
    print(len(fns), sorted(table))
    called = [torch.compile(called_from_list, backend="eager")]
    called[0](x)
    more = []
    more.append(torch.compile(appended, backend="eager"))
    more[0](x)
    uses_helper(x)
    Runner().run(x)
    net = Net()
    net.forward = torch.compile(net.forward, backend="eager")
    net(x)


main()
