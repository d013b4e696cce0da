"""gpytorch: Gaussian process models as its README and tutorials write them, tiny (16 training
points, 1-D or 2-D inputs, 8 inducing points), with random data and default hyperparameters.

Two kinds of compiled call:

- the GP itself (entries without ``_mll``/``_elbo``): an ``ExactGP`` subclass with a mean and a
  covariance module. Eval mode predicts at 8 test points (the posterior: a Cholesky solve against
  the training data); train mode calls it on the training inputs (the prior). ``output`` picks the
  predictive mean and variance of the ``MultivariateNormal`` it returns;
- the training loss, wrapped in a small module: ``-mll(gp(x), y)`` with
  ``ExactMarginalLogLikelihood`` for exact GPs, ``VariationalELBO`` for approximate ones.

Kernels and models: ``ScaleKernel(RBFKernel)``, Matern 5/2 with ARD, spectral mixture initialized
from data, a sum of a periodic and a linear kernel, a product of RQ and cosine kernels, SGPR's
``InducingPointKernel``, KISS-GP's ``GridInterpolationKernel``, deep kernel learning (an MLP
feature extractor under an RBF kernel), a multitask exact GP (``MultitaskKernel`` with a
multitask likelihood), and ``ApproximateGP`` with ``VariationalStrategy`` over Cholesky and
mean-field variational distributions, for regression and for classification (``BernoulliLikelihood``).
"""
from __future__ import annotations

from typing import Dict, List

_DATA_1D = (
    "train_x = torch.linspace(0, 1, 16)\n"
    "train_y = torch.sin(train_x * 6.28) + 0.1 * torch.randn(16)\n"
    "test_x = torch.linspace(0, 1, 8)\n"
)
_DATA_2D = (
    "train_x = torch.rand(16, 2)\n"
    "train_y = torch.sin(train_x[:, 0] * 6.28) + torch.cos(train_x[:, 1] * 3.14) + 0.1 * torch.randn(16)\n"
    "test_x = torch.rand(8, 2)\n"
)

_OUTPUT = "output = lambda out: out.mean.mean() + out.variance.mean()\n"


def _exact(mean: str, covar: str, data: str = _DATA_1D, mll: bool = False, init: str = "",
           features: str = "", forward_x: str = "x") -> str:
    """An ``ExactGP`` with ``mean`` and ``covar`` modules; compiled alone or inside its exact MLL."""
    lines = (
        "import gpytorch\n"
        "\n"
        "\n"
        "class ExactGPModel(gpytorch.models.ExactGP):\n"
        "    def __init__(self, train_x, train_y, likelihood):\n"
        "        super().__init__(train_x, train_y, likelihood)\n"
        f"{features}"
        f"        self.mean_module = {mean}\n"
        f"        self.covar_module = {covar}\n"
        f"{init}"
        "\n"
        "    def forward(self, x):\n"
        + (f"        x = {forward_x}\n" if forward_x != "x" else "")
        + "        mean_x = self.mean_module(x)\n"
        "        covar_x = self.covar_module(x)\n"
        "        return gpytorch.distributions.MultivariateNormal(mean_x, covar_x)\n"
        "\n"
        "\n"
        f"{data}"
        "likelihood = gpytorch.likelihoods.GaussianLikelihood()\n"
    )
    if not mll:
        return lines + (
            "model = ExactGPModel(train_x, train_y, likelihood)\n"
            "args = (test_x,)\n"
            "kwargs = dict()\n"
            "train_args = (train_x,)\n"
            "train_kwargs = dict()\n"
            f"{_OUTPUT}"
        )
    return lines + (
        "gp = ExactGPModel(train_x, train_y, likelihood)\n"
        "\n"
        "\n"
        "class GPLoss(torch.nn.Module):\n"
        "    def __init__(self, gp):\n"
        "        super().__init__()\n"
        "        self.gp = gp\n"
        "        self.mll = gpytorch.mlls.ExactMarginalLogLikelihood(gp.likelihood, gp)\n"
        "\n"
        "    def forward(self, x, y):\n"
        "        return -self.mll(self.gp(x), y)\n"
        "\n"
        "\n"
        "model = GPLoss(gp)\n"
        "args = (train_x, train_y)\n"
        "kwargs = dict()\n"
    )


