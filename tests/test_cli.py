"""The command line: formats, exit codes, selection, configuration, noqa, stdin, bad input."""
import json
import os
import textwrap

from .conftest import CASES, run_cli

BREAK_IN_LOOP = textwrap.dedent("""\
    import torch

    @torch.compile
    def f(x):
        for _ in range(3):
            x = x * 2
            torch._dynamo.graph_break()
        return x
    """)
CLEAN = "import torch\n\n@torch.compile\ndef f(x):\n    return x.sin()\n"


def write(tmp_path, name, text):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return str(p)


def test_exit_codes(tmp_path):
    assert run_cli("check", write(tmp_path, "clean.py", CLEAN)).returncode == 0
    proc = run_cli("check", write(tmp_path, "bad.py", BREAK_IN_LOOP))
    assert proc.returncode == 1
    assert "bad.py:7:9: GBL201 [*] `torch._dynamo.graph_break()` in a loop: frame `f` is skipped" in proc.stdout
    assert run_cli("check", str(tmp_path / "missing.py")).returncode == 2
    assert run_cli("check", "--format", "xml", str(tmp_path)).returncode == 2
    assert run_cli("check", "--exit-zero", str(tmp_path / "bad.py")).returncode == 0


def test_json_format(tmp_path):
    path = write(tmp_path, "bad.py", BREAK_IN_LOOP)
    data = json.loads(run_cli("check", "--format", "json", path).stdout)
    assert data["version"] == 1 and data["files_checked"] == 1 and data["errors"] == []
    (d,) = data["diagnostics"]
    assert set(d) == {"path", "line", "column", "end_line", "end_column", "code", "name", "effect", "frame",
                      "gb_ids", "message", "explanation", "hint", "url", "rule_url", "trace", "fix", "certainty",
                      "condition", "related"}
    assert len(d["message"]) <= 120 and "Dynamo cannot resume inside a loop" in d["explanation"]
    assert d["rule_url"].endswith("/docs/rules/GBL201.md") and d["related"] == []
    assert d["fix"]["applicability"] == "safe" and d["fix"]["edits"]
    assert (d["code"], d["line"], d["column"], d["end_line"], d["end_column"]) == ("GBL201", 7, 9, 7, 36)
    assert d["effect"] == "skip" and d["frame"] == "f" and d["gb_ids"] == ["GB0025", "GB7000"]
    assert d["url"] == "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0025.html"


def test_select_and_ignore(tmp_path):
    path = write(tmp_path, "bad.py", BREAK_IN_LOOP)
    assert run_cli("check", "--select", "GBL1", path).returncode == 0
    assert run_cli("check", "--select", "GBL2", path).returncode == 1
    assert run_cli("check", "--ignore", "GBL201", path).returncode == 0
    assert run_cli("check", "--select", "GBL2", "--ignore", "GBL20", path).returncode == 0


def test_noqa(tmp_path):
    code = BREAK_IN_LOOP.replace("graph_break()", "graph_break()  # noqa: GBL201")
    assert run_cli("check", write(tmp_path, "a.py", code)).returncode == 0
    code = BREAK_IN_LOOP.replace("graph_break()", "graph_break()  # noqa: GBL101")
    assert run_cli("check", write(tmp_path, "b.py", code)).returncode == 1
    code = BREAK_IN_LOOP.replace("graph_break()", "graph_break()  # noqa")
    assert run_cli("check", write(tmp_path, "c.py", code)).returncode == 0


def test_pyproject_config(tmp_path):
    write(tmp_path, "pkg/bad.py", BREAK_IN_LOOP)
    write(tmp_path, "pkg/tests/test_bad.py", BREAK_IN_LOOP)
    write(tmp_path, "pyproject.toml", textwrap.dedent("""\
        [tool.gblint]
        per-file-ignores = { "pkg/tests/*" = ["GBL2"] }
        exclude = ["vendored"]
        """))
    write(tmp_path, "vendored/x.py", BREAK_IN_LOOP)
    data = json.loads(run_cli("check", "--format", "json", str(tmp_path)).stdout)
    assert [os.path.basename(d["path"]) for d in data["diagnostics"]] == ["bad.py"]
    assert data["files_checked"] == 2
    write(tmp_path, "pyproject.toml", "[tool.gblint]\nignore = ['GBL201']\n")
    assert run_cli("check", str(tmp_path)).returncode == 0
    write(tmp_path, "pyproject.toml", "[tool.gblint]\nbogus = 1\n")
    proc = run_cli("check", str(tmp_path))
    assert proc.returncode == 2 and "unknown [tool.gblint] key" in proc.stderr


