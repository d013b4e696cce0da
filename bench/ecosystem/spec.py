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

import os
from typing import List, Optional

#: the measured packages: their catalogue modules, what ``--follow-imports`` gets, and what the
#: measuring fork server imports before forking (default: the ``follow`` modules)
PACKAGES = {
    "transformers": {"catalog": "transformers_", "follow": ["transformers"],
                     "preload": ["transformers", "transformers.modeling_utils"]},
    "diffusers": {"catalog": "diffusers_", "follow": ["diffusers"],
                  "preload": ["diffusers", "diffusers.models.modeling_utils"]},
    "x-transformers": {"catalog": "x_transformers_", "follow": ["x_transformers"]},
    "torch-geometric": {"catalog": "torch_geometric_", "follow": ["torch_geometric"]},
}

COMPILE_LINES = "model = torch.compile(model)\nout = model(*args, **kwargs)\n"


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


__all__: List[str] = ["PACKAGES", "driver", "deep_imports", "catalog", "literal", "site_relative", "frame_name",
                      "COMPILE_LINES"]
