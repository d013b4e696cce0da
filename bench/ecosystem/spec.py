"""What one measured model is: the contract between the catalogues, the measuring child and
the static side.

A catalogue (``catalog/<package>.py``) is a module with two functions:

- ``names() -> list[str]``: the models it offers, stable and sorted; it may import the package.
- ``setup(name: str) -> str``: user-style Python source that, run at module level, imports what
  it needs and defines ``model`` (an uncompiled ``torch.nn.Module``, built small from its config
  or constructor, random weights, no download), ``args`` (a tuple) and ``kwargs`` (a dict) of
  random inputs of the right kind. It may also define ``train_args``/``train_kwargs`` for the
  training step (detection targets, labels) and ``output`` (a function that picks the tensor
  to back-propagate from the model's output). ``setup`` runs in the measuring child, so it may
  import the package to read configs; what it returns must not depend on the machine.

The driver gblint checks is that source followed by the two lines users write::

    model = torch.compile(model)
    out = model(*args, **kwargs)
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from typing import List, Optional

#: the measured packages: their catalogue modules, what ``--follow-imports`` gets, and what the
#: measuring fork server imports before forking (default: the ``follow`` modules); ``beside``: modules
#: whose presence changes what the followed code does (diffusers calls into peft when it is installed,
#: ``USE_PEFT_BACKEND``): the truth was measured with them installed, so scoring needs them too
PACKAGES = {
    "transformers": {"catalog": "transformers_", "follow": ["transformers"], "sample": 100,
                     "preload": ["transformers", "transformers.modeling_utils"]},
    # the last 4.x line, which most users still run: its own environment (``run.py env``), the same
    # catalogue (its families are read from the installed version)
    "transformers-4": {"catalog": "transformers_", "follow": ["transformers"], "dist": "transformers",
                       "venv": ["transformers==4.57.6", "huggingface_hub<1.0"], "same_as": "transformers",
                       "sample": 64,
                       "preload": ["transformers", "transformers.modeling_utils"]},
    "diffusers": {"catalog": "diffusers_", "follow": ["diffusers"], "beside": ["peft"],
                  "preload": ["diffusers", "diffusers.models.modeling_utils"]},
    "x-transformers": {"catalog": "x_transformers_", "follow": ["x_transformers"]},
    "torch-geometric": {"catalog": "torch_geometric_", "follow": ["torch_geometric"]},
    # packages added to judge on code nobody tuned on (issue: the wider harness)
    "local-attention": {"catalog": "local_attention_", "follow": ["local_attention"]},
    "perceiver-pytorch": {"catalog": "perceiver_pytorch_", "follow": ["perceiver_pytorch"]},
    "performer-pytorch": {"catalog": "performer_pytorch_", "follow": ["performer_pytorch"]},
    "st-moe-pytorch": {"catalog": "st_moe_pytorch_", "follow": ["st_moe_pytorch"]},
    "mixture-of-experts": {"catalog": "mixture_of_experts_", "follow": ["mixture_of_experts"]},
    "bs-roformer": {"catalog": "bs_roformer_", "follow": ["bs_roformer"]},
    "normflows": {"catalog": "normflows_", "follow": ["normflows"]},
    "torchsde": {"catalog": "torchsde_", "follow": ["torchsde"]},
    "torchdiffeq": {"catalog": "torchdiffeq_", "follow": ["torchdiffeq"]},
    "neuraloperator": {"catalog": "neuraloperator_", "follow": ["neuralop"]},
    "peft": {"catalog": "peft_", "follow": ["peft", "transformers"],
             "preload": ["transformers", "transformers.modeling_utils", "peft"]},
    "torchmetrics": {"catalog": "torchmetrics_", "follow": ["torchmetrics"]},
    "gpytorch": {"catalog": "gpytorch_", "follow": ["gpytorch", "linear_operator"]},
    "pyro-ppl": {"catalog": "pyro_ppl_", "follow": ["pyro"]},
}

#: where the environments of packages with a ``venv`` entry live (``run.py env`` makes them)
VENVS = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".venvs")


def python_for(package: str) -> str:
    """The interpreter that measures and checks ``package``: its own environment's (a venv over
    this one's site-packages, ``run.py env``) when it has a ``venv`` entry, else this one.
    Raises ``FileNotFoundError`` when that environment has not been made."""
    if not PACKAGES[package].get("venv"):
        return sys.executable
    exe = os.path.join(VENVS, package, "bin", "python")
    if not os.path.exists(exe):
        raise FileNotFoundError(f"no environment for {package}: run `python3 bench/ecosystem/run.py env "
                                f"--package {package}` first")
    return exe


def make_env(package: str) -> str:
    """Make ``package``'s environment: a venv that sees this interpreter's site-packages (torch,
    gblint) with the ``venv`` pins installed over them. Returns its interpreter."""
    folder = os.path.join(VENVS, package)
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", folder], check=True)
    exe = os.path.join(folder, "bin", "python")
    subprocess.run([exe, "-m", "pip", "install", "-q", "torch==2.13.0", *PACKAGES[package]["venv"]], check=True)
    return exe


def sample(package: str, names: List[str], full: bool = False) -> List[str]:
    """The models of ``names`` that a score run checks: all of them, or for a package with a
    ``sample`` entry (and not ``full``) that many, the first by a stable hash of the name (the same
    order ``run.py measure`` uses), so that a run fits the time it is given and stays comparable."""
    size = PACKAGES[package].get("sample")
    if full or not size or len(names) <= size:
        return list(names)
    return sorted(sorted(names, key=lambda n: hashlib.sha1(n.encode()).hexdigest())[:size])


def half(package: str, name: str) -> str:
    """``"dev"`` or ``"test"``: the half of the harness a model falls into, by a stable hash of
    ``package/name``. Work is tuned on ``dev``; ``test`` is scored beside it and its per-item
    lists are not read while working, so that fitting shows as a gain on ``dev`` alone. Another
    line of a package (``same_as``: Transformers 4.x beside 5.x) splits as that package does, so
    that a model's family is in one half in both lines."""
    package = PACKAGES.get(package, {}).get("same_as", package)
    return "dev" if hashlib.sha256(f"{package}/{name}".encode()).digest()[0] % 2 == 0 else "test"


