"""The flake8 plugin, run through flake8 in a subprocess."""
import subprocess
import sys

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
