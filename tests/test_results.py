"""Reports kept across runs (gblint.results): a second `gblint check` of unchanged code prints the
stored report, and any change to what the first run read (a checked file, a project module it
imported, a module it looked for and did not find, a followed package, the settings, the files
checked) makes the run analyse again.

Each test marks the stored reports (their first diagnostic's message becomes MARK): a run that
prints MARK was served from the store, one that does not analysed the code."""
import os
import textwrap

import msgpack

from gblint import results
from gblint.diagnostics import Diagnostic

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
    from gblint.config import Settings
    from gblint.engine import check_paths
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
