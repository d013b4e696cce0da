"""neuraloperator (``neuralop``): the package's neural operators, built as its README and tests do
but small (hidden width 32, 2 layers, 8 Fourier modes per dimension, grids of 16 or 32 points,
batches of 2) with random weights.

- ``FNO`` in one, two and three dimensions, and in two with notable options each: domain padding with
  group norm, soft-gating skips and pre-activation; separable spectral weights with instance norm,
  the tanh stabiliser and no channel MLP; super-resolution (``resolution_scaling_factor``); complex
  data (the training step back-propagates the modulus of the output);
- ``TFNO``: the README's Tucker factorisation contracted directly (``implementation='factorized'``),
  in one dimension, a CP factorisation reconstructed into full weights and a tensor-train one;
- ``UNO`` (a U-shaped operator with per-layer scalings and horizontal skips), ``UQNO`` (an FNO whose
  frozen base model runs under ``no_grad`` beside a residual model), ``CODANO`` (codomain attention
  over the input's variables, plain and with variable positional encodings and static channels);
- the geometry operators with the package's native neighbour search (no open3d, no torch_scatter):
  ``GINO`` (point cloud to latent grid to query points) and ``FNOGNO`` (grid to query points),
  both on 2-d coordinates.

Tucker weights are contracted by ``tl.einsum`` with opt_einsum's ``optimal`` path search, which
Dynamo traces in Python: a 2-d Tucker TFNO spends over 60 s of CPU compiling its eval call, and
``CODANO`` (Tucker in every attention block by default) does not finish within the 300 s limit.
So the Tucker TFNO is 1-d, and ``CODANO`` passes ``layer_kwargs=dict(factorization=None)`` (dense
spectral weights, an option of its layers). ``SFNO`` and ``LocalNO`` need ``torch_harmonics``, which is not installed.
"""
from __future__ import annotations

from typing import Dict, List

BATCH = 2


def _fno(cls: str = "FNO", n_dim: int = 2, options: str = "", size: int = 16, in_channels: int = 2,
         extra: str = "") -> str:
    """``cls`` in ``n_dim`` dimensions with ``options``, on a random function of ``in_channels``."""
    modes = ", ".join(["8"] * n_dim) + ("," if n_dim == 1 else "")
    grid = ", ".join([str(size)] * n_dim)
    opts = f",\n    {options}" if options else ""
    return (
        f"from neuralop.models import {cls}\n"
        "\n"
        f"model = {cls}(\n"
        f"    n_modes=({modes}), hidden_channels=32, in_channels={in_channels}, out_channels=1,\n"
        f"    n_layers=2{opts},\n"
        ")\n"
        f"x = torch.randn({BATCH}, {in_channels}, {grid}{extra})\n"
        "args = (x,)\n"
        "kwargs = dict()\n"
    )


