"""local-attention: windowed attention and the local transformer built on it, each built small
(width 32, depth 2, 4 heads of 8, windows of 8, sequences of 32) with random weights.

- ``LocalAttention`` on heads already split, as the README calls it: non-causal (looking one
  window forward) with a key padding mask, causal with exact window sizes, shared query/key
  space (Reformer style), auto-padding of a length that is no multiple of the window (no
  rotary embedding), and xpos rotary scaling;
- ``LocalMHA``, the multi-head layer: causal with qk RMS-norm, and non-causal with a mask and
  per-head value gates;
- ``LocalTransformer``, the language model: the README's causal model (hyper-connection
  residual streams by default), with a dynamic position bias in place of rotary embeddings,
  with xpos computing its own loss, non-causal with a padding mask, and with a global attention
  layer inserted before its second layer.

The bare attention's queries, keys and values require gradients (it has no weights of its
own). Token ids are drawn from ``[0, 64)``; padding masks give the second sequence four padded tokens.
"""
from __future__ import annotations

from typing import Dict, List

BATCH = 2
SEQ = 32

_TOKENS = f"x = torch.randint(0, 64, ({BATCH}, {SEQ}))"
_MASK = f"mask = torch.arange({SEQ}).unsqueeze(0) < torch.tensor([[{SEQ}], [{SEQ - 4}]])"
_QKV = "\n".join(f"{t} = torch.randn({BATCH}, 4, {SEQ}, 8, requires_grad=True)" for t in "qkv")


def _attention(options: str, call: str = "q, k, v", mask: bool = True, qkv: str = _QKV) -> str:
    """A ``LocalAttention`` with ``options``, called on ``call`` (and a mask)."""
    lines = [
        "from local_attention import LocalAttention",
        "",
        f"model = LocalAttention({options})",
        qkv,
    ]
    if mask:
        lines.append(_MASK)
    lines += [f"args = ({call},)", "kwargs = dict(input_mask=mask)" if mask else "kwargs = dict()"]
    return "\n".join(lines) + "\n"


def _mha(options: str, mask: bool) -> str:
    """A ``LocalMHA`` with ``options`` on a (batch, seq, 32) input."""
    lines = [
        "from local_attention import LocalMHA",
        "",
        f"model = LocalMHA(dim=32, window_size=8, dim_head=8, heads=4{', ' + options if options else ''})",
        f"x = torch.randn({BATCH}, {SEQ}, 32)",
    ]
    if mask:
        lines.append(_MASK)
    lines += ["args = (x,)", "kwargs = dict(mask=mask)" if mask else "kwargs = dict()"]
    return "\n".join(lines) + "\n"


def _transformer(options: str = "", mask: bool = False, loss: bool = False, extra_lines: str = "") -> str:
    """A ``LocalTransformer`` with ``options``."""
    opts = f"    {options},\n" if options else ""
    text = (
        "from local_attention import LocalTransformer\n"
        f"{extra_lines}"
        "\n"
        "model = LocalTransformer(\n"
        "    num_tokens=64, max_seq_len=64, dim=32, depth=2, heads=4, dim_head=8,\n"
        "    local_attn_window_size=8,\n"
        f"{opts}"
        ")\n"
    )
    if loss:
        text += f"x = torch.randint(0, 64, ({BATCH}, {SEQ + 1}))\nargs = (x,)\nkwargs = dict(return_loss=True)\n"
        return text
    text += _TOKENS + "\n"
    if mask:
        text += _MASK + "\nargs = (x,)\nkwargs = dict(mask=mask)\n"
    else:
        text += "args = (x,)\nkwargs = dict()\n"
    return text


def _entries() -> Dict[str, str]:
    e: Dict[str, str] = {}
    e["local_attention"] = _attention("dim=8, window_size=8, causal=False, look_backward=1, look_forward=1")
    e["local_attention_causal_exact"] = _attention("dim=8, window_size=8, causal=True, exact_windowsize=True")
    e["local_attention_shared_qk"] = _attention(
        "dim=8, window_size=8, shared_qk=True, causal=True", call="qk, qk, v",
        qkv=f"qk = torch.randn({BATCH}, 4, {SEQ}, 8, requires_grad=True)\nv = torch.randn({BATCH}, 4, {SEQ}, 8, requires_grad=True)")
    e["local_attention_autopad"] = _attention(
        "window_size=8, causal=True, autopad=True", mask=False,
        qkv="\n".join(f"{t} = torch.randn(8, 37, 8, requires_grad=True)" for t in "qkv"))
    e["local_attention_xpos"] = _attention("dim=8, window_size=8, causal=True, use_xpos=True", mask=False)
    e["local_mha_causal_qk_rmsnorm"] = _mha("causal=True, prenorm=True, qk_rmsnorm=True", mask=False)
    e["local_mha_gated_values"] = _mha("causal=False, gate_values_per_head=True", mask=True)
    e["local_transformer"] = _transformer("causal=True")
    e["local_transformer_dynamic_pos_bias"] = _transformer("causal=True, use_dynamic_pos_bias=True, num_residual_streams=1")
    e["local_transformer_xpos_loss"] = _transformer("causal=True, use_xpos=True, xpos_scale_base=16", loss=True)
    e["local_transformer_noncausal_mask"] = _transformer("causal=False, num_residual_streams=1", mask=True)
    e["local_transformer_global_attn"] = _transformer(
        "causal=True,\n    global_attn_layer=LocalMHA(dim=32, window_size=32, dim_head=8, heads=4, causal=True, prenorm=True),\n"
        "    layers_insert_global_attn=(2,)",
        extra_lines="from local_attention import LocalMHA\n")
    return e


def names() -> List[str]:
    """The entries, sorted."""
    return sorted(_entries())


def setup(name: str) -> str:
    """User-style source for the entry ``name`` (see ``spec.py``)."""
    return "import torch\n" + _entries()[name]
