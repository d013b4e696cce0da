"""Reports kept across runs (gblint.project.results): a second `gblint check` of unchanged code prints the
stored report, and any change to what the first run read (a checked file, a project module it
imported, a module it looked for and did not find, a followed package, the settings, the files
checked) makes the run analyse again.

Each test marks the stored reports (their first diagnostic's message becomes MARK): a run that
prints MARK was served from the store, one that does not analysed the code."""
import os
import textwrap

import msgpack

from gblint.project import results
from gblint.core.diagnostics import Diagnostic

from .conftest import run_cli

MARK = "MARKED-STORED-REPORT"

MAIN = textwrap.dedent("""\
    import torch
    from helper import step

    @torch.compile
    def f(x):
        for _ in range(3):
            x = step(x)
        return x
    """)
BREAKS = "import torch\n\ndef step(x):\n    torch._dynamo.graph_break()\n    return x * 2\n"
CLEAN = "import torch\n\ndef step(x):\n    return x * 2\n"


def mark(cache_dir) -> int:
    """Set MARK as the first diagnostic's message of every stored report; how many were marked."""
    folder = os.path.join(cache_dir, "results")
    message = results._fields(Diagnostic).index("message")
    count = 0
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        with open(path, "rb") as fh:
            entry = msgpack.unpackb(fh.read(), raw=False)
        diagnostics = entry["report"][0]
        assert diagnostics, "a stored report without diagnostics: nothing to mark"
        diagnostics[0][message] = MARK
        with open(path, "wb") as fh:
            fh.write(msgpack.packb(entry, use_bin_type=True))
        count += 1
    return count


def check(project, cache_dir, *extra, target=None):
    proc = run_cli("check", "--isolated", "--cache-dir", str(cache_dir), *extra, str(target or project),
                   cwd=str(project))
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout


def setup(tmp_path, helper=BREAKS):
    project = tmp_path / "proj"
    project.mkdir()
    (project / "main.py").write_text(MAIN)
    if helper is not None:
        (project / "helper.py").write_text(helper)
    cache = tmp_path / "cache"
    first = check(project, cache)
    assert mark(cache) == 1
    return project, cache, first


def test_unchanged_code_prints_the_stored_report(tmp_path):
    project, cache, first = setup(tmp_path)
    assert "GBL" in first and MARK not in first
    assert MARK in check(project, cache)
    assert MARK in check(project, cache, "--format", "github")  # the same report feeds the plain outputs
    assert MARK not in check(project, cache, "--format", "json")  # a report with coverage: its own entry


def test_no_cache_explain_and_another_output_analyse(tmp_path):
    project, cache, first = setup(tmp_path)
    assert MARK not in check(project, cache, "--no-cache")
    assert MARK not in check(project, cache, "--statistics")  # a report without fixes: its own entry
    explained = run_cli("check", "--isolated", "--cache-dir", str(cache), "--explain", "f", str(project / "main.py"),
                        cwd=str(project))
    assert MARK not in explained.stdout


def test_an_edited_checked_file_is_analysed_again(tmp_path):
    project, cache, first = setup(tmp_path)
    text = (project / "main.py").read_text()
    (project / "main.py").write_text(text.replace("range(3)", "range(4)"))  # same size, same mtime second
    again = check(project, cache)
    assert MARK not in again and "GBL" in again


def test_an_edited_imported_module_is_analysed_again(tmp_path):
    project, cache, first = setup(tmp_path)
    main = project / "main.py"  # checked alone: helper.py is found, not named
    check(project, cache, target=main)
    assert mark(cache) == 2
    assert MARK in check(project, cache, target=main)
    (project / "helper.py").write_text(CLEAN)
    after = check(project, cache, target=main)
    assert MARK not in after and "helper.py" not in after


def test_a_module_created_where_one_was_looked_for_is_analysed(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    (project / "main.py").write_text(MAIN.replace("from helper import step", "from helper import step\n"
                                                  "from extra import more") + "\n\n@torch.compile\ndef g(x):\n"
                                                                              "    return more(x)\n")
    (project / "helper.py").write_text(BREAKS)
    cache = tmp_path / "cache"
    check(project, cache, target=project / "main.py")
    assert mark(cache) == 1
    assert MARK in check(project, cache, target=project / "main.py")
    (project / "extra.py").write_text("import torch\n\ndef more(x):\n    torch._dynamo.graph_break()\n    return x\n")
    after = check(project, cache, target=project / "main.py")
    assert MARK not in after and "extra.py" in after


def test_an_edited_followed_package_is_analysed_again(tmp_path, site_dir):
    pkg = site_dir / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "ops.py").write_text(BREAKS)
    project = tmp_path / "proj"
    project.mkdir()
    (project / "main.py").write_text(MAIN.replace("from helper import step", "from mypkg.ops import step"))
    cache = tmp_path / "cache"
    first = check(project, cache, "--follow-imports", "mypkg")
    assert "ops.py" in first
    assert mark(cache) == 1
    assert MARK in check(project, cache, "--follow-imports", "mypkg")
    (pkg / "ops.py").write_text(CLEAN + "# no break now\n")
    after = check(project, cache, "--follow-imports", "mypkg")
    assert MARK not in after and "ops.py" not in after


