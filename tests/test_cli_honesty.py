"""The command line says what happened, as ruff does for the same mistakes: ``-q`` prints
diagnostics only, ``--statistics`` honours ``--format``, an unwritable ``-o`` and a mistyped
command are usage errors, ``fix`` takes ``--format`` and standard input, and an ambiguous
``--explain`` lists the entries instead of picking one."""
import json

from .conftest import run_cli

# a loop whose only break is a `print` gets the print's fix, not the loop's (issue 40): the safe loop
# fix needs another break
LOOP = ("import torch\n\n\n@torch.compile\ndef f(x, xs):\n    x = x * 2\n    for v in xs:\n        x = x + v\n"
        "        torch._dynamo.graph_break()\n    return x\n")
TWO_FORWARDS = ("import torch\n\n\nclass A(torch.nn.Module):\n    def forward(self, x):\n        print(x)\n"
                "        return x\n\n\nclass B(torch.nn.Module):\n    def forward(self, x):\n        return x.item()\n\n\n"
                "a = torch.compile(A())\nb = torch.compile(B())\n")


def test_quiet_prints_only_the_diagnostics(tmp_path):
    (tmp_path / "m.py").write_text(LOOP)
    proc = run_cli("check", "--no-cache", "-q", "m.py", cwd=str(tmp_path))
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1 and lines and all(line.startswith("m.py:") for line in lines), proc.stdout


def test_statistics_honours_the_format(tmp_path):
    (tmp_path / "m.py").write_text(LOOP)
    proc = run_cli("check", "--no-cache", "--statistics", "--format", "json", "m.py", cwd=str(tmp_path))
    rows = json.loads(proc.stdout)
    assert rows and all(set(r) == {"code", "name", "count"} for r in rows)
    proc = run_cli("check", "--no-cache", "--statistics", "--format", "sarif", "m.py", cwd=str(tmp_path))
    assert proc.returncode == 2 and "--statistics" in proc.stderr and "Traceback" not in proc.stderr


def test_an_unwritable_output_file_is_a_usage_error(tmp_path):
    (tmp_path / "m.py").write_text(LOOP)
    proc = run_cli("check", "--no-cache", "-o", str(tmp_path / "no" / "such" / "x.json"), "m.py", cwd=str(tmp_path))
    assert proc.returncode == 2
    assert proc.stderr.startswith("gblint: error: cannot write ") and "internal error" not in proc.stderr


def test_a_mistyped_command_is_named(tmp_path):
    (tmp_path / "x.py").write_text(LOOP)
    proc = run_cli("chek", "x.py", cwd=str(tmp_path))
    assert proc.returncode == 2 and "unknown command `chek` (did you mean `check`?)" in proc.stderr
    assert run_cli("x.py", "--no-cache", cwd=str(tmp_path)).returncode == 1  # a path still means `check`


def test_fix_reports_in_json(tmp_path):
    (tmp_path / "m.py").write_text(LOOP)
    proc = run_cli("fix", "--no-cache", "--format", "json", "m.py", cwd=str(tmp_path))
    doc = json.loads(proc.stdout)
    assert doc["files_checked"] == 1 and "Applied 1 fix in 1 file." in proc.stderr
    assert "_f_loop(" in (tmp_path / "m.py").read_text()


def test_fix_reads_standard_input_and_writes_the_fixed_source(tmp_path):
    proc = run_cli("fix", "--no-cache", "-", stdin=LOOP, cwd=str(tmp_path))
    assert "def _f_loop(x):" in proc.stdout and proc.stdout.startswith("import torch\n")
    compile(proc.stdout, "<fixed>", "exec")
    assert "Applied 1 fix." in proc.stderr
    clean = "import torch\n\nx = 1\n"
    proc = run_cli("fix", "--no-cache", "-", stdin=clean, cwd=str(tmp_path))
    assert proc.returncode == 0 and proc.stdout == clean


def test_an_ambiguous_explain_lists_the_entries(tmp_path):
    (tmp_path / "m.py").write_text(TWO_FORWARDS)
    proc = run_cli("check", "--no-cache", "--explain", "forward", "m.py", cwd=str(tmp_path))
    assert proc.returncode == 2 and "2 compiled entries have that name" in proc.stderr
    assert "m.py:A.forward" in proc.stderr and "m.py:B.forward" in proc.stderr
    one = run_cli("check", "--no-cache", "--explain", "B.forward", "m.py", cwd=str(tmp_path))
    assert one.returncode == 0 and "Compiled region `B.forward`" in one.stdout and "A.forward" not in one.stdout
    by_path = run_cli("check", "--no-cache", "--explain", "m.py:A.forward", "m.py", cwd=str(tmp_path))
    assert by_path.returncode == 0 and "Compiled region `A.forward`" in by_path.stdout


PROJECT_TABLE = '[tool.gblint]\nper-file-ignores = {"tests/*" = ["GBL102"]}\n'
ITEM = "import torch\n\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x.item()\n"


def _project(tmp_path):
    (tmp_path / "pyproject.toml").write_text(PROJECT_TABLE)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(ITEM)
    return tmp_path / "tests" / "test_x.py"


