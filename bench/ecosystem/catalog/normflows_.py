"""normflows: the package's flow models as its README and example notebooks build them, small (2 flow
layers, hidden width 32, 2-d data in batches of 16, 3x8x8 images for Glow) with random weights.

A ``NormalizingFlow`` is trained through its ``forward_kld`` (maximum likelihood on data) or its
``reverse_kld`` (samples drawn from the base, scored by a target density), not through its
``forward``; what users compile is that call, so most entries wrap the flow in a few-line module
whose ``forward`` calls it (``FlowLoss``). The entries, by flow layer:

- affine couplings: ``AffineCouplingBlock`` with ``Permute`` (the README's Real NVP), and
  ``MaskedAffineFlow`` with ``ActNorm`` (its data-dependent initialisation runs on the first call);
- neural spline flows: ``AutoregressiveRationalQuadraticSpline`` and ``CoupledRationalQuadraticSpline``
  with ``LULinearPermute``, and the circular variants on a ``UniformGaussian`` base
  (``CircularAutoregressiveRationalQuadraticSpline``, ``CircularCoupledRationalQuadraticSpline``);
- ``MaskedAffineAutoregressive`` (MAF) with a ``GaussianMixture`` base, and as a
  ``ConditionalNormalizingFlow`` given a context;
- ``Residual`` flows on ``LipschitzMLP`` nets (a stochastic log-determinant estimate);
- ``Planar`` flows trained by ``reverse_kld`` towards the ``TwoMoons`` target, and ``Radial`` flows
  called through ``NormalizingFlow.forward`` itself (latent to data);
- Glow: a two-level ``MultiscaleFlow`` of ``GlowBlock``s, ``Squeeze`` and ``Merge`` with
  class-conditional base distributions; its ``forward`` is the negative log-likelihood;
- ``NormalizingFlowVAE``: a Gaussian encoder, planar flows and a Gaussian decoder.
"""
from __future__ import annotations

from typing import Dict, List

BATCH = 16

_WRAPPER = (
    "class FlowLoss(nn.Module):\n"
    "    def __init__(self, flow):\n"
    "        super().__init__()\n"
    "        self.flow = flow\n"
    "\n"
    "    def forward(self, *args):\n"
    "        return self.flow.{method}(*args)\n"
    "\n"
)


def _flow(flows: str, base: str = "nf.distributions.DiagGaussian(2)", method: str = "forward_kld",
          inputs: str = f"x = torch.randn({BATCH}, 2)", args: str = "(x,)",
          cls: str = "nf.NormalizingFlow", extra: str = "") -> str:
    """A flow of the layers ``flows`` builds, on ``base``, wrapped so that ``forward`` calls ``method``."""
    return (
        "from torch import nn\n"
        "import normflows as nf\n"
        "\n"
        + _WRAPPER.format(method=method)
        + "flows = []\n"
        "for i in range(2):\n"
        + flows
        + f"base = {base}\n"
        + f"model = FlowLoss({cls}(base, flows{extra}))\n"
        + f"{inputs}\n"
        + f"args = {args}\n"
        + "kwargs = dict()\n"
    )


