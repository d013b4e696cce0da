"""README.md tells the truth: its configuration table is the schema's, a mistyped key names the
close one, its install lines work from a clone, its links resolve, its first example's output is
what gblint prints, and each bundled example's docstring names exactly what gblint reports there.

The examples' convention: every ``GBLnnn line N`` in an example's module docstring is a diagnostic
``gblint check examples/`` reports in that file, and every diagnostic reported there is named so
(an example with none says so in words and names no code).
"""
import ast
import json
import os
import re
import subprocess
import sys

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

from gblint.settings.config import Settings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
SCHEMA = os.path.join(ROOT, "gblint", "data", "config.schema.json")
CLAIM = re.compile(r"\b(GBL\d{3}) line (\d+)\b")


def _read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def _gblint(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "gblint", *args], capture_output=True, text=True, cwd=cwd)


# ------------------------------------------------------------------ configuration

def test_the_configuration_table_is_the_schemas():
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_config_table.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    schema = json.loads(_read(SCHEMA))
    readme = _read(README)
    for key, node in schema["properties"].items():
        for sub in node.get("properties", {None: None}):
            name = f"{key}.{sub}" if sub else key
            assert f"| `{name}` |" in readme, name


def test_the_schemas_defaults_are_gblints():
    schema = json.loads(_read(SCHEMA))["properties"]
    s = Settings()
    fields = {"select": list(s.select), "ignore": list(s.ignore), "exclude": list(s.exclude),
              "per-file-ignores": s.per_file_ignores, "respect-gitignore": s.respect_gitignore,
              "entry-points": list(s.entry_points), "max-unroll": s.max_unroll, "follow-imports": list(s.follow_imports),
              "cache": s.cache, "report-error-paths": s.error_paths, "report-conditional": s.conditional,
              "max-file-size": s.max_file_size}
    for key, value in fields.items():
        assert schema[key]["default"] == value, key
    assert "default" not in schema["python-version"] and "default" not in schema["torch-version"]


def test_a_mistyped_key_names_the_close_one(tmp_path):
    (tmp_path / "m.py").write_text("import torch\n\n\n@torch.compile\ndef f(x):\n    return x\n")
    (tmp_path / "pyproject.toml").write_text('[tool.gblint]\nmax-unrol = 4\n')
    proc = _gblint("check", "m.py", cwd=str(tmp_path))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "unknown [tool.gblint] key(s): max-unrol (did you mean `max-unroll`?)" in proc.stderr, proc.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.gblint.confirm]\ntimout = 5\n')
    proc = _gblint("check", "m.py", cwd=str(tmp_path))
    assert proc.returncode == 2 and "timout (did you mean `timeout`?)" in proc.stderr, proc.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.gblint]\nzzzz = 4\n')
    proc = _gblint("check", "m.py", cwd=str(tmp_path))
    assert proc.returncode == 2 and "zzzz; allowed:" in proc.stderr, proc.stderr  # nothing close: no guess


# ------------------------------------------------------------------ install lines and links

def test_install_lines_work_from_a_clone():
    """No index serves gblint: every install line installs the checkout (``-e .``), and every
    extra it names is one pyproject.toml declares."""
    extras = set(tomllib.loads(_read(os.path.join(ROOT, "pyproject.toml")))["project"]["optional-dependencies"])
    for name in ("README.md", "docs/editors.md"):
        text = _read(os.path.join(ROOT, name))
        assert not re.search(r"pip install ['\"]?gblint\b", text), name
        assert not re.search(r"gblint\[\w+\]", text), name
        for extra in re.findall(r"pip install -e \"\.\[(\w+)\]\"", text):
            assert extra in extras, (name, extra)


def _links(text):
    """Relative link targets of markdown text (``[x](path)``), anchors dropped."""
    out = []
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks and spans hold code, not links
    text = re.sub(r"`[^`\n]*`", "", text)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        out.append(target.split("#", 1)[0])
    return out


def test_links_resolve():
    """Every relative link of the README and docs/ points at a file that exists, every rule page
    the README names exists, and nothing links the repository that does not exist."""
    for folder, names in ((ROOT, ["README.md"]), (os.path.join(ROOT, "docs"),
                                                  [n for n in os.listdir(os.path.join(ROOT, "docs")) if n.endswith(".md")])):
        for name in names:
            text = _read(os.path.join(folder, name))
            for target in _links(text):
                assert os.path.exists(os.path.join(folder, target)), (name, target)
    readme = _read(README)
    for page in re.findall(r"docs/rules/(GBL\d{3})\.md", readme):
        assert os.path.isfile(os.path.join(ROOT, "docs", "rules", f"{page}.md")), page
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if not tracked:  # not a git checkout: every file but caches and the measured programs
        tracked = [os.path.relpath(os.path.join(d, n), ROOT) for d, _dirs, files in os.walk(ROOT) for n in files
                   if not any(p in d for p in (".git", "__pycache__", ".cache", ".venvs", ".gblint_cache"))]
    for name in tracked:
        if name.endswith((".py", ".md", ".j2", ".json", ".toml")) and not name.startswith("tests/cases") \
                and not name.endswith("test_readme.py") and os.path.isfile(os.path.join(ROOT, name)):
            assert "github.com/gblint/gblint" not in _read(os.path.join(ROOT, name)), name


def test_the_rule_line_and_page_name_the_local_page():
    out = _gblint("check", "--show-source", "examples/vision.py").stdout
    pages = re.findall(r"= rule: `gblint rule (GBL\d{3})` \((docs/rules/GBL\d{3}\.md)\)", out)
    assert pages and all(os.path.isfile(os.path.join(ROOT, p)) and p.endswith(f"{c}.md") for c, p in pages)
    page = _gblint("rule", "GBL201").stdout
    assert "This page: `docs/rules/GBL201.md`" in page
    data = json.loads(_gblint("check", "--format", "json", "examples/gpt.py").stdout)
    for d in data["diagnostics"]:
        assert d["rule_url"].startswith("file://") and d["rule_url"].endswith(f"docs/rules/{d['code']}.md")


# ------------------------------------------------------------------ examples

def test_the_first_example_output_is_what_gblint_prints():
    readme = _read(README)
    start = readme.index("$ gblint check examples/\n") + len("$ gblint check examples/\n")
    shown = readme[start:readme.index("```", start)]
    assert _gblint("check", "examples/").stdout == shown
    start = readme.index("$ gblint check --show-source examples/vision.py\n")
    start += len("$ gblint check --show-source examples/vision.py\n")
    shown = readme[start:readme.index("...\n```", start)]
    assert _gblint("check", "--show-source", "examples/vision.py").stdout.startswith(shown)


def _examples():
    for directory, _dirs, files in os.walk(os.path.join(ROOT, "examples")):
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.relpath(os.path.join(directory, name), ROOT)


def test_every_examples_docstring_names_what_gblint_reports():
    data = json.loads(_gblint("check", "--format", "json", "examples/").stdout)
    examples = list(_examples())
    assert len(examples) >= 4
    for path in examples:
        doc = ast.get_docstring(ast.parse(_read(os.path.join(ROOT, path)))) or ""
        claimed = sorted((code, int(line)) for code, line in CLAIM.findall(doc))
        reported = sorted((d["code"], d["line"]) for d in data["diagnostics"] if d["path"] == path)
        assert claimed == reported, (path, claimed, reported)
        if not reported:
            assert "reports nothing" in doc, path
