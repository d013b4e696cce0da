# A slice bound that is a tensor inside a loop: an element a loop takes from a tensor (`for s, e in zip(starts,
# ends): m[s:e, s:e] = 0`, transformers' pixtral generate_block_attention_mask; `for s in starts: x[s:]`) or an item
# of one (`x[starts[i]:]`). Iterating a tensor gives tensors, whatever it was built from, so the element is a
# tensor bound (GB0124): before, a loop's element was not one and nothing was reported. And Dynamo keeps the graph
# up to the last checkpoint and runs the rest of the frame eagerly even inside the loop: no frame is skipped (before,
# `x[starts[i]:]` in a loop was a definite GB7000 skip that never happens). A traced `random` bound in a loop does
# skip the frame (tests/fixtures: v41).
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


def main():
    torch.compile(block_mask, backend="eager")(torch.randn(6), [2, 4])
    torch.compile(over_elements, backend="eager")(torch.randn(6))
    torch.compile(over_indexes, backend="eager")(torch.randn(6))


if __name__ == "__main__":
    main()
