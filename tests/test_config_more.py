"""More of issue 17 ("never say 'passed' by mistake"), as kinds:

- ``gblint confirm``'s settings are checked like the rest: a device, timeout, worker count or
  example the runs cannot honour, in ``[tool.gblint.confirm]`` or on the command line, is a usage
  error (exit 2, one line naming the key or option, the value and what is allowed), and so is an
  ``examples`` key that names no region or ``main()`` being confirmed;
- a TOML number where a string is expected (``python-version = 3.10``, read as 3.1) is an error
  that shows the number as written and says to quote it;
- every path printed (JSON fields at any depth, text, ``--explain``, SARIF, GitHub) is relative to
  the working directory below it and absolute elsewhere, as ruff prints them;
- a module excluded by configuration is named as excluded, not as a package to follow;
- ``gblint fix -`` writes the fixed source in the encoding it declares, whatever stdout's.

None of these runs torch: every error is found before a run would start.
"""
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from gblint.frontends import cli

from .conftest import ROOT, run_cli
from .conftest import write_tree as write

COMPILED = "import torch\n\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x\n"


def one_error_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("gblint: error: "), err
    assert "Traceback" not in err and "internal error" not in err
    return lines[0]


# --------------------------------------------------------------------------- 1. confirm settings

BAD_CONFIRM_TABLES = [  # (table body, what the line must name)
    ('device = "tpu"', ['confirm.device', '"tpu"', '"cuda"']),
    ("timeout = 0", ["confirm.timeout", "= 0", "seconds"]),
    ("timeout = nan", ["confirm.timeout", "= nan", "seconds"]),
    ("timeout = inf", ["confirm.timeout", "= inf", "seconds"]),
    ("timeout = -inf", ["confirm.timeout", "= -inf", "seconds"]),
    ("workers = 0", ["confirm.workers", "= 0"]),
    ('examples = {"m:f" = ["torch.randn(2,"]}', ["examples", "torch.randn(2,", "Python expression"]),
    ('examples = {"not a name" = ["1"]}', ["examples", "not a name"]),
]


@pytest.mark.parametrize("table,names", BAD_CONFIRM_TABLES, ids=[t for t, _ in BAD_CONFIRM_TABLES])
def test_a_bad_confirm_table_is_a_usage_error(tmp_path, monkeypatch, capsys, table, names):
    (tmp_path / "pyproject.toml").write_text(f"[tool.gblint.confirm]\n{table}\n")
    (tmp_path / "m.py").write_text(COMPILED)
    monkeypatch.chdir(tmp_path)
    for argv in (["confirm", "m.py"], ["check", "--no-cache", "--confirm", "m.py"], ["check", "--no-cache", "m.py"]):
        rc = cli.main(argv)
        out, err = capsys.readouterr()
        assert rc == 2, (argv, out, err)
        line = one_error_line(err)
        assert all(n in line for n in names), (argv, line)


BAD_CONFIRM_OPTIONS = [  # (options, what the line must name)
    (["--device", "tpu"], ["--device", "'tpu'", "'cuda'"]),
    (["--timeout", "0"], ["--timeout", "'0'", "seconds"]),
    (["--timeout", "nan"], ["--timeout", "'nan'"]),
    (["--timeout", "inf"], ["--timeout", "'inf'"]),
    (["--timeout", "-2"], ["--timeout", "'-2'"]),
    (["--timeout", "soon"], ["--timeout", "'soon'"]),
    (["--workers", "0"], ["--workers", "'0'"]),
    (["--workers", "-1"], ["--workers", "'-1'"]),
    (["--workers", "1.5"], ["--workers", "'1.5'"]),
    (["--example", "torch.randn(2,"], ["--example", "torch.randn(2,", "Python expression"]),
]


@pytest.mark.parametrize("options,names", BAD_CONFIRM_OPTIONS, ids=[" ".join(o) for o, _ in BAD_CONFIRM_OPTIONS])
def test_a_bad_confirm_option_is_a_usage_error(tmp_path, monkeypatch, capsys, options, names):
    (tmp_path / "m.py").write_text(COMPILED)
    monkeypatch.chdir(tmp_path)
    for argv in (["confirm", "--isolated", *options, "m.py"], ["check", "--isolated", "--confirm", *options, "m.py"]):
        rc = cli.main(argv)
        out, err = capsys.readouterr()
        assert rc == 2, (argv, out, err)
        line = one_error_line(err)
        assert all(n in line for n in names), (argv, line)


