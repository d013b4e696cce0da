"""`torch.equal` and `torch.allclose` read their Python result out of tensor data (GB0033) whatever gblint knows
of their operands: torch's stubs type both operands as Tensor, so a call that returns has read tensor data. Values
drawn from `zip` of list arguments, in a list comprehension (its frame is skipped), a generator consumed by `all`
(the frame holding the generator is skipped, GB8335) and a `for` loop (GB7000)."""
import torch


@torch.compile(backend="eager")
def equal_in_listcomp(xs, ys):
    same = [torch.equal(x, y) for x, y in zip(xs, ys)]
    return xs[0] * 2 + len(same)


@torch.compile(backend="eager")
def equal_in_all(xs, ys):
    if all(torch.equal(x, y) for x, y in zip(xs, ys)):
        return xs[0] + 1
    return ys[0] - 1


@torch.compile(backend="eager")
def allclose_in_loop(xs, ys):
    acc = xs[0] * 0
    for x, y in zip(xs, ys):
        if torch.allclose(x, y):
            acc = acc + x
    return acc


def main():
    xs = [torch.ones(3), torch.zeros(3)]
    ys = [torch.ones(3), torch.ones(3)]
    equal_in_listcomp(xs, ys)
    equal_in_all(xs, ys)
    allclose_in_loop(xs, ys)


if __name__ == "__main__":
    main()
