# A slice bound that is a tensor inside a loop: an element a loop takes from a tensor (`for s, e in zip(starts,
# ends): m[s:e, s:e] = 0`, transformers' pixtral generate_block_attention_mask; `for s in starts: x[s:]`) or an item
# of one (`x[starts[i]:]`). Iterating a tensor gives tensors, whatever it was built from, so the element is a
# tensor bound (GB0124): before, a loop's element was not one and nothing was reported. And Dynamo keeps the graph
# up to the last checkpoint and runs the rest of the frame eagerly even inside the loop: no frame is skipped (before,
# `x[starts[i]:]` in a loop was a definite GB7000 skip that never happens). A traced `random` bound in a loop does
# skip the frame (tests/fixtures: v41), and so does a tensor bound of an augmented store (`m[i:] += 1`, `aug_in_loop`).
# Lists of Python ints a helper returns (`.tolist()`, diffusers' Lumina2) give ints: no GB0124 (`int_lengths`).
import torch


def block_mask(x, lengths):
    m = torch.zeros(6, 6)
    ends = torch.tensor(lengths).cumsum(-1)
    starts = torch.tensor([0] + lengths[:-1]).cumsum(-1)
    for start, end in zip(starts, ends):
        m[start:end, start:end] = 1
    return x @ m


def over_elements(x):
    starts = torch.tensor([0, 2]).cumsum(-1)
    out = x
    for s in starts:
        out = out + x[s:].sum()
    return out


def over_indexes(x):
    starts = torch.tensor([0, 2]).cumsum(-1)
    out = x
    for i in range(2):
        out = out + x[starts[i]:].sum()
    return out


def aug_in_loop(x):
    m = x.clone()
    for i in torch.arange(3):
        m[i:] += 1
    return m


def lengths_of(x):
    lens = x.sum(-1).long().tolist()
    return lens, [n + 1 for n in lens]


def int_lengths(x):
    starts, ends = lengths_of(x.abs())
    out = x
    for p, q in zip(starts, ends):
        out = out + x[p:q].sum()
    return out


def main():
    torch.compile(block_mask, backend="eager")(torch.randn(6), [2, 4])
    torch.compile(over_elements, backend="eager")(torch.randn(6))
    torch.compile(over_indexes, backend="eager")(torch.randn(6))
    torch.compile(aug_in_loop, backend="eager")(torch.randn(6))
    torch.compile(int_lengths, backend="eager")(torch.randn(2, 3))


if __name__ == "__main__":
    main()