def test_settings_and_the_files_checked_are_in_the_key(tmp_path):
    project, cache, first = setup(tmp_path)
    assert MARK not in check(project, cache, "--ignore", "GBL4")
    (project / "pyproject.toml").write_text("[tool.gblint]\nignore = [\"GBL4\"]\n")
    assert MARK not in run_cli("check", "--cache-dir", str(cache), str(project), cwd=str(project)).stdout
    os.remove(project / "pyproject.toml")
    (project / "other.py").write_text("x = 1\n")
    assert MARK not in check(project, cache)
    os.remove(project / "other.py")
    assert MARK in check(project, cache)  # back to the first run's files and settings
    (project / "__init__.py").write_text("")  # the modules' names change
    assert MARK not in check(project, cache)


def test_a_broken_entry_is_a_miss(tmp_path):
    project, cache, first = setup(tmp_path)
    folder = cache / "results"
    for name in os.listdir(folder):
        entry = msgpack.unpackb((folder / name).read_bytes(), raw=False)
        entry["report"][0][0] = ["not", "a", "diagnostic"]
        (folder / name).write_bytes(msgpack.packb(entry, use_bin_type=True))
    assert check(project, cache) == first
    for name in os.listdir(folder):
        (folder / name).write_bytes(b"\x00garbage")
    assert check(project, cache) == first


def test_a_report_round_trips(tmp_path):
    from gblint.settings.config import Settings
    from gblint.project.engine import check_paths
    project = tmp_path / "proj"
    project.mkdir()
    (project / "main.py").write_text(MAIN)
    (project / "helper.py").write_text(BREAKS)
    report = check_paths([str(project)], Settings(), None)
    assert report.diagnostics
    back = results._typed(results._plain(report), results.Report)
    assert [d.to_json() for d in back.diagnostics] == [d.to_json() for d in report.diagnostics]
    assert (back.files_checked, back.regions_found, back.notes, back.unfollowed, back.complete) == \
        (report.files_checked, report.regions_found, report.notes, report.unfollowed, report.complete)


def test_a_package_installed_or_upgraded_is_analysed_again(tmp_path, site_dir):
    """What the checked code imports from installed packages is not read, but what is installed decides
    what gblint follows and predicts (the installed torch, libcst): a distribution added, removed or
    upgraded (its metadata folder renamed) on ``sys.path`` changes the key."""
    project, cache, first = setup(tmp_path)
    assert MARK in check(project, cache)
    (site_dir / "somepkg-1.0.dist-info").mkdir()
    assert MARK not in check(project, cache)
    assert mark(cache) == 2
    assert MARK in check(project, cache)
    (site_dir / "somepkg-1.0.dist-info").rename(site_dir / "somepkg-1.1.dist-info")
    assert MARK not in check(project, cache)


def test_an_unreadable_file_edited_is_analysed_again(tmp_path):
    """A file that does not decode is recorded by its bytes: the checked file edited but still not UTF-8
    (the error moves), and a module beside it that did not decode and then does, are read again."""
    project, cache, first = setup(tmp_path, helper=BREAKS + "# \xff\n")
    (project / "helper.py").write_bytes((BREAKS + "# \xff\n").encode("latin-1"))
    main = project / "main.py"
    check(project, cache, target=main)
    assert mark(cache) == 2
    assert MARK in check(project, cache, target=main)
    (project / "helper.py").write_text(BREAKS)
    after = check(project, cache, target=main)
    assert MARK not in after and "GBL201" in after
    bad = project / "bad.py"
    bad.write_bytes(b"import torch\nx = 1\n\xff\n")
    check(project, cache, target=bad)
    bad.write_bytes(b"import torch\nx = 1\ny = 2\n\xff\n")
    assert "bad.py:4:" in check(project, cache, target=bad)