COMPILE_LINES = "model = torch.compile(model)\nout = model(*args, **kwargs)\n"


def driver_file(name: str) -> str:
    """The file name of model ``name``'s driver: ``drv_`` and the name with non-word characters as ``_``."""
    import re
    return "drv_" + re.sub(r"\W", "_", name) + ".py"


def driver(setup_source: str) -> str:
    """The driver file for a model: its setup source, then compile and call, as users write it.
    ``setup_source``: the text ``setup(name)`` returned. Returns Python source."""
    text = setup_source.rstrip("\n") + "\n"
    if "import torch\n" not in text:
        text = "import torch\n" + text
    return text + COMPILE_LINES


def deep_imports(setup_source: str, package: str, root: str) -> str:
    """``setup_source`` with each ``from PACKAGE import A, B`` line (``package``: the top-level
    module, such as ``transformers``) rewritten to import every name from the module that defines
    it (``from transformers.models.albert.modeling_albert import AlbertModel``), found by the
    ``class``/``def`` statement in the sources under ``root`` (the package's folder), without
    importing the package. The driver written this way is what a package's lazy top level must
    resolve to. Raises ``LookupError`` for a name defined nowhere, or in more than one module."""
    import re
    defined = {}
    for folder, _, files in os.walk(root):
        for name in files:
            # never imported: diffusers' placeholders for a missing backend (utils/dummy_pt_objects.py),
            # transformers' inputs to its code generator (models/*/modular_*.py)
            if not name.endswith(".py") or name.startswith(("dummy_", "modular_")):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            rel = os.path.relpath(path, os.path.dirname(root))[:-3].replace(os.sep, ".")
            module = rel[: -len(".__init__")] if rel.endswith(".__init__") else rel
            for m in re.finditer(r"^(?:class|def) (\w+)\b", text, re.M):
                defined.setdefault(m.group(1), set()).add(module)
    out = []
    for line in setup_source.splitlines():
        m = re.match(rf"from {re.escape(package)} import (.+)$", line)
        if not m:
            out.append(line)
            continue
        for name in (n.strip() for n in m.group(1).split(",")):
            modules = defined.get(name, set())
            if len(modules) != 1:
                raise LookupError(f"{name}: defined in {sorted(modules) or 'no module'} of {package}")
            out.append(f"from {modules.pop()} import {name}")
    return "\n".join(out) + "\n"


def catalog(package: str):
    """The catalogue module of ``package`` (a key of :data:`PACKAGES`). Raises ``KeyError``."""
    import importlib
    return importlib.import_module(f"catalog.{PACKAGES[package]['catalog']}")


def site_relative(path: Optional[str], driver: str) -> Optional[str]:
    """``path`` as the truth writes it: relative to the site-packages folder that holds it
    (whichever environment measured or checked it), ``"<driver>"`` for the driver file at
    ``driver``, else None."""
    if not path:
        return None
    real = os.path.realpath(path)
    if real == os.path.realpath(driver):
        return "<driver>"
    for marker in ("/site-packages/", "/dist-packages/"):
        if marker in real:
            return real.rsplit(marker, 1)[1]
    return None


def frame_name(name: Optional[str]) -> str:
    """``Class.method`` -> ``method``; a Dynamo resume function counts as the function it
    resumes (``torch_dynamo_resume_in_forward_at_12`` -> ``forward``)."""
    from gblint.runtime_check.observer import resume_target
    return resume_target((name or "").split(".")[-1])[0]


def literal(value) -> str:
    """``repr`` for the JSON-like values configs take (dicts, lists, numbers, strings, None)."""
    return repr(value)


__all__: List[str] = ["PACKAGES", "python_for", "make_env", "half", "sample", "VENVS", "driver", "deep_imports", "catalog", "literal", "site_relative", "frame_name",
                      "COMPILE_LINES"]
