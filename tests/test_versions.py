"""The torch and Python in force (gblint.core.versions): detection of the installed torch from its
distribution's metadata (fake distributions, no torch import), requires-python, the options and
the table, what verbose output and JSON record, and the facts that hold only on some versions."""
import json
import os
import subprocess
import sys

import pytest

from gblint.core import versions
from gblint.settings.config import ConfigError, Settings, parse_torch_version, settle_versions

from .conftest import ROOT, lint, write_tree

# a program whose diagnostics differ across the measured releases: random.random() breaks on 2.13
# only, time.time() breaks everywhere but as GB9193 from 2.15 (tests/fixtures/measured n01, n10)
PROGRAM = """\
import random
import time

import torch


@torch.compile
def f(x):
    a = random.random()
    b = time.time()
    return x * a + b
"""
RELEASE_DIAGNOSTICS = {  # line -> GB ids, per release
    "2.13.0": {9: ["GB0007"], 10: ["GB0007"]},
    "2.14.1": {10: ["GB0007"]},
    "2.15.0": {10: ["GB9193"]},
}


def fake_distribution(folder, version, name="torch"):
    """A folder holding only ``<name>-<version>.dist-info/METADATA``, as pip writes it."""
    info = folder / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    return folder


def run_with_fake_torch(tmp_path, version, *args):
    """``gblint check`` in a fresh interpreter whose sys.path starts with a fake torch ``version``
    (it shadows the installed torch, as importlib.metadata reads sys.path in order); returns
    ``(CompletedProcess, torch imported?)``. The run writes whether torch was imported to a file."""
    fake = fake_distribution(tmp_path / "fake", version)
    flag = tmp_path / "imported.txt"
    code = ("import sys\nfrom gblint.frontends import cli\nrc = cli.main(sys.argv[1:])\n"
            f"open({str(flag)!r}, 'w').write(str('torch' in sys.modules))\nsys.exit(rc)\n")
    env = dict(os.environ, PYTHONPATH=str(fake))
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=tmp_path,
                          env=env)
    return proc, flag.read_text() == "True"


@pytest.mark.parametrize("version", ["2.13.0", "2.14.1", "2.15.0", "2.14.0+cu128"])
def test_installed_torch_is_read_from_its_metadata(tmp_path, version):
    """Each measured release (and another build of one) is detected from a fake dist-info, torch is
    never imported, and the run predicts with that release's facts and registry."""
    (tmp_path / "prog.py").write_text(PROGRAM)
    proc, imported = run_with_fake_torch(tmp_path, version, "check", "--no-cache", "-v", "--format", "json",
                                         "--python-version", "3.11", "prog.py")
    assert proc.returncode == 1, proc.stderr
    assert not imported
    report = json.loads(proc.stdout)
    release = versions.release_for(version)
    assert report["versions"] == {"torch": version, "torch_from": "installed", "torch_release": release,
                                  "python": "3.11", "python_from": "option"}
    assert f"predicting torch {version} (installed) on Python 3.11 (--python-version)" in proc.stderr
    got = {d["line"]: d["gb_ids"] for d in report["diagnostics"]}
    assert got == RELEASE_DIAGNOSTICS[release]


def test_an_option_beats_the_installed_torch(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    proc, imported = run_with_fake_torch(tmp_path, "2.13.0", "check", "--no-cache", "--format", "json",
                                         "--torch-version", "2.15", "prog.py")
    report = json.loads(proc.stdout)
    assert report["versions"]["torch"] == "2.15" and report["versions"]["torch_from"] == "option"
    assert {d["line"]: d["gb_ids"] for d in report["diagnostics"]} == RELEASE_DIAGNOSTICS["2.15.0"]
    assert not imported


def test_detection_in_process_with_a_fake_distribution(tmp_path, monkeypatch):
    fake = fake_distribution(tmp_path, "2.14.1")
    monkeypatch.syspath_prepend(str(fake))
    monkeypatch.setattr(versions, "_INSTALLED", {})
    assert versions.installed_torch() == "2.14.1"
    assert versions.torch_of(Settings()) == "2.14.1"
    s = settle_versions(Settings(), None)
    assert (s.torch_version, s.torch_source) == ("2.14.1", "installed")


def test_no_torch_installed_means_the_newest_release(monkeypatch):
    import importlib.metadata

    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)
    monkeypatch.setattr(importlib.metadata, "version", missing)
    monkeypatch.setattr(versions, "_INSTALLED", {})
    assert versions.installed_torch() is None
    s = settle_versions(Settings(), None)
    assert (s.torch_version, s.torch_source) == (versions.NEWEST_TORCH, "default")
    assert "no torch installed" in versions.sentence(s)


