"""Write gblint's copy of PyTorch's graph-break registry for the installed torch release.

Reads ``torch/_dynamo/graph_break_registry.json`` from the installed torch *as a file*
(torch is located with ``importlib.util.find_spec`` and never imported) and writes
``gblint/data/gb_registry-X.Y.Z.json`` for its release: ``{"torch_version": str, "entries":
{"GB0025": {"gb_type", "explanation", "hints"}}}`` (the current version of each entry). gblint
reads the file of the release in force at run time (``gblint.core.registry``). Run it once under each
measured release (``gblint.core.registry.RELEASES``), e.g. ``.venv-t215/bin/python
scripts/update_gb_registry.py``: it needs only the standard library.

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
DATA = os.path.join(HERE, os.pardir, "gblint", "data")


def out_file(version: str) -> str:
    """The packaged file of torch ``version`` (``"2.14.1"``)."""
    return os.path.normpath(os.path.join(DATA, f"gb_registry-{version}.json"))


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
    out = out_file(data["torch_version"])
    if args.check:
        try:
            with open(out, encoding="utf-8") as fh:
                sys.exit(0 if fh.read() == text else 1)
        except FileNotFoundError:
            sys.exit(f"{out}: no registry data for torch {data['torch_version']}")
    with open(out, "w", encoding="utf-8") as fh:
        fh.write(text)
    print(f"wrote {len(data['entries'])} entries for torch {data['torch_version']} to {out}")


if __name__ == "__main__":
    main()
