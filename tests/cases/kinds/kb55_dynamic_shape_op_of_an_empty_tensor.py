"""A dynamic-shape op (``unique``, ``nonzero``) of a tensor ``torch.tensor([])`` makes, or ``torch.cat`` of such,
does not break: Dynamo knows its data (none) and the op's size. torchdiffeq's solver concatenates ``step_t`` and
``jump_t`` and takes ``unique``, each ``torch.tensor([])`` unless an option gives times: empty in the arm the
values take, no break (``no_options``); a tensor of data there, the break (``with_steps``, GB0036); an arm the walk
cannot decide, conditional on the test that picks the data (``steps_maybe``, no break in the run). An empty tensor
``torch.zeros(0)`` makes, and a literal with data, break (``zeros_nonzero``, ``literal_unique``)."""
import os

import torch

STEPS = torch.tensor([0.5, 0.25]) if os.environ.get("KB55_STEPS") else None


def counts_of(x, step_t=None, jump_t=None):
    if step_t is None:
        step_t = torch.tensor([], dtype=x.dtype, device=x.device)
    else:
        step_t = step_t.sort()[0]
    if jump_t is None:
        jump_t = torch.tensor([], dtype=x.dtype, device=x.device)
    else:
        jump_t = jump_t.sort()[0]
    counts = torch.cat([step_t, jump_t]).unique(return_counts=True)[1]
    return x + counts.sum()


@torch.compile(backend="eager")
def no_options(x):
    return counts_of(x)


@torch.compile(backend="eager")
def with_steps(x, t):
    return counts_of(x, step_t=t)


@torch.compile(backend="eager")
def steps_maybe(x):
    return counts_of(x, step_t=STEPS)


@torch.compile(backend="eager")
def zeros_nonzero(x):
    return x + torch.zeros(0).nonzero().sum()


@torch.compile(backend="eager")
def literal_unique(x):
    return x + torch.tensor([1.0, 1.0]).unique().sum()


def main():
    x = torch.ones(3)
    no_options(x)
    with_steps(x, torch.tensor([0.5, 0.25]))
    steps_maybe(x)
    zeros_nonzero(x)
    literal_unique(x)


if __name__ == "__main__":
    main()