EXAMPLES_PROJECT = {
    "m.py": """
        import torch


        class Net(torch.nn.Module):
            def forward(self, x):
                print(x)
                return x


        @torch.compile
        def f(x):
            return x.item()


        net = torch.compile(Net())
    """,
}


@pytest.mark.parametrize("key", ["m:nosuch", "nosuch", "other:f", "m:Net.backward"])
def test_an_examples_key_that_matches_nothing_is_named(tmp_path, monkeypatch, capsys, key):
    write(tmp_path, EXAMPLES_PROJECT)
    (tmp_path / "pyproject.toml").write_text(f'[tool.gblint.confirm]\nexamples = {{"{key}" = ["1"]}}\n')
    monkeypatch.chdir(tmp_path)
    for argv in (["confirm", "m.py"], ["check", "--no-cache", "--confirm", "m.py"]):
        rc = cli.main(argv)
        out, err = capsys.readouterr()
        assert rc == 2, (argv, out, err)
        line = one_error_line(err)
        assert f"examples key {key!r} names nothing" in line and "m:f" in line and "m:Net.forward" in line, line


def test_an_examples_key_of_another_file_of_the_project_is_not_an_error(tmp_path):
    """A run over some files of a project does not fail on the keys for the others: a key
    names something when the project defines it, whether or not this run confirms it."""
    from gblint.settings.config import ConfigError, Settings
    from runtime_check.plan import ConfirmConfig, check_examples, plan_files
    write(tmp_path, {**EXAMPLES_PROJECT, "pkg/__init__.py": "", "pkg/other.py": "def g(x):\n    return x\n",
                     "pyproject.toml": "[tool.gblint]\n"})
    m = str(tmp_path / "m.py")
    jobs, unrunnable = plan_files([m], Settings(root=str(tmp_path)), ConfirmConfig())
    source = str(tmp_path / "pyproject.toml")
    for key in ("pkg.other:g", "g", "m:Net"):
        check_examples(ConfirmConfig(examples={key: ["1"]}, source=source), jobs, unrunnable, [m],
                       Settings(root=str(tmp_path)))
    for key, why in (("pkg.other:h", "module `pkg.other` defines no `h`"), ("pkg.nosuch:g", "no module `pkg.nosuch`"),
                     ("h", "no function or class `h`")):
        with pytest.raises(ConfigError, match=re.escape(why)):
            check_examples(ConfirmConfig(examples={key: ["1"]}, source=source), jobs, unrunnable, [m],
                           Settings(root=str(tmp_path)))


def test_examples_keys_that_match_are_used(tmp_path):
    """The positive side, without running: each key form gives the region its arguments, and
    the check passes."""
    from gblint.settings.config import Settings
    from runtime_check.plan import ConfirmConfig, check_examples, plan_files
    write(tmp_path, EXAMPLES_PROJECT)
    path = str(tmp_path / "m.py")
    config = ConfirmConfig(examples={"m:f": ["torch.ones(2)"], "Net.forward": ["torch.zeros(3)"]})
    jobs, unrunnable = plan_files([path], Settings(), config)
    assert {j.function: j.examples for j in jobs} == {"f": ["torch.ones(2)"], "Net.forward": ["torch.zeros(3)"]}
    check_examples(config, jobs, unrunnable)  # no error


def test_entry_runs_take_their_examples_from_the_table(tmp_path, monkeypatch, capsys):
    """``--entry m:f`` reads ``examples`` too, so its key is not reported as matching nothing;
    a key for another entry is."""
    from runtime_check.plan import ConfirmConfig, check_examples, entry_job
    write(tmp_path, EXAMPLES_PROJECT)
    config = ConfirmConfig(examples={"m:f": ["torch.ones(2)"]})
    job = entry_job(str(tmp_path / "m.py"), "m:f", None, config)
    assert job.examples == ["torch.ones(2)"]
    check_examples(config, [job], [])
    assert entry_job(str(tmp_path / "m.py"), "m:f", ["torch.zeros(1)"], config).examples == ["torch.zeros(1)"]
    (tmp_path / "pyproject.toml").write_text('[tool.gblint.confirm]\nexamples = {"m:g" = ["1"]}\n')
    monkeypatch.chdir(tmp_path)
    assert cli.main(["confirm", "--entry", "m:f", "m.py"]) == 2
    assert "examples key 'm:g'" in one_error_line(capsys.readouterr().err)


