# A torch function Dynamo calls in the graph that is a `@contextmanager` generator it does not model: the call
# returns no tensor (GB0208) and the `with` on it cannot be entered (GB0142), so the frame is skipped. Read from
# torch's own files (trace_rules.py's in-graph lists, the function's decorator in torch's source), not a hand-kept
# list: `torch.backends.cuda.sdp_kernel` (bs-roformer's attention) was missed before; `fork_rng` was hand-listed.
import torch
import torch.nn.functional as F


def attn(q):
    q = q * 2
    with torch.backends.cuda.sdp_kernel(enable_flash=False):
        out = F.scaled_dot_product_attention(q, q, q)
    return out + 1


def forked(x):
    x = x + 1
    with torch.random.fork_rng():
        y = torch.rand(3)
    return x * y


def main():
    torch.compile(attn, backend="eager")(torch.randn(1, 2, 4, 8))
    torch.compile(forked, backend="eager")(torch.randn(3))


if __name__ == "__main__":
    main()
