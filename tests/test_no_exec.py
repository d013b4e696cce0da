"""Static mode never runs the code it checks, and never imports torch.

Every file here would leave a marker file behind, or end the process, if anything imported it.
``gblint check`` runs in a subprocess whose working directory is the checked folder (so the
folder is on ``sys.path`` of ``python -m gblint``), which is where an accidental import would
find these modules.
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from .conftest import CASES, ROOT


def _evil(marker: str, name: str) -> str:
    return textwrap.dedent(f"""\
        import torch
        open({os.path.join(marker, name)!r}, "w").write("imported")
        raise SystemExit(3)

        @torch.compile
        def f(x):
            print(x)
            return x
        """)


@pytest.fixture
def evil_tree(tmp_path):
    """A project whose every module writes ``<markers>/<module>`` when imported."""
    markers = tmp_path / "markers"
    markers.mkdir()
    project = tmp_path / "project"
    (project / "evilpkg" / "sub").mkdir(parents=True)
    m = str(markers)
    for rel in ("evil.py", "sitecustomize.py", "usercustomize.py", "conftest.py", "setup.py", "__init__.py",
                "torch.py", "numpy.py", "evilpkg/__init__.py", "evilpkg/sub/__init__.py", "evilpkg/sub/mod.py"):
        (project / rel).write_text(_evil(m, rel.replace("/", "_")))
    (project / "main.py").write_text(textwrap.dedent("""\
        import evil
        import torch
        from evilpkg.sub import mod

        @torch.compile
        def g(x):
            evil.f(x)
            mod.f(x)
            return x.item()
        """))
    return project, markers


def _gblint(project, *args):
    # ``python -m`` puts the working directory first on sys.path: an import of ``torch``, ``evil`` or
    # ``evilpkg`` by gblint would load the project's module. The project is kept off PYTHONPATH:
    # there its sitecustomize.py would run at interpreter start, before gblint.
    env = dict(os.environ)
    env.pop("PYTHONSTARTUP", None)
    keep = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and os.path.abspath(p) != str(project)
            and p != "."]
    env["PYTHONPATH"] = os.pathsep.join(keep)
    return subprocess.run([sys.executable, "-m", "gblint", "check", "--isolated", "--no-cache", "--format", "json",
                           *args, "."], cwd=project, env=env, capture_output=True, text=True, timeout=300)


def test_checking_never_imports_the_checked_code(evil_tree):
    project, markers = evil_tree
    proc = _gblint(project)
    assert os.listdir(markers) == []
    assert proc.returncode == 1, proc.stderr  # diagnostics; not 3 (SystemExit of an imported module)
    data = json.loads(proc.stdout)
    assert data["errors"] == [] and data["diagnostics"]
    assert {os.path.basename(d["path"]) for d in data["diagnostics"]} >= {"main.py", "evil.py"}


def test_follow_imports_and_entry_points_never_import(evil_tree):
    project, markers = evil_tree
    proc = _gblint(project, "--follow-imports", "evilpkg", "--follow-imports", "evilpkg.sub",
                   "--entry", "evil:f", "--entry", "evilpkg.sub.mod:f")
    assert os.listdir(markers) == []
    assert proc.returncode in (0, 1, 2), proc.stderr
    assert "Traceback" not in proc.stderr


def test_torch_is_never_imported():
    paths = [p for p in (CASES, os.path.join(ROOT, "examples")) if os.path.isdir(p)]
    script = textwrap.dedent(f"""\
        import sys
        from gblint.settings.config import Settings
        from gblint.project.engine import check_paths
        report = check_paths({paths!r}, Settings(jobs=1))
        assert report.files_checked > 0 and report.diagnostics
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "numpy", "triton"))
        print(",".join(loaded))
        """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""
