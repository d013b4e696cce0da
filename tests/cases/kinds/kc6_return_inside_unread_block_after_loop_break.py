"""A break in a loop body followed by a `return` inside a `with` or a `try`, or under `if __debug__:` resumes like
a break outside a loop (Dynamo's loop test meets the `return` first, kb48): gblint does not read the first two
layouts (the skip is conditional); CPython keeps the `__debug__` arm without its test. A `with` that holds no `return`
leaves the frame skipped."""
import torch


@torch.compile(backend="eager")
def return_in_with(x):
    for w in range(3):
        print(w)
        with torch.no_grad():
            return x * w
    return x


@torch.compile(backend="eager")
def return_in_try(x):
    for w in range(3):
        print(w)
        try:
            return x * w
        finally:
            pass
    return x


@torch.compile(backend="eager")
def return_under_debug(x):
    for w in range(3):
        print(w)
        if __debug__:
            return x * w
    return x


@torch.compile(backend="eager")
def with_no_return(x):
    for w in range(3):
        print(w)
        with torch.no_grad():
            x = x * 2
    return x


def main():
    x = torch.ones(2)
    return_in_with(x)
    return_in_try(x)
    return_under_debug(x)
    with_no_return(x)


if __name__ == "__main__":
    main()
