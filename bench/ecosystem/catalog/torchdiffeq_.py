"""torchdiffeq: small neural ODEs solved inside a module's forward, as the package's README and
examples (``ode_demo.py``, ``cnf.py``, ``bouncing_ball.py``) write them, with random weights
(state 2, batch 4, hidden width 16, 4 output times over ``[0, 1]``).

Each entry defines an ``ODEFunc`` module (``forward(t, y)`` over a tiny MLP, the demo's
``net(y ** 3)``) and a wrapper whose forward calls the solver on a batch of initial states. They
vary what the solver does:

- adaptive-step solvers, whose step loop depends on the data: ``dopri5`` (the default),
  ``dopri8``, ``bosh3``, ``adaptive_heun``, with ``rtol``/``atol`` loose enough for few steps;
- fixed-grid solvers with ``options=dict(step_size=...)``: ``euler``, ``midpoint``, ``rk4``, and
  the Adams solvers ``explicit_adams`` and ``implicit_adams``;
- ``odeint_adjoint`` (the backward pass solves the adjoint ODE) with ``dopri5`` and with ``rk4``;
- ``odeint_event``: a bouncing ball's fall until its height crosses zero (root finding on the
  event function);
- a continuous normalizing flow with a tuple state ``(z, logp)`` whose dynamics compute the exact
  trace of the Jacobian with ``torch.autograd.grad`` under ``torch.enable_grad()``.
"""
from __future__ import annotations

from typing import Dict, List

BATCH = 4

_FUNC = (
    "class ODEFunc(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.net = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.Tanh(), torch.nn.Linear(16, 2))\n"
    "\n"
    "    def forward(self, t, y):\n"
    "        return self.net(y ** 3)\n"
)


def _ode(call: str, imports: str = "odeint") -> str:
    """``ODEFunc``, a module whose forward returns ``call`` (it sees ``self.func``, ``y0``, ``t``),
    and the inputs."""
    return (
        f"from torchdiffeq import {imports}\n"
        "\n"
        "\n"
        f"{_FUNC}"
        "\n"
        "\n"
        "class NeuralODE(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.func = ODEFunc()\n"
        "\n"
        "    def forward(self, y0, t):\n"
        f"        return {call}\n"
        "\n"
        "\n"
        "model = NeuralODE()\n"
        f"y0 = torch.randn({BATCH}, 2) * 0.5\n"
        "t = torch.linspace(0.0, 1.0, 4)\n"
        "args = (y0, t)\n"
        "kwargs = dict()\n"
    )


_TOL = "rtol=1e-3, atol=1e-4"

_BOUNCING_BALL = (
    "from torchdiffeq import odeint_event\n"
    "\n"
    "\n"
    "class BouncingBall(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.gravity = torch.nn.Parameter(torch.tensor([9.8]))\n"
    "        self.drag = torch.nn.Linear(1, 1)\n"
    "\n"
    "    def forward(self, t, state):\n"
    "        pos, vel = state\n"
    "        dvel = -self.gravity - 0.1 * torch.tanh(self.drag(vel))\n"
    "        return vel, dvel\n"
    "\n"
    "    def event_fn(self, t, state):\n"
    "        pos, _ = state\n"
    "        return pos.sum()\n"
    "\n"
    "\n"
    "class Fall(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.ball = BouncingBall()\n"
    "\n"
    "    def forward(self, pos, vel, t0):\n"
    "        event_t, (pos_t, vel_t) = odeint_event(\n"
    "            self.ball, (pos, vel), t0, event_fn=self.ball.event_fn, method=\"dopri5\", rtol=1e-3, atol=1e-4)\n"
    "        return event_t, vel_t[-1]\n"
    "\n"
    "\n"
    "model = Fall()\n"
    "pos = torch.tensor([1.0])\n"
    "vel = torch.tensor([0.5])\n"
    "t0 = torch.tensor([0.0])\n"
    "args = (pos, vel, t0)\n"
    "kwargs = dict()\n"
)

_CNF = (
    "from torchdiffeq import odeint\n"
    "\n"
    "\n"
    "class CNFDynamics(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.net = torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.Tanh(), torch.nn.Linear(16, 2))\n"
    "\n"
    "    def forward(self, t, states):\n"
    "        z, logp_z = states\n"
    "        with torch.enable_grad():\n"
    "            z.requires_grad_(True)\n"
    "            tz = torch.cat([t.expand(z.size(0), 1), z], dim=1)\n"
    "            dz_dt = self.net(tz)\n"
    "            trace = torch.zeros(z.size(0), device=z.device)\n"
    "            for i in range(z.size(1)):\n"
    "                trace = trace + torch.autograd.grad(dz_dt[:, i].sum(), z, create_graph=True)[0][:, i]\n"
    "        return dz_dt, -trace.view(-1, 1)\n"
    "\n"
    "\n"
    "class CNF(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.dynamics = CNFDynamics()\n"
    "\n"
    "    def forward(self, x, t):\n"
    "        logp = torch.zeros(x.size(0), 1)\n"
    "        z_t, logp_t = odeint(self.dynamics, (x, logp), t, method=\"dopri5\", rtol=1e-3, atol=1e-4)\n"
    "        z1, delta_logp = z_t[-1], logp_t[-1]\n"
    "        logp_x = torch.distributions.Normal(0.0, 1.0).log_prob(z1).sum(-1, keepdim=True) - delta_logp\n"
    "        return -logp_x.mean()\n"
    "\n"
    "\n"
    "model = CNF()\n"
    f"x = torch.randn({BATCH}, 2)\n"
    "t = torch.tensor([0.0, 1.0])\n"
    "args = (x, t)\n"
    "kwargs = dict()\n"
)


def _entries() -> Dict[str, str]:
    e: Dict[str, str] = {}
    e["dopri5"] = _ode(f"odeint(self.func, y0, t, {_TOL})")
    e["dopri8"] = _ode(f"odeint(self.func, y0, t, method=\"dopri8\", {_TOL})")
    e["bosh3"] = _ode(f"odeint(self.func, y0, t, method=\"bosh3\", {_TOL})")
    e["adaptive_heun"] = _ode(f"odeint(self.func, y0, t, method=\"adaptive_heun\", {_TOL})")
    e["euler"] = _ode("odeint(self.func, y0, t, method=\"euler\", options=dict(step_size=0.1))")
    e["midpoint"] = _ode("odeint(self.func, y0, t, method=\"midpoint\", options=dict(step_size=0.1))")
    e["rk4"] = _ode("odeint(self.func, y0, t, method=\"rk4\", options=dict(step_size=0.1))")
    e["explicit_adams"] = _ode("odeint(self.func, y0, t, method=\"explicit_adams\", options=dict(step_size=0.1))")
    e["implicit_adams"] = _ode("odeint(self.func, y0, t, method=\"implicit_adams\", options=dict(step_size=0.1))")
    e["adjoint_dopri5"] = _ode(f"odeint_adjoint(self.func, y0, t, {_TOL})", imports="odeint_adjoint")
    e["adjoint_rk4"] = _ode("odeint_adjoint(self.func, y0, t, method=\"rk4\", options=dict(step_size=0.1))",
                            imports="odeint_adjoint")
    e["event_bouncing_ball"] = _BOUNCING_BALL
    e["cnf_exact_trace"] = _CNF
    return e


def names() -> List[str]:
    """The entries, sorted."""
    return sorted(_entries())


def setup(name: str) -> str:
    """User-style source for the entry ``name`` (see ``spec.py``)."""
    return "import torch\n" + _entries()[name]
