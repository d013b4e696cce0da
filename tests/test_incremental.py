"""Re-summarising only the edited definition (gblint/project/incremental.py) must give the same summary
as summarising the whole file, for edits inside functions and classes that add, remove or
change lines; other edits fall back to a full summary."""
import glob
import os
import random

import pytest

from gblint.project import incremental
from gblint.settings.config import Settings
from gblint.project.engine import summarize

from .conftest import CASES, ROOT


def dump(summary):
    """Everything a summary says, in a comparable, order-insensitive form."""
    funcs = {}
    for qual, f in summary.functions.items():
        funcs[qual] = (f.span.line, f.span.column, f.is_generator, f.ops_total, tuple(sorted(f.local_defs.items())),
                       tuple((ev.kind, ev.code, ev.span.line, ev.span.column, ev.detail, repr(ev.func), ev.ops_index,
                              tuple((b.kind, b.line) for b in ev.blocks)) for ev in f.events),
                       tuple((d.qualname, tuple(sorted(d.kwargs.items())), d.args) for d in f.decorators))
    classes = {q: (c.span.line, tuple(c.bases), tuple(sorted(c.methods.items())), repr(sorted(c.attrs.items())))
               for q, c in summary.classes.items()}
    regions = sorted((repr(r.target), r.fullgraph, r.span.line, r.spelling, r.function) for r in summary.regions)
    return funcs, classes, regions, sorted(summary.config.items()), sorted(summary.module_names.items())


FILES = sorted(glob.glob(os.path.join(ROOT, "examples", "*.py")))
FILES += [os.path.join(ROOT, "tests", "fixtures", "proj", "mypkg", "layers.py")]
FILES += sorted(glob.glob(os.path.join(CASES, "0[0-4]*.py")))[:20]

EDITS = [
    lambda line, ind: [line, f"{ind}print('edited')\n"],          # a break added
    lambda line, ind: [line, f"{ind}x_unused = 1\n", f"{ind}y_unused = 2\n"],  # lines added
    lambda line, ind: [],                                           # a line removed
    lambda line, ind: [line.replace("x", "x ", 1)],                 # a line changed
]


def _body_lines(text):
    """Indices of indented, non-blank lines that are not a def/class header or decorator."""
    out = []
    for i, line in enumerate(text.splitlines(True)):
        stripped = line.strip()
        if line.startswith((" ", "\t")) and stripped and not stripped.startswith(("def ", "class ", "@", "async def")):
            out.append(i)
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.basename(p))
def test_incremental_equals_full(path):
    rng = random.Random(path)
    with open(path) as fh:
        base = fh.read()
    settings = Settings()
    lines = base.splitlines(True)
    candidates = _body_lines(base)
    assert candidates
    for trial in range(6):
        incremental.forget()
        summarize(base, path, settings, incremental=True)  # remembered
        i = rng.choice(candidates)
        line = lines[i]
        ind = line[: len(line) - len(line.lstrip())]
        edit = EDITS[trial % len(EDITS)]
        new_text = "".join(lines[:i] + edit(line, ind) + lines[i + 1:])
        try:
            full = summarize(new_text, path, settings)
        except Exception:
            continue  # the edit broke the syntax: the editor shows GBL001, nothing to compare
        incr = summarize(new_text, path, settings, incremental=True)
        assert dump(incr) == dump(full), (path, i, trial)


def test_module_level_edit_falls_back(tmp_path):
    path = os.path.join(ROOT, "examples", "gpt.py")
    with open(path) as fh:
        base = fh.read()
    incremental.forget()
    summarize(base, path, Settings(), incremental=True)
    changed = base.replace("import math\n", "import math\nimport time\n", 1)
    assert dump(summarize(changed, path, Settings(), incremental=True)) == dump(summarize(changed, path, Settings()))