def test_paths_print_relative_to_the_working_directory(tmp_path):
    _project(tmp_path)
    out = run_cli("check", "--no-cache", "-q", "test_x.py", cwd=str(tmp_path / "tests")).stdout
    assert out.splitlines() and all(line.startswith("test_x.py:6:") for line in out.splitlines()), out


def test_per_file_ignores_match_from_the_configuration_root_whatever_the_spelling(tmp_path):
    path = _project(tmp_path)
    elsewhere = tmp_path.parent
    for spelling, cwd in ((str(path), str(elsewhere)), ("tests/test_x.py", str(tmp_path)), ("test_x.py", str(path.parent))):
        out = run_cli("check", "--no-cache", "-q", "--config", str(tmp_path / "pyproject.toml"), spelling, cwd=cwd).stdout
        assert "GBL107" in out and "GBL102" not in out, (spelling, out)


def test_sarif_uri_and_srcroot_agree(tmp_path):
    import pathlib
    _project(tmp_path)
    proc = run_cli("check", "--no-cache", "--format", "sarif", "tests/test_x.py", cwd=str(tmp_path))
    run = json.loads(proc.stdout)["runs"][0]
    root = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    loc = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc == {"uri": "tests/test_x.py", "uriBaseId": "%SRCROOT%"}
    assert root == pathlib.Path(str(tmp_path)).as_uri() + "/"


FUNCTION_AND_METHOD = ("import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        print(x)\n"
                       "        return x\n\n\n@torch.compile\ndef forward(x):\n    return x.item()\n\n\n"
                       "net = torch.compile(Net())\n")


def test_explain_prefers_an_exact_name_to_a_suffix(tmp_path):
    """`forward` is the top-level function's whole name and only the tail of `Net.forward`: the
    exact match wins, with or without a path; two exact matches are an ambiguity listed as
    PATH:QUALNAME."""
    (tmp_path / "b.py").write_text(FUNCTION_AND_METHOD)
    for name in ("b.py:forward", "forward"):
        proc = run_cli("check", "--no-cache", "--explain", name, "b.py", cwd=str(tmp_path))
        assert proc.returncode == 0, proc.stderr
        assert "Compiled region `forward`" in proc.stdout and "Net.forward" not in proc.stdout, proc.stdout
    proc = run_cli("check", "--no-cache", "--explain", "Net.forward", "b.py", cwd=str(tmp_path))
    assert proc.returncode == 0 and "Compiled region `Net.forward`" in proc.stdout
    (tmp_path / "c.py").write_text(FUNCTION_AND_METHOD)
    proc = run_cli("check", "--no-cache", "--explain", "forward", "b.py", "c.py", cwd=str(tmp_path))
    assert proc.returncode == 2 and "2 compiled entries have that name" in proc.stderr, proc.stderr
    assert "b.py:forward" in proc.stderr and "c.py:forward" in proc.stderr and "Net.forward" not in proc.stderr
    proc = run_cli("check", "--no-cache", "--explain", "c.py:forward", "b.py", "c.py", cwd=str(tmp_path))
    assert proc.returncode == 0 and "Compiled region `forward` (" in proc.stdout and " in c.py:" in proc.stdout


def test_o_never_overwrites_a_checked_source_or_names_a_folder(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "sub" / "b.py").write_text("y = 2\n")
    for target, why in [("a.py", "under a checked folder"), ("sub/b.py", "under a checked folder"), ("sub", "folder")]:
        proc = run_cli("check", "-o", target, ".", cwd=str(tmp_path))
        assert proc.returncode == 2 and why in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert (tmp_path / "a.py").read_text() == "x = 1\n" and (tmp_path / "sub" / "b.py").read_text() == "y = 2\n"
    proc = run_cli("check", "-o", "a.py", "a.py", cwd=str(tmp_path))
    assert proc.returncode == 2 and "being checked" in proc.stderr
    proc = run_cli("check", "-o", "report.txt", ".", cwd=str(tmp_path))  # a new file is fine
    assert proc.returncode == 0 and (tmp_path / "report.txt").exists()


def test_fix_honours_or_refuses_check_s_options(tmp_path):
    src = "import torch\n\n\n@torch.compile\ndef f(x):\n    for i in range(3):\n        print(i)\n    return x\n"
    (tmp_path / "a.py").write_text(src)
    for option in (["--statistics"], ["--explain", "f"]):
        proc = run_cli("fix", *option, "a.py", cwd=str(tmp_path))
        assert proc.returncode == 2 and "not of `gblint fix`" in proc.stderr
        assert (tmp_path / "a.py").read_text() == src  # refused before anything was written
    proc = run_cli("fix", "-o", "report.txt", "a.py", cwd=str(tmp_path))
    assert (tmp_path / "report.txt").exists() and "a.py" in (tmp_path / "report.txt").read_text()
    assert "a.py:" not in proc.stdout


def test_passed_after_filtering_says_what_was_hidden(tmp_path):
    (tmp_path / "a.py").write_text("import torch\n\n\n@torch.compile\ndef f(x):\n    for i in range(3):\n"
                                   "        print(i)\n    return x\n")
    for option in (["--ignore", "GBL"], ["--select", "GBL3"]):
        proc = run_cli("check", *option, "a.py", cwd=str(tmp_path))
        assert proc.returncode == 0 and "hidden by select/ignore" in proc.stdout
        assert "no graph breaks predicted" not in proc.stdout