def _approximate(distribution: str, likelihood: str, data: str, elbo: bool = True) -> str:
    """An ``ApproximateGP`` over 8 inducing points with ``distribution``; compiled inside its
    variational ELBO, or alone."""
    lines = (
        "import gpytorch\n"
        "from gpytorch.models import ApproximateGP\n"
        "from gpytorch.variational import VariationalStrategy\n"
        f"from gpytorch.variational import {distribution}\n"
        "\n"
        "\n"
        "class GPModel(ApproximateGP):\n"
        "    def __init__(self, inducing_points):\n"
        f"        variational_distribution = {distribution}(inducing_points.size(0))\n"
        "        variational_strategy = VariationalStrategy(\n"
        "            self, inducing_points, variational_distribution, learn_inducing_locations=True)\n"
        "        super().__init__(variational_strategy)\n"
        "        self.mean_module = gpytorch.means.ConstantMean()\n"
        "        self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())\n"
        "\n"
        "    def forward(self, x):\n"
        "        mean_x = self.mean_module(x)\n"
        "        covar_x = self.covar_module(x)\n"
        "        return gpytorch.distributions.MultivariateNormal(mean_x, covar_x)\n"
        "\n"
        "\n"
        f"{data}"
        "gp = GPModel(inducing_points=train_x[:8].clone())\n"
    )
    if not elbo:
        return lines + (
            "model = gp\n"
            "args = (test_x,)\n"
            "kwargs = dict()\n"
            f"{_OUTPUT}"
        )
    return lines + (
        "\n"
        "\n"
        "class ELBOLoss(torch.nn.Module):\n"
        "    def __init__(self, gp, num_data):\n"
        "        super().__init__()\n"
        "        self.gp = gp\n"
        f"        self.likelihood = {likelihood}\n"
        "        self.mll = gpytorch.mlls.VariationalELBO(self.likelihood, gp, num_data=num_data)\n"
        "\n"
        "    def forward(self, x, y):\n"
        "        return -self.mll(self.gp(x), y)\n"
        "\n"
        "\n"
        "model = ELBOLoss(gp, num_data=train_y.size(0))\n"
        "args = (train_x, train_y)\n"
        "kwargs = dict()\n"
    )


_SCALE_RBF = "gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())"

_MULTITASK = (
    "import gpytorch\n"
    "\n"
    "\n"
    "class MultitaskGPModel(gpytorch.models.ExactGP):\n"
    "    def __init__(self, train_x, train_y, likelihood):\n"
    "        super().__init__(train_x, train_y, likelihood)\n"
    "        self.mean_module = gpytorch.means.MultitaskMean(gpytorch.means.ConstantMean(), num_tasks=2)\n"
    "        self.covar_module = gpytorch.kernels.MultitaskKernel(\n"
    "            gpytorch.kernels.RBFKernel(), num_tasks=2, rank=1)\n"
    "\n"
    "    def forward(self, x):\n"
    "        mean_x = self.mean_module(x)\n"
    "        covar_x = self.covar_module(x)\n"
    "        return gpytorch.distributions.MultitaskMultivariateNormal(mean_x, covar_x)\n"
    "\n"
    "\n"
    "train_x = torch.linspace(0, 1, 16)\n"
    "train_y = torch.stack([torch.sin(train_x * 6.28), torch.cos(train_x * 6.28)], -1) + 0.1 * torch.randn(16, 2)\n"
    "likelihood = gpytorch.likelihoods.MultitaskGaussianLikelihood(num_tasks=2)\n"
    "gp = MultitaskGPModel(train_x, train_y, likelihood)\n"
    "\n"
    "\n"
    "class GPLoss(torch.nn.Module):\n"
    "    def __init__(self, gp):\n"
    "        super().__init__()\n"
    "        self.gp = gp\n"
    "        self.mll = gpytorch.mlls.ExactMarginalLogLikelihood(gp.likelihood, gp)\n"
    "\n"
    "    def forward(self, x, y):\n"
    "        return -self.mll(self.gp(x), y)\n"
    "\n"
    "\n"
    "model = GPLoss(gp)\n"
    "args = (train_x, train_y)\n"
    "kwargs = dict()\n"
)