def test_config_changes_verdict(tmp_path):
    code = "import torch\n\n@torch.compile\ndef f(x):\n    return x - x.mean().item()\n"
    path = write(tmp_path, "m.py", code)
    assert run_cli("check", path).returncode == 1
    write(tmp_path, "pyproject.toml", "[tool.gblint]\ncapture-scalar-outputs = true\n")
    assert run_cli("check", path).returncode == 0


def test_gitignore(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path, ".gitignore", "generated/\n")
    write(tmp_path, "generated/bad.py", BREAK_IN_LOOP)
    write(tmp_path, "ok.py", CLEAN)
    data = json.loads(run_cli("check", "--format", "json", str(tmp_path)).stdout)
    assert data["files_checked"] == 1
    data = json.loads(run_cli("check", "--format", "json", "--no-respect-gitignore", str(tmp_path)).stdout)
    assert data["files_checked"] == 2


def test_stdin():
    proc = run_cli("check", "-", "--stdin-filename", "model.py", stdin=BREAK_IN_LOOP)
    assert proc.returncode == 1
    assert proc.stdout.startswith("model.py:7:9: GBL201")


def test_bad_input_is_a_diagnostic_not_a_traceback(tmp_path):
    write(tmp_path, "broken.py", "def f(:\n    pass\n")
    (tmp_path / "latin.py").write_bytes(b"x = '\xe9'\n")
    write(tmp_path, "empty.py", "")
    write(tmp_path, "fine.py", BREAK_IN_LOOP)
    proc = run_cli("check", "--format", "json", str(tmp_path))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    data = json.loads(proc.stdout)
    codes = sorted((os.path.basename(d["path"]), d["code"]) for d in data["diagnostics"])
    assert codes == [("broken.py", "GBL001"), ("fine.py", "GBL201"), ("latin.py", "GBL002")]
    assert data["files_checked"] == 4


def test_rules_listing():
    proc = run_cli("rules")
    assert proc.returncode == 0
    for code in ("GBL101", "GBL201", "GBL301", "GBL401", "GBL000"):
        assert code in proc.stdout
    rows = json.loads(run_cli("rules", "--format", "json").stdout)
    assert {r["code"] for r in rows} >= {"GBL101", "GBL102", "GBL105", "GBL206", "GBL401", "GBL004"}


def test_statistics_and_output_file(tmp_path):
    out = tmp_path / "report.json"
    proc = run_cli("check", "--format", "json", "--output-file", str(out), CASES)
    assert proc.returncode == 1 and proc.stdout == ""
    assert json.loads(out.read_text())["files_checked"] == 84
    stats = run_cli("check", "--statistics", CASES).stdout
    assert "GBL201  break-in-loop" in stats


class _Tty:
    def __init__(self, tty):
        self.tty, self.text = tty, ""

    def isatty(self):
        return self.tty

    def write(self, s):
        self.text += s

    def flush(self):
        pass


def test_progress_only_on_a_terminal():
    from gblint.frontends.output import Progress
    quiet = _Tty(False)
    p = Progress(quiet)
    p(25, 100)
    p(100, 100)
    p.close()
    assert quiet.text == ""
    term = _Tty(True)
    p = Progress(term, interval=0)
    p(25, 100)
    p(100, 100)
    p.close()
    assert "gblint: 25/100 files" in term.text and "100/100" in term.text and term.text.endswith("\r\x1b[K")
    off = _Tty(True)
    p = Progress(off, enabled=False)
    p(100, 100)
    assert off.text == ""