def test_the_memo_spares_the_metadata_lookup(tmp_path, monkeypatch):
    """A warm run reads the memo written for the same sys.path folders and times; a changed folder
    (a distribution installed) makes it read the metadata again."""
    import importlib.metadata
    fake = fake_distribution(tmp_path / "site", "2.15.0")
    monkeypatch.syspath_prepend(str(fake))
    memo = str(tmp_path / "environment.json")
    monkeypatch.setattr(versions, "_INSTALLED", {})
    assert versions.installed_torch(memo) == "2.15.0"
    assert json.loads((tmp_path / "environment.json").read_text())["torch"] == "2.15.0"

    def fail(name):
        raise AssertionError("the memo should have answered")
    monkeypatch.setattr(importlib.metadata, "version", fail)
    monkeypatch.setattr(versions, "_INSTALLED", {})
    assert versions.installed_torch(memo) == "2.15.0"
    (fake / "torch-2.15.0.dist-info").rename(fake / "torch-2.14.1.dist-info")  # an upgrade: the folder changes
    ((fake / "torch-2.14.1.dist-info") / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.14.1\n")
    os.utime(fake, ns=(1, 1))
    monkeypatch.undo()
    monkeypatch.syspath_prepend(str(fake))
    monkeypatch.setattr(versions, "_INSTALLED", {})
    assert versions.installed_torch(memo) == "2.14.1"


def test_a_foreign_memo_is_ignored(tmp_path, monkeypatch):
    memo = tmp_path / "environment.json"
    memo.write_text(json.dumps({"key": versions._environment_key(), "torch": 3}))
    monkeypatch.setattr(versions, "_INSTALLED", {})
    assert versions.installed_torch(str(memo)) == versions.installed_torch()
    os.symlink(tmp_path / "nowhere", tmp_path / "link.json")
    monkeypatch.setattr(versions, "_INSTALLED", {})
    assert versions._read_memo(str(tmp_path / "link.json"), versions._environment_key()) is False


@pytest.mark.parametrize("version,release,supported", [
    ("2.13.0", "2.13.0", True), ("2.13.1", "2.13.0", True), ("2.14", "2.14.1", True), ("2.14.0+cu128", "2.14.1", True),
    ("2.15.0a0+git1234", "2.15.0", True), ("2.8", "2.13.0", False), ("2.16.0", "2.15.0", False)])
def test_release_for(version, release, supported):
    assert versions.release_for(version) == release
    assert versions.is_supported(version) is supported


def test_torch_version_values():
    assert parse_torch_version("2.14") == "2.14"
    assert parse_torch_version(" 2.15.0+cu132 ") == "2.15.0+cu132"
    for bad in ("abc", "2", "1.13", "3.0", "2.13foo"):
        with pytest.raises(ConfigError, match="not a torch version"):
            parse_torch_version(bad, "--torch-version")


def test_cli_rejects_a_bad_torch_version_and_warns_on_an_unmeasured_one(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    from .conftest import run_cli
    bad = run_cli("check", "--torch-version", "two", str(tmp_path / "prog.py"))
    assert bad.returncode == 2 and "--torch-version: 'two' is not a torch version" in bad.stderr
    old = run_cli("check", "--no-cache", "--torch-version", "2.8", "--format", "json", str(tmp_path / "prog.py"))
    assert "torch 2.8 is none of the releases gblint was measured on" in old.stderr
    assert json.loads(old.stdout)["versions"]["torch_release"] == "2.13.0"


@pytest.mark.parametrize("requires,running,chosen", [
    (">=3.9", (3, 11, 7), None), (">=3.12", (3, 11, 7), (3, 12)), ("~=3.13", (3, 11, 7), (3, 13)),
    (">=3.10,<3.12", (3, 12, 1), (3, 10)), ("!=3.11.*", (3, 11, 7), (3, 9)), (">=3.20", (3, 11, 7), None)])
def test_python_for_requires_python(requires, running, chosen):
    assert versions.python_for(requires, running) == chosen


def test_requires_python_decides_the_python(tmp_path):
    """The checked project's requires-python chooses the Python when the running interpreter is not
    admitted; an option or the table beats it; a bad specifier is a configuration error."""
    from .conftest import run_cli
    newer = (sys.version_info[0], sys.version_info[1] + 1)
    write_tree(tmp_path, {"pyproject.toml": f'[project]\nname = "p"\nrequires-python = ">={newer[0]}.{newer[1]}"\n',
                          "pkg/prog.py": PROGRAM})
    proc = run_cli("check", "--no-cache", "-v", "--format", "json", "pkg/prog.py", cwd=tmp_path)
    got = json.loads(proc.stdout)["versions"]
    assert (got["python"], got["python_from"]) == ("%d.%d" % newer, "requires-python")
    assert f"requires-python '>={newer[0]}.{newer[1]}'" in proc.stderr
    proc = run_cli("check", "--no-cache", "--format", "json", "--python-version", "3.11", "pkg/prog.py", cwd=tmp_path)
    assert json.loads(proc.stdout)["versions"]["python_from"] == "option"
    isolated = run_cli("check", "--no-cache", "--isolated", "--format", "json", "pkg/prog.py", cwd=tmp_path)
    assert json.loads(isolated.stdout)["versions"]["python_from"] == "interpreter"
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nrequires-python = "3.12+"\n')
    proc = run_cli("check", "--no-cache", "pkg/prog.py", cwd=tmp_path)
    assert proc.returncode == 2 and "requires-python" in proc.stderr and "not a version specifier" in proc.stderr
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nrequires-python = ">=3.12"\n'
                                             '[tool.gblint]\npython-version = "3.13"\ntorch-version = "2.14"\n')
    got = json.loads(run_cli("check", "--no-cache", "--format", "json", "pkg/prog.py", cwd=tmp_path).stdout)["versions"]
    assert got == {"torch": "2.14", "torch_from": "configuration", "torch_release": "2.14.1", "python": "3.13",
                   "python_from": "configuration"}


def test_the_table_rejects_a_bad_torch_version(tmp_path):
    from .conftest import run_cli
    write_tree(tmp_path, {"pyproject.toml": '[tool.gblint]\ntorch-version = "2.x"\n', "prog.py": PROGRAM})
    proc = run_cli("check", "prog.py", cwd=tmp_path)
    assert proc.returncode == 2 and "torch-version" in proc.stderr


def test_flake8_takes_the_torch_version(tmp_path):
    (tmp_path / "w.py").write_text(PROGRAM)
    run = [sys.executable, "-m", "flake8", "--select", "GBL", "w.py"]
    out = {v: subprocess.run(run + ["--gblint-torch-version", v, "--gblint-python-version", "3.11"], cwd=tmp_path,
                             capture_output=True, text=True).stdout for v in ("2.13", "2.14")}
    assert "w.py:9:" in out["2.13"] and "w.py:9:" not in out["2.14"] and "w.py:10:" in out["2.14"]


def test_facts_name_their_programs_and_codes():
    """Every fact has a range, a text, a section of docs/semantics.md that cites it, and programs that
    exist in the repository; every code it names is a code."""
    from gblint.settings.catalog import catalog
    codes = {r["code"] for r in catalog()}
    with open(os.path.join(ROOT, "docs", "semantics.md"), encoding="utf-8") as fh:
        semantics = fh.read()
    for f in versions.FACTS.values():
        assert f.torch or f.python, f.name
        assert set(f.codes) <= codes, f.name
        for prog in f.programs:
            folder, _, name = prog.rpartition("/")
            base = {"": "tests/cases/examples", "measured": "tests/fixtures/measured", "found": "tests/cases/found",
                    "real": "tests/cases/real", "kinds": "tests/cases/kinds"}[folder]
            assert os.path.isfile(os.path.join(ROOT, base, name)), prog
            assert name in semantics, f"{prog} is not cited in docs/semantics.md"
    with pytest.raises(KeyError):
        versions.holds("no-such-fact", "2.13.0", (3, 11))


@pytest.mark.parametrize("fact,torch,python,holds", [
    ("random-state-breaks", "2.13.0", (3, 11), True), ("random-state-breaks", "2.14.1", (3, 11), False),
    ("time-call-gb9193", "2.14.1", (3, 11), False), ("time-call-gb9193", "2.15.0+cu132", (3, 12), True),
    ("comprehension-inlined", "2.13.0", (3, 11), False), ("comprehension-inlined", "2.13.0", (3, 12), True),
    ("cpu-amp-autocast-fails", "2.15.0", (3, 12), False), ("cpu-amp-autocast-fails", "2.13.0", (3, 13), True)])
def test_fact_ranges(fact, torch, python, holds):
    assert versions.holds(fact, torch, python) is holds


def test_rules_show_the_versions_each_code_holds_for():
    from .conftest import run_cli
    rows = {r["code"]: r for r in json.loads(run_cli("rules", "--format", "json").stdout)}
    assert rows["GBL121"]["torch_versions"] == ">=2.13"
    assert (rows["GBL404"]["torch_versions"], rows["GBL404"]["python_versions"]) == ("", ">=3.13")
    assert [f["name"] for f in rows["GBL110"]["facts"]] == ["random-state-breaks", "time-call-gb9193"]
    assert rows["GBL110"]["facts"][0]["versions"] == "torch <2.14"
    assert all("versions" in r and "facts" in r for r in rows.values())
    text = run_cli("rules").stdout
    assert "on torch <2.14: `random.random()`" in text
    assert any(line.startswith("GBL404") and "torch any Python >=3.13" in line for line in text.splitlines())
    with open(os.path.join(ROOT, "docs", "rules.md"), encoding="utf-8") as fh:
        page = fh.read()
    row = next(line for line in page.splitlines() if line.startswith("| [GBL404]"))
    assert "| every torch, Python >=3.13 |" in row
    assert "<br>On Python >=3.12: comprehensions are inlined" in page


def test_python_only_rules_are_chosen_by_python(monkeypatch):
    """A rule's ``python_versions`` keeps it out of the runs on other Pythons."""
    from gblint.project import engine
    from gblint.rules import ALL_RULES
    rule = next(r for r in ALL_RULES if r.code == "GBL107")
    monkeypatch.setattr(type(rule), "python_versions", ">=3.12")
    monkeypatch.setattr(engine, "_RULES_BY_TYPE", {})
    text = "import torch\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x\n"
    assert [d.code for d in lint(text, python_version=(3, 12), torch_version="2.13.0")] == ["GBL107"]
    assert lint(text, python_version=(3, 11), torch_version="2.13.0") == []
