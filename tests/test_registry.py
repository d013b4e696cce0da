"""gblint's copy of PyTorch's graph-break registry, and the GB ids the rules cite."""
import importlib.util
import subprocess
import sys

import pytest

from gblint import registry
from gblint.catalog import catalog
from gblint.rules import ALL_RULES

from .conftest import ROOT


def test_packaged_data_matches_installed_torch():
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed")
    proc = subprocess.run([sys.executable, "scripts/update_gb_registry.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, "gblint/data/gb_registry.json is stale: run scripts/update_gb_registry.py"


def test_registry_shape():
    data = registry.load()
    assert data["torch_version"] == "2.13.0"
    assert len(data["entries"]) == 517
    assert registry.gb_type("GB0025") == "Call to `torch._dynamo.graph_break()`"
    assert registry.gb_type("GB7000") == "graph break in loop"


def test_every_cited_id_exists():
    cited = {i for row in catalog() for i in row["gb_ids"]}
    missing = sorted(i for i in cited if registry.entry(i) is None)
    assert missing == []
    assert len(cited) >= 45


def test_version_ranges():
    assert registry.in_range("2.13.0", ">=2.6")
    assert not registry.in_range("2.12.1", ">=2.13")
    assert registry.in_range("2.13.0", ">=2.6,<2.14")
    assert not registry.in_range("2.14", ">=2.6,<2.14")


def test_torch_version_setting_filters_rules():
    from gblint.config import Settings
    from gblint.engine import SourceFile, check_sources
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


def test_rule_classes_are_documented():
    for rule in ALL_RULES:
        assert rule.summary and rule.why and rule.hint and rule.source, rule.code
        assert rule.__class__.__doc__ is None or rule.__class__.__doc__
