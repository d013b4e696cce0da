"""Print the before/after table of `gblint fix --unsafe-fixes` on the example programs, measured with
torch (eager backend): graphs, skipped frames, output equality. Needs torch.

Usage: python scripts/fix_table.py [CASES_DIR]   (default: tests/cases/examples)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    cases = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests", "cases", "examples")
    sys.path.insert(0, ROOT)
    from gblint.settings.config import Settings
    from gblint.project.engine import SourceFile, check_sources
    names = [n for n in sorted(os.listdir(cases)) if n.endswith(".py") and any(
        d.fix and d.fix.edits for d in check_sources([SourceFile(os.path.join(cases, n), None)],
                                                     Settings(python_version=(3, 11))).diagnostics)]
    tmp = tempfile.mkdtemp()
    orig, fixed = os.path.join(tmp, "orig"), os.path.join(tmp, "fixed")
    os.makedirs(orig)
    os.makedirs(fixed)
    titles = {}
    for n in names:
        shutil.copy(os.path.join(cases, n), orig)
        shutil.copy(os.path.join(cases, n), fixed)
        titles[n] = sorted({f"{d.code}: {d.fix.title} ({d.fix.applicability})" for d in check_sources(
            [SourceFile(os.path.join(orig, n), None)], Settings(python_version=(3, 11))).diagnostics
            if d.fix and d.fix.edits})
    subprocess.run([sys.executable, "-m", "gblint", "fix", "--unsafe-fixes", "--no-cache", "--python-version", "3.11",
                    fixed], cwd=ROOT, capture_output=True)
    obs = os.path.join(ROOT, "tests", "runtime", "observe_case.py")
    res = {}
    for label, folder in (("before", orig), ("after", fixed)):
        out = subprocess.run([sys.executable, obs, *[os.path.join(folder, n) for n in names]],
                             capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("{"):
                r = json.loads(line)
                res.setdefault(os.path.basename(r["path"]), {})[label] = r
    print("| case | fix | graphs before -> after | skipped before -> after | outputs equal |")
    print("|---|---|---|---|---|")
    import torch
    for n in names:
        b, a = res[n]["before"], res[n]["after"]
        same = len(a["outputs"]) == len(b["outputs"]) and all(
            torch.allclose(torch.tensor(x), torch.tensor(y), atol=1e-5) for x, y in zip(b["outputs"], a["outputs"]))
        print(f"| `{n}` | {'<br>'.join(titles[n])} | {b['graphs']} -> {a['graphs']} | "
              f"{', '.join(b['skipped']) or '-'} -> {', '.join(a['skipped']) or '-'} | {'yes' if same else 'NO'} |")


if __name__ == "__main__":
    main()
