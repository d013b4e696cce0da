"""pyro-ppl: the package's modules as its tutorials write them, tiny (4 features, batch 8, hidden
width 16), random weights and data.

- ``PyroModule`` models: Bayesian regression from the tutorial (``PyroModule[nn.Linear]`` with
  ``PyroSample`` priors, a ``pyro.plate`` and an observed ``pyro.sample``) compiled inside its
  training loss (``Trace_ELBO().differentiable_loss`` with an ``AutoNormal`` guide, whose
  parameters the first call creates) and inside ``TraceMeanField_ELBO`` with an
  ``AutoDiagonalNormal`` guide; a Bayesian last layer over a deterministic feature layer, called
  alone (each call samples its weights); a ``PyroModule`` with constrained ``PyroParam``s whose
  forward returns a log density;
- distributions' ``log_prob`` in a module's forward: a linear Gaussian state space model
  (``GaussianHMM``, a parallel scan over Gaussians), ``MixtureOfDiagNormals`` and
  ``ZeroInflatedPoisson``;
- normalizing flows from ``pyro.distributions.transforms`` in a ``TransformedDistribution``: the
  log density of data through affine autoregressive (its inverse is a loop over dimensions) and
  spline coupling layers (the training step gets a fresh batch: a transform caches its last
  inverse); the log density of the flow's own samples through neural autoregressive and
  planar/radial layers, which have no inverse (the cached one is used); samples drawn through a
  spline autoregressive flow (``rsample``); a conditional affine coupling flow given a context.
"""
from __future__ import annotations

from typing import Dict, List

DIM = 4
BATCH = 8

_REGRESSION = (
    "class BayesianRegression(PyroModule):\n"
    "    def __init__(self, in_features, out_features):\n"
    "        super().__init__()\n"
    "        self.linear = PyroModule[torch.nn.Linear](in_features, out_features)\n"
    "        self.linear.weight = PyroSample(dist.Normal(0.0, 1.0).expand([out_features, in_features]).to_event(2))\n"
    "        self.linear.bias = PyroSample(dist.Normal(0.0, 10.0).expand([out_features]).to_event(1))\n"
    "\n"
    "    def forward(self, x, y=None):\n"
    "        sigma = pyro.sample(\"sigma\", dist.Uniform(0.0, 10.0))\n"
    "        mean = self.linear(x).squeeze(-1)\n"
    "        with pyro.plate(\"data\", x.shape[0]):\n"
    "            pyro.sample(\"obs\", dist.Normal(mean, sigma), obs=y)\n"
    "        return mean\n"
)


def _elbo(elbo: str, guide: str) -> str:
    return (
        "import pyro\n"
        "import pyro.distributions as dist\n"
        "from pyro.nn import PyroModule, PyroSample\n"
        f"from pyro.infer import {elbo}\n"
        f"from pyro.infer.autoguide import {guide}\n"
        "\n"
        "pyro.clear_param_store()\n"
        "\n"
        "\n"
        f"{_REGRESSION}"
        "\n"
        "\n"
        "class SVILoss(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        f"        self.model = BayesianRegression({DIM}, 1)\n"
        f"        self.guide = {guide}(self.model)\n"
        f"        self.elbo = {elbo}()\n"
        "\n"
        "    def forward(self, x, y):\n"
        "        return self.elbo.differentiable_loss(self.model, self.guide, x, y)\n"
        "\n"
        "\n"
        "model = SVILoss()\n"
        f"x = torch.randn({BATCH}, {DIM})\n"
        f"y = x @ torch.randn({DIM}) + 0.1 * torch.randn({BATCH})\n"
        "args = (x, y)\n"
        "kwargs = dict()\n"
    )


_FRESH_BATCH = (
    f"train_args = (torch.randn({BATCH}, {DIM}),)\n"
    "train_kwargs = dict()\n"
)
# the variational use of flows that cannot be inverted: log densities of their own samples
_SAMPLE_LOG_PROB = "flow.log_prob(flow.rsample(torch.Size([n])))"


def _flow(transforms: str, call: str = "flow.log_prob(x)", imports: str = "", extra_inputs: str = "",
          forward_args: str = "x", args: str = "(x,)", train: str = "") -> str:
    """A module holding ``transforms`` (a list expression) over a standard normal base; its forward
    returns ``call`` on ``flow`` (a ``TransformedDistribution``). ``train``: lines for the training
    step's inputs (a fresh batch: the transforms cache their last inverse)."""
    return (
        "import pyro.distributions as dist\n"
        "import pyro.distributions.transforms as T\n"
        f"{imports}"
        "\n"
        "\n"
        "class Flow(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        f"        self.transforms = torch.nn.ModuleList({transforms})\n"
        f"        self.register_buffer(\"loc\", torch.zeros({DIM}))\n"
        f"        self.register_buffer(\"scale\", torch.ones({DIM}))\n"
        "\n"
        f"    def forward(self, {forward_args}):\n"
        "        base = dist.Normal(self.loc, self.scale).to_event(1)\n"
        "        flow = dist.TransformedDistribution(base, list(self.transforms))\n"
        f"        return {call}\n"
        "\n"
        "\n"
        "model = Flow()\n"
        f"x = torch.randn({BATCH}, {DIM})\n"
        f"{extra_inputs}"
        f"args = {args}\n"
        "kwargs = dict()\n"
        f"{train}"
    )


