"""The flake8 plugin, run through flake8 in a subprocess."""
import subprocess
import sys

import pytest

from .test_cli import BREAK_IN_LOOP, CLEAN


def flake8(*args, cwd):
    return subprocess.run([sys.executable, "-m", "flake8", "--select", "GBL", *args], capture_output=True,
                          text=True, cwd=cwd)


def test_flake8_reports_gbl(tmp_path):
    (tmp_path / "bad.py").write_text(BREAK_IN_LOOP)
    (tmp_path / "clean.py").write_text(CLEAN)
    proc = flake8("bad.py", "clean.py", cwd=tmp_path)
    assert proc.returncode == 1
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("bad.py:7:9: GBL201 ")  # flake8 prints col+1 of the plugin's 0-based column


def test_flake8_noqa(tmp_path):
    (tmp_path / "bad.py").write_text(BREAK_IN_LOOP.replace("graph_break()", "graph_break()  # noqa: GBL201"))
    assert flake8("bad.py", cwd=tmp_path).returncode == 0


def test_flake8_config_option(tmp_path):
    code = ("import torch\n\n@torch.compile\ndef f(x):\n    while x.max() > 2:\n        x = x / 2\n"
            "    return x\n")
    (tmp_path / "w.py").write_text(code)
    out311 = flake8("--gblint-python-version", "3.11", "w.py", cwd=tmp_path).stdout
    assert "GBL105" in out311
    (tmp_path / "setup.cfg").write_text("[flake8]\ngblint-python-version = 3.12\n")
    assert "GBL201" in flake8("w.py", cwd=tmp_path).stdout


CALLER = "import torch\nfrom model import Net\n\nnet = torch.compile(Net())\n"
CALLEE = "import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        print(x)\n        return x\n"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_flake8_sees_the_files_it_is_given_as_one_project(tmp_path, jobs):
    """The break in model.py is reached only from main.py's compiled region: found as
    `gblint check main.py model.py` finds it."""
    (tmp_path / "main.py").write_text(CALLER)
    (tmp_path / "model.py").write_text(CALLEE)
    proc = flake8("-j", jobs, "main.py", "model.py", cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout.startswith("model.py:6:9: GBL107 "), proc.stdout + proc.stderr


def test_flake8_reads_tool_gblint_without_an_option(tmp_path):
    code = "import torch\n\n@torch.compile\ndef f(x):\n    return x.item()\n"
    (tmp_path / "s.py").write_text(code)
    assert "GBL102" in flake8("s.py", cwd=tmp_path).stdout
    (tmp_path / "pyproject.toml").write_text("[tool.gblint]\ncapture-scalar-outputs = true\n")
    assert "GBL102" not in flake8("s.py", cwd=tmp_path).stdout


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_flake8_stops_on_a_bad_configuration(tmp_path, jobs):
    (tmp_path / "s.py").write_text(CALLEE)
    (tmp_path / "pyproject.toml").write_text('[tool.gblint]\ncapture-scalar-outputs = "false"\n')
    proc = flake8("-j", jobs, "s.py", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        f"gblint: error: {tmp_path / 'pyproject.toml'}: [tool.gblint] capture-scalar-outputs = \"false\": "
        "expected true or false (a TOML boolean, not a string)"]


FILTERED = "import torch\n\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x.item()\n"


def _codes(proc):
    return sorted(line.split(" ")[1] for line in proc.stdout.splitlines())


def test_flake8_applies_the_tables_select_ignore_and_per_file_ignores(tmp_path):
    """select, ignore and per-file-ignores of [tool.gblint] filter as in `gblint check`, matched
    from the configuration root whatever the working directory; flake8's own --extend-ignore,
    --ignore and noqa still apply on top."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(FILTERED)
    (tmp_path / "m.py").write_text(FILTERED)
    assert _codes(flake8("m.py", cwd=tmp_path)) == ["GBL102", "GBL107"]
    (tmp_path / "pyproject.toml").write_text('[tool.gblint]\nper-file-ignores = {"tests/*" = ["GBL102"]}\n')
    assert _codes(flake8("m.py", cwd=tmp_path)) == ["GBL102", "GBL107"]
    assert _codes(flake8("tests/test_x.py", cwd=tmp_path)) == ["GBL107"]
    assert _codes(flake8("test_x.py", cwd=tmp_path / "tests")) == ["GBL107"]
    assert _codes(flake8(str(tmp_path / "tests" / "test_x.py"), cwd=tmp_path.parent)) == ["GBL107"]
    (tmp_path / "pyproject.toml").write_text('[tool.gblint]\nignore = ["GBL107"]\n')
    assert _codes(flake8("m.py", cwd=tmp_path)) == ["GBL102"]
    (tmp_path / "pyproject.toml").write_text('[tool.gblint]\nselect = ["GBL107"]\n')
    assert _codes(flake8("m.py", cwd=tmp_path)) == ["GBL107"]
    assert _codes(flake8("--extend-ignore", "GBL107", "m.py", cwd=tmp_path)) == []
    (tmp_path / "pyproject.toml").write_text('[tool.gblint]\nselect = ["GBL1"]\n')
    assert _codes(flake8("--ignore", "GBL102", "m.py", cwd=tmp_path)) == ["GBL107"]
    (tmp_path / "m.py").write_text(FILTERED.replace("print(x)", "print(x)  # noqa: GBL107"))
    assert _codes(flake8("m.py", cwd=tmp_path)) == ["GBL102"]
