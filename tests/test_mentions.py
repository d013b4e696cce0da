"""What followed packages' modules mention, kept across runs (gblint.project.mentions, issue 39): a warm run
reads none of the package's files for it, and a file added, changed or removed in the package, or a
stored file that is not ours, makes the answers be found again from the text."""
import os
import re

import pytest

from gblint.project import mentions
from gblint.project.mentions import Mentions


@pytest.fixture
def package(tmp_path):
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("from .sub import *\n")
    (root / "sub" / "__init__.py").write_text("from .layers import *\n")
    (root / "sub" / "layers.py").write_text("class Block:\n    pass\n")
    return root


def _ask(directory, root, word, reads):
    """One run's answer: does ``pkg.sub`` mention ``word``; counts the scans in ``reads``."""
    m = Mentions(str(directory), "fingerprint")
    found = m.matches(str(root), str(root / "sub"), f"pkg.sub\0{word}", word,
                      lambda: (reads.append(word), re.compile(rf"\b{word}\b"))[1])
    m.save()
    return found


def test_a_second_run_reads_no_file(tmp_path, package):
    reads = []
    assert _ask(tmp_path / "cache", package, "Block", reads) is True
    assert _ask(tmp_path / "cache", package, "Missing", reads) is False
    assert reads == ["Block", "Missing"]
    assert _ask(tmp_path / "cache", package, "Block", reads) is True
    assert _ask(tmp_path / "cache", package, "Missing", reads) is False
    assert reads == ["Block", "Missing"]  # both answered from the stored file


@pytest.mark.parametrize("change", ["add", "edit", "remove"])
def test_a_changed_package_is_read_again(tmp_path, package, change):
    reads = []
    assert _ask(tmp_path / "cache", package, "Missing", reads) is False
    if change == "add":
        (package / "sub" / "extra.py").write_text("Missing = 1\n")
    elif change == "edit":
        (package / "sub" / "layers.py").write_text("class Block:\n    pass\n\n\nMissing = Block\n")
    else:
        os.unlink(package / "sub" / "layers.py")
    expected = change != "remove"
    assert _ask(tmp_path / "cache", package, "Missing", reads) is expected
    assert reads == ["Missing", "Missing"]


@pytest.mark.parametrize("content", [b"", b"\xc1", b"\x81\xa1k\xa1v", b"\x91\x01"], ids=["empty", "garbage", "str", "list"])
def test_a_stored_file_that_is_not_ours_is_ignored(tmp_path, package, content):
    reads = []
    _ask(tmp_path / "cache", package, "Block", reads)
    (stored,) = [os.path.join(d, f) for d, _, files in os.walk(tmp_path / "cache") for f in files]
    with open(stored, "wb") as fh:
        fh.write(content)
    assert _ask(tmp_path / "cache", package, "Block", reads) is True
    assert reads == ["Block", "Block"]


def test_without_a_folder_answers_last_the_run(package):
    reads = []
    m = Mentions(None)
    for _ in range(2):
        assert m.matches(str(package), str(package / "sub"), "k", "Block",
                         lambda: (reads.append(1), re.compile(r"\bBlock\b"))[1])
    m.save()
    assert reads == [1]
    assert mentions.package_stamp(str(package)) == mentions.package_stamp(str(package))