def _entries() -> Dict[str, str]:
    e: Dict[str, str] = {}
    e["regression_trace_elbo_autonormal"] = _elbo("Trace_ELBO", "AutoNormal")
    e["regression_meanfield_elbo_autodiagonal"] = _elbo("TraceMeanField_ELBO", "AutoDiagonalNormal")
    e["bayesian_last_layer"] = (
        "import pyro\n"
        "import pyro.distributions as dist\n"
        "from pyro.nn import PyroModule, PyroSample\n"
        "\n"
        "\n"
        "class BayesianMLP(PyroModule):\n"
        "    def __init__(self, in_features, hidden, out_features):\n"
        "        super().__init__()\n"
        "        self.features = PyroModule[torch.nn.Sequential](torch.nn.Linear(in_features, hidden), torch.nn.ReLU())\n"
        "        self.head = PyroModule[torch.nn.Linear](hidden, out_features)\n"
        "        self.head.weight = PyroSample(dist.Normal(0.0, 1.0).expand([out_features, hidden]).to_event(2))\n"
        "        self.head.bias = PyroSample(dist.Normal(0.0, 1.0).expand([out_features]).to_event(1))\n"
        "\n"
        "    def forward(self, x, y=None):\n"
        "        logits = self.head(self.features(x))\n"
        "        with pyro.plate(\"data\", x.shape[0]):\n"
        "            pyro.sample(\"obs\", dist.Categorical(logits=logits), obs=y)\n"
        "        return logits\n"
        "\n"
        "\n"
        f"model = BayesianMLP({DIM}, 16, 3)\n"
        f"x = torch.randn({BATCH}, {DIM})\n"
        f"y = torch.randint(0, 3, ({BATCH},))\n"
        "args = (x, y)\n"
        "kwargs = dict()\n"
    )
    e["pyro_param_constrained"] = (
        "import pyro.distributions as dist\n"
        "from pyro.distributions import constraints\n"
        "from pyro.nn import PyroModule, PyroParam\n"
        "\n"
        "\n"
        "class GaussianDensity(PyroModule):\n"
        "    def __init__(self, dim):\n"
        "        super().__init__()\n"
        "        self.loc = PyroParam(torch.zeros(dim))\n"
        "        self.scale = PyroParam(torch.ones(dim), constraint=constraints.positive)\n"
        "        self.df = PyroParam(torch.tensor(5.0), constraint=constraints.greater_than(2.0))\n"
        "\n"
        "    def forward(self, x):\n"
        "        return dist.StudentT(self.df, self.loc, self.scale).to_event(1).log_prob(x)\n"
        "\n"
        "\n"
        f"model = GaussianDensity({DIM})\n"
        f"x = torch.randn({BATCH}, {DIM})\n"
        "args = (x,)\n"
        "kwargs = dict()\n"
    )
    e["gaussian_hmm_log_prob"] = (
        "import pyro.distributions as dist\n"
        "\n"
        "\n"
        "class LinearGaussianStateSpace(torch.nn.Module):\n"
        "    def __init__(self, hidden_dim, obs_dim):\n"
        "        super().__init__()\n"
        "        self.trans_matrix = torch.nn.Parameter(0.9 * torch.eye(hidden_dim) + 0.05 * torch.randn(hidden_dim, hidden_dim))\n"
        "        self.obs_matrix = torch.nn.Parameter(torch.randn(hidden_dim, obs_dim) * 0.5)\n"
        "        self.log_trans_scale = torch.nn.Parameter(torch.zeros(hidden_dim))\n"
        "        self.log_obs_scale = torch.nn.Parameter(torch.zeros(obs_dim))\n"
        "\n"
        "    def forward(self, obs):\n"
        "        hidden_dim = self.trans_matrix.size(0)\n"
        "        init_dist = dist.Normal(torch.zeros(hidden_dim), torch.ones(hidden_dim)).to_event(1)\n"
        "        trans_dist = dist.Normal(torch.zeros(hidden_dim), self.log_trans_scale.exp()).to_event(1)\n"
        "        obs_dist = dist.Normal(torch.zeros(self.obs_matrix.size(1)), self.log_obs_scale.exp()).to_event(1)\n"
        "        hmm = dist.GaussianHMM(init_dist, self.trans_matrix, trans_dist, self.obs_matrix, obs_dist,\n"
        "                               duration=obs.size(-2))\n"
        "        return -hmm.log_prob(obs).mean()\n"
        "\n"
        "\n"
        "model = LinearGaussianStateSpace(3, 2)\n"
        "obs = torch.randn(2, 6, 2)\n"
        "args = (obs,)\n"
        "kwargs = dict()\n"
    )
    e["mixture_of_diag_normals_log_prob"] = (
        "import pyro.distributions as dist\n"
        "\n"
        "\n"
        "class GaussianMixture(torch.nn.Module):\n"
        "    def __init__(self, dim, components):\n"
        "        super().__init__()\n"
        "        self.locs = torch.nn.Parameter(torch.randn(components, dim))\n"
        "        self.log_scales = torch.nn.Parameter(torch.zeros(components, dim))\n"
        "        self.logits = torch.nn.Parameter(torch.zeros(components))\n"
        "\n"
        "    def forward(self, x):\n"
        "        mix = dist.MixtureOfDiagNormals(self.locs, self.log_scales.exp(), self.logits)\n"
        "        return -mix.log_prob(x).mean()\n"
        "\n"
        "\n"
        f"model = GaussianMixture({DIM}, 3)\n"
        f"x = torch.randn({BATCH}, {DIM})\n"
        "args = (x,)\n"
        "kwargs = dict()\n"
    )
    e["zero_inflated_poisson_log_prob"] = (
        "import pyro.distributions as dist\n"
        "\n"
        "\n"
        "class CountRegression(torch.nn.Module):\n"
        "    def __init__(self, dim):\n"
        "        super().__init__()\n"
        "        self.rate = torch.nn.Linear(dim, 1)\n"
        "        self.gate = torch.nn.Linear(dim, 1)\n"
        "\n"
        "    def forward(self, x, counts):\n"
        "        rate = torch.nn.functional.softplus(self.rate(x)).squeeze(-1)\n"
        "        gate = torch.sigmoid(self.gate(x)).squeeze(-1)\n"
        "        return -dist.ZeroInflatedPoisson(rate, gate=gate).log_prob(counts).mean()\n"
        "\n"
        "\n"
        f"model = CountRegression({DIM})\n"
        f"x = torch.randn({BATCH}, {DIM})\n"
        f"counts = torch.poisson(torch.full(({BATCH},), 2.0))\n"
        "args = (x, counts)\n"
        "kwargs = dict()\n"
    )
    e["flow_affine_autoregressive"] = _flow(
        f"[T.affine_autoregressive({DIM}, hidden_dims=[16]) for _ in range(2)]", train=_FRESH_BATCH)
    e["flow_spline_coupling"] = _flow(
        f"[T.spline_coupling({DIM}, hidden_dims=[16], count_bins=4), T.spline_coupling({DIM}, hidden_dims=[16], count_bins=4)]",
        train=_FRESH_BATCH)
    e["flow_neural_autoregressive_sample_log_prob"] = _flow(
        f"[T.neural_autoregressive({DIM}, hidden_dims=[16], width=8)]",
        call=_SAMPLE_LOG_PROB, forward_args="n", args=f"({BATCH},)")
    e["flow_planar_radial_sample_log_prob"] = _flow(
        f"[T.planar({DIM}), T.radial({DIM}), T.planar({DIM})]",
        call=_SAMPLE_LOG_PROB, forward_args="n", args=f"({BATCH},)")
    e["flow_spline_autoregressive_rsample"] = _flow(
        f"[T.spline_autoregressive({DIM}, hidden_dims=[16], count_bins=4)]",
        call="flow.rsample(torch.Size([n]))", forward_args="n", args=f"({BATCH},)")
    e["flow_conditional_affine_coupling"] = (
        "import pyro.distributions as dist\n"
        "import pyro.distributions.transforms as T\n"
        "\n"
        "\n"
        "class ConditionalFlow(torch.nn.Module):\n"
        "    def __init__(self, dim, context_dim):\n"
        "        super().__init__()\n"
        "        self.transform = T.conditional_affine_coupling(dim, context_dim, hidden_dims=[16])\n"
        "        self.register_buffer(\"loc\", torch.zeros(dim))\n"
        "        self.register_buffer(\"scale\", torch.ones(dim))\n"
        "\n"
        "    def forward(self, x, context):\n"
        "        base = dist.Normal(self.loc, self.scale).to_event(1)\n"
        "        flow = dist.ConditionalTransformedDistribution(base, [self.transform])\n"
        "        return flow.condition(context).log_prob(x)\n"
        "\n"
        "\n"
        f"model = ConditionalFlow({DIM}, 3)\n"
        f"x = torch.randn({BATCH}, {DIM})\n"
        f"context = torch.randn({BATCH}, 3)\n"
        "args = (x, context)\n"
        "kwargs = dict()\n"
    )
    return e


def names() -> List[str]:
    """The entries, sorted."""
    return sorted(_entries())


def setup(name: str) -> str:
    """User-style source for the entry ``name`` (see ``spec.py``)."""
    return "import torch\n" + _entries()[name]
