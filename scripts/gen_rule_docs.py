#!/usr/bin/env python3
"""Write gblint's rule reference from the code registry: ``docs/rules.md`` (the index, also
``gblint rules --format markdown``) and ``docs/rules/GBLnnn.md`` for every code (also ``gblint
rule GBLnnn``), with :mod:`gblint.frontends.rule_pages`.

    python3 scripts/gen_rule_docs.py          # write them (and remove pages of codes that are gone)
    python3 scripts/gen_rule_docs.py --check  # exit 1, naming the stale files, when they drift

``tests/test_rule_pages.py`` runs the check.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def stale(files):
    """The generated paths whose committed text differs, and the pages of codes that are gone."""
    out = []
    for rel, text in files.items():
        path = os.path.join(ROOT, rel)
        try:
            with open(path, encoding="utf-8") as fh:
                if fh.read() == text:
                    continue
        except FileNotFoundError:
            pass
        out.append(rel)
    pages = os.path.join(ROOT, "docs", "rules")
    if os.path.isdir(pages):
        out += [f"docs/rules/{n}" for n in sorted(os.listdir(pages)) if f"docs/rules/{n}" not in files]
    return out


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    from gblint.frontends.rule_pages import generated_docs
    files = generated_docs()
    drift = stale(files)
    if "--check" in argv:
        for rel in drift:
            print(f"{rel} is stale: run scripts/gen_rule_docs.py", file=sys.stderr)
        return 1 if drift else 0
    os.makedirs(os.path.join(ROOT, "docs", "rules"), exist_ok=True)
    for rel in drift:
        path = os.path.join(ROOT, rel)
        if rel in files:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(files[rel])
        else:
            os.remove(path)
        print(f"wrote {rel}" if rel in files else f"removed {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
