"""gblint's predictions for a folder of measured programs (tests/cases/harness, tests/cases/kinds), shared by
the tests that compare them with what PyTorch did."""
import functools
import os

from gblint.settings.config import Settings
from gblint.project.engine import check_paths


@functools.lru_cache(maxsize=None)
def predictions(folder: str) -> dict:
    """gblint's JSON diagnostics for the programs of ``folder`` (a path), by file name, for torch 2.13.0 on
    Python 3.11; every ``.py`` file of the folder has an entry. Raises AssertionError when gblint reports an
    error (a program it could not read)."""
    report = check_paths([folder], Settings(python_version=(3, 11), torch_version="2.13.0"))
    assert report.errors == []
    out = {name: [] for name in sorted(os.listdir(folder)) if name.endswith(".py")}
    for d in report.diagnostics:
        out.setdefault(os.path.basename(d.path), []).append(d.to_json())
    return out
