#!/usr/bin/env python3
"""Write README.md's configuration table from ``gblint/data/config.schema.json``.

    python3 scripts/gen_config_table.py          # rewrite the table between the README's markers
    python3 scripts/gen_config_table.py --check  # exit 1 when the README's table is not the schema's

One row per key of ``[tool.gblint]`` (and of ``[tool.gblint.confirm]``): its ``title`` (what it
does), its ``description`` (the values allowed, as configuration errors say it) and its
``default``. ``tests/test_readme.py`` fails when the README and the schema differ.
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = os.path.join(ROOT, "gblint", "data", "config.schema.json")
README = os.path.join(ROOT, "README.md")
START = "<!-- config-table:start (scripts/gen_config_table.py writes it from gblint/data/config.schema.json) -->"
END = "<!-- config-table:end -->"


def _toml(value) -> str:
    """``value`` as TOML writes it (the defaults are lists of strings, tables, booleans, numbers, strings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{}" if not value else "{ " + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value)


def _rows(properties: dict, definitions: dict, prefix: str = ""):
    for key, node in properties.items():
        if "properties" in node:  # a table of its own: its keys
            yield from _rows(node["properties"], definitions, f"{prefix}{key}.")
            continue
        described = node.get("description") or definitions.get(node.get("$ref", "").rsplit("/", 1)[-1], {}).get(
            "description", "")
        default = f"`{_toml(node['default'])}`" if "default" in node else "unset"
        cell = lambda text: text.replace("|", "\\|")  # noqa: E731
        yield f"| `{prefix}{key}` | {cell(node.get('title', ''))} | {cell(described)} | {default} |"


def table() -> str:
    """The README's table, markers included."""
    with open(SCHEMA, encoding="utf-8") as fh:
        schema = json.load(fh)
    lines = [START, "| key | what it does | value | default |", "|---|---|---|---|",
             *_rows(schema["properties"], schema.get("definitions", {})), END]
    return "\n".join(lines)


def updated(readme: str) -> str:
    """``readme`` with its table replaced by :func:`table`. Raises ValueError without the markers."""
    start, end = readme.index(START), readme.index(END) + len(END)
    return readme[:start] + table() + readme[end:]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    with open(README, encoding="utf-8") as fh:
        readme = fh.read()
    new = updated(readme)
    if "--check" in argv:
        if new != readme:
            print("README.md's configuration table is not the schema's: run scripts/gen_config_table.py",
                  file=sys.stderr)
            return 1
        return 0
    with open(README, "w", encoding="utf-8") as fh:
        fh.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