def _entries() -> Dict[str, str]:
    e: Dict[str, str] = {}
    e["fno_1d"] = _fno(n_dim=1, size=32, in_channels=1)
    e["fno_2d"] = _fno()
    e["fno_3d"] = _fno(n_dim=3, size=8, in_channels=1).replace("n_modes=(8, 8, 8)", "n_modes=(4, 4, 4)")
    e["fno_padding_group_norm"] = _fno(options=(
        "domain_padding=0.25, norm='group_norm', fno_skip='soft-gating', channel_mlp_skip='linear',\n"
        "    preactivation=True"))
    e["fno_separable_instance_norm"] = _fno(options=(
        "separable=True, norm='instance_norm', stabilizer='tanh', use_channel_mlp=False,\n"
        "    fno_skip='identity', positional_embedding=None"), in_channels=4)
    e["fno_superresolution"] = _fno(options="resolution_scaling_factor=[1, 2]")
    e["fno_complex"] = _fno(options="complex_data=True", extra=", dtype=torch.cfloat") + (
        "\n"
        "def output(out):\n"
        "    return out.abs().mean()\n"
    )
    e["tfno_tucker_1d"] = _fno("TFNO", n_dim=1, size=32, in_channels=1,
                              options="factorization='tucker', implementation='factorized', rank=0.05")
    e["tfno_cp_reconstructed"] = _fno("TFNO", options="factorization='cp', implementation='reconstructed', rank=0.1")
    e["tfno_tt"] = _fno("TFNO", options="factorization='tt', implementation='factorized', rank=0.1")
    e["uno"] = (
        "from neuralop.models import UNO\n"
        "\n"
        "model = UNO(\n"
        "    in_channels=3, out_channels=1, hidden_channels=16, lifting_channels=32, projection_channels=32,\n"
        "    n_layers=4, uno_out_channels=[16, 32, 32, 16],\n"
        "    uno_n_modes=[[8, 8], [4, 4], [4, 4], [8, 8]],\n"
        "    uno_scalings=[[1.0, 1.0], [0.5, 0.5], [1, 1], [2, 2]],\n"
        "    horizontal_skips_map={3: 0}, domain_padding=0.2, channel_mlp_skip='linear',\n"
        ")\n"
        f"x = torch.randn({BATCH}, 3, 32, 32)\n"
        "args = (x,)\n"
        "kwargs = dict()\n"
    )
    e["uqno"] = (
        "from neuralop.models import FNO, UQNO\n"
        "\n"
        "base_model = FNO(n_modes=(8, 8), hidden_channels=32, in_channels=2, out_channels=1, n_layers=2)\n"
        "residual_model = FNO(n_modes=(8, 8), hidden_channels=32, in_channels=2, out_channels=1, n_layers=2)\n"
        "model = UQNO(base_model=base_model, residual_model=residual_model)\n"
        f"x = torch.randn({BATCH}, 2, 16, 16)\n"
        "args = (x,)\n"
        "kwargs = dict()\n"
    )
    codano_common = (
        "    output_variable_codimension=1, hidden_variable_codimension=2, lifting_channels=16,\n"
        "    projection_channels=16, n_layers=2, n_heads=[2, 2], n_modes=[[8, 8], [8, 8]],\n"
        "    attention_scaling_factors=[0.5, 0.5], per_layer_scaling_factors=[[1, 1], [1, 1]],\n"
        "    layer_kwargs=dict(factorization=None),\n"
    )
    e["codano"] = (
        "from neuralop.models import CODANO\n"
        "\n"
        "model = CODANO(\n"
        + codano_common +
        ")\n"
        f"x = torch.randn({BATCH}, 3, 16, 16)\n"
        "args = (x,)\n"
        "kwargs = dict()\n"
    )
    e["codano_positional_static"] = (
        "from neuralop.models import CODANO\n"
        "\n"
        "variable_ids = ['u', 'v', 'p']\n"
        "model = CODANO(\n"
        + codano_common +
        "    use_positional_encoding=True, positional_encoding_dim=4, positional_encoding_modes=[8, 8],\n"
        "    variable_ids=variable_ids, static_channel_dim=2, enable_cls_token=True,\n"
        ")\n"
        f"x = torch.randn({BATCH}, 3, 16, 16)\n"
        f"static = torch.randn({BATCH}, 2, 16, 16)\n"
        "args = (x, static, variable_ids)\n"
        "kwargs = dict()\n"
    )
    e["gino"] = (
        "from neuralop.models import GINO\n"
        "\n"
        "model = GINO(\n"
        "    in_channels=3, out_channels=2, gno_coord_dim=2, in_gno_radius=0.3, out_gno_radius=0.3,\n"
        "    in_gno_channel_mlp_hidden_layers=[16, 16], out_gno_channel_mlp_hidden_layers=[16, 16],\n"
        "    fno_n_modes=(4, 4), fno_hidden_channels=16, fno_n_layers=2, fno_lifting_channel_ratio=2,\n"
        "    projection_channel_ratio=2, gno_use_open3d=False, gno_use_torch_scatter=False,\n"
        ")\n"
        "latent_queries = torch.stack(torch.meshgrid([torch.linspace(0, 1, 8)] * 2, indexing='xy'), -1)\n"
        "input_geom = torch.rand(64, 2)\n"
        "output_queries = torch.rand(48, 2)\n"
        f"x = torch.randn({BATCH}, 64, 3)\n"
        "args = ()\n"
        "kwargs = dict(input_geom=input_geom, latent_queries=latent_queries, output_queries=output_queries, x=x)\n"
    )
    e["fnogno"] = (
        "from neuralop.models import FNOGNO\n"
        "\n"
        "model = FNOGNO(\n"
        "    in_channels=3, out_channels=2, gno_coord_dim=2, gno_radius=0.2,\n"
        "    fno_n_modes=(4, 4), fno_hidden_channels=16, fno_n_layers=2, fno_lifting_channel_ratio=2,\n"
        "    projection_channel_ratio=2, gno_channel_mlp_hidden_layers=[16, 16],\n"
        "    gno_use_open3d=False, gno_use_torch_scatter=False,\n"
        ")\n"
        "in_p = torch.stack(torch.meshgrid([torch.linspace(0, 1, 16)] * 2, indexing='xy'), -1)\n"
        "out_p = torch.rand(48, 2)\n"
        "f = torch.randn(16, 16, 3)\n"
        "args = (in_p, out_p, f)\n"
        "kwargs = dict()\n"
    )
    return e


def names() -> List[str]:
    """The entries, sorted."""
    return sorted(_entries())


def setup(name: str) -> str:
    """User-style source for the entry ``name`` (see ``spec.py``)."""
    return "import torch\n" + _entries()[name]
