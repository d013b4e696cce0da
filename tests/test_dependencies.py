"""Packages a followed package calls into: Dynamo inlines every installed package it does not
skip (``torch/_dynamo/trace_rules.py``: ``THIRDPARTY_SKIPLIST``, the standard library), so
``--follow-imports PKG`` follows the packages PKG's own files import too, on first use; and
functions that call themselves with new values at every level stay cheap to analyse."""
import json
import os
import textwrap

from .conftest import run_cli

LIB = textwrap.dedent("""\
    import torch
    from {dep}.ops import shuffle

    class Block(torch.nn.Module):
        def forward(self, x):
            return shuffle(x) + 1
    """)
DEP = textwrap.dedent("""\
    def shuffle(x):
        print("shuffling")
        return x.flip(0)
    """)
USER = textwrap.dedent("""\
    import torch
    from fancylib import Block

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Block()

        def forward(self, x):
            return self.block(x) * 2

    compiled = torch.compile(Model())
    """)


def _install(site, dep):
    (site / "fancylib").mkdir()
    (site / "fancylib" / "__init__.py").write_text(LIB.format(dep=dep))
    (site / dep).mkdir()
    (site / dep / "__init__.py").write_text("")
    (site / dep / "ops.py").write_text(DEP)
    user = site.parent / "user.py"
    user.write_text(USER)
    return user


def _check(user, *extra):
    proc = run_cli("check", "--no-cache", "--format", "json", "--follow-imports", "fancylib", *extra, str(user))
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def test_a_package_the_followed_one_imports_is_followed_too(site_dir):
    user = _install(site_dir, "shufflekit")
    doc = _check(user)
    inside = [d for d in doc["diagnostics"] if d["path"].endswith(os.path.join("shufflekit", "ops.py"))]
    assert [(d["code"], d["line"], d["effect"]) for d in inside] == [("GBL301", 2, "break")], doc["diagnostics"]
    functions = {(os.path.basename(f["path"]), f["function"]) for f in doc["coverage"]["functions"]}
    assert ("ops.py", "shuffle") in functions


def test_a_package_dynamo_skips_is_not_followed(site_dir):
    user = _install(site_dir, "tabulate")  # in THIRDPARTY_SKIPLIST: Dynamo calls it, never traces it
    doc = _check(user)
    assert not [d for d in doc["diagnostics"] if d["path"].endswith("ops.py")], doc["diagnostics"]
    functions = {f["function"] for f in doc["coverage"]["functions"]}
    assert "shuffle" not in functions and "Block.forward" in functions


def test_only_the_followed_packages_imports_are_followed(site_dir):
    """The checked file itself importing an installed package does not follow it (that takes
    ``--follow-imports``): the call is listed as not followed."""
    user = _install(site_dir, "shufflekit")
    user.write_text(textwrap.dedent("""\
        import torch
        from shufflekit.ops import shuffle

        @torch.compile
        def f(x):
            return shuffle(x) + 1
        """))
    doc = run_cli("check", "--no-cache", "--format", "json", str(user))
    doc = json.loads(doc.stdout)
    assert not [d for d in doc["diagnostics"] if d["path"].endswith("ops.py")]
    assert any("shuffle" in u.get("call", "") for u in doc["coverage"]["unfollowed"]), doc["coverage"]


def test_module_level_getattr_in_a_compiled_file_is_no_internal_error(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(textwrap.dedent("""\
        import copy as _copy
        import torch
        _dispatch = getattr(_copy, "_deepcopy_dispatch", None)

        @torch.compile
        def f(x):
            print("x")
            return x + 1
        """))
    doc = json.loads(run_cli("check", "--no-cache", "--format", "json", str(path)).stdout)
    assert [d["code"] for d in doc["diagnostics"]] == ["GBL107"], doc["diagnostics"]


def test_recursion_with_new_values_at_each_level_is_reported_once_per_site(tmp_path):
    """A recursive freezer over nested containers (each level's argument is an element of the
    last one's, a new value): its results are evaluated, and each level compiled as its own frame
    once a break skips it, to a bounded depth (``invoke._MAX_RECURSION``,
    ``consequences._MAX_FRAME_RECURSION``); the break is still reported where it is."""
    path = tmp_path / "freeze.py"
    path.write_text(textwrap.dedent("""\
        import torch

        def freeze(x):
            if isinstance(x, list):
                return tuple(freeze(y) for y in x)
            elif isinstance(x, dict):
                return {k: freeze(v) for k, v in x.items()}
            elif isinstance(x, set):
                return frozenset(freeze(y) for y in x)
            elif isinstance(x, torch.Tensor):
                return freeze(x.tolist())
            return x

        def frozen(fn):
            def inner(*args, **kwargs):
                args = [freeze(a) for a in args]
                kwargs = {k: freeze(v) for k, v in kwargs.items()}
                return fn(*args, **kwargs)
            return inner

        @frozen
        def op(*shapes):
            return len(shapes)

        @torch.compile
        def f(x, spec):
            return x * op(spec, x)
        """))
    doc = json.loads(run_cli("check", "--no-cache", "--format", "json", str(path)).stdout)
    assert not [d for d in doc["diagnostics"] if d["code"] == "GBL000"], doc["diagnostics"]
    assert any(d["line"] == 11 and d["code"] in ("GBL206", "GBL301", "GBL104") for d in doc["diagnostics"]), \
        doc["diagnostics"]
