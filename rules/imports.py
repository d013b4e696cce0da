"""``import`` statements inside compiled code that fail.

Dynamo runs an ``import`` it traces itself (``IMPORT_NAME`` in
``torch/_dynamo/symbolic_convert.py`` calls ``__import__``); a successful one costs nothing, a
failing one is GB0069 "Import failure". ``IMPORT_NAME`` is not an instruction Dynamo can resume
at, so the frame keeps the graph up to its last checkpoint and runs the rest eagerly, or is
skipped without one; the usual optional import (``try: from fast_kernels import f`` /
``except ImportError:``) skips the frame. semantics.md §8.5.
"""
from __future__ import annotations

import libcst as cst

from gblint.core.fs import module_findable
from gblint.core.model import BlockKind, Outcome
from gblint.core.names import dotted

from .base import Rule


GUARDS = (BlockKind.BRANCH, BlockKind.OPERAND, BlockKind.ERROR_PATH)


class ImportFailure(Rule):
    code = "GBL126"
    name = "failed-import"
    gb_ids = ("GB0069",)
    node_types = (cst.Import, cst.ImportFrom)
    summary = ("An `import` inside compiled code, not behind a test, of a module that is neither among the "
               "project's files nor installed where gblint runs (the usual `try: import fast_kernel` / "
               "`except ImportError:`). An import behind `if is_available():` is left to the test.")
    why = ("Dynamo runs the import itself and cannot resume after it fails (GB0069): the graph up to the last "
           "checkpoint is kept and the rest of the frame runs eagerly; inside `try`, or with no checkpoint, the "
           "whole frame is skipped.")
    hint = "Do the optional import once at module level and keep only the `if fused is None:` test in the region."
    source = "torch/_dynamo/symbolic_convert.py: IMPORT_NAME; semantics.md §8.5"
    use_instead = (
        'import torch\n'
        'try:\n'
        '    import not_installed_kernels_pkg\n'
        'except ImportError:\n'
        '    not_installed_kernels_pkg = None\n'
        '@torch.compile\n'
        'def f(x):\n'
        '    y = x.relu() * 2\n'
        '    return y if not_installed_kernels_pkg is None else not_installed_kernels_pkg.fused(y)\n'
    )
    measured = "tests/fixtures/measured/v45_import_in_traced_code.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    y = x.relu() * 2\n"
        "    import not_installed_kernels_pkg  # expect: GBL126\n"
        "    return not_installed_kernels_pkg.fused(y)\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    try:\n"
        "        from not_installed_kernels_pkg import fused  # expect: GBL202\n"
        "    except ImportError:\n"
        "        fused = None\n"
        "    return x * 2 if fused is None else fused(x)\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    import math\n"
        "    try:\n"
        "        from os import path\n"
        "    except ImportError:\n"
        "        path = None\n"
        "    return x * math.pi\n",
        "import torch\n"
        "def kernels_available():\n"
        "    return False\n"
        "@torch.compile\n"
        "def g(x):\n"
        "    if kernels_available():\n"
        "        import not_installed_kernels_pkg\n"
        "        return not_installed_kernels_pkg.fused(x)\n"
        "    return x * 2\n",
        "import torch\n"
        "try:\n"
        "    from not_installed_kernels_pkg import fused\n"
        "except ImportError:\n"
        "    fused = None\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return x * 2 if fused is None else fused(x)\n",
    )

    def check(self, node, ctx):
        if ctx.returned_in_branch or any(b.kind in GUARDS for b in ctx.blocks) or \
                any(ev.outcome == Outcome.RAISE for ev in ctx.pending):
            return None  # behind a test (`if not is_bnb_available(): raise ...`): the values decide, not the import
        if isinstance(node, cst.ImportFrom):
            if node.relative or node.module is None:
                return None  # a module of the project's own package
            names = [dotted(node.module) or ""]
        else:
            names = [dotted(alias.name) or "" for alias in node.names]
        summary = ctx.builder.summary
        for name in names:
            top = name.split(".")[0]
            if top and not module_findable(summary.path, top):
                summary.absent_modules.append(top)  # the cached summary holds only while it is absent
                return self.site(node, f"`import {name}`: no module `{top}` among the project's files or "
                                       "installed packages, so the import fails while Dynamo traces it",
                                 outcome="tail")
        return None
