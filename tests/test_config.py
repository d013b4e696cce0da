"""Configuration and options that gblint cannot honour are usage errors: exit 2 and one line
naming the key or option, the value and what is allowed; never a traceback, never a silent pass.
The ``[tool.gblint]`` table is checked against the published JSON Schema
(``gblint/data/config.schema.json``)."""
import os
import subprocess
import sys

import pytest

from gblint.frontends import cli
from gblint.settings.config import ConfigError, load_settings

from .conftest import ROOT, run_cli

BREAKS = "import torch\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x\n"

BAD_TABLES = [  # (table body, what the message must name)
    ('capture-scalar-outputs = "false"', "capture-scalar-outputs"),
    ('nested-graph-breaks = "no"', "nested-graph-breaks"),
    ('respect-gitignore = 0', "respect-gitignore"),
    ('select = ["XYZ"]', "'XYZ'"),
    ('select = ["GBL999"]', "'GBL999'"),
    ('ignore = ["GBL1", 3]', "ignore[1]"),
    ('per-file-ignores = {"tests/*" = ["NOPE"]}', "'NOPE'"),
    ('unknown-key = 1', "unknown-key"),
    ('python-version = "3.99"', "python-version"),
    ('python-version = "2.7"', "python-version"),
    ('python-version = 3.11', "python-version"),
    ('max-unroll = -1', "max-unroll"),
    ('max-unroll = "8"', "max-unroll"),
    ('max-file-size = -5', "max-file-size"),
    ('entry-points = ["no colon"]', "entry-points[0]"),
    ('exclude = "build"', "exclude"),
    ('[tool.gblint.confirm]\ntimeout = -1', "confirm.timeout"),
    ('[tool.gblint.confirm]\nworkers = 0', "confirm.workers"),
    ('[tool.gblint.confirm]\nbackennd = "eager"', "backennd"),
]


def project(tmp_path, table: str):
    (tmp_path / "pyproject.toml").write_text(f"[tool.gblint]\n{table}\n")
    (tmp_path / "m.py").write_text(BREAKS)
    return tmp_path


@pytest.mark.parametrize("table,names", BAD_TABLES, ids=[t for t, _ in BAD_TABLES])
def test_a_bad_table_is_a_usage_error_naming_the_key(tmp_path, monkeypatch, capsys, table, names):
    project(tmp_path, table)
    monkeypatch.chdir(tmp_path)
    for command in ("check", "fix"):
        rc = cli.main([command, "m.py"])
        out, err = capsys.readouterr()
        assert rc == 2, (command, out, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("gblint: error: ") and names in lines[0], err
        assert "internal error" not in err and out == ""


def test_a_pyproject_that_does_not_parse_is_an_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.gblint]\nselect = [\n")
    (tmp_path / "m.py").write_text(BREAKS)
    proc = run_cli("check", "m.py", cwd=str(tmp_path))
    assert proc.returncode == 2 and "not valid TOML" in proc.stderr and "pyproject.toml" in proc.stderr


BAD_OPTIONS = [
    (["--select", "GBL999"], "--select"),
    (["--extend-select", "XYZ"], "--extend-select"),
    (["--ignore", "GBL1,E501"], "--ignore"),
    (["--python-version", "2.7"], "--python-version"),
    (["--python-version", "3.99"], "--python-version"),
    (["--python-version", "eleven"], "--python-version"),
    (["-j", "-3"], "--jobs"),
    (["-j", "two"], "--jobs"),
    (["--entry", "nosuch:x"], "nosuch:x"),
    (["--entry", "m:nosuch"], "m:nosuch"),
    (["--entry", "nocolon"], "nocolon"),
]


@pytest.mark.parametrize("options,names", BAD_OPTIONS, ids=[" ".join(o) for o, _ in BAD_OPTIONS])
def test_a_bad_option_is_a_usage_error_naming_it(tmp_path, monkeypatch, capsys, options, names):
    (tmp_path / "m.py").write_text(BREAKS)
    monkeypatch.chdir(tmp_path)
    rc = cli.main(["check", "--isolated", "--no-cache", *options, "m.py"])
    out, err = capsys.readouterr()
    assert rc == 2, out + err
    assert names in err.strip().splitlines()[-1] and "internal error" not in err


def test_good_entries_and_tables_still_work(tmp_path):
    project(tmp_path, 'select = ["GBL1"]\ncapture-scalar-outputs = true\npython-version = "py311"\n'
                      'per-file-ignores = {"tests/*" = ["GBL107"]}\nmax-unroll = 0\ncache = false\n'
                      '[tool.gblint.confirm]\ntimeout = 30\nexamples = {"m:f" = ["torch.ones(2)"]}')
    proc = run_cli("check", "--entry", "m:f", "m.py", cwd=str(tmp_path))
    assert proc.returncode == 1 and "GBL107" in proc.stdout, proc.stderr
    assert not (tmp_path / ".gblint_cache").exists()  # cache = false is honoured


def test_cache_true_keeps_the_cache(tmp_path):
    project(tmp_path, "cache = true")
    run_cli("check", "m.py", cwd=str(tmp_path))
    assert (tmp_path / ".gblint_cache").exists()


@pytest.mark.parametrize("table,names", BAD_TABLES[:12], ids=[t for t, _ in BAD_TABLES[:12]])
def test_no_misconfiguration_ends_in_exit_zero(tmp_path, monkeypatch, capsys, table, names):
    """Even with --exit-zero and nothing to report, a bad configuration is exit 2."""
    project(tmp_path, table)
    (tmp_path / "m.py").write_text("x = 1\n")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "--exit-zero", "m.py"]) == 2


