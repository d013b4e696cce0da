import torch


class Grouped(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(3, 4, 4))

    def forward(self, x, type_ptr):
        out = x.new_empty(x.size(0), 4)
        for i, (start, end) in enumerate(zip(type_ptr[:-1], type_ptr[1:])):
            out[start:end] = x[start:end] @ self.weight[i]
        return out


def head(x, ptr):
    s = ptr[1]
    return x[:s] * 2


def tail(x, lengths):
    n = lengths.max()
    return x[n:]


def const_bound(x):
    n = torch.tensor(3)
    return x[:n]


def int_bound(x, k: int):
    n = k + 1
    return x[:n]


def shape_bound(x):
    n = x.shape[0] // 2
    return x[:n]


def one_hot_head(indexes, max_length):
    top = indexes.max() + 1
    return torch.nn.functional.one_hot(indexes, max(top + 1, max_length))[..., :max_length]


class Rope(torch.nn.Module):
    def forward(self, x):
        return x, [2, 3], [4, 6]


class Joint(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rope = Rope()

    def forward(self, x):
        x, starts, ends = self.rope(x)
        out = x.new_zeros(2, 6)
        for i, (start, end) in enumerate(zip(starts, ends)):
            out[i, start:end] = 1.0
        return out


def main():
    x = torch.randn(6, 4)
    ptr = torch.tensor([0, 2, 4, 6])
    out = [torch.compile(Grouped())(x, ptr), torch.compile(head)(x, ptr), torch.compile(tail)(x, ptr)]
    out.append(torch.compile(const_bound)(x))
    out.append(torch.compile(int_bound)(x, 2))
    out.append(torch.compile(shape_bound)(x))
    out.append(torch.compile(Joint())(x))
    out.append(torch.compile(one_hot_head)(torch.tensor([0, 2, 1]), 4))
    return out
