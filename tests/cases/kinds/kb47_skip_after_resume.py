"""After a graph break it resumes from, Dynamo goes on in a resume function (`torch_dynamo_resume_in_<f>_at_<line>`,
torch/_dynamo/resume_execution.py) compiled as a frame of its own. A later break that cannot resume there (in a loop,
GB7000; in a `try` with no checkpoint; an unsupported `with`; a skip marker) skips only that resume function: the
graphs before the first break are kept, and no break after it in the frame is made (the rest runs eagerly). A break
that may not happen (under a test of an argument) leaves the whole frame skipped when it does not. A comprehension
in the skipped resume function is compiled as a frame of its own (Python 3.11), one before the first break is not."""
import torch

NO_GRAD = torch.no_grad()  # a manager object made outside the compiled code: Dynamo cannot enter it (GB0142)


def noisy(h):
    print("noisy")
    return h * 3


@torch.compile(backend="eager")
def break_then_loop(x):
    h = x * 2
    h = h + 1
    torch._dynamo.graph_break()
    for i in range(2):
        print("step", i)
        h = h + i
    print("never traced")
    return h.sin()


@torch.compile(backend="eager")
def print_then_try_item(x):
    print("start")
    h = x * 2
    try:
        s = h.mean().item()
    except RuntimeError:
        s = 0.0
    return h * s


@torch.compile(backend="eager")
def assert_not_then_loop(x):
    h = x.cos()
    assert not torch.isnan(h).any(), "nan in h"
    for i in range(2):
        torch._dynamo.graph_break()
        h = h - 1
    return h


@torch.compile(backend="eager")
def helper_then_loop(x):
    h = x * 2
    h = noisy(h)
    for i in range(2):
        torch._dynamo.graph_break()
        h = h + 1
    return h


@torch.compile(backend="eager")
def break_then_skip_marker(x):
    h = x + 1
    torch._dynamo.graph_break()
    torch._dynamo.skip_frame()
    return h.exp()


@torch.compile(backend="eager")
def break_then_manager(x):
    h = x - 1
    torch._dynamo.graph_break()
    with NO_GRAD:
        h = h * 2
    return h.abs()


@torch.compile(backend="eager")
def flag_then_loop(x, flag=False):
    h = x * 2
    if flag:
        print("flag")
    for i in range(2):
        torch._dynamo.graph_break()
        h = h + 1
    return h


@torch.compile(backend="eager")
def break_then_try_after_ops(x):
    h = x * 2
    torch._dynamo.graph_break()
    h = h + 1
    h = h * 3
    try:
        s = h.mean().item()
    except RuntimeError:
        s = 0.0
    return h * s


@torch.compile(backend="eager")
def comprehensions_around_break(x, ws):
    a = [x * w for w in ws]
    torch._dynamo.graph_break()
    b = [x + w for w in ws]
    for i in range(2):
        print("step", i)
    return sum(a) + sum(b)


def main():
    x = torch.ones(4)
    break_then_loop(x)
    print_then_try_item(x)
    assert_not_then_loop(x)
    helper_then_loop(x)
    break_then_skip_marker(x)
    break_then_manager(x)
    flag_then_loop(x)
    break_then_try_after_ops(x)
    comprehensions_around_break(x, [torch.ones(4), torch.ones(4)])


if __name__ == "__main__":
    main()
