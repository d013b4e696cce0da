"""st-moe-pytorch: the ST-MoE mixture of experts layer and its block, built as the README does but
small (dim 32, 4 experts, a batch of 2 sequences of 16 tokens) with random weights.

- ``MoE`` with its default top-2 gating, and one notable option each: top-3 gating with per-expert
  thresholds (a tuple, as the paper tried), noised gates (the ``noise_gates`` call option), the
  differentiable top-k of CoLT5 (coordinate descent), no straight-through dispatch tensor, larger
  capacity factors, and experts the user passes in;
- ``SparseMoEBlock`` around a ``MoE``: its default (a feedforward after), with feedforwards before
  and after, and two blocks stacked in a small user module that sums their auxiliary losses.

The output is the package's ``MixtureOfExpertsReturn`` (output, total auxiliary loss and its two
parts); the training step back-propagates the output's mean plus the total auxiliary loss, as the
README says to add it to the main loss.
"""
from __future__ import annotations

from typing import Dict, List

BATCH = 2
SEQ = 16

_INPUT = f"x = torch.randn({BATCH}, {SEQ}, 32)"
_OUTPUT = (
    "def output(out):\n"
    "    return out.outputs.mean() + out.total_aux_loss.sum()\n"
)


def _moe(options: str = "", kwargs: str = "", block: str = "") -> str:
    """A ``MoE`` with ``options``, optionally wrapped in ``SparseMoEBlock(moe, block)``."""
    opts = f", {options}" if options else ""
    lines = []
    if block is not None and block != "":
        lines.append("from st_moe_pytorch import MoE, SparseMoEBlock")
    else:
        lines.append("from st_moe_pytorch import MoE")
    lines += ["", f"moe = MoE(dim=32, num_experts=4{opts})"]
    if block:
        b = "" if block == "default" else f", {block}"
        lines.append(f"model = SparseMoEBlock(moe{b})")
    else:
        lines.append("model = moe")
    lines += [_INPUT, "args = (x,)", f"kwargs = dict({kwargs})", _OUTPUT]
    return "\n".join(lines)


def _entries() -> Dict[str, str]:
    e: Dict[str, str] = {}
    e["moe"] = _moe()
    e["moe_top3"] = _moe("gating_top_n=3, threshold_train=(0.2, 0.1), threshold_eval=(0.2, 0.1)")
    e["moe_noise_gates"] = _moe(kwargs="noise_gates=True, noise_mult=1.0")
    e["moe_differentiable_topk"] = _moe("differentiable_topk=True")
    e["moe_no_straight_through"] = _moe("straight_through_dispatch_tensor=False")
    e["moe_capacity"] = _moe("capacity_factor_train=2.0, capacity_factor_eval=4.0, "
                             "balance_loss_coef=1e-1, router_z_loss_coef=1e-2")
    e["moe_custom_experts"] = (
        "from torch import nn\n"
        "from st_moe_pytorch import MoE\n"
        "\n"
        "experts = [nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 32)) for _ in range(4)]\n"
        "model = MoE(dim=32, num_experts=4, experts=nn.ModuleList(experts))\n"
        f"{_INPUT}\n"
        "args = (x,)\n"
        "kwargs = dict()\n"
        f"{_OUTPUT}"
    )
    e["sparse_moe_block"] = _moe(block="default")
    e["sparse_moe_block_ff_before_after"] = _moe(block="add_ff_before=True, add_ff_after=True")
    e["sparse_moe_block_stack"] = (
        "from torch import nn\n"
        "from st_moe_pytorch import MoE, SparseMoEBlock\n"
        "\n"
        "class MoEStack(nn.Module):\n"
        "    def __init__(self, dim=32, depth=2):\n"
        "        super().__init__()\n"
        "        self.blocks = nn.ModuleList([\n"
        "            SparseMoEBlock(MoE(dim=dim, num_experts=4), add_ff_before=True, add_ff_after=True)\n"
        "            for _ in range(depth)\n"
        "        ])\n"
        "\n"
        "    def forward(self, x):\n"
        "        aux_loss = 0.\n"
        "        for block in self.blocks:\n"
        "            x, total_aux_loss, _, _ = block(x)\n"
        "            aux_loss = aux_loss + total_aux_loss\n"
        "        return x, aux_loss\n"
        "\n"
        "model = MoEStack()\n"
        f"{_INPUT}\n"
        "args = (x,)\n"
        "kwargs = dict()\n"
        "\n"
        "def output(out):\n"
        "    return out[0].mean() + out[1].sum()\n"
    )
    return e


def names() -> List[str]:
    """The entries, sorted."""
    return sorted(_entries())


def setup(name: str) -> str:
    """User-style source for the entry ``name`` (see ``spec.py``)."""
    return "import torch\n" + _entries()[name]
