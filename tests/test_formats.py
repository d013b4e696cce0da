"""``--format sarif`` (validated against the SARIF 2.1.0 schema), ``--format github``,
``--statistics`` and ``--output-file``."""
import io
import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

from gblint.settings.catalog import catalog
from gblint.core.diagnostics import Diagnostic, Edit, Fix, TraceFrame
from gblint.project.engine import Report
from gblint.frontends.output import github_escape_data, github_escape_property, sarif_log, write_github

from .conftest import ROOT, run_cli

jsonschema = pytest.importorskip("jsonschema")

SCHEMA_PATH = os.path.join(os.path.dirname(__file__), "data", "sarif-schema-2.1.0.json")

MAIN = textwrap.dedent("""\
    import torch
    from helpers import helper


    @torch.compile
    def f(x):
        for i in range(3):
            x = helper(x)
        return x


    @torch.compile(fullgraph=True)
    def g(x):
        if x.sum() > 0:
            return x
        return -x
    """)
HELPERS = "def helper(x):\n    print(x)\n    return x * 2\n"

# ::level file=F,line=L,col=C,endLine=L,endColumn=C,title=GBLnnn name::message (escaped, one line)
GITHUB_LINE = re.compile(
    r"^::(?P<level>error|warning|notice) file=(?P<file>[^,:\r\n]+),line=(?P<line>\d+),col=(?P<col>\d+),"
    r"endLine=\d+,endColumn=\d+,title=(?P<code>GBL\d{3}) [a-z0-9-]+::(?P<message>[^\r\n]+)$")


@pytest.fixture(scope="module")
def validator():
    with open(SCHEMA_PATH, encoding="utf-8") as fh:
        schema = json.load(fh)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "main.py").write_text(MAIN)
    (tmp_path / "helpers.py").write_text(HELPERS)
    return tmp_path


def gblint(*args, cwd):
    return subprocess.run([sys.executable, "-m", "gblint", "check", "--isolated", *args], cwd=cwd,
                          capture_output=True, text=True)


def _errors(validator, log):
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(log)]


