"""`self.flag = isinstance(a, Op) or isinstance(b, Op)` then `if self.flag:` with nothing run between them
(gpytorch's `MultivariateNormal.__init__`): the test reads what was just stored, whatever other code stores on
that name (`new.lazy = False` on a fresh instance in another method). `isinstance(a, Op) or True` is True
whatever `a` is. A call between the store and the test, or a store in one arm of an `if`, leaves the test
undecided: its break stays conditional."""
import torch


class Op:
    pass


class Lazy(Op):
    def __init__(self, x):
        self.x = x


class Dist:
    def __init__(self, mean, cov):
        self.lazy = isinstance(mean, Op) or isinstance(cov, Op)
        if self.lazy:
            print("lazy")
        self.mean = mean

    def expand(self):
        new = self.__new__(type(self))
        new.lazy = False
        return new


class Reset:
    def __init__(self, x, flag):
        self.flag = True
        self.clear(flag)
        if self.flag:
            print("flagged")
        self.x = x

    def clear(self, flag):
        self.flag = flag


class OneArm:
    def __init__(self, x, big):
        self.flag = False
        if big:
            self.flag = True
        if self.flag:
            print("big")
        self.x = x


@torch.compile(backend="eager")
def lazy_dist(x, m):
    d = Dist(m, Lazy(x))
    return d.mean * 2


@torch.compile(backend="eager")
def reset_between(x):
    r = Reset(x, False)
    return r.x * 3


@torch.compile(backend="eager")
def one_arm(x, big):
    o = OneArm(x, big)
    return o.x * 4


def main():
    lazy_dist(torch.ones(2), [1.0, 2.0])
    reset_between(torch.ones(2))
    one_arm(torch.ones(2), x_is_big())


def x_is_big():
    return torch.ones(2).shape[0] > 1


if __name__ == "__main__":
    main()
