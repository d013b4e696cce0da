"""x-transformers: the package's model kinds and its notable options, each built small (dim 32,
depth 2, 4 heads of 8, 64 tokens, sequences of 16 out of at most 32) with random weights.

- ``TransformerWrapper`` around a ``Decoder`` or an ``Encoder``, plain and with one notable option
  each (rotary, ALiBi, T5 relative position bias, flash/SDPA attention, gated residuals, macaron,
  sandwich norm, token shifting, memory key/values, GLU feedforward with RMSNorm, post-norm residual
  attention with ScaleNorm, grouped key/values with qk-norm, hyper-connections, cross attention to a context);
- the other wrappers: ``XTransformer`` (encoder-decoder, returns the loss), ``ViTransformerWrapper``,
  ``ContinuousTransformerWrapper`` and its autoregressive wrapper, ``AutoregressiveWrapper``
  (its forward computes the loss), ``XValTransformerWrapper``, ``NonAutoregressiveWrapper``,
  ``BeliefStateWrapper``, ``MultiInputTransformerWrapper``.

Token ids are drawn from ``[1, 64)``; padding masks give the second sequence four padded tokens.
``BeliefStateWrapper`` uses one decoder of depth 1 for both directions (its compile is costly).
"""
from __future__ import annotations

from typing import Dict, List

BATCH = 2
SEQ = 16

_TOKENS = f"x = torch.randint(1, 64, ({BATCH}, {SEQ}))"
_MASK = f"mask = torch.arange({SEQ}).unsqueeze(0) < torch.tensor([[{SEQ}], [{SEQ - 4}]])"


def _wrapped(layers: str, options: str = "", wrapper_options: str = "", mask: bool = True,
             extra_kwargs: str = "", extra_lines: str = "") -> str:
    """A ``TransformerWrapper`` around ``layers`` (``Decoder`` or ``Encoder``) with ``options``."""
    opts = f", {options}" if options else ""
    wopts = f", {wrapper_options}" if wrapper_options else ""
    kw = []
    if mask:
        kw.append("mask=mask")
    if extra_kwargs:
        kw.append(extra_kwargs)
    lines = [
        f"from x_transformers import TransformerWrapper, {layers}",
        "",
        "model = TransformerWrapper(",
        f"    num_tokens=64, max_seq_len=32{wopts},",
        f"    attn_layers={layers}(dim=32, depth=2, heads=4, attn_dim_head=8{opts}),",
        ")",
        _TOKENS,
    ]
    if mask:
        lines.append(_MASK)
    if extra_lines:
        lines.append(extra_lines)
    lines += ["args = (x,)", "kwargs = dict(" + ", ".join(kw) + ")"]
    return "\n".join(lines) + "\n"


