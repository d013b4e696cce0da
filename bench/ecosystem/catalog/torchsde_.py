"""torchsde: small neural SDEs solved inside a module's forward, as the package's README and
examples write them (state 4, batch 3, times ``[0, 0.5]`` at 3 points, step 0.125), random weights.

Each entry defines an SDE class (``noise_type``/``sde_type`` attributes, ``f`` and ``g`` over
``nn.Linear`` layers) and a wrapper module whose forward calls ``torchsde.sdeint`` (or
``sdeint_adjoint``) on a batch of initial states. The entries vary what the solver does:

- the method: ``euler``, ``milstein`` (Ito), ``srk`` (with the space-time Lévy area its Brownian
  interval then computes), ``midpoint``, ``heun``, ``reversible_heun``, ``log_ode`` (Stratonovich);
- the noise type: diagonal, additive, scalar and general (a ``(batch, state, noise)`` diffusion);
- fixed steps against adaptive ones (``adaptive=True``: data-dependent step control in a loop);
- the Brownian motion: the default ``BrownianInterval`` or a user-built ``BrownianTree``;
- the adjoint (``sdeint_adjoint``, with ``adjoint_reversible_heun`` as the README pairs them);
- ``logqp=True``: a latent SDE with a prior drift ``h``, returning the KL path term too.
"""
from __future__ import annotations

from typing import Dict, List

STATE = 4
BATCH = 3

_Y0 = f"y0 = torch.randn({BATCH}, {STATE})"
_TS = "ts = torch.linspace(0, 0.5, 3)"


def _sde(noise_type: str, sde_type: str, brownian: int = STATE, prior: bool = False) -> str:
    """An SDE class with a small neural drift and a diffusion of the shape ``noise_type`` wants."""
    if noise_type == "diagonal":
        g_layers = f"        self.sigma = torch.nn.Linear({STATE}, {STATE})\n"
        g_body = "        return torch.sigmoid(self.sigma(y))\n"
    elif noise_type == "additive":
        g_layers = f"        self.sigma = torch.nn.Parameter(torch.randn({STATE}, {brownian}) * 0.1)\n"
        g_body = "        return self.sigma.expand(y.size(0), -1, -1)\n"
    elif noise_type == "scalar":
        g_layers = f"        self.sigma = torch.nn.Linear({STATE}, {STATE})\n"
        g_body = "        return torch.sigmoid(self.sigma(y)).unsqueeze(-1)\n"
    else:  # general
        g_layers = f"        self.sigma = torch.nn.Linear({STATE}, {STATE * brownian})\n"
        g_body = f"        return torch.tanh(self.sigma(y)).view(-1, {STATE}, {brownian})\n"
    prior_layer = f"        self.prior = torch.nn.Linear({STATE}, {STATE})\n" if prior else ""
    prior_fn = ("\n"
                "    def h(self, t, y):\n"
                "        return -self.prior(y)\n") if prior else ""
    return (
        "class SDE(torch.nn.Module):\n"
        f"    noise_type = \"{noise_type}\"\n"
        f"    sde_type = \"{sde_type}\"\n"
        "\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.drift = torch.nn.Sequential(\n"
        f"            torch.nn.Linear({STATE} + 1, 16), torch.nn.Tanh(), torch.nn.Linear(16, {STATE}))\n"
        f"{g_layers}{prior_layer}"
        "\n"
        "    def f(self, t, y):\n"
        "        t = t.expand(y.size(0), 1)\n"
        "        return self.drift(torch.cat([t, y], dim=1))\n"
        "\n"
        "    def g(self, t, y):\n"
        f"{g_body}{prior_fn}"
    )


def _entry(noise_type: str, sde_type: str, call: str, brownian: int = STATE, prior: bool = False,
           returns: str = "ys[-1]", pre: str = "") -> str:
    """The SDE class, a module whose forward runs ``call`` (it sees ``self.sde``, ``y0``, ``ts``),
    and the inputs."""
    return (
        "import torchsde\n"
        "\n"
        f"{_sde(noise_type, sde_type, brownian, prior)}"
        "\n"
        "\n"
        "class NeuralSDE(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.sde = SDE()\n"
        "\n"
        "    def forward(self, y0, ts):\n"
        f"{pre}"
        f"        ys = {call}\n"
        f"        return {returns}\n"
        "\n"
        "\n"
        "model = NeuralSDE()\n"
        f"{_Y0}\n"
        f"{_TS}\n"
        "args = (y0, ts)\n"
        "kwargs = dict()\n"
    )


def _entries() -> Dict[str, str]:
    e: Dict[str, str] = {}
    e["euler_diagonal"] = _entry("diagonal", "ito", "torchsde.sdeint(self.sde, y0, ts, method=\"euler\", dt=0.125)")
    e["milstein_diagonal"] = _entry("diagonal", "ito",
                                    "torchsde.sdeint(self.sde, y0, ts, method=\"milstein\", dt=0.125)")
    e["srk_diagonal"] = _entry("diagonal", "ito", "torchsde.sdeint(self.sde, y0, ts, method=\"srk\", dt=0.125)")
    e["srk_additive_adaptive"] = _entry(
        "additive", "ito", "torchsde.sdeint(self.sde, y0, ts, method=\"srk\", dt=0.125, adaptive=True, "
                           "rtol=1e-3, atol=1e-3)", brownian=2)
    e["euler_general"] = _entry("general", "ito", "torchsde.sdeint(self.sde, y0, ts, method=\"euler\", dt=0.125)",
                                brownian=2)
    e["euler_scalar_brownian_tree"] = _entry(
        "scalar", "ito", "torchsde.sdeint(self.sde, y0, ts, bm=bm, method=\"euler\", dt=0.125)",
        pre="        bm = torchsde.BrownianTree(t0=ts[0], t1=ts[-1], w0=torch.zeros(y0.size(0), 1), tol=1e-3)\n")
    e["midpoint_stratonovich"] = _entry(
        "diagonal", "stratonovich", "torchsde.sdeint(self.sde, y0, ts, method=\"midpoint\", dt=0.125)")
    e["heun_general_stratonovich"] = _entry(
        "general", "stratonovich", "torchsde.sdeint(self.sde, y0, ts, method=\"heun\", dt=0.125)", brownian=2)
    e["reversible_heun_adjoint"] = _entry(
        "general", "stratonovich",
        "torchsde.sdeint_adjoint(self.sde, y0, ts, method=\"reversible_heun\", dt=0.125,\n"
        "                                     adjoint_method=\"adjoint_reversible_heun\")", brownian=2)
    e["euler_adjoint_diagonal"] = _entry(
        "diagonal", "ito", "torchsde.sdeint_adjoint(self.sde, y0, ts, method=\"euler\", dt=0.125)")
    e["log_ode_stratonovich"] = _entry(
        "diagonal", "stratonovich", "torchsde.sdeint(self.sde, y0, ts, method=\"log_ode\", dt=0.125)")
    e["latent_sde_logqp"] = _entry(
        "diagonal", "ito", "torchsde.sdeint(self.sde, y0, ts, method=\"euler\", dt=0.125, logqp=True)",
        prior=True, returns="ys[0][-1], ys[1].sum(0)")
    return e


def names() -> List[str]:
    """The entries, sorted."""
    return sorted(_entries())


def setup(name: str) -> str:
    """User-style source for the entry ``name`` (see ``spec.py``)."""
    return "import torch\n" + _entries()[name]
