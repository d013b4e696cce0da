"""perceiver-pytorch: the Perceiver family, each built small (latent width 32, depth 2, 16
latents, 4 latent heads of 8, one cross head of 8) with random weights.

- ``Perceiver`` on an image (8x8, 3 channels, Fourier-encoded positions), as in the README;
  with weight-tied layers on a masked 1-d sequence; without Fourier encoding or classifier
  head, returning embeddings; with inverted (slot-style) cross attention in its first layer
  and the attention residual over layer outputs;
- ``PerceiverBlock``, one cross plus self attention block whose queries join the keys/values;
- ``PerceiverIO`` with decoder queries, a decoder feedforward and structured sequence dropout
  (taken in training); without queries, weight-tied, with the attention residual;
- ``PerceiverLM``, Perceiver IO as a language model over a masked token sequence;
- the README's experimental variants: ``experimental.Perceiver`` (bottom-up linear attention
  over the input as well; without Fourier encoding, since with it the class miscounts its input
  channels and cannot run), ``gated.Perceiver`` (GRU-gated residuals) and
  ``mixed_latents.Perceiver`` (latent mixing in place of latent self-attention).

Padding masks give the second sequence four padded positions.
"""
from __future__ import annotations

from typing import Dict, List

BATCH = 2
SEQ = 24

_MASK = f"mask = torch.arange({SEQ}).unsqueeze(0) < torch.tensor([[{SEQ}], [{SEQ - 4}]])"
_IMG = f"img = torch.randn({BATCH}, 8, 8, 3)"

_SMALL = ("num_latents=16, latent_dim=32, cross_heads=1, latent_heads=4, cross_dim_head=8, "
          "latent_dim_head=8")


def _perceiver(module: str, options: str = "", data: str = _IMG, mask: bool = False,
               extra_kwargs: str = "") -> str:
    """A ``Perceiver`` from ``module`` (``perceiver_pytorch`` or a submodule) with ``options``."""
    opts = f"    {options},\n" if options else ""
    text = (
        f"from {module} import Perceiver\n"
        "\n"
        "model = Perceiver(\n"
        "    input_channels=3, input_axis=2, num_freq_bands=4, max_freq=10., depth=2,\n"
        f"    {_SMALL},\n"
        "    num_classes=10,\n"
        f"{opts}"
        ")\n"
        f"{data}\n"
    )
    kw = []
    if mask:
        text += _MASK + "\n"
        kw.append("mask=mask")
    if extra_kwargs:
        kw.append(extra_kwargs)
    name = data.split(" = ")[0]
    return text + f"args = ({name},)\nkwargs = dict({', '.join(kw)})\n"


def _entries() -> Dict[str, str]:
    e: Dict[str, str] = {}
    e["perceiver"] = _perceiver("perceiver_pytorch", "self_per_cross_attn=2")
    e["perceiver_weight_tie_mask"] = _perceiver(
        "perceiver_pytorch", "weight_tie_layers=True",
        data=f"seq = torch.randn({BATCH}, {SEQ}, 3)", mask=True).replace("input_axis=2", "input_axis=1")
    e["perceiver_embeddings_no_fourier"] = _perceiver(
        "perceiver_pytorch", "fourier_encode_data=False, final_classifier_head=False",
        extra_kwargs="return_embeddings=True")
    e["perceiver_inverted_attn_residual"] = _perceiver(
        "perceiver_pytorch", "inverted_cross_attn=(True, False), attn_residual=True, attn_residual_rank=8")
    # with Fourier encoding it miscounts its input channels (3 too many) and cannot run
    e["perceiver_experimental"] = _perceiver("perceiver_pytorch.experimental", "fourier_encode_data=False")
    e["perceiver_gated"] = _perceiver("perceiver_pytorch.gated")
    e["perceiver_mixed_latents"] = _perceiver("perceiver_pytorch.mixed_latents")
    e["perceiver_block"] = (
        "from perceiver_pytorch import PerceiverBlock\n"
        "\n"
        "model = PerceiverBlock(\n"
        "    dim=32, context_dim=32, cross_heads=1, latent_heads=4, cross_dim_head=8, latent_dim_head=8,\n"
        "    queries_contribute_kv=True,\n"
        ")\n"
        f"latents = torch.randn({BATCH}, 9, 32)\n"
        f"data = torch.randn({BATCH}, {SEQ}, 32)\n"
        f"{_MASK}\n"
        "args = (latents,)\n"
        "kwargs = dict(context=data, mask=mask)\n"
    )
    e["perceiver_io"] = (
        "from perceiver_pytorch import PerceiverIO\n"
        "\n"
        "model = PerceiverIO(\n"
        "    dim=16, queries_dim=24, logits_dim=10, depth=2,\n"
        f"    {_SMALL},\n"
        "    decoder_ff=True, seq_dropout_prob=0.2,\n"
        ")\n"
        f"seq = torch.randn({BATCH}, {SEQ}, 16)\n"
        f"{_MASK}\n"
        "queries = torch.randn(12, 24)\n"
        "args = (seq,)\n"
        "kwargs = dict(mask=mask, queries=queries)\n"
    )
    e["perceiver_io_latents_weight_tie"] = (
        "from perceiver_pytorch import PerceiverIO\n"
        "\n"
        "model = PerceiverIO(\n"
        "    dim=16, queries_dim=24, depth=2,\n"
        f"    {_SMALL},\n"
        "    weight_tie_layers=True, attn_residual=True, attn_residual_rank=8,\n"
        ")\n"
        f"seq = torch.randn({BATCH}, {SEQ}, 16)\n"
        "args = (seq,)\n"
        "kwargs = dict()\n"
    )
    e["perceiver_lm"] = (
        "from perceiver_pytorch import PerceiverLM\n"
        "\n"
        "model = PerceiverLM(\n"
        "    num_tokens=64, dim=32, depth=2, max_seq_len=32,\n"
        f"    {_SMALL},\n"
        ")\n"
        f"seq = torch.randint(0, 64, ({BATCH}, {SEQ}))\n"
        f"{_MASK}\n"
        "args = (seq,)\n"
        "kwargs = dict(mask=mask)\n"
    )
    return e


def names() -> List[str]:
    """The entries, sorted."""
    return sorted(_entries())


def setup(name: str) -> str:
    """User-style source for the entry ``name`` (see ``spec.py``)."""
    return "import torch\n" + _entries()[name]
