"""Every reason a frame is skipped. Dynamo gives up on a frame at the first break it cannot resume from and traces
nothing after it; the breaks after it that would skip the frame on their own are further reasons, each met once the
earlier ones are gone. ``three_reasons`` has a ``print`` in a loop (the first reason), a second ``print`` in the
same loop (no further reason: the loop is one), an ``.item()`` in a ``try`` and a branch on a tensor in another
loop; ``without_first`` and ``only_last`` are the same frame with the earlier reasons removed: Dynamo skips them
at the next reason (no op precedes the ``try``, so no prefix graph is kept). A frame with one reason
(``one_reason``) gets one diagnostic."""
import torch


@torch.compile(backend="eager")
def three_reasons(x):
    for i in range(2):
        print("step", i)
        print("again", i)
    try:
        s = x.sum().item()
    except ValueError:
        s = 0.0
    for j in range(2):
        if x.sum() > 0:
            x = x * 2
    return x + s


@torch.compile(backend="eager")
def without_first(x):
    try:
        s = x.sum().item()
    except ValueError:
        s = 0.0
    for j in range(2):
        if x.sum() > 0:
            x = x * 2
    return x + s


@torch.compile(backend="eager")
def only_last(x):
    s = x.sum()
    for j in range(2):
        if x.sum() > 0:
            x = x * 2
    return x + s


@torch.compile(backend="eager")
def one_reason(x):
    for i in range(2):
        print("step", i)
        x = x + 1
    return x.sin()


def main():
    x = torch.ones(4)
    three_reasons(x)
    without_first(x)
    only_last(x)
    one_reason(x)


if __name__ == "__main__":
    main()
