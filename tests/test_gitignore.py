"""Every ``.gitignore`` in the tree, read as git reads it, while the files to check are found."""
import os
import subprocess

import pytest

from gblint.settings.config import Settings
from gblint.project.engine import iter_python_files

from .conftest import write_tree


def tree(root, files):
    """Write ``files`` ({relative path: text}) under ``root``; returns root as a str."""
    return str(write_tree(root, files))


def found(root, *, respect=True, start=None):
    """The .py files gblint checks under ``start`` (default ``root``), relative to ``root``."""
    files = iter_python_files([str(start or root)], Settings(respect_gitignore=respect))
    return sorted(os.path.relpath(p, root).replace(os.sep, "/") for p in files)


def git_ignored(root, paths):
    """The ``paths`` git itself ignores (``git check-ignore``), to compare against."""
    proc = subprocess.run(["git", "check-ignore", "--no-index", *paths], cwd=root, capture_output=True, text=True)
    return sorted(proc.stdout.split())


def test_a_nested_gitignore_applies_to_its_own_folder_only(tmp_path):
    (tmp_path / ".git").mkdir()
    root = tree(tmp_path, {"gen.py": "", "sub/gen.py": "", "sub/deep/gen.py": "", "sub/ok.py": "",
                           "sub/.gitignore": "gen.py\n"})
    assert found(root) == ["gen.py", "sub/ok.py"]
    assert found(root, respect=False) == ["gen.py", "sub/deep/gen.py", "sub/gen.py", "sub/ok.py"]


def test_a_nested_gitignore_ignores_a_subfolder(tmp_path):
    (tmp_path / ".git").mkdir()
    root = tree(tmp_path, {"a/out/x.py": "", "a/y.py": "", "out/z.py": "", "a/.gitignore": "/out/\n"})
    assert found(root) == ["a/y.py", "out/z.py"]


def test_a_negation_in_a_deeper_file_re_includes(tmp_path):
    (tmp_path / ".git").mkdir()
    root = tree(tmp_path, {".gitignore": "*_gen.py\n", "keep_gen.py": "", "sub/keep_gen.py": "",
                           "sub/other_gen.py": "", "sub/.gitignore": "!keep_gen.py\n"})
    assert found(root) == ["sub/keep_gen.py"]


def test_a_deeper_file_wins_over_a_shallower_one_both_ways(tmp_path):
    (tmp_path / ".git").mkdir()
    root = tree(tmp_path, {".gitignore": "!a.py\nb.py\n", "sub/.gitignore": "a.py\n!b.py\n",
                           "a.py": "", "b.py": "", "sub/a.py": "", "sub/b.py": ""})
    assert found(root) == ["a.py", "sub/b.py"]


def test_nothing_under_an_ignored_folder_is_re_included(tmp_path):
    (tmp_path / ".git").mkdir()
    root = tree(tmp_path, {".gitignore": "build/\n", "build/.gitignore": "!x.py\n", "build/x.py": "",
                           "src/x.py": ""})
    assert found(root) == ["src/x.py"]


def test_the_files_above_the_walked_folder_apply_up_to_the_repository(tmp_path):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    tree(tmp_path, {".gitignore": "*.py\n"})  # outside the repository: not git's business
    root = tree(tmp_path / "repo", {".gitignore": "src/gen/\n*_pb2.py\n", "src/gen/x.py": "",
                                    "src/m_pb2.py": "", "src/m.py": ""})
    assert found(root, start=os.path.join(root, "src")) == ["src/m.py"]


def test_a_folder_named_explicitly_is_walked_even_when_ignored(tmp_path):
    (tmp_path / ".git").mkdir()
    root = tree(tmp_path, {".gitignore": "gen/\n", "gen/x.py": "", "gen/.gitignore": "y.py\n", "gen/y.py": ""})
    assert found(root) == []
    assert found(root, start=os.path.join(root, "gen")) == ["gen/x.py"]


def test_outside_a_repository_the_tree_s_own_files_still_apply(tmp_path):
    root = tree(tmp_path, {".gitignore": "gen/\n", "gen/x.py": "", "sub/.gitignore": "y.py\n", "sub/y.py": "",
                           "z.py": ""})
    assert found(root) == ["z.py"]


def test_matches_git_check_ignore(tmp_path):
    if subprocess.run(["git", "--version"], capture_output=True).returncode != 0:
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    files = {".gitignore": "*.gen.py\n/top.py\nlogs/\n!keep.gen.py\n", "top.py": "", "a/top.py": "",
             "a.gen.py": "", "a/keep.gen.py": "", "a/b.gen.py": "", "a/.gitignore": "!b.gen.py\nc*.py\n",
             "a/c1.py": "", "a/d/c2.py": "", "a/d/.gitignore": "!c2.py\n", "logs/x.py": "", "ok.py": ""}
    root = tree(tmp_path, files)
    every = sorted(p for p in files if p.endswith(".py"))
    assert found(root) == sorted(set(every) - set(git_ignored(root, every)))