def _followed(site_dir, tmp_path, ops_text):
    pkg = site_dir / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    real = tmp_path / "real" / "inner"
    real.mkdir(parents=True)
    (real / "__init__.py").write_text(ops_text)
    os.symlink(real, pkg / "inner")  # a subpackage that is a link to a folder elsewhere
    (pkg / "ops.py").write_text(ops_text)
    project = tmp_path / "proj"
    project.mkdir()
    (project / "main.py").write_text(MAIN.replace("from helper import step", "from mypkg.ops import step\n"
                                                  "from mypkg.inner import step as step2")
                                     .replace("x = step(x)", "x = step2(step(x))"))
    return project, pkg, real


def test_a_followed_file_edited_in_place_or_behind_a_link_is_analysed_again(tmp_path, site_dir):
    project, pkg, real = _followed(site_dir, tmp_path, BREAKS)
    cache = tmp_path / "cache"
    first = check(project, cache, "--follow-imports", "mypkg")
    assert "ops.py" in first and "inner/__init__.py" in first
    assert mark(cache) == 1
    (real / "__init__.py").write_text(CLEAN + "# no break\n")  # behind the link
    after = check(project, cache, "--follow-imports", "mypkg")
    assert MARK not in after and "inner/__init__.py" not in after
    assert mark(cache) == 1
    ops = pkg / "ops.py"
    st = os.stat(ops)
    text = BREAKS.replace("torch._dynamo.graph_break()", "x = x + 1".ljust(len("torch._dynamo.graph_break()")))
    assert len(text) == len(BREAKS)
    ops.write_text(text)
    os.utime(ops, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, same time: only the text tells
    after = check(project, cache, "--follow-imports", "mypkg")
    assert MARK not in after and "ops.py" not in after


def test_where_a_package_is_found_is_checked_again(tmp_path, monkeypatch):
    """Two folders on the path hold a namespace package of one name; an ``__init__.py`` added to the second
    makes it the package imports find (nothing in the first changed)."""
    a, b = tmp_path / "nsA" / "nspkg", tmp_path / "nsB" / "nspkg"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    (a / "ops.py").write_text(BREAKS)
    (b / "ops.py").write_text(CLEAN)
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path / 'nsA'}{os.pathsep}{tmp_path / 'nsB'}")
    project = tmp_path / "proj"
    project.mkdir()
    (project / "main.py").write_text(MAIN.replace("from helper import step", "from nspkg.ops import step"))
    cache = tmp_path / "cache"
    assert "ops.py" in check(project, cache, "--follow-imports", "nspkg")
    assert mark(cache) == 1
    (b / "__init__.py").write_text("")
    after = check(project, cache, "--follow-imports", "nspkg")
    assert MARK not in after and "ops.py" not in after


def test_an_entry_shaped_unlike_a_report_is_a_miss(tmp_path):
    project, cache, first = setup(tmp_path)
    folder = cache / "results"
    fields = results._fields(results.Report)
    for bad in ({"errors": [{"a": "b"}]}, {"unfollowed": [{"x": 1}]}):
        for name in os.listdir(folder):
            entry = msgpack.unpackb((folder / name).read_bytes(), raw=False)
            for field, value in bad.items():
                entry["report"][fields.index(field)] = value
            (folder / name).write_bytes(msgpack.packb(entry, use_bin_type=True))
        proc = run_cli("check", "--isolated", "--cache-dir", str(cache), str(project), cwd=str(project))
        assert proc.returncode == 1 and proc.stdout == first, proc.stderr


IMPORTS_KERNEL = textwrap.dedent("""\
    import torch

    @torch.compile
    def f(x):
        y = x + 1
        import fastkern_made_later
        return fastkern_made_later.fused(y)
    """)


def test_a_module_created_after_a_run_clears_its_failed_import(tmp_path):
    """GBL126 asks the file system whether the imported module exists: creating it beside the file makes
    the stored report miss, and the cached summary too (a module or a package)."""
    for made, output in (("fastkern_made_later.py", ()), ("fastkern_made_later", ("--statistics",)),
                         ("fastkern_made_later.py", ("--format", "json"))):
        for stored in (True, False):
            project = tmp_path / f"proj-{len(output)}-{made}-{stored}"
            project.mkdir()
            (project / "main.py").write_text(IMPORTS_KERNEL)
            cache = tmp_path / f"cache-{len(output)}-{made}-{stored}"
            assert "GBL126" in check(project, cache, *output)
            if stored:
                assert "GBL126" in check(project, cache, *output)
            else:  # the summary cache alone
                for entry in (cache / "results").iterdir():
                    entry.unlink()
            if made.endswith(".py"):
                (project / made).write_text("def fused(x):\n    return x\n")
            else:
                (project / made).mkdir()
                (project / made / "__init__.py").write_text("def fused(x):\n    return x\n")
            assert "GBL126" not in check(project, cache, *output), (made, output, stored)
