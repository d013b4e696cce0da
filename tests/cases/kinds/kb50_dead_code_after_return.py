"""Code after a `return`, `raise`, `continue` or `break` in the same suite never runs: CPython drops it, and no break
there happens (a `print` left after a helper's `return`, after the compiled function's `return`, after a `continue`
in a loop). A `try` body that returns still has live `except` clauses: a break there happens when the body raises."""
import torch


def helper(h):
    return h * 2
    print("dead in helper")


@torch.compile(backend="eager")
def after_return(x):
    h = helper(x)
    return h.sin()
    print("dead in frame")


@torch.compile(backend="eager")
def after_continue(x):
    for i in range(2):
        x = x + 1
        continue
        print("dead in loop")
    return x


@torch.compile(backend="eager")
def handler_still_live(x, table):
    try:
        return x * table["scale"]
    except KeyError:
        print("no scale")
    return x


def main():
    x = torch.ones(4)
    after_return(x)
    after_continue(x)
    handler_still_live(x, {})


if __name__ == "__main__":
    main()
