"""performer-pytorch: FAVOR+ linear attention and the models built on it, each built small
(width 32, depth 2, 4 heads of 8, 16 random features, sequences of 16 out of at most 32) with
random weights.

- ``PerformerLM``, the README's language model: non-causal with a padding mask; causal (the
  package's non-CUDA causal linear attention); with half the heads local windowed attention;
  with generalized (ReLU kernel) attention, reversible layers, chunked GLU feedforwards; with
  ScaleNorm, tied embeddings and axial positions; with ReZero, token shifting and absolute
  positions; without projection (softmax-normalized queries and keys);
- ``Performer`` on embeddings: causal, and with cross attention to a masked context;
- the standalone layers ``SelfAttention`` and ``FastAttention`` (heads already split);
- ``AutoregressiveWrapper`` (its forward computes the loss) and ``PerformerEncDec``
  (encoder-decoder, returns the decoder's loss).

Token ids are drawn from ``[1, 64)``; padding masks give the second sequence four padded tokens.
"""
from __future__ import annotations

from typing import Dict, List

BATCH = 2
SEQ = 16

_TOKENS = f"x = torch.randint(1, 64, ({BATCH}, {SEQ}))"
_MASK = f"mask = torch.arange({SEQ}).unsqueeze(0) < torch.tensor([[{SEQ}], [{SEQ - 4}]])"
_LM = "num_tokens=64, max_seq_len=32, dim=32, depth=2, heads=4, dim_head=8, nb_features=16"


def _lm(options: str, mask: bool = True) -> str:
    """A ``PerformerLM`` with ``options`` on token ids (and a mask)."""
    lines = [
        "from performer_pytorch import PerformerLM",
        "",
        "model = PerformerLM(",
        f"    {_LM},",
        f"    {options},",
        ")",
        _TOKENS,
    ]
    if mask:
        lines.append(_MASK)
    lines += ["args = (x,)", "kwargs = dict(mask=mask)" if mask else "kwargs = dict()"]
    return "\n".join(lines) + "\n"


def _entries() -> Dict[str, str]:
    e: Dict[str, str] = {}
    e["performer_lm"] = _lm("causal=False")
    e["performer_lm_causal"] = _lm("causal=True", mask=False)
    e["performer_lm_local_heads"] = _lm("causal=False, local_attn_heads=2, local_window_size=8")
    e["performer_lm_generalized_reversible"] = _lm(
        "causal=False, generalized_attention=True, kernel_fn=torch.nn.ReLU(), reversible=True, ff_chunks=2, ff_glu=True")
    e["performer_lm_scalenorm_axial_tied"] = _lm(
        "causal=False, use_scalenorm=True, tie_embed=True, rotary_position_emb=False, axial_position_emb=True,\n"
        "    axial_position_shape=(4, 8)")
    e["performer_lm_rezero_shift_tokens"] = _lm(
        "causal=True, use_rezero=True, shift_tokens=True, rotary_position_emb=False", mask=False)
    e["performer_lm_no_projection"] = _lm("causal=False, no_projection=True, qkv_bias=True, attn_out_bias=True")
    e["performer"] = (
        "from performer_pytorch import Performer\n"
        "\n"
        "model = Performer(dim=32, depth=2, heads=4, dim_head=8, causal=True, nb_features=16)\n"
        f"x = torch.randn({BATCH}, {SEQ}, 32)\n"
        "args = (x,)\n"
        "kwargs = dict()\n"
    )
    e["performer_cross_attend"] = (
        "from performer_pytorch import Performer\n"
        "\n"
        "model = Performer(dim=32, depth=2, heads=4, dim_head=8, nb_features=16, cross_attend=True)\n"
        f"x = torch.randn({BATCH}, {SEQ}, 32)\n"
        f"context = torch.randn({BATCH}, 8, 32)\n"
        f"context_mask = torch.ones({BATCH}, 8, dtype=torch.bool)\n"
        "args = (x,)\n"
        "kwargs = dict(context=context, context_mask=context_mask)\n"
    )
    e["self_attention"] = (
        "from performer_pytorch import SelfAttention\n"
        "\n"
        "model = SelfAttention(dim=32, heads=4, dim_head=8, causal=False, nb_features=16)\n"
        f"x = torch.randn({BATCH}, {SEQ}, 32)\n"
        "args = (x,)\n"
        "kwargs = dict()\n"
    )
    e["fast_attention"] = (
        "from performer_pytorch import FastAttention\n"
        "\n"
        "model = FastAttention(dim_heads=8, nb_features=16, causal=False)\n"
        + "\n".join(f"{t} = torch.randn({BATCH}, 4, {SEQ}, 8, requires_grad=True)" for t in "qkv") + "\n"
        "args = (q, k, v)\n"
        "kwargs = dict()\n"
    )
    e["autoregressive_wrapper"] = (
        "from performer_pytorch import PerformerLM, AutoregressiveWrapper\n"
        "\n"
        "model = AutoregressiveWrapper(PerformerLM(\n"
        f"    {_LM},\n"
        "    causal=True,\n"
        "))\n"
        f"x = torch.randint(1, 64, ({BATCH}, {SEQ + 1}))\n"
        "args = (x,)\n"
        "kwargs = dict()\n"
    )
    e["performer_enc_dec"] = (
        "from performer_pytorch import PerformerEncDec\n"
        "\n"
        "model = PerformerEncDec(\n"
        "    dim=32, tie_token_embeds=True,\n"
        "    enc_num_tokens=64, enc_depth=2, enc_heads=4, enc_dim_head=8, enc_max_seq_len=32, enc_nb_features=16,\n"
        "    dec_num_tokens=64, dec_depth=2, dec_heads=4, dec_dim_head=8, dec_max_seq_len=32, dec_nb_features=16,\n"
        ")\n"
        f"src = torch.randint(1, 64, ({BATCH}, {SEQ}))\n"
        f"tgt = torch.randint(1, 64, ({BATCH}, 9))\n"
        f"{_MASK}\n"
        "args = (src, tgt)\n"
        "kwargs = dict(enc_mask=mask)\n"
    )
    return e


def names() -> List[str]:
    """The entries, sorted."""
    return sorted(_entries())


def setup(name: str) -> str:
    """User-style source for the entry ``name`` (see ``spec.py``)."""
    return "import torch\n" + _entries()[name]
