"""Input too large for libcst (whose parser costs tens of µs and KBs per token) becomes GBL002
before it is parsed: a bounded run instead of minutes and gigabytes."""
import subprocess
import sys
import time

import pytest

from gblint.settings.config import ConfigError, load_settings

from .conftest import lint

COMPILED = "import torch\n\n@torch.compile\ndef f(x):\n    return x.item()\n"


def test_a_huge_one_line_literal_is_refused_fast(tmp_path):
    # 2.5 MB of `1, ` on one line: libcst needs minutes and gigabytes for this
    (tmp_path / "big.py").write_text(COMPILED + "DATA = [" + "1, " * 850_000 + "]\n")
    (tmp_path / "ok.py").write_text(COMPILED)
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--no-cache", "--isolated", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert time.monotonic() - start < 30
    assert "big.py:1:1: GBL002" in proc.stdout
    assert "too large to analyse (2550" in proc.stdout and "> 2000000); raise max-file-size" in proc.stdout
    assert "ok.py:5" in proc.stdout  # the other file is still checked


@pytest.mark.parametrize("body, words", [
    ("x = '" + "a" * 1200 + "'\n", "bytes > 1000"),
    ("x = [" + "1," * 30 + "]\n", "line 6 is too long to analyse (66 characters > 50)"),
    ("x = [\n" + "1,\n" * 200 + "]\n", "tokens > 250"),
], ids=["size", "line", "tokens"])
def test_limits_scale_with_max_file_size(body, words):
    diags = lint(COMPILED + body, max_file_size=1000)
    assert [d.code for d in diags] == ["GBL002"] and words in diags[0].message
    assert "GBL002" not in [d.code for d in lint(COMPILED + body, max_file_size=0)]  # 0: no limit
    assert "GBL002" not in [d.code for d in lint(COMPILED + body)]  # far below the default


def test_max_file_size_is_read_from_pyproject(tmp_path):
    p = tmp_path / "pyproject.toml"
    p.write_text("[tool.gblint]\nmax-file-size = 5000\n")
    assert load_settings(str(p)).max_file_size == 5000
    p.write_text("[tool.gblint]\nmax-file-size = \"big\"\n")
    with pytest.raises(ConfigError):
        load_settings(str(p))