def _entries() -> Dict[str, str]:
    e: Dict[str, str] = {}
    e["decoder"] = _wrapped("Decoder")
    e["decoder_rotary"] = _wrapped("Decoder", "rotary_pos_emb=True")
    e["decoder_alibi"] = _wrapped("Decoder", "alibi_pos_bias=True, alibi_num_heads=2")
    e["decoder_flash"] = _wrapped("Decoder", "attn_flash=True")
    e["decoder_gate_residual"] = _wrapped("Decoder", "gate_residual=True")
    e["decoder_macaron"] = _wrapped("Decoder", "macaron=True")
    e["decoder_sandwich_norm"] = _wrapped("Decoder", "sandwich_norm=True")
    e["decoder_shift_tokens"] = _wrapped("Decoder", "shift_tokens=1")
    e["decoder_mem_kv"] = _wrapped("Decoder", "attn_num_mem_kv=4", "num_memory_tokens=2")
    e["decoder_ff_glu_rmsnorm"] = _wrapped("Decoder", "ff_glu=True, ff_swish=True, use_rmsnorm=True")
    e["decoder_gqa_qk_norm"] = _wrapped("Decoder", "attn_kv_heads=2, attn_qk_norm=True, rotary_pos_emb=True")
    e["decoder_hyper_connections"] = _wrapped("Decoder", "num_residual_streams=4")
    e["encoder"] = _wrapped("Encoder")
    e["encoder_rel_pos_bias"] = _wrapped("Encoder", "rel_pos_bias=True")
    e["encoder_residual_attn_scalenorm"] = _wrapped("Encoder", "residual_attn=True, pre_norm=False, use_scalenorm=True")
    e["encoder_cross_attend"] = _wrapped(
        "Encoder", "cross_attend=True", mask=True,
        extra_kwargs="context=context, context_mask=context_mask",
        extra_lines=f"context = torch.randn({BATCH}, 8, 32)\n"
                    f"context_mask = torch.ones({BATCH}, 8, dtype=torch.bool)")

    e["autoregressive_wrapper"] = (
        "from x_transformers import TransformerWrapper, Decoder, AutoregressiveWrapper\n"
        "\n"
        "model = AutoregressiveWrapper(TransformerWrapper(\n"
        "    num_tokens=64, max_seq_len=32,\n"
        "    attn_layers=Decoder(dim=32, depth=2, heads=4, attn_dim_head=8, rotary_pos_emb=True),\n"
        "))\n"
        f"x = torch.randint(1, 64, ({BATCH}, {SEQ + 1}))\n"
        "args = (x,)\n"
        "kwargs = dict()\n"
    )
    e["xtransformer"] = (
        "from x_transformers import XTransformer\n"
        "\n"
        "model = XTransformer(\n"
        "    dim=32, enc_num_tokens=64, enc_depth=2, enc_heads=4, enc_attn_dim_head=8, enc_max_seq_len=32,\n"
        "    dec_num_tokens=64, dec_depth=2, dec_heads=4, dec_attn_dim_head=8, dec_max_seq_len=32,\n"
        "    tie_token_emb=True,\n"
        ")\n"
        f"src = torch.randint(1, 64, ({BATCH}, {SEQ}))\n"
        f"tgt = torch.randint(1, 64, ({BATCH}, 9))\n"
        f"{_MASK}\n"
        "args = (src, tgt)\n"
        "kwargs = dict(mask=mask)\n"
    )
    e["vit"] = (
        "from x_transformers import ViTransformerWrapper, Encoder\n"
        "\n"
        "model = ViTransformerWrapper(\n"
        "    image_size=32, patch_size=8, num_classes=10,\n"
        "    attn_layers=Encoder(dim=32, depth=2, heads=4, attn_dim_head=8),\n"
        ")\n"
        f"img = torch.randn({BATCH}, 3, 32, 32)\n"
        "args = (img,)\n"
        "kwargs = dict()\n"
    )
    e["continuous"] = (
        "from x_transformers import ContinuousTransformerWrapper, Decoder\n"
        "\n"
        "model = ContinuousTransformerWrapper(\n"
        "    dim_in=12, dim_out=6, max_seq_len=32,\n"
        "    attn_layers=Decoder(dim=32, depth=2, heads=4, attn_dim_head=8),\n"
        ")\n"
        f"x = torch.randn({BATCH}, {SEQ}, 12)\n"
        f"{_MASK}\n"
        "args = (x,)\n"
        "kwargs = dict(mask=mask)\n"
    )
    e["continuous_autoregressive_wrapper"] = (
        "from x_transformers import ContinuousTransformerWrapper, ContinuousAutoregressiveWrapper, Decoder\n"
        "\n"
        "model = ContinuousAutoregressiveWrapper(ContinuousTransformerWrapper(\n"
        "    dim_in=12, dim_out=12, max_seq_len=32,\n"
        "    attn_layers=Decoder(dim=32, depth=2, heads=4, attn_dim_head=8),\n"
        "))\n"
        f"x = torch.randn({BATCH}, {SEQ}, 12)\n"
        "args = (x,)\n"
        "kwargs = dict()\n"
    )
    e["xval"] = (
        "from x_transformers import XValTransformerWrapper, Decoder\n"
        "\n"
        "model = XValTransformerWrapper(\n"
        "    num_tokens=64, max_seq_len=32, numerical_token_id=63,\n"
        "    attn_layers=Decoder(dim=32, depth=2, heads=4, attn_dim_head=8, rotary_pos_emb=True),\n"
        ")\n"
        f"x = torch.randint(1, 64, ({BATCH}, {SEQ}))\n"
        f"x_num = torch.randn({BATCH}, {SEQ})\n"
        "args = (x, x_num)\n"
        "kwargs = dict()\n"
    )
    e["nonautoregressive_wrapper"] = (
        "from x_transformers import TransformerWrapper, Encoder, NonAutoregressiveWrapper\n"
        "\n"
        "model = NonAutoregressiveWrapper(\n"
        "    TransformerWrapper(\n"
        "        num_tokens=65, max_seq_len=32,\n"
        "        attn_layers=Encoder(dim=32, depth=2, heads=4, attn_dim_head=8),\n"
        "    ),\n"
        "    mask_id=64, steps=4,\n"
        ")\n"
        "x = torch.randint(1, 64, (2, 32))\n"
        "args = (x,)\n"
        "kwargs = dict()\n"
    )
    e["belief_state_wrapper"] = (
        "from x_transformers import TransformerWrapper, Decoder, BeliefStateWrapper\n"
        "\n"
        "model = BeliefStateWrapper(\n"
        "    forward_decoder=TransformerWrapper(\n"
        "        num_tokens=64, max_seq_len=32,\n"
        "        attn_layers=Decoder(dim=32, depth=1, heads=4, attn_dim_head=8, rotary_pos_emb=True),\n"
        "    ),\n"
        ")\n"
        f"{_TOKENS}\n"
        "args = (x,)\n"
        "kwargs = dict()\n"
    )
    e["multi_input"] = (
        "from x_transformers import MultiInputTransformerWrapper, Decoder\n"
        "\n"
        "model = MultiInputTransformerWrapper(\n"
        "    num_tokens=dict(note=64, pitch=16, tone=8), max_seq_len=32,\n"
        "    attn_layers=Decoder(dim=32, depth=2, heads=4, attn_dim_head=8),\n"
        ")\n"
        "x = dict(\n"
        f"    note=torch.randint(0, 64, ({BATCH}, {SEQ})),\n"
        f"    pitch=torch.randint(0, 16, ({BATCH}, {SEQ})),\n"
        f"    tone=torch.randint(0, 8, ({BATCH}, {SEQ})),\n"
        ")\n"
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