# --------------------------------------------------------------------------- 5. numbers for strings

@pytest.mark.parametrize("table,written", [("python-version = 3.10", "3.10"), ("python-version = 3.9", "3.9"),
                                           ("torch-version = 2.10", "2.10"), ("python-version = 3", "3")])
def test_a_number_where_a_string_is_expected_says_to_quote_it(tmp_path, monkeypatch, capsys, table, written):
    (tmp_path / "pyproject.toml").write_text(f"[tool.gblint]\n{table}\n")
    (tmp_path / "m.py").write_text(COMPILED)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "--no-cache", "m.py"]) == 2
    line = one_error_line(capsys.readouterr().err)
    key = table.split(" =")[0]
    assert f"{key} = {written}:" in line and f'{key} = "{written}"' in line and "quote" in line, line
    if written == "3.10":
        assert "3.1:" not in line and "3.1 " not in line


# --------------------------------------------------------------------------- 4. paths

PATHS_PROJECT = {
    "pyproject.toml": '[tool.gblint]\nper-file-ignores = {"nothing/*" = ["GBL1"]}\n',
    "src/main.py": """
        import torch
        from model import Net

        net = torch.compile(Net())
        other = torch.compile(nosuch.Thing())
    """,
    "src/model.py": """
        import torch


        class Net(torch.nn.Module):
            def forward(self, x):
                return helper(x)


        def helper(x):
            print(x)
            return x
    """,
    "sub/.keep": "",
}


def _paths(node, out):
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("path", "file") and isinstance(v, str):
                out.append(v)
            else:
                _paths(v, out)
    elif isinstance(node, list):
        for v in node:
            _paths(v, out)
    return out


@pytest.mark.parametrize("where", ["src", "sub", "."])
def test_every_json_path_follows_the_working_directory(tmp_path, where):
    """From the folder of the files, paths are relative; from a sibling folder, absolute; from
    the root, relative with the folder: diagnostics, trace frames, coverage, all alike."""
    write(tmp_path, PATHS_PROJECT)
    cwd = tmp_path / where
    target = os.path.relpath(tmp_path / "src" / "main.py", cwd)
    proc = run_cli("check", "--no-cache", "--format", "json", target, cwd=str(cwd))
    doc = json.loads(proc.stdout)
    found = _paths(doc, [])
    assert any(d["trace"] for d in doc["diagnostics"]) and doc["coverage"]["regions"], proc.stdout
    assert len(found) >= 5
    model = tmp_path / "src" / "model.py"
    want = {"src": "model.py", "sub": str(model), ".": "src/model.py"}[where]
    main = {"src": "main.py", "sub": str(tmp_path / "src" / "main.py"), ".": "src/main.py"}[where]
    assert set(found) <= {want, main}, found
    assert want in found