def _entries() -> Dict[str, str]:
    e: Dict[str, str] = {}
    e["exact_rbf"] = _exact("gpytorch.means.ConstantMean()", _SCALE_RBF)
    e["exact_rbf_mll"] = _exact("gpytorch.means.ConstantMean()", _SCALE_RBF, mll=True)
    e["exact_matern_ard_mll"] = _exact(
        "gpytorch.means.LinearMean(input_size=2)",
        "gpytorch.kernels.ScaleKernel(gpytorch.kernels.MaternKernel(nu=2.5, ard_num_dims=2))",
        data=_DATA_2D, mll=True)
    e["exact_spectral_mixture_mll"] = _exact(
        "gpytorch.means.ConstantMean()", "gpytorch.kernels.SpectralMixtureKernel(num_mixtures=4)",
        mll=True, init="        self.covar_module.initialize_from_data(train_x, train_y)\n")
    e["exact_periodic_plus_linear"] = _exact(
        "gpytorch.means.ZeroMean()",
        "gpytorch.kernels.ScaleKernel(gpytorch.kernels.PeriodicKernel()) + "
        "gpytorch.kernels.ScaleKernel(gpytorch.kernels.LinearKernel())")
    e["exact_rq_times_cosine_mll"] = _exact(
        "gpytorch.means.ConstantMean()",
        "gpytorch.kernels.ScaleKernel(gpytorch.kernels.RQKernel() * gpytorch.kernels.CosineKernel())",
        mll=True)
    e["sgpr_inducing_point_mll"] = _exact(
        "gpytorch.means.ConstantMean()",
        f"gpytorch.kernels.InducingPointKernel(\n"
        f"            {_SCALE_RBF}, inducing_points=train_x[:8, :].clone(), likelihood=likelihood)",
        data=_DATA_2D, mll=True)
    e["kiss_gp_grid_interpolation"] = _exact(
        "gpytorch.means.ConstantMean()",
        "gpytorch.kernels.ScaleKernel(\n"
        "            gpytorch.kernels.GridInterpolationKernel(gpytorch.kernels.RBFKernel(), grid_size=32, num_dims=1))")
    e["deep_kernel_learning_mll"] = _exact(
        "gpytorch.means.ConstantMean()",
        "gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel(ard_num_dims=2))",
        data=_DATA_2D, mll=True,
        features="        self.feature_extractor = torch.nn.Sequential(\n"
                 "            torch.nn.Linear(2, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))\n"
                 "        self.scale_to_bounds = gpytorch.utils.grid.ScaleToBounds(-1.0, 1.0)\n",
        forward_x="self.scale_to_bounds(self.feature_extractor(x))")
    e["multitask_exact_mll"] = _MULTITASK
    e["svgp_cholesky_elbo"] = _approximate(
        "CholeskyVariationalDistribution", "gpytorch.likelihoods.GaussianLikelihood()", _DATA_2D)
    e["svgp_meanfield"] = _approximate(
        "MeanFieldVariationalDistribution", "", _DATA_2D, elbo=False)
    e["svgp_classification_elbo"] = _approximate(
        "CholeskyVariationalDistribution", "gpytorch.likelihoods.BernoulliLikelihood()",
        _DATA_2D + "train_y = (train_y > 0).float()\n")
    return e


def names() -> List[str]:
    """The entries, sorted."""
    return sorted(_entries())


def setup(name: str) -> str:
    """User-style source for the entry ``name`` (see ``spec.py``)."""
    return "import torch\n" + _entries()[name]
