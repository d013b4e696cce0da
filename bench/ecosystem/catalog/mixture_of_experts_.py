"""mixture-of-experts: the package's sparsely gated top-2 mixture of experts layers, built as its
README does but small (dim 32, 4 experts or 2x2 in the hierarchy, a batch of 2 sequences of 16
tokens) with random weights.

- ``MoE`` with its defaults (``random`` second-expert policy, ReLU experts), and the other policies
  of the top-2 gating for the second expert (``all``, ``none``), a GELU activation with a set hidden
  width, larger capacity factors, and ``Experts`` the user builds and passes in;
- ``HeirarchicalMoE`` (two levels of gating, the outer one weighting the inner one's importance),
  plain and with the ``all`` policy and GELU experts;
- ``Experts`` on its own, the batched expert feedforward both layers use.

The layers return the output and the auxiliary balance loss; the training step back-propagates both.
The ``threshold`` second-expert policy is left out: in 0.2.3 it fails without compiling (its mask
of shape (batch, group) is multiplied into one of shape (batch, group, experts)).
"""
from __future__ import annotations

from typing import Dict, List

BATCH = 2
SEQ = 16

_INPUT = f"x = torch.randn({BATCH}, {SEQ}, 32)"


def _layer(cls: str, options: str = "", num_experts: str = "4", imports: str = "") -> str:
    """``cls`` (``MoE`` or ``HeirarchicalMoE``) with ``options``, called on a batch of tokens."""
    opts = f", {options}" if options else ""
    lines = [f"from mixture_of_experts import {cls}"]
    if imports:
        lines.insert(0, imports)
    lines += [
        "",
        f"model = {cls}(dim=32, num_experts={num_experts}{opts})",
        _INPUT,
        "args = (x,)",
        "kwargs = dict()",
    ]
    return "\n".join(lines) + "\n"


def _entries() -> Dict[str, str]:
    e: Dict[str, str] = {}
    e["moe"] = _layer("MoE")
    e["moe_policy_all"] = _layer("MoE", "second_policy_train='all', second_policy_eval='all'")
    e["moe_policy_none"] = _layer("MoE", "second_policy_train='none', second_policy_eval='none'")
    e["moe_gelu_hidden"] = _layer("MoE", "hidden_dim=64, activation=nn.GELU", imports="from torch import nn")
    e["moe_capacity"] = _layer("MoE", "capacity_factor_train=2.0, capacity_factor_eval=4.0, loss_coef=1e-1")
    e["moe_custom_experts"] = (
        "from torch import nn\n"
        "from mixture_of_experts import MoE, Experts\n"
        "\n"
        "experts = Experts(32, num_experts=4, hidden_dim=64, activation=nn.LeakyReLU)\n"
        "model = MoE(dim=32, num_experts=4, experts=experts)\n"
        f"{_INPUT}\n"
        "args = (x,)\n"
        "kwargs = dict()\n"
    )
    e["heirarchical_moe"] = _layer("HeirarchicalMoE", num_experts="(2, 2)")
    e["heirarchical_moe_policy_all_gelu"] = _layer(
        "HeirarchicalMoE", "second_policy_train='all', second_policy_eval='all', activation=nn.GELU",
        num_experts="(2, 2)", imports="from torch import nn")
    e["experts"] = (
        "from mixture_of_experts import Experts\n"
        "\n"
        "model = Experts(32, num_experts=4, hidden_dim=64)\n"
        f"x = torch.randn(4, {BATCH * SEQ}, 32)\n"
        "args = (x,)\n"
        "kwargs = dict()\n"
    )
    return e


def names() -> List[str]:
    """The entries, sorted."""
    return sorted(_entries())


def setup(name: str) -> str:
    """User-style source for the entry ``name`` (see ``spec.py``)."""
    return "import torch\n" + _entries()[name]
