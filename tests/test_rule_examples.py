"""Every rule's own examples: lines marked ``# expect: CODE`` must be reported with exactly that
code, and nothing else may be reported; clean examples must yield nothing."""
import re

import pytest

from gblint.rules import ALL_RULES

from .conftest import lint

EXPECT = re.compile(r"#\s*expect:\s*(GBL\d{3})")


def _expected(text):
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        m = EXPECT.search(line)
        if m:
            out.append((m.group(1), i))
    return sorted(out)


FIRE = [(r.code, i, ex) for r in ALL_RULES for i, ex in enumerate(r.examples_fire)]
CLEAN = [(r.code, i, ex) for r in ALL_RULES for i, ex in enumerate(r.examples_clean)]


def test_every_rule_has_examples():
    for rule in ALL_RULES:
        assert rule.examples_fire, f"{rule.code} has no must-fire example"
        assert rule.examples_clean, f"{rule.code} has no must-not-fire example"
        assert any(rule.code in ex for ex in rule.examples_fire), f"{rule.code} never expects its own code"


@pytest.mark.parametrize("code,i,example", FIRE, ids=[f"{c}-fire{i}" for c, i, _ in FIRE])
def test_fires(code, i, example):
    got = sorted((d.code, d.line) for d in lint(example, python_version=(3, 11)))
    assert got == _expected(example)


@pytest.mark.parametrize("code,i,example", CLEAN, ids=[f"{c}-clean{i}" for c, i, _ in CLEAN])
def test_clean(code, i, example):
    assert lint(example, python_version=(3, 11)) == []