def test_explain_sarif_and_github_paths_follow_the_working_directory(tmp_path):
    write(tmp_path, PATHS_PROJECT)
    cwd = str(tmp_path / "src")
    proc = run_cli("check", "--no-cache", "--explain", "Net.forward", "main.py", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    assert "in model.py:5" in proc.stdout and "frame helper (model.py:9)" in proc.stdout, proc.stdout
    assert str(tmp_path) not in proc.stdout
    sarif = json.loads(run_cli("check", "--no-cache", "--format", "sarif", "main.py", cwd=cwd).stdout)
    run = sarif["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == pathlib.Path(cwd).as_uri() + "/"
    locations = [r["locations"][0] for r in run["results"]]
    locations += [rl for r in run["results"] for rl in r.get("relatedLocations", [])]
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"] for loc in locations}
    assert uris == {"model.py", "main.py"}, uris
    gh = run_cli("check", "--no-cache", "--format", "github", "main.py", cwd=cwd).stdout
    assert "file=model.py," in gh and str(tmp_path) not in gh


def test_errors_print_paths_like_diagnostics(tmp_path, monkeypatch, capsys):
    """gblint's own failures (``errors``) name their file as diagnostics do."""
    from gblint.project.engine import Report
    from gblint.frontends.output import report_json, write_text
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("x = 1\n")
    report = Report([], 1, [{"path": str(tmp_path / "a.py"), "message": "boom"}])
    assert report_json(report)["errors"] == [{"path": "a.py", "message": "boom"}]
    import io
    buf = io.StringIO()
    write_text(report, buf)
    assert "error: a.py: boom" in buf.getvalue()


# --------------------------------------------------------------------------- 6. excluded modules

@pytest.mark.parametrize("pattern", ["src/model.py", "model.py", "src/model*"])
def test_an_excluded_module_is_named_as_excluded(tmp_path, pattern):
    write(tmp_path, {k: v for k, v in PATHS_PROJECT.items() if k != "pyproject.toml"})
    (tmp_path / "pyproject.toml").write_text(f'[tool.gblint]\nexclude = ["{pattern}"]\n')
    proc = run_cli("check", "--no-cache", "--format", "json", "src/", cwd=str(tmp_path))
    notes = [d for d in json.loads(proc.stdout)["diagnostics"] if d["code"] == "GBL003" and d["line"] == 4]
    assert len(notes) == 1, proc.stdout
    note = notes[0]
    assert "--follow-imports" not in note["explanation"] and "--follow-imports" not in note["hint"], note
    assert "excluded" in note["explanation"] and "src/model.py" in note["explanation"] and pattern in note["explanation"], note
    assert "exclude" in note["hint"]


# --------------------------------------------------------------------------- 7. standard input

LOOP_LATIN1 = ("# -*- coding: latin-1 -*-\n# caf\xe9\nimport torch\n\n\n@torch.compile\ndef f(x, xs):\n"
               "    x = x * 2\n    for v in xs:\n        x = x + v\n        print('\xe9t\xe9', v)\n"
               "        torch._dynamo.graph_break()\n    return x\n")


@pytest.mark.parametrize("ioencoding", [None, "ascii", "utf-8"])
def test_fix_stdin_keeps_the_declared_encoding(tmp_path, ioencoding):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONIOENCODING"}
    if ioencoding:
        env["PYTHONIOENCODING"] = ioencoding
    data = LOOP_LATIN1.encode("latin-1")
    proc = subprocess.run([sys.executable, "-m", "gblint", "fix", "--no-cache", "-"], input=data, capture_output=True,
                          cwd=str(tmp_path), env=env)
    assert proc.returncode in (0, 1), proc.stderr
    assert b"Traceback" not in proc.stderr and b"internal error" not in proc.stderr
    text = proc.stdout.decode("latin-1")
    assert "_loop(" in text and "# caf\xe9\n" in text and "'\xe9t\xe9'" in text, proc.stdout
    assert b"\xc3" not in proc.stdout  # not UTF-8
    compile(proc.stdout, "<fixed>", "exec")  # CPython decodes it by its cookie


@pytest.mark.parametrize("args", [["-"], ["--stdin-filename", "caf\xe9.py", "-"], ["caf\xe9.py"]])
def test_check_never_crashes_on_the_output_encoding(tmp_path, args):
    (tmp_path / "caf\xe9.py").write_bytes(LOOP_LATIN1.encode("latin-1"))
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--no-cache", *args],
                          input=LOOP_LATIN1.encode("latin-1"), capture_output=True, cwd=str(tmp_path), env=env)
    assert proc.returncode == 1, proc.stderr
    assert b"internal error" not in proc.stderr and b"GBL201" in proc.stdout


def test_generated_validator_is_fresh():
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_config_validator.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("line", ["max-unroll = 2.0", "max-file-size = 2e6", "[tool.gblint.confirm]\nworkers = 2.0"])
def test_a_float_where_an_integer_is_expected_is_an_error(tmp_path, line):
    (tmp_path / "pyproject.toml").write_text(f"[tool.gblint]\n{line}\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "a.py"], cwd=tmp_path, capture_output=True,
                          text=True)
    assert proc.returncode == 2 and "written without a decimal point" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
