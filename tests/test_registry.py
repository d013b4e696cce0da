"""gblint's copy of PyTorch's graph-break registry, and the GB ids the rules cite."""
import importlib.util
import subprocess
import sys

import pytest

from gblint.core import registry
from gblint.settings.catalog import catalog
from gblint.rules import ALL_RULES

from .conftest import ROOT


def test_packaged_data_matches_installed_torch():
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed")
    proc = subprocess.run([sys.executable, "scripts/update_gb_registry.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, ("the installed torch's gblint/data/gb_registry-X.Y.Z.json is stale: run "
                                  "scripts/update_gb_registry.py")


@pytest.mark.parametrize("release,count", [("2.13.0", 517), ("2.14.1", 561), ("2.15.0", 592)])
def test_registry_shape(release, count):
    """One file per measured release, each written from that release's graph_break_registry.json."""
    data = registry.load(release)
    assert data["torch_version"] == release
    assert len(data["entries"]) == count
    assert registry.gb_type("GB0025", release) == "Call to `torch._dynamo.graph_break()`"
    assert registry.gb_type("GB7000", release) == "graph break in loop"
    assert registry.RELEASES == ("2.13.0", "2.14.1", "2.15.0")


def test_releases_differ_in_ids_and_texts():
    """Releases add, drop and reword entries: each release's own data is what a diagnostic cites."""
    assert registry.entry("GB0060", "2.13.0") is not None and registry.entry("GB0060", "2.14.1") is None
    assert registry.entry("GB9193", "2.14.1") is None
    assert registry.gb_type("GB9193", "2.15.0") == "Call to a time function"
    assert registry.gb_type("GB9648", "2.13.0") == "Missing richcompare_impl override"
    assert registry.gb_type("GB9648", "2.14.1") == "Missing tp_richcompare_impl override"
    assert registry.known(("GB9193", "GB0007", "GB0060"), "2.13.0") == ("GB0007", "GB0060")
    assert registry.known(("GB9193", "GB0007", "GB0060"), "2.15.0") == ("GB9193", "GB0007")


def test_every_cited_id_exists():
    """Every id a rule or code cites is in the registry of some measured release (a rule that cites an
    id of one release only says so with a fact, gblint.core.versions.FACTS)."""
    cited = {i for row in catalog() for i in row["gb_ids"]}
    missing = sorted(i for i in cited if not any(registry.entry(i, r) for r in registry.RELEASES))
    assert missing == []
    assert len(cited) >= 45
    in_all = {i for i in cited if all(registry.entry(i, r) for r in registry.RELEASES)}
    assert cited - in_all == {"GB9193", "GB0376", "GB0377", "GB6815"}
    from gblint.core import versions
    for gb in cited - in_all:  # each is cited by a fact whose releases all have it
        facts = [f for f in versions.FACTS.values() if gb in f.text]
        assert facts, gb
        for f in facts:
            assert all(registry.entry(gb, r) for r in registry.RELEASES if registry.in_range(r, f.torch)), (gb, f.name)


def test_version_ranges():
    assert registry.in_range("2.13.0", ">=2.6")
    assert not registry.in_range("2.12.1", ">=2.13")
    assert registry.in_range("2.13.0", ">=2.6,<2.14")
    assert not registry.in_range("2.14", ">=2.6,<2.14")
    assert registry.in_range("2.13", ">=2.6")  # a missing part is zero


def test_version_ranges_read_as_pip_does():
    # a local label is ignored
    assert registry.in_range("2.13.0+cpu", ">=2.13")
    assert registry.in_range("2.13.0+cu128", ">=2.6,<2.14")
    # prereleases count (pip's prereleases=True) and order before their release
    assert registry.in_range("2.15.0a0", ">=2.13")
    assert registry.in_range("2.15.0a0+git1234abc", ">=2.13,<2.16")
    assert not registry.in_range("2.15.0a0", ">=2.15")
    assert not registry.in_range("2.15.0a0", "<2.15")  # PEP 440: `<V` never admits V's prereleases
    assert not registry.in_range("2.13.0.dev20250101", ">=2.13")
    # what PEP 440 cannot read is taken by its leading release numbers; an empty spec holds
    assert registry.in_range("2.13foo", ">=2.13")
    assert not registry.in_range("2.12foo", ">=2.13")
    assert registry.in_range("2.13", "")


def test_torch_version_setting_filters_rules():
    from gblint.settings.config import Settings
    from gblint.project.engine import SourceFile, check_sources
    text = "import torch\n\n@torch.compile\ndef f(x):\n    x = x.sin()\n    torch._dynamo.skip_frame()\n    return x\n"
    assert [d.code for d in check_sources([SourceFile("m.py", text)], Settings()).diagnostics] == ["GBL121"]
    old = Settings(torch_version="2.8")
    assert check_sources([SourceFile("m.py", text)], old).diagnostics == []


def test_rules_reference_is_generated():
    with open(f"{ROOT}/docs/rules.md") as fh:
        committed = fh.read()
    proc = subprocess.run([sys.executable, "-m", "gblint", "rules", "--format", "markdown"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.stdout == committed, "docs/rules.md is stale: gblint rules --format markdown > docs/rules.md"


def test_every_code_is_defined_once():
    from gblint.core.codes import CODES
    rule_codes = [rule.code for rule in ALL_RULES]
    assert len(rule_codes) == len(set(rule_codes))
    assert not set(rule_codes) & set(CODES), "a code both on a rule class and in gblint.core.codes.CODES"
    assert all(code == c.code for code, c in CODES.items())
    rows = catalog()
    assert [r["code"] for r in rows] == sorted(set(rule_codes) | set(CODES))
    names = [r["name"] for r in rows]
    assert len(names) == len(set(names))
    assert {r["effect"] for r in rows} <= {"break", "skip", "error", "info"}


def test_a_rule_s_effect_is_what_its_examples_report():
    """A rule that Dynamo cannot resume after says so on its class (``effect = "skip"``): its
    examples are reported with that effect under its own code."""
    from .conftest import lint
    seen = set()
    for rule in ALL_RULES:
        for example in rule.examples_fire:
            for d in lint(example):
                if d.code == rule.code:
                    assert d.effect == rule.effect, (rule.code, example)
                    seen.add(rule.effect)
    assert {"break", "skip"} <= seen <= {"break", "skip", "error"}


def test_reported_names_are_the_registry_s():
    """Every diagnostic (and so the editor's hover, which shows it) names its code as the
    catalogue does; a consequence also has the catalogue's effect."""
    import json
    rows = {r["code"]: r for r in catalog()}
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--isolated", "--no-cache", "--format", "json",
                           "--exit-zero", "tests/cases/examples"], cwd=ROOT, capture_output=True, text=True)
    diags = json.loads(proc.stdout)["diagnostics"]
    assert len({d["code"] for d in diags}) >= 25
    for d in diags:
        assert d["name"] == rows[d["code"]]["name"], d
        if rows[d["code"]]["family"] == "consequence":
            assert d["effect"] == rows[d["code"]]["effect"], d


def test_rule_classes_are_documented():
    for rule in ALL_RULES:
        assert rule.summary and rule.why and rule.hint and rule.source, rule.code
        assert rule.__class__.__doc__ is None or rule.__class__.__doc__
