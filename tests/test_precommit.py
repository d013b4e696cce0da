"""pre-commit: the hooks this repository publishes, and a local hook run by pre-commit itself."""
import os
import shlex
import shutil
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("pre_commit")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

LOOP_BREAK = textwrap.dedent("""\
    import torch


    @torch.compile
    def refine(x):
        for step in range(3):
            x = x * 0.9 + step
            torch._dynamo.graph_break()
        return x
    """)
CLEAN = textwrap.dedent("""\
    import torch


    @torch.compile
    def refine(x):
        for step in range(3):
            x = x * 0.9 + step
        return x
    """)


def test_hooks_manifest_is_valid():
    from pre_commit.clientlib import load_manifest
    hooks = {h["id"]: h for h in load_manifest(os.path.join(ROOT, ".pre-commit-hooks.yaml"))}
    assert set(hooks) == {"gblint", "gblint-fix"}
    assert hooks["gblint"]["entry"] == "gblint check"
    assert hooks["gblint-fix"]["entry"] == "gblint fix"
    for h in hooks.values():
        assert h["language"] == "python"
        assert h["require_serial"] is False
        assert h["pass_filenames"] is True
    assert hooks["gblint-fix"]["types"] == ["python"]


def _git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=_env(repo))


def _env(repo):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(PRE_COMMIT_HOME=str(repo.parent / "pre-commit-home"), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t", NO_COLOR="1")
    return env


def _pre_commit(repo, *args):
    return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--color", "never", *args], cwd=repo,
                          capture_output=True, text=True, env=_env(repo), timeout=120)


@pytest.fixture
def repo(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    # `language: system` with this interpreter: works wherever gblint is installed (.venv, .venv-ci)
    entry = f"{shlex.quote(sys.executable)} -m gblint check"
    (repo / ".pre-commit-config.yaml").write_text(textwrap.dedent(f"""\
        repos:
          - repo: local
            hooks:
              - id: gblint
                name: gblint
                entry: {entry}
                language: system
                types_or: [python, pyi]
                require_serial: false
        """))
    (repo / "notes.txt").write_text("not python\n")
    return repo


def test_pre_commit_fails_on_break_in_loop_and_passes_when_clean(repo):
    (repo / "model.py").write_text(LOOP_BREAK)
    _git(repo, "add", "-A")
    failed = _pre_commit(repo, "--all-files")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "GBL201" in failed.stdout
    assert "model.py:8:9" in failed.stdout

    (repo / "model.py").write_text(CLEAN)
    _git(repo, "add", "-A")
    passed = _pre_commit(repo, "--all-files")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout


def test_pre_commit_without_python_files_skips(repo):
    # pre-commit does not call the hook at all, so `gblint check` never falls back to "."
    (repo / "model.py").write_text(LOOP_BREAK)
    _git(repo, "add", "-A")
    result = _pre_commit(repo, "--files", "notes.txt")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Skipped" in result.stdout


def _copy_checkout(dest):
    """The working tree (committed or not) as a fresh git repository pre-commit can install."""
    skip = {".git", ".gblint_cache", ".pytest_cache", ".hypothesis", "build", "dist", "bench", "tests", "docs",
            "examples"}

    def ignore(directory, names):
        top = os.path.abspath(directory) == ROOT
        return [n for n in names if n == "__pycache__" or n.endswith(".egg-info")
                or (top and (n in skip or n.startswith(".venv")))]

    shutil.copytree(ROOT, dest, ignore=ignore)
    _git(dest, "init", "-q")
    _git(dest, "add", "-A")
    _git(dest, "commit", "-q", "-m", "snapshot")
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=dest, capture_output=True, text=True,
                          check=True, env=_env(dest)).stdout.strip()


@pytest.mark.slow
def test_published_hook_installs_and_runs(repo, tmp_path):
    """This repository's own `gblint` hook (`language: python`): pre-commit pip-installs the
    checkout into its environment (needs the package index) and runs `gblint check`."""
    checkout = tmp_path / "checkout"
    rev = _copy_checkout(checkout)
    (repo / ".pre-commit-config.yaml").write_text(textwrap.dedent(f"""\
        repos:
          - repo: {checkout}
            rev: {rev}
            hooks:
              - id: gblint
        """))
    (repo / "model.py").write_text(LOOP_BREAK)
    _git(repo, "add", "-A")
    failed = _pre_commit(repo, "--all-files")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "model.py:8:9: GBL201" in failed.stdout
    (repo / "model.py").write_text(CLEAN)
    _git(repo, "add", "-A")
    passed = _pre_commit(repo, "--all-files")
    assert passed.returncode == 0, passed.stdout + passed.stderr


# moving the `try` into a helper adds a skipped frame (measured: tests/test_fix_runtime.py, case 047)
HELPER_IN_TRY = textwrap.dedent("""\
    import torch


    def risky(x):
        x = x + 1
        torch._dynamo.graph_break()
        return x + 1


    @torch.compile
    def careful(x):
        x = x.sin()
        x = x.cos()
        try:
            x = risky(x)
        except ValueError:
            pass
        return x
    """)


def test_fix_hook_applies_no_fix_predicted_to_gain_nothing(repo):
    """The published `gblint-fix` hook's entry, run by pre-commit (this interpreter's gblint): the
    rewrite that gains nothing is never applied; one that gains (unrolling a skipped loop) is."""
    from pre_commit.clientlib import load_manifest
    hooks = {h["id"]: h for h in load_manifest(os.path.join(ROOT, ".pre-commit-hooks.yaml"))}
    program, *args = shlex.split(hooks["gblint-fix"]["entry"])
    assert program == "gblint"
    entry = " ".join([shlex.quote(sys.executable), "-m", "gblint", *args])
    (repo / ".pre-commit-config.yaml").write_text(textwrap.dedent(f"""\
        repos:
          - repo: local
            hooks:
              - id: gblint-fix
                name: gblint fix
                entry: {entry}
                language: system
                types: [python]
        """))
    (repo / "careful.py").write_text(HELPER_IN_TRY)
    _git(repo, "add", "-A")
    result = _pre_commit(repo, "--all-files")
    assert result.returncode == 1, result.stdout + result.stderr  # the diagnostic is left
    assert (repo / "careful.py").read_text() == HELPER_IN_TRY
    assert "files were modified by this hook" not in result.stdout
    assert "Applied 0 fixes in 0 files." in result.stdout
    (repo / "model.py").write_text(LOOP_BREAK)
    _git(repo, "add", "-A")
    result = _pre_commit(repo, "--all-files")
    assert "files were modified by this hook" in result.stdout, result.stdout
    assert (repo / "model.py").read_text() != LOOP_BREAK and (repo / "careful.py").read_text() == HELPER_IN_TRY
