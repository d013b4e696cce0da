"""Code that is compiled but never traced, and a descriptor Dynamo cannot enter (each a wrong definite or a false
all-clear before). A compiled function a driver binds to a local name and never calls (it calls the original), or
calls only inside ``with torch.compiler.set_stance("force_eager")``, is never traced; a function a
``@torch._dynamo.substitute_in_graph`` polyfill replaces is never traced either (the polyfill is). Reading a
``functools.cached_property`` not computed yet enters the lock of its ``__get__`` before Python 3.12: the reading
frame is skipped (GB0142) whatever the getter does; one already read in ``__init__`` is a plain attribute. Measured on
torch 2.13, Python 3.11."""
import functools

import torch


def loud(x):
    print("loud")
    return x + 1


def plain(x):
    print("plain")
    return x * 3


def orig(x):
    print("orig")
    return x + 1


@torch._dynamo.substitute_in_graph(orig)
def poly(x):
    return x + 1


def use_orig(x):
    return orig(x) * 2


class Cached(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.first = self.scale

    @functools.cached_property
    def scale(self):
        print("computing scale")
        return 2.0

    def forward(self, x):
        return x * self.scale


class Lazy(torch.nn.Module):
    @functools.cached_property
    def scale(self):
        return 2.0

    def forward(self, x):
        return x * self.scale


def main():
    cf = torch.compile(loud, backend="eager")
    with torch.compiler.set_stance("force_eager"):
        cf(torch.randn(4))
    unused = torch.compile(plain, backend="eager")
    plain(torch.randn(4))
    torch.compile(use_orig, backend="eager")(torch.randn(4))
    torch.compile(Cached(), backend="eager")(torch.randn(4))
    torch.compile(Lazy(), backend="eager")(torch.randn(4))


if __name__ == "__main__":
    main()
