"""Write gblint's copy of PyTorch's graph-break registry.

Reads ``torch/_dynamo/graph_break_registry.json`` from the installed torch *as a file*
(torch is located with ``importlib.util.find_spec`` and never imported) and writes
``gblint/data/gb_registry.json``: ``{"torch_version": str, "entries": {"GB0025":
{"gb_type", "explanation", "hints"}}}``.  gblint reads that file at run time.

Usage: python scripts/update_gb_registry.py [--check]
  --check   exit 1 when the packaged file differs from the installed torch's registry.
"""
import argparse
import importlib.metadata
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, os.pardir, "gblint", "data", "gb_registry.json")


def build() -> dict:
    """Return the registry data of the installed torch; raises SystemExit when torch is absent."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("torch is not installed")
    root = list(spec.submodule_search_locations)[0]
    with open(os.path.join(root, "_dynamo", "graph_break_registry.json"), encoding="utf-8") as fh:
        raw = json.load(fh)
    entries = {}
    for gb_id in sorted(raw):
        current = raw[gb_id][0]
        entries[gb_id] = {
            "gb_type": current["Gb_type"],
            "explanation": current["Explanation"],
            "hints": list(current["Hints"]),
        }
    version = importlib.metadata.version("torch").split("+")[0]
    return {"torch_version": version, "entries": entries}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    data = build()
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    if args.check:
        with open(OUT, encoding="utf-8") as fh:
            sys.exit(0 if fh.read() == text else 1)
    with open(OUT, "w", encoding="utf-8") as fh:
        fh.write(text)
    print(f"wrote {len(data['entries'])} entries for torch {data['torch_version']} to {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