def test_load_settings_raises_config_error(tmp_path):
    project(tmp_path, 'trace-numpy = "yes"')
    with pytest.raises(ConfigError, match="trace-numpy"):
        load_settings(str(tmp_path / "pyproject.toml"))


def test_the_generated_validator_matches_the_schema():
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_config_validator.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_a_selection_of_nothing_is_an_error(tmp_path, monkeypatch, capsys):
    project(tmp_path, "select = []")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "m.py"]) == 2 and "selects no code" in capsys.readouterr().err
    assert cli.main(["check", "--isolated", "--select", "", "m.py"]) == 2


def test_ignoring_the_whole_prefix_ignores_everything(tmp_path, monkeypatch, capsys):
    (tmp_path / "m.py").write_text(BREAKS)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "--isolated", "--no-cache", "--ignore", "GBL", "m.py"]) == 0
    assert cli.main(["check", "--isolated", "--no-cache", "--select", "GBL1", "--ignore", "GBL1", "m.py"]) == 0
    assert cli.main(["check", "--isolated", "--no-cache", "--ignore", "GBL2", "m.py"]) == 1


def test_a_config_file_that_is_not_gblint_s_is_an_error(tmp_path, monkeypatch, capsys):
    (tmp_path / "m.py").write_text(BREAKS)
    (tmp_path / "other.toml").write_text("[tool.black]\nline-length = 100\n")
    (tmp_path / "latin.toml").write_bytes(b"[tool.gblint]\n# caf\xe9\n")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "--config", "other.toml", "m.py"]) == 2
    assert "no [tool.gblint] table" in capsys.readouterr().err
    assert cli.main(["check", "--config", "latin.toml", "m.py"]) == 2
    assert "must be UTF-8" in capsys.readouterr().err
    assert cli.main(["check", "--config", "", "m.py"]) == 2


def test_the_output_file_may_not_be_a_checked_file(tmp_path, monkeypatch, capsys):
    (tmp_path / "m.py").write_text(BREAKS)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "--isolated", "-o", "m.py", "m.py"]) == 2
    assert (tmp_path / "m.py").read_text() == BREAKS