def test_sarif_validates_and_carries_results(project, validator):
    result = gblint("--format", "sarif", ".", cwd=project)
    assert result.returncode == 1, result.stderr
    log = json.loads(result.stdout)
    assert _errors(validator, log) == []
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "gblint" and driver["version"]
    assert driver["informationUri"] == pathlib.Path(ROOT, "README.md").as_uri()  # the checkout's README
    rules = driver["rules"]
    assert [r["id"] for r in rules] == [r["code"] for r in catalog()]
    by_id = {r["id"]: r for r in rules}
    # the code's link is gblint's own page; the rule's long text is its fullDescription
    assert by_id["GBL201"]["helpUri"] == pathlib.Path(ROOT, "docs", "rules", "GBL201.md").as_uri()  # the checkout's page
    assert by_id["GBL001"]["helpUri"].endswith("/docs/rules/GBL001.md")
    assert all(r["shortDescription"]["text"] for r in rules)
    assert "Dynamo cannot resume inside a loop" in by_id["GBL201"]["fullDescription"]["text"]
    assert "Use instead" in by_id["GBL201"]["help"]["markdown"]

    results = {(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]): r
               for r in run["results"]}
    loop = results[("GBL201", "helpers.py")]
    assert loop["level"] == "warning"
    assert rules[loop["ruleIndex"]]["id"] == "GBL201"
    assert loop["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 2, "startColumn": 5, "endLine": 2, "endColumn": 13}
    assert [(x["physicalLocation"]["artifactLocation"]["uri"], x["physicalLocation"]["region"]["startLine"])
            for x in loop["relatedLocations"]] == [("main.py", 8), ("helpers.py", 2)]
    assert len(loop["message"]["text"]) <= 120 and "in a loop" in loop["message"]["text"]
    assert "Dynamo cannot resume inside a loop" in loop["properties"]["explanation"]
    assert results[("GBL401", "main.py")]["level"] == "error"
    assert run["invocations"][0]["executionSuccessful"] is True


def _diag(**kw):
    base = dict(path="pkg/model.py", line=3, column=5, end_line=3, end_column=17, code="GBL102", name="tensor-item",
                effect="break", message="`.item()`: graph break", gb_ids=("GB0124",), hint="keep it a tensor")
    base.update(kw)
    return Diagnostic(**base)


def test_sarif_fixes_errors_and_unknown_paths_validate(validator, tmp_path):
    fix = Fix("Use a tensor", "unsafe", (Edit(3, 9, 3, 17, "x"), Edit(4, 1, 5, 1, "")))
    outside = os.path.join(os.path.dirname(os.getcwd()), "elsewhere", "m.py")
    report = Report([_diag(fix=fix), _diag(path=outside, effect="info", code="GBL001", name="syntax-error",
                                           gb_ids=(), line=1, column=1, end_line=1, end_column=1,
                                           trace=(TraceFrame(outside, 1, "f"),)),
                     _diag(code="GBL999", name="future-rule")],
                    2, [{"path": "pkg/model.py", "message": "internal error: boom"}])
    log = sarif_log(report)
    assert _errors(validator, log) == []
    run = log["runs"][0]
    first, second, third = run["results"]
    (change,) = first["fixes"][0]["artifactChanges"]
    assert first["fixes"][0]["description"]["text"] == "Use a tensor (unsafe)"
    assert change["artifactLocation"]["uri"] == "pkg/model.py"
    assert change["replacements"][0] == {"deletedRegion": {"startLine": 3, "startColumn": 9, "endLine": 3,
                                                           "endColumn": 17}, "insertedContent": {"text": "x"}}
    assert second["level"] == "note" and "fixes" not in second
    assert second["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("file:///")
    assert run["tool"]["driver"]["rules"][third["ruleIndex"]]["id"] == "GBL999"
    assert run["invocations"][0]["executionSuccessful"] is False
    assert run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"] == "internal error: boom"


def test_github_format_is_workflow_commands(project):
    result = gblint("--format", "github", ".", cwd=project)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines
    parsed = []
    for line in lines:
        m = GITHUB_LINE.match(line)
        assert m, line
        parsed.append(m.groupdict())
    assert {"level": "warning", "file": "helpers.py", "line": "2", "col": "5", "code": "GBL201"} in \
        [{k: p[k] for k in ("level", "file", "line", "col", "code")} for p in parsed]
    assert ("error", "GBL401", "main.py") in [(p["level"], p["code"], p["file"]) for p in parsed]
    message = next(p["message"] for p in parsed if p["code"] == "GBL201")
    assert "%0Ahint: " in message and "%0Ahttps://" in message


def test_github_levels_and_escaping():
    report = Report([_diag(path="a,b:c%.py", message="50% of\r\nit: x, y", effect="info", hint=""),
                     _diag(effect="error"), _diag(effect="skip")], 1,
                    [{"path": "x.py", "message": "internal error: a\nb"}])
    out = io.StringIO()
    write_github(report, out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("::notice file=a%2Cb%3Ac%25.py,line=3,col=5,endLine=3,endColumn=17,"
                               "title=GBL102 tensor-item::50%25 of it: x, y%0A50%25 of%0D%0Ait: x, y%0A")
    assert lines[1].startswith("::error ") and lines[2].startswith("::warning ")
    assert lines[3] == "::error file=x.py,title=gblint internal error::internal error: a%0Ab"
    assert github_escape_property("t:1,2%\n") == "t%3A1%2C2%25%0A"
    assert github_escape_data("a:b,c") == "a:b,c"


def test_statistics_and_output_file(project):
    stats = gblint("--statistics", ".", cwd=project)
    assert stats.returncode == 1
    rows = [line.split() for line in stats.stdout.splitlines()]
    assert ["1", "GBL201", "break-in-loop"] in rows
    assert all(len(r) == 3 and r[0].isdigit() and re.fullmatch(r"GBL\d{3}", r[1]) for r in rows)

    out = project / "report.sarif"
    written = gblint("--format", "sarif", "--output-file", str(out), "main.py", "helpers.py", cwd=project)
    assert written.returncode == 1 and written.stdout == ""
    assert json.loads(out.read_text())["runs"][0]["results"]

    out = project / "annotations.txt"
    written = gblint("--format", "github", "-o", str(out), "--exit-zero", "main.py", "helpers.py", cwd=project)
    assert written.returncode == 0 and written.stdout == ""
    assert all(GITHUB_LINE.match(line) for line in out.read_text().splitlines())


def test_clean_project_outputs(tmp_path):
    (tmp_path / "ok.py").write_text("import torch\n\n\n@torch.compile\ndef f(x):\n    return x.sin()\n")
    github = gblint("--format", "github", ".", cwd=tmp_path)
    assert (github.returncode, github.stdout) == (0, "")
    sarif = gblint("--format", "sarif", ".", cwd=tmp_path)
    assert sarif.returncode == 0 and json.loads(sarif.stdout)["runs"][0]["results"] == []


def test_json_coverage_lists_regions_and_reached_functions(tmp_path):
    """`coverage` names each compiled region and every function its calls reach, across files;
    a call gblint cannot resolve is not counted as reached."""
    (tmp_path / "helpers.py").write_text(
        "def scale(x):\n    return x * 2\n\n\ndef unused(x):\n    return x\n")
    (tmp_path / "main.py").write_text(
        "import torch\nfrom helpers import scale\n\n\ndef inner(x):\n    return scale(x) + 1\n\n\n"
        "@torch.compile\ndef step(x, fn):\n    return fn(inner(x))\n")
    proc = run_cli("check", "--format", "json", "--exit-zero", "--no-cache", str(tmp_path), cwd=str(tmp_path))
    doc = json.loads(proc.stdout)
    cov = doc["coverage"]
    assert [(os.path.basename(r["path"]), r["function"], r["line"]) for r in cov["regions"]] == [("main.py", "step", 10)]
    reached = sorted((os.path.basename(f["path"]), f["function"], f["line"]) for f in cov["functions"])
    assert reached == [("helpers.py", "scale", 1), ("main.py", "inner", 5), ("main.py", "step", 10)]


def test_json_coverage_unfollowed_lists_only_calls_into_unknown_code(tmp_path):
    """A method of the frame's own ``*args``/``**kwargs`` and a library base's method reached
    through ``super()`` are the library's calls, not gaps, and so is a table of library functions
    indexed by a run-time key (each entry is called maybe); a call on an unknown object is one,
    named with its reason."""
    (tmp_path / "main.py").write_text(textwrap.dedent("""\
        from collections import OrderedDict

        import torch


        class Table(OrderedDict):
            def __setitem__(self, key, value):
                super().__setitem__(key, value)


        HANDLERS = {"a": torch.sin, "b": torch.cos}


        @torch.compile
        def step(x, name, fn, *args, **kwargs):
            kwargs.pop("legacy", None)
            args.count(1)
            table = Table()
            table["x"] = x
            return HANDLERS[name](x) * fn(x)
        """))
    doc = json.loads(run_cli("check", "--format", "json", "--exit-zero", "--no-cache", str(tmp_path),
                             cwd=str(tmp_path)).stdout)
    cov = doc["coverage"]
    assert ("main.py", "Table.__setitem__") in {(os.path.basename(f["path"]), f["function"]) for f in cov["functions"]}
    assert [(u["function"], u["call"]) for u in cov["unfollowed"]] == [("step", "fn")]
    assert "known only when the code runs" in cov["unfollowed"][0]["reason"]


def test_json_coverage_empty_without_regions(tmp_path):
    (tmp_path / "plain.py").write_text("def f(x):\n    return x\n")
    doc = json.loads(run_cli("check", "--format", "json", "--no-cache", str(tmp_path), cwd=str(tmp_path)).stdout)
    assert doc["coverage"] == {"regions": [], "functions": [], "unfollowed": [], "switched_off": [], "complete": False}


def test_sarif_and_github_carry_the_condition(validator, tmp_path):
    (tmp_path / "m.py").write_text("import torch\n\n\n@torch.compile\ndef f(x, labels=None):\n    x = x + 1\n"
                                   "    if labels is not None:\n        print(labels)\n    return x\n")
    log = json.loads(gblint("--format", "sarif", "m.py", cwd=tmp_path).stdout)
    assert _errors(validator, log) == []
    [result] = log["runs"][0]["results"]
    assert result["properties"]["certainty"] == "conditional"
    assert result["properties"]["condition"] == "when `labels is not None`"
    assert result["message"]["text"].endswith("(when `labels is not None`)")
    github = gblint("--format", "github", "m.py", cwd=tmp_path).stdout
    assert "(when `labels is not None`)" in github
