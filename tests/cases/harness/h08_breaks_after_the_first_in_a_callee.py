import torch


def summarize(x):
    print("summarizing")
    total = x.sum()
    return total.item() + 1


def scan(x, limits):
    kept = []
    for limit in limits:
        idx = torch.nonzero(x > limit)
        kept.append(idx.tolist())
        print("kept", len(kept))
    return kept


@torch.compile(backend="eager")
def run(x):
    a = summarize(x * 2)
    b = scan(x + 1, [0.0, 0.5])
    return a, b


def main():
    run(torch.randn(8))


if __name__ == "__main__":
    main()
