"""Reach: the compiled regions and callees of code written the way real drivers write it.

- ``model = Net(cfg)`` then ``model = torch.compile(model)`` at module level: the region is
  ``Net.forward`` (the name's binding at that statement, not its last one);
- ``from pkg import Net`` where ``pkg`` is a lazy package (transformers, diffusers) that
  declares its names with ``from .models import *`` under ``if TYPE_CHECKING:``, chained
  through packages down to the defining module, checked or followed (``--follow-imports``).
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest


NET = textwrap.dedent("""\
    import torch


    class Net(torch.nn.Module):
        def forward(self, x):
            print(x)
            return x
    """)


def regions(doc):
    return sorted(r["function"] for r in doc["coverage"]["regions"])


def check_json(cwd, *args, env=None):
    import subprocess
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--isolated", "--no-cache", "--format", "json",
                           "--exit-zero", *args], cwd=cwd, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("driver", [
    "model = Net()\nmodel = torch.compile(model)\n",
    "model = Net()\nmodel = torch.compile(model, mode='reduce-overhead')\nout = model(torch.ones(2))\n",
    "model = Net()\nother = 1\ncompiled = torch.compile(model)\n",
    "if __name__ == '__main__':\n    model = Net()\n    model = torch.compile(model)\n",
])
def test_module_level_rebinding_compiles_the_instance(tmp_path, driver):
    (tmp_path / "net.py").write_text(NET)
    (tmp_path / "main.py").write_text("import torch\nfrom net import Net\n\n" + driver)
    doc = check_json(str(tmp_path), "main.py", "net.py")
    assert regions(doc) == ["Net.forward"]
    assert [(os.path.basename(d["path"]), d["line"], d["code"]) for d in doc["diagnostics"]] == [
        ("net.py", 6, "GBL107")]


def test_a_name_rebound_to_something_else_first_is_not_the_instance(tmp_path):
    (tmp_path / "net.py").write_text(NET)
    (tmp_path / "main.py").write_text("import torch\nfrom net import Net\n\nmodel = Net()\nmodel = 3\n"
                                      "model = torch.compile(model)\n")
    assert regions(check_json(str(tmp_path), "main.py", "net.py")) == []


def lazy_package(root):
    """``lazypkg``: names declared under TYPE_CHECKING through two levels of star imports, as
    transformers does, and made lazily at run time."""
    pkg = root / "lazypkg"
    (pkg / "models" / "tiny").mkdir(parents=True)
    (pkg / "__init__.py").write_text(textwrap.dedent("""\
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from .models import *
        else:
            import sys
            sys.modules[__name__] = object()  # a _LazyModule in real packages
        """))
    (pkg / "models" / "__init__.py").write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                                                "    from .other import *\n    from .tiny import *\n")
    (pkg / "models" / "other.py").write_text("__all__ = ['Other']\n\n\nclass Other:\n    pass\n")
    (pkg / "models" / "tiny" / "__init__.py").write_text("import typing\n\nif typing.TYPE_CHECKING:\n"
                                                         "    from .modeling_tiny import *\n")
    (pkg / "models" / "tiny" / "modeling_tiny.py").write_text(NET.replace("class Net", "class TinyModel")
                                                              + "\n\n__all__ = ['TinyModel']\n")
    return pkg


DRIVER = "import torch\nfrom lazypkg import TinyModel\n\nmodel = TinyModel()\nmodel = torch.compile(model)\n"


def test_a_lazy_package_resolves_through_type_checking_star_imports(tmp_path):
    lazy_package(tmp_path)
    (tmp_path / "main.py").write_text(DRIVER)
    doc = check_json(str(tmp_path), "main.py", "lazypkg")
    assert regions(doc) == ["TinyModel.forward"]
    assert [(os.path.basename(d["path"]), d["code"]) for d in doc["diagnostics"]] == [("modeling_tiny.py", "GBL107")]


def test_a_followed_lazy_package_resolves_the_same(tmp_path):
    site = tmp_path / "site"
    lazy_package(site)
    work = tmp_path / "work"
    work.mkdir()
    (work / "main.py").write_text(DRIVER)
    env = dict(os.environ, PYTHONPATH=str(site))
    doc = check_json(str(work), "--follow-imports", "lazypkg", "main.py", env=env)
    assert regions(doc) == ["TinyModel.forward"]
    assert [d["code"] for d in doc["diagnostics"]] == ["GBL107"]


LAZY_TAIL = ("else:\n    import sys\n    from ..utils import _LazyModule, define_import_structure\n\n"
             "    sys.modules[__name__] = _LazyModule(__name__, __file__, define_import_structure(__file__))\n")


def _newer(site, lazy=True, other=""):
    """``lazypkg`` with a model package its ``TYPE_CHECKING`` imports leave out (``models/newer``),
    as transformers 4.57 leaves out ernie4_5_moe, doge and ten others: at run time its lazy module
    finds ``NewerModel`` in the folder (``define_import_structure``)."""
    pkg = lazy_package(site)
    (pkg / "models" / "newer").mkdir()
    lazy_tail = LAZY_TAIL
    (pkg / "models" / "__init__.py").write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                                                "    from .other import *\n    from .tiny import *\n"
                                                + (lazy_tail if lazy else ""))
    (pkg / "models" / "newer" / "__init__.py").write_text("import typing\n\nif typing.TYPE_CHECKING:\n"
                                                          "    from .modeling_newer import *\n")
    (pkg / "models" / "newer" / "modeling_newer.py").write_text(NET.replace("class Net", "class NewerModel")
                                                                + "\n\n__all__ = ['NewerModel']\n")
    if other:  # another module binds the name: exported too (two candidates), or not in its __all__
        (pkg / "models" / "other2.py").write_text("class NewerModel:\n    pass\n\n\n__all__ = ['Other2'"
                                                  + (", 'NewerModel']\n" if other == "exported" else "]\n"))


@pytest.mark.parametrize("lazy,other,found", [(True, "", True), (False, "", False), (True, "exported", False),
                                              (True, "bound", True)])
def test_a_lazy_package_finds_a_name_its_type_checking_imports_leave_out(tmp_path, lazy, other, found):
    """A followed package that replaces itself in ``sys.modules`` has the names its submodules export
    (``__all__``): the one submodule that exports ``NewerModel`` is where it is found. Not in a
    package that does not replace itself (Python raises ImportError), nor where two submodules
    export it (not decided); a module that binds it without exporting it is no candidate."""
    site = tmp_path / "site"
    _newer(site, lazy=lazy, other=other)
    work = tmp_path / "work"
    work.mkdir()
    (work / "main.py").write_text(DRIVER.replace("TinyModel", "NewerModel"))
    env = dict(os.environ, PYTHONPATH=str(site))
    doc = check_json(str(work), "--follow-imports", "lazypkg", "main.py", env=env)
    if found:
        assert regions(doc) == ["NewerModel.forward"]
        assert [(os.path.basename(d["path"]), d["code"]) for d in doc["diagnostics"]] == [
            ("modeling_newer.py", "GBL107")]
    else:
        assert regions(doc) == []
        assert [(d["code"], "was not found in the source read" in d["message"]) for d in doc["diagnostics"]] == [
            ("GBL003", True)]


BAD = NET  # forward prints: a break
GOOD = NET.replace("print(x)\n        ", "")


def _lzp(site, init, files):
    pkg = site / "lzp"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(init)
    for name, text in files.items():
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_text(text)
    work = site.parent / "work"
    work.mkdir()
    (work / "main.py").write_text("import torch\nfrom lzp import Net\n\nmodel = Net()\nmodel = torch.compile(model)\n")
    return check_json(str(work), "--follow-imports", "lzp", "main.py", env=dict(os.environ, PYTHONPATH=str(site)))


LZP_INIT = ("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    pass\n"
            + LAZY_TAIL.replace("..utils", ".utils"))
LZP_UTILS = "def define_import_structure(path):\n    return {}\n\n\nclass _LazyModule:\n    pass\n"


@pytest.mark.parametrize("files,found", [
    # the last __all__ is the one transformers reads; an annotated one counts
    ({"a.py": BAD + "__all__ = ['Net']\n__all__ = ['Helper']\n", "b.py": BAD + "__all__: list = ['Net']\n"},
     "b.py"),
    # modular_ and convert_ files are not the package's (transformers skips them), nor is a sub-package's __init__
    ({"modular_net.py": BAD + "__all__ = ['Net']\n", "modeling_net.py": BAD + "__all__ = ['Net']\n"},
     "modeling_net.py"),
    ({"modular_net.py": BAD + "__all__ = ['Net']\n"}, None),
    ({"sub/__init__.py": GOOD + "__all__ = ['Net']\n", "sub/deep.py": BAD + "__all__ = ['Net']\n"}, "deep.py"),
    # `__all__` only in a comment or a string is no export
    ({"helpers.py": BAD + "__all__ = [\n    'Helper',\n    # 'Net',\n]\n"}, None),
    ({"helpers.py": BAD + "DOC = \"\"\"\n__all__ = ['Net']\n\"\"\"\n"}, None),
])
def test_a_lazy_package_reads_what_its_files_export_as_transformers_does(tmp_path, files, found):
    """A package made lazy by ``define_import_structure`` has the names its files list in their last
    ``__all__`` (transformers ``utils/import_utils.py``: ``create_import_structure_from_path``,
    ``fetch__all__``); ``__init__.py``, ``modular_*`` and ``convert_*`` files are not read."""
    doc = _lzp(tmp_path / "site", LZP_INIT, dict(files, **{"utils.py": LZP_UTILS}))
    if found:
        assert regions(doc) == ["Net.forward"]
        assert [(os.path.basename(d["path"]), d["code"]) for d in doc["diagnostics"]] == [(found, "GBL107")]
    else:
        assert regions(doc) == [] and [d["code"] for d in doc["diagnostics"]] == ["GBL003"]


@pytest.mark.parametrize("init", [
    '"""A lazy package:\n\nsys.modules[__name__] = _LazyModule(define_import_structure(__file__))\n"""\n',
    "import sys\n\n\ndef install():\n    sys.modules[__name__] = _LazyModule(define_import_structure(__file__))\n",
    "import sys\n_import_structure = {'modeling': ['Other']}\nsys.modules[__name__] = _LazyModule(_import_structure)\n",
])
def test_a_package_that_is_not_lazy_by_define_import_structure_keeps_its_names(tmp_path, init):
    """Only a module-level ``sys.modules[__name__] = ...define_import_structure(...)...`` makes the
    files' ``__all__`` the package's names: not one in a docstring or a function, nor a lazy module
    over a fixed table (older transformers and diffusers), where Python raises ImportError."""
    doc = _lzp(tmp_path / "site", init, {"modeling.py": BAD + "__all__ = ['Net']\n"})
    assert regions(doc) == [] and [d["code"] for d in doc["diagnostics"]] == ["GBL003"]


def test_an_exporter_importing_the_name_back_from_its_lazy_package_ends(tmp_path):
    """``lzp.Net`` -> its exporters -> ``from lzp import Net``: each (package, name) is read once on
    the way, so 15 such files end at once (before: 40 s, growing as the 4th power of their number)."""
    import time
    start = time.monotonic()
    init = "import sys\nsys.modules[__name__] = _LazyModule(define_import_structure(__file__))\n"
    doc = _lzp(tmp_path / "site", init,
               {f"m{i}.py": "from lzp import Net\n\n__all__ = ['Net']\n" for i in range(15)})
    assert time.monotonic() - start < 20
    assert regions(doc) == [] and [d["code"] for d in doc["diagnostics"]] == ["GBL003"]


def test_a_diffusers_style_package_resolves_through_conditional_imports(tmp_path):
    """``if TYPE_CHECKING or SLOW_IMPORT:`` around ``if is_torch_available():`` imports, and a
    subpackage whose names are bound only under ``if is_torch_available():``."""
    pkg = tmp_path / "dpkg"
    (pkg / "models" / "unets").mkdir(parents=True)
    (pkg / "__init__.py").write_text(textwrap.dedent("""\
        from typing import TYPE_CHECKING
        SLOW_IMPORT = False

        if TYPE_CHECKING or SLOW_IMPORT:
            try:
                if not available():
                    raise ImportError
            except ImportError:
                from .dummy import *
            else:
                from .models import UNet
        """))
    (pkg / "dummy.py").write_text("class UNet:\n    pass\n")
    (pkg / "models" / "__init__.py").write_text("from .unets import UNet\n")
    (pkg / "models" / "unets" / "__init__.py").write_text(
        "from ...utils import available\n\nif available():\n    from .unet import UNet\nelse:\n    UNet = None\n")
    (pkg / "models" / "unets" / "unet.py").write_text(NET.replace("class Net", "class UNet"))
    (tmp_path / "main.py").write_text("import torch\nfrom dpkg import UNet\n\nmodel = torch.compile(UNet())\n")
    doc = check_json(str(tmp_path), "main.py", "dpkg")
    assert regions(doc) == ["UNet.forward"]
    assert [(os.path.basename(d["path"]), d["code"]) for d in doc["diagnostics"]] == [("unet.py", "GBL107")]


@pytest.mark.parametrize("layout", ["flat", "package"])
def test_a_checked_file_alone_finds_the_module_it_imports(tmp_path, layout):
    """``gblint check main.py`` resolves ``from model import Net`` beside it (and ``from
    app.model import Net`` from a package), as mypy and pyright do: pre-commit on a changed
    caller still finds the break in the unchanged callee."""
    if layout == "flat":
        (tmp_path / "model.py").write_text(NET)
        (tmp_path / "main.py").write_text("import torch\nfrom model import Net\n\nnet = torch.compile(Net())\n")
        main, callee = "main.py", "model.py"
    else:
        app = tmp_path / "app"
        app.mkdir()
        (app / "__init__.py").write_text("")
        (app / "model.py").write_text(NET)
        (app / "main.py").write_text("import torch\nfrom app.model import Net\n\nnet = torch.compile(Net())\n")
        main, callee = os.path.join("app", "main.py"), "model.py"
    doc = check_json(str(tmp_path), main)
    assert [(os.path.basename(d["path"]), d["line"], d["code"]) for d in doc["diagnostics"]] == [(callee, 6, "GBL107")]


@pytest.mark.parametrize("driver", [
    "model = torch.compile(Net().eval())\n",
    "model = torch.compile(Net().to('cpu').half())\n",
    "model = Net().eval()\nmodel = torch.compile(model)\n",
    "model = Net()\nmodel = model.to('cpu')\nmodel = torch.compile(model)\n",
    "def main():\n    model = Net()\n    model = model.eval()\n    return torch.compile(model)\n",
])
def test_module_methods_that_return_the_module_keep_the_instance(tmp_path, driver):
    """``Net().eval()``, ``.to(...)``, ``.half()``... return the module itself
    (torch/nn/modules/module.py), so what is compiled is still ``Net``."""
    (tmp_path / "net.py").write_text(NET)
    (tmp_path / "main.py").write_text("import torch\nfrom net import Net\n\n" + driver)
    assert regions(check_json(str(tmp_path), "main.py", "net.py")) == ["Net.forward"]


def test_an_attribute_built_with_to_is_followed(tmp_path):
    (tmp_path / "net.py").write_text(NET)
    (tmp_path / "main.py").write_text(
        "import torch\nfrom net import Net\n\n\nclass Outer(torch.nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.inner = Net().to('cpu')\n\n    def forward(self, x):\n"
        "        return self.inner(x)\n\n\nmodel = torch.compile(Outer())\n")
    doc = check_json(str(tmp_path), "main.py", "net.py")
    assert sorted((os.path.basename(d["path"]), d["code"]) for d in doc["diagnostics"]) == [
        ("main.py", "GBL301"), ("net.py", "GBL301")]  # the site, and the compiled frame's call into net.py


def test_a_compile_call_that_resolves_to_nothing_is_named(tmp_path):
    """An unresolved compile call is a GBL003 note (text, JSON), never a silent "All checks passed"."""
    (tmp_path / "main.py").write_text("import torch\nfrom somepkg import Model\n\nmodel = torch.compile(Model())\n")
    doc = check_json(str(tmp_path), "main.py")
    notes = [d for d in doc["diagnostics"] if d["code"] == "GBL003"]
    assert len(notes) == 1 and notes[0]["effect"] == "info" and notes[0]["line"] == 4
    assert "pass --follow-imports somepkg" in notes[0]["message"]
    import subprocess
    text = subprocess.run([sys.executable, "-m", "gblint", "check", "--isolated", "--no-cache", "main.py"],
                          cwd=str(tmp_path), capture_output=True, text=True)
    assert "GBL003" in text.stdout and "All checks passed" not in text.stdout
    (tmp_path / "somepkg.py").write_text(NET.replace("class Net", "class Model"))
    assert [d["code"] for d in check_json(str(tmp_path), "main.py")["diagnostics"]] == ["GBL107"]


def test_a_submodule_is_found_without_reading_the_star_imported_siblings(tmp_path, monkeypatch):
    """``pkg.auto`` where ``pkg/__init__.py`` star-imports many siblings that all mention the word
    `auto` (transformers' ``models/__init__.py`` and its ~400 model packages): the submodule is the
    attribute (importing it binds it on its package), so the siblings are never read. Reading them
    cost a transformers driver 900 modules, and what they change (``config.x = ...`` in a model
    nobody runs) made values undecided."""
    from gblint.settings.config import Settings
    from gblint.project.engine import Loader
    from gblint.dynamo.index import Project
    from gblint.abstract.interp import Module

    pkg = tmp_path / "site" / "starpkg"
    pkg.mkdir(parents=True)
    siblings = [f"m{i}" for i in range(30)]
    (pkg / "__init__.py").write_text("".join(f"from .{m} import *\n" for m in siblings))
    for m in siblings:
        (pkg / f"{m}.py").write_text(f"from .auto import helper\n\n\ndef {m}_helper():\n    return helper()\n")
    (pkg / "auto.py").write_text("def helper():\n    return 1\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    loader = Loader(Settings(follow_imports=["starpkg"]))
    project = Project([], loader)
    assert isinstance(project.interp.global_value("starpkg.auto"), Module)
    assert project.lookup("starpkg.auto.helper")[1] == "helper"
    assert project.lookup("starpkg.m7_helper")[0].module == "starpkg.m7"  # a star-imported name still resolves
    read = sorted(os.path.basename(p) for p in loader.followed_paths)
    assert read == ["__init__.py", "auto.py", "m7.py"]


GETATTR = textwrap.dedent("""\
    import torch
    import torch.nn as nn


    class Base(nn.Module):
        def __getattr__(self, name):
            if name == "{name}":
                print("looked up", name)
            return super().__getattr__(name)


    class Net(Base):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)
            self.scale = 2.0

        def forward(self, x):
            return self.lin(x) * self.scale
    """)


@pytest.mark.parametrize("name, breaks", [("lin", True), ("scale", False)])
def test_a_submodule_read_runs_the_modules_getattr(tmp_path, name, breaks):
    """``self.lin`` lives in ``_modules``, not in the instance's ``__dict__``, so reading it runs
    the class's ``__getattr__`` and Dynamo inlines it (diffusers' ``ModelMixin.__getattr__`` on every
    submodule read); a break there is met in the middle of an attribute read, which Dynamo cannot
    resume after, so ``forward`` is skipped (no graph), not split. ``self.scale``, a float, is found
    in ``__dict__`` and runs nothing."""
    source = GETATTR.format(name=name)
    (tmp_path / "m.py").write_text(source + '\ncompiled = torch.compile(Net(), backend="eager")\n')
    doc = check_json(str(tmp_path), "m.py")
    found = [(d["line"], d["code"], d["certainty"]) for d in doc["diagnostics"] if d["effect"] != "info"]
    assert found == ([(8, "GBL107", "definite")] if breaks else [])
    assert ("m.py", "Base.__getattr__") in {(os.path.basename(f["path"]), f["function"])
                                           for f in doc["coverage"]["functions"]}
    pytest.importorskip("torch")
    # in a fresh interpreter: Dynamo's state left by other tests of this worker must not decide the count
    (tmp_path / "m_run.py").write_text(source)
    run = subprocess.run([sys.executable, "-c", "import torch, m_run\nfrom torch._dynamo.utils import counters\n"
                          "torch.compile(m_run.Net(), backend='eager')(torch.ones(2))\n"
                          "print(counters['stats']['unique_graphs'])\n"],
                         cwd=str(tmp_path), capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert int(run.stdout.split()[-1]) == (0 if breaks else 1)  # 0: forward skipped


@pytest.mark.parametrize("driver", ["from spkg import act\n\n\ndef f(x):\n    return act(x) + 1\n",
                                    "import spkg\n\n\ndef f(x):\n    return spkg.act(x) + 1\n"])
def test_a_star_import_that_rebinds_a_submodules_name_wins(tmp_path, site_dir, driver):
    """``spkg/__init__.py`` is ``from .act import *`` and ``act.py`` defines ``act``: the star import
    runs after the submodule is bound, so ``spkg.act`` is the function (measured: Dynamo breaks on
    its ``print``), not the module."""
    (site_dir / "spkg").mkdir()
    (site_dir / "spkg" / "__init__.py").write_text("from .act import *\n")
    (site_dir / "spkg" / "act.py").write_text('def act(t):\n    print("act")\n    return t.relu()\n')
    (tmp_path / "main.py").write_text("import torch\n" + driver + '\n\ncompiled = torch.compile(f, backend="eager")\n')
    doc = check_json(str(tmp_path), "--follow-imports", "spkg", "main.py", env=dict(os.environ))
    assert sorted((os.path.basename(d["path"]), d["line"], d["code"]) for d in doc["diagnostics"]) == [
        ("act.py", 2, "GBL301"), ("main.py", 6, "GBL301")]
