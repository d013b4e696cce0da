"""`torch._dynamo.skip_frame()` skips the frame it runs in. Met while Dynamo inlines a helper, it skips the helper
only: the caller breaks at the call and resumes after it (the helper then runs as a frame of its own, which Dynamo
skips). In a loop of the caller, the break at the call skips the caller too (GB7000)."""
import torch


def skipper(h):
    h = h + 1
    torch._dynamo.skip_frame()
    return h * 2


@torch.compile(backend="eager")
def helper_only(x):
    h = x * 2
    h = skipper(h)
    return h.sin()


@torch.compile(backend="eager")
def print_then_helper(x):
    h = x * 2
    print("start")
    h = skipper(h)
    return h.cos()


@torch.compile(backend="eager")
def helper_in_loop(x):
    h = x * 2
    for i in range(2):
        h = skipper(h)
    return h.exp()


def main():
    x = torch.ones(4)
    helper_only(x)
    print_then_helper(x)
    helper_in_loop(x)


if __name__ == "__main__":
    main()
