# A @contextmanager generator entered through another name (`scoped = phase`) around a break that cannot
# resume: the calling frame is skipped, and so is the generator's frame when it runs eagerly.
import contextlib

import torch


@contextlib.contextmanager
def phase(name):
    yield name


scoped = phase


def aliased(x):
    x = x * 2
    with scoped("b"):
        x = x + 1
        torch._dynamo.graph_break()
        x = x.relu()
    return x


compiled = torch.compile(aliased, backend="eager")


def main():
    compiled(torch.randn(3))


if __name__ == "__main__":
    main()
