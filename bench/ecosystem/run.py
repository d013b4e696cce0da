#!/usr/bin/env python3
"""The ecosystem harness: gblint against what PyTorch really does, on real models.

    python bench/ecosystem/run.py            # score: static side on the committed truth ->
                                             #   results.json, details.json, README table
    python bench/ecosystem/run.py measure    # re-measure every package under torch (long)
    python bench/ecosystem/run.py measure --package transformers --only albert,bloom
    python bench/ecosystem/run.py list       # the models each catalogue offers
    python bench/ecosystem/run.py env        # make the environments of packages pinned apart
                                             #   (transformers-4: the 4.x line beside 5.x)
    python bench/ecosystem/run.py --package diffusers --out D1   # score one package into D1 ...
    python bench/ecosystem/run.py merge D1 D2 D3 D4              # ... and combine such runs

``measure`` needs torch and the measured packages (``pip install -e ".[bench]"``); ``score``
needs the packages' sources (gblint reads them, never imports them) and no torch. See
README.md beside this file.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main(argv=None) -> int:
    from spec import PACKAGES, catalog
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", nargs="?", default="score", choices=("score", "measure", "list", "merge", "env"))
    ap.add_argument("parts", nargs="*", help="merge: folders that runs of one package each wrote (--out)")
    ap.add_argument("--package", action="append", choices=sorted(PACKAGES),
                    help="only this package (repeatable; default: all)")
    ap.add_argument("--only", help="measure: comma-separated model names")
    ap.add_argument("--missing", action="store_true", help="measure: only models without a truth record")
    ap.add_argument("--failed", action="store_true",
                    help="measure: also models whose record is not `measured` (after a catalogue fix)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="children (measure) or gblint runs (score) at once")
    ap.add_argument("--models", help="score: comma-separated package/name pairs (default: every measured model)")
    ap.add_argument("--views", default="driver,entry",
                    help="score: which views, comma-separated (driver: as users write it; entry: --entry given)")
    ap.add_argument("--full", action="store_true",
                    help="score: every measured model, also of packages scored on a sample (transformers-4)")
    ap.add_argument("--out", default=HERE, help="score: folder for results.json and details.json")
    a = ap.parse_args(argv)
    packages = a.package or list(PACKAGES)
    if a.command == "env":
        from spec import make_env
        for p in a.package or [p for p in PACKAGES if PACKAGES[p].get("venv")]:
            if PACKAGES[p].get("venv"):
                print(f"{p}: {make_env(p)}")
        return 0
    if a.command in ("list", "measure"):
        # a package of its own environment is listed and measured by that environment's interpreter
        from spec import python_for
        import subprocess
        try:
            own = [p for p in packages if os.path.realpath(python_for(p)) != os.path.realpath(sys.executable)
                   and os.path.dirname(python_for(p)) != os.path.dirname(sys.executable)]
        except FileNotFoundError as exc:
            print(f"run.py: {exc}", file=sys.stderr)
            return 2
        rest = list(argv if argv is not None else sys.argv[1:])
        rest = [x for i, x in enumerate(rest) if x != "--package" and (i == 0 or rest[i - 1] != "--package")]
        for p in own:
            code = subprocess.run([python_for(p), os.path.abspath(__file__), *rest, "--package", p]).returncode
            if code:
                return code
        packages = [p for p in packages if p not in own]
    if a.command == "list":
        for p in packages:
            for name in catalog(p).names():
                print(f"{p}/{name}")
        return 0
    if a.command == "measure":
        from measure import load_truth, measure
        for p in packages:
            names = catalog(p).names()
            if a.only:
                wanted = a.only.split(",")
                unknown = sorted(set(wanted) - set(names))
                if unknown:
                    print(f"run.py: unknown {p} models: {', '.join(unknown)}", file=sys.stderr)
                    return 2
                names = wanted
            same = PACKAGES[p].get("same_as")
            if same:  # another line of a measured package: the same models where they exist
                names = [n for n in names if n in load_truth(same).get("models", {})]
            have = load_truth(p).get("models", {})
            if a.missing or a.failed:
                names = [n for n in names if n not in have or (a.failed and have[n]["status"] != "measured")]
            # a stable shuffle: a run cut short still measures an even sample of the catalogue
            names.sort(key=lambda n: hashlib.sha1(n.encode()).hexdigest())
            measure(p, names, a.jobs)
        return 0
    if a.command == "merge":
        from score import merge
        if not a.parts:
            print("run.py merge: name the folders to combine (each written by --package P --out DIR)", file=sys.stderr)
            return 2
        return merge(a.parts, a.out, readme=a.out == HERE)
    if a.parts:
        print(f"run.py: {a.command} takes no folders (only merge does)", file=sys.stderr)
        return 2
    from score import VIEWS, score
    only = set(a.models.split(",")) if a.models else None
    if a.out == HERE and (a.package or only):
        print("run.py: scoring part of the harness needs --out DIR (the committed tables hold every package; "
              "`run.py merge` combines parts)", file=sys.stderr)
        return 2
    if only:
        from measure import load_truth
        measured = {p: load_truth(p).get("models", {}) for p in {m.split("/", 1)[0] for m in only} if p in PACKAGES}
        unknown = sorted(m for m in only if m.split("/", 1)[-1] not in measured.get(m.split("/", 1)[0], {}))
        if unknown:
            print(f"run.py: --models names no measured model: {', '.join(unknown)}", file=sys.stderr)
            return 2
    views = [v for v in a.views.split(",") if v]
    unknown = sorted(set(views) - set(VIEWS))
    if unknown or not views:
        print(f"run.py: --views takes {' and '.join(VIEWS)}, not {', '.join(unknown) or 'nothing'}", file=sys.stderr)
        return 2
    return score(packages, a.jobs, a.out, only, readme=a.out == HERE, views=views, full=a.full)


if __name__ == "__main__":
    sys.exit(main())
