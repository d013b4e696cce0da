"""Dynamo's loop test for a graph break (`maybe_has_backedge`, torch/_dynamo/symbolic_convert.py) reads the bytecode
after the break: the first `return` ends it with "no loop", a jump back before the break with "a loop" (GB7000, the
frame skipped). A break in a loop body followed by a `return` laid out before the loop's jump back (a last `if`
that returns, an early `return` later in the body, one in a `while`, one in an inner loop) resumes like a break
outside a loop. A `return` in the `else` of a last `if` (the jump over the `else` is threaded to the jump back),
one after a `continue`, one in a function defined in the body (a code object of its own) and a `break` in
place of the `return` leave the frame skipped; so do a loop over `enumerate(...)` (the resume function would need
its iterator rebuilt, GB0092) and a last `if` whose test is a chained comparison."""
import torch


@torch.compile(backend="eager")
def return_last(x, ws):
    h = x * 2
    for i in range(2):
        print("step")
        h = h + ws[i]
        if h.shape[0] == 7:
            return h
    return h.sin()


@torch.compile(backend="eager")
def return_in_middle(x, ws):
    h = x * 2
    for w in (ws[0], ws[1]):
        torch._dynamo.graph_break()
        if h.shape[0] == 7:
            return h
        h = h + w
    return h.sin()


@torch.compile(backend="eager")
def return_in_while(x):
    h = x * 2
    i = 0
    while i < 2:
        print("step")
        i += 1
        if i == 9:
            return h
    return h.cos()


@torch.compile(backend="eager")
def return_in_inner_loop(x, ws):
    h = x * 2
    for w in [ws[0], ws[1]]:
        print("outer")
        for k in range(2):
            if k == 5:
                return h
        h = h + w
    return h.exp()


@torch.compile(backend="eager")
def return_in_else(x, ws):
    h = x * 2
    for w in (ws[0], ws[1]):
        print("step")
        if h.shape[0] != 7:
            h = h + w
        else:
            return h
    return h.sin()


@torch.compile(backend="eager")
def continue_first(x, ws):
    h = x * 2
    for w in (ws[0], ws[1]):
        print("step")
        if h.shape[0] == 3:
            continue
        h = h + w
        if h.shape[0] == 7:
            return h
    return h.sin()


@torch.compile(backend="eager")
def return_in_nested_def(x, ws):
    h = x * 2
    for w in (ws[0], ws[1]):
        print("step")

        def scale(t):
            return t * 2
        h = scale(h) + w
    return h.sin()


@torch.compile(backend="eager")
def break_not_return(x, ws):
    h = x * 2
    for w in (ws[0], ws[1]):
        print("step")
        h = h + w
        if h.shape[0] == 7:
            break
    return h.sin()


@torch.compile(backend="eager")
def return_over_enumerate(x, ws):
    h = x * 2
    for i, w in enumerate(ws):
        print("step")
        h = h + w
        if i == 7:
            return h
    return h.sin()


@torch.compile(backend="eager")
def chained_test_last(x):
    h = x * 2
    for i in range(2):
        print("step")
        h = h + i
        if 5 < i < 9:
            return h
    return h.sin()


def main():
    x = torch.ones(4)
    ws = [torch.ones(4), torch.ones(4)]
    return_last(x, ws)
    return_in_middle(x, ws)
    return_in_while(x)
    return_in_inner_loop(x, ws)
    return_in_else(x, ws)
    continue_first(x, ws)
    return_in_nested_def(x, ws)
    break_not_return(x, ws)
    return_over_enumerate(x, ws)
    chained_test_last(x)


if __name__ == "__main__":
    main()