def _entries() -> Dict[str, str]:
    e: Dict[str, str] = {}
    e["realnvp_affine_coupling"] = _flow(
        "    param_map = nf.nets.MLP([1, 32, 32, 2], init_zeros=True)\n"
        "    flows.append(nf.flows.AffineCouplingBlock(param_map))\n"
        "    flows.append(nf.flows.Permute(2, mode='swap'))\n")
    e["realnvp_masked_affine_actnorm"] = _flow(
        "    b = torch.tensor([1.0, 0.0]) if i % 2 == 0 else torch.tensor([0.0, 1.0])\n"
        "    s = nf.nets.MLP([2, 32, 2], init_zeros=True)\n"
        "    t = nf.nets.MLP([2, 32, 2], init_zeros=True)\n"
        "    flows.append(nf.flows.MaskedAffineFlow(b, t, s))\n"
        "    flows.append(nf.flows.ActNorm(2))\n")
    e["nsf_autoregressive"] = _flow(
        "    flows.append(nf.flows.AutoregressiveRationalQuadraticSpline(2, 2, 32))\n"
        "    flows.append(nf.flows.LULinearPermute(2))\n",
        base="nf.distributions.DiagGaussian(2, trainable=False)")
    e["nsf_coupling"] = _flow(
        "    flows.append(nf.flows.CoupledRationalQuadraticSpline(2, 2, 32, num_bins=8, tail_bound=3.0))\n"
        "    flows.append(nf.flows.LULinearPermute(2))\n",
        method="log_prob")
    e["circular_nsf_autoregressive"] = _flow(
        "    flows.append(nf.flows.CircularAutoregressiveRationalQuadraticSpline(\n"
        "        2, 1, 32, [1], tail_bound=torch.tensor([5.0, torch.pi]), permute_mask=True))\n",
        base="nf.distributions.UniformGaussian(2, [1], torch.tensor([1.0, 2 * torch.pi]))",
        inputs=f"x = torch.stack([torch.randn({BATCH}), (torch.rand({BATCH}) * 2 - 1) * torch.pi], -1)")
    e["circular_nsf_coupling"] = _flow(
        "    flows.append(nf.flows.CircularCoupledRationalQuadraticSpline(\n"
        "        2, 1, 32, [1], tail_bound=torch.tensor([5.0, torch.pi]), reverse_mask=i % 2 == 1))\n",
        base="nf.distributions.UniformGaussian(2, [1], torch.tensor([1.0, 2 * torch.pi]))",
        inputs=f"x = torch.stack([torch.randn({BATCH}), (torch.rand({BATCH}) * 2 - 1) * torch.pi], -1)")
    e["maf_gaussian_mixture"] = _flow(
        "    flows.append(nf.flows.MaskedAffineAutoregressive(2, 32, num_blocks=2))\n"
        "    flows.append(nf.flows.Permute(2, mode='shuffle'))\n",
        base="nf.distributions.GaussianMixture(4, 2)")
    e["maf_conditional"] = _flow(
        "    flows.append(nf.flows.MaskedAffineAutoregressive(2, 32, context_features=3, num_blocks=2))\n"
        "    flows.append(nf.flows.LULinearPermute(2))\n",
        base="nf.distributions.DiagGaussian(2, trainable=False)",
        cls="nf.ConditionalNormalizingFlow",
        inputs=f"x = torch.randn({BATCH}, 2)\ncontext = torch.randn({BATCH}, 3)",
        args="(x, context)")
    e["residual_flow"] = _flow(
        "    net = nf.nets.LipschitzMLP([2, 32, 32, 2], init_zeros=True, lipschitz_const=0.9)\n"
        "    flows.append(nf.flows.Residual(net, reduce_memory=True))\n"
        "    flows.append(nf.flows.ActNorm(2))\n")
    e["planar_reverse_kld"] = _flow(
        "    flows.append(nf.flows.Planar((2,)))\n",
        method="reverse_kld", extra=", nf.distributions.TwoMoons()",
        inputs="num_samples = 16", args="(num_samples,)")
    e["radial_forward"] = (
        "import normflows as nf\n"
        "\n"
        "flows = [nf.flows.Radial((2,)) for _ in range(2)]\n"
        "model = nf.NormalizingFlow(nf.distributions.DiagGaussian(2), flows)\n"
        f"z = torch.randn({BATCH}, 2)\n"
        "args = (z,)\n"
        "kwargs = dict()\n"
    )
    e["glow_multiscale"] = (
        "import normflows as nf\n"
        "\n"
        "L, K, num_classes = 2, 2, 4\n"
        "input_shape = (3, 8, 8)\n"
        "channels = 3\n"
        "q0, merges, flows = [], [], []\n"
        "for i in range(L):\n"
        "    flows_ = []\n"
        "    for j in range(K):\n"
        "        flows_ += [nf.flows.GlowBlock(channels * 2 ** (L + 1 - i), 16, split_mode='channel', scale=True)]\n"
        "    flows_ += [nf.flows.Squeeze()]\n"
        "    flows += [flows_]\n"
        "    if i > 0:\n"
        "        merges += [nf.flows.Merge()]\n"
        "        latent_shape = (input_shape[0] * 2 ** (L - i), input_shape[1] // 2 ** (L - i),\n"
        "                        input_shape[2] // 2 ** (L - i))\n"
        "    else:\n"
        "        latent_shape = (input_shape[0] * 2 ** (L + 1), input_shape[1] // 2 ** L,\n"
        "                        input_shape[2] // 2 ** L)\n"
        "    q0 += [nf.distributions.ClassCondDiagGaussian(latent_shape, num_classes)]\n"
        "model = nf.MultiscaleFlow(q0, flows, merges)\n"
        "x = torch.rand(4, *input_shape)\n"
        "y = torch.randint(0, num_classes, (4,))\n"
        "args = (x, y)\n"
        "kwargs = dict()\n"
    )
    e["flow_vae"] = (
        "import normflows as nf\n"
        "\n"
        "encoder = nf.distributions.NNDiagGaussian(nf.nets.MLP([16, 32, 2 * 4]))\n"
        "decoder = nf.distributions.NNDiagGaussianDecoder(nf.nets.MLP([4, 32, 2 * 16]))\n"
        "prior = nf.distributions.DiagGaussian(4)\n"
        "flows = [nf.flows.Planar((4,)) for _ in range(2)]\n"
        "model = nf.NormalizingFlowVAE(prior, encoder, flows, decoder)\n"
        "x = torch.randn(8, 16)\n"
        "args = (x,)\n"
        "kwargs = dict(num_samples=2)\n"
    )
    return e


def names() -> List[str]:
    """The entries, sorted."""
    return sorted(_entries())


def setup(name: str) -> str:
    """User-style source for the entry ``name`` (see ``spec.py``)."""
    return "import torch\n" + _entries()[name]
