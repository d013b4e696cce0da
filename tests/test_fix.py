"""Fix snapshots (``tests/fixes/*.in.py`` -> ``*.out.py``; no ``.out.py`` means the fix must
decline and leave the file as it is), fix safety, and the ``fix`` command."""
import glob
import os
import shutil

import libcst as cst
import pytest

from gblint.config import Settings
from gblint.engine import SourceFile, check_sources
from gblint.fix import apply_edits, fix_sources

from .conftest import ROOT, run_cli

FIXES = os.path.join(ROOT, "tests", "fixes")
INPUTS = sorted(glob.glob(os.path.join(FIXES, "*.in.py")))


def _expected(path):
    out = path[:-len(".in.py")] + ".out.py"
    with open(out if os.path.exists(out) else path) as fh:
        return fh.read()


@pytest.mark.parametrize("path", INPUTS, ids=[os.path.basename(p)[:-6] for p in INPUTS])
def test_snapshot(path):
    with open(path) as fh:
        text = fh.read()
    unsafe = "--unsafe-fixes" in text.splitlines()[0]
    result = fix_sources({path: text}, Settings(python_version=(3, 11)), unsafe=unsafe)
    assert result.texts[path] == _expected(path)
    cst.parse_module(result.texts[path])
    # a second run changes nothing
    again = fix_sources({path: result.texts[path]}, Settings(python_version=(3, 11)), unsafe=unsafe)
    assert again.texts[path] == result.texts[path]


def test_unsafe_fixes_need_the_flag():
    path = os.path.join(FIXES, "split_try.in.py")
    with open(path) as fh:
        text = fh.read()
    assert fix_sources({path: text}, Settings()).texts[path] == text


def test_fixed_diagnostic_is_gone():
    path = os.path.join(FIXES, "unroll_range.in.py")
    with open(path) as fh:
        text = fh.read()
    before = check_sources([SourceFile(path, text)], Settings()).diagnostics
    assert [(d.code, d.effect) for d in before] == [("GBL201", "skip")]
    result = fix_sources({path: text}, Settings())
    after = check_sources([SourceFile(path, result.texts[path])], Settings()).diagnostics
    assert [(d.code, d.effect) for d in after] == [("GBL101", "break")] * 3


def test_fix_in_json_output():
    path = os.path.join(FIXES, "unroll_range.in.py")
    (d,) = check_sources([SourceFile(path, None)], Settings()).diagnostics
    assert d.fix.title == "Unroll the loop at line 8" and d.fix.applicability == "safe"
    (edit,) = d.fix.edits
    assert (edit.line, edit.column, edit.end_line, edit.end_column) == (8, 1, 11, 1)
    with open(path) as fh:
        assert apply_edits(fh.read(), d.fix.edits) == _expected(path)


def test_config_advice_has_no_edits():
    text = "import torch\n\n@torch.compile\ndef f(x):\n    return x - x.mean().item()\n"
    (d,) = check_sources([SourceFile("m.py", text)], Settings()).diagnostics
    assert d.fix.edits == () and "capture_scalar_outputs" in d.fix.title


def test_fix_command_writes_atomically_and_keeps_mode(tmp_path):
    src = os.path.join(FIXES, "unroll_range.in.py")
    dst = tmp_path / "m.py"
    shutil.copy(src, dst)
    os.chmod(dst, 0o640)
    proc = run_cli("fix", "--no-cache", str(dst))
    assert proc.returncode == 1  # the unrolled breaks remain (resumable) diagnostics
    assert dst.read_text() == _expected(src)
    assert os.stat(dst).st_mode & 0o777 == 0o640
    assert "Applied 1 fix in 1 file." in proc.stderr


def test_diff_writes_nothing(tmp_path):
    dst = tmp_path / "m.py"
    shutil.copy(os.path.join(FIXES, "unroll_range.in.py"), dst)
    before = dst.read_text()
    proc = run_cli("check", "--fix", "--diff", "--no-cache", str(dst))
    assert dst.read_text() == before
    assert proc.stdout.startswith(f"--- {dst}\n+++ {dst}\n")
    assert "+    step = 2\n" in proc.stdout


def test_fix_exit_zero_when_nothing_remains(tmp_path):
    dst = tmp_path / "m.py"
    dst.write_text("import torch\n\n@torch.compile\ndef f(x):\n    return x.sin()\n")
    assert run_cli("fix", "--no-cache", str(dst)).returncode == 0


def test_crlf_is_kept(tmp_path):
    dst = tmp_path / "m.py"
    with open(os.path.join(FIXES, "unroll_range.in.py")) as fh:
        dst.write_bytes(fh.read().replace("\n", "\r\n").encode())
    run_cli("fix", "--no-cache", str(dst))
    data = dst.read_bytes()
    assert b"step = 2\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
