"""``gblint.core.fs.write_atomic``: atomic, same mode, same line endings and encoding, and no
unparsable output."""
import os
import stat
import sys

import pytest

from gblint.core import fs
from gblint.core.fs import UnsafeWriteError, write_atomic
from gblint.core.source import read_source

POSIX = os.name == "posix"


def test_replaces_content_and_leaves_no_temporary_files(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n")
    write_atomic(str(path), "x = 2\ny = 3\n")
    assert path.read_bytes() == b"x = 2\ny = 3\n"
    assert os.listdir(tmp_path) == ["m.py"]


@pytest.mark.skipif(not POSIX, reason="permission bits are POSIX")
def test_keeps_permission_bits(tmp_path):
    path = tmp_path / "tool.py"
    path.write_bytes(b"x = 1\n")
    os.chmod(path, 0o751)
    write_atomic(str(path), "x = 2\n")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o751


def test_crlf_file_stays_crlf(tmp_path):
    path = tmp_path / "win.py"
    path.write_bytes(b"import torch\r\n\r\ndef f(x):\r\n    return x\r\n")
    text = read_source(str(path))  # keeps \r\n
    new = text.replace("    return x\r\n", "    y = x\n    return y\r\n")  # an inserted line ends in \n
    write_atomic(str(path), new)
    assert path.read_bytes() == b"import torch\r\n\r\ndef f(x):\r\n    y = x\r\n    return y\r\n"
    write_atomic(str(path), "x = 1\ny = 2\n")  # plain \n text: written in the file's style
    assert path.read_bytes() == b"x = 1\r\ny = 2\r\n"


def test_lf_file_keeps_what_the_text_spells_out(tmp_path):
    path = tmp_path / "mixed.py"
    path.write_bytes(b"a = 1\nb = 2\r\nc = 3\n")  # mostly \n, one \r\n line
    write_atomic(str(path), read_source(str(path)) + "d = 4\n")
    assert path.read_bytes() == b"a = 1\nb = 2\r\nc = 3\nd = 4\n"


def test_keeps_encoding_and_bom(tmp_path):
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"# -*- coding: latin-1 -*-\ns = 'caf\xe9'\n")
    write_atomic(str(latin), read_source(str(latin)) + "t = '\u00e0'\n")
    assert latin.read_bytes() == b"# -*- coding: latin-1 -*-\ns = 'caf\xe9'\nt = '\xe0'\n"
    with pytest.raises(UnsafeWriteError, match="encode"):
        write_atomic(str(latin), read_source(str(latin)) + "u = '\u20ac'\n")  # no euro sign in latin-1
    assert latin.read_bytes().endswith(b"t = '\xe0'\n")

    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbfx = '\xc3\xa9'\n")
    write_atomic(str(bom), "x = '\u00e9'\ny = 1\n")
    assert bom.read_bytes() == b"\xef\xbb\xbfx = '\xc3\xa9'\ny = 1\n"


@pytest.mark.parametrize("bad", ["def f(:\n", "x = (\n", "if x:\ny = 1\n", "x = " + "(" * 300 + ")" * 300 + "\n",
                                 "x = 1\x00\n"])
def test_refuses_text_that_does_not_parse(tmp_path, bad):
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n")
    with pytest.raises(UnsafeWriteError, match="does not parse"):
        write_atomic(str(path), bad)
    assert path.read_bytes() == b"x = 1\n"
    assert os.listdir(tmp_path) == ["m.py"]


def test_failure_while_writing_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n")

    def fail(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(fs.os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        write_atomic(str(path), "x = 2\n")
    assert path.read_bytes() == b"x = 1\n"
    assert os.listdir(tmp_path) == ["m.py"]


@pytest.mark.skipif(not hasattr(os, "symlink") or sys.platform == "win32", reason="needs symlinks")
def test_symlink_is_followed_and_kept(tmp_path):
    real = tmp_path / "real.py"
    real.write_bytes(b"x = 1\n")
    link = tmp_path / "link.py"
    os.symlink(real, link)
    write_atomic(str(link), "x = 2\n")
    assert os.path.islink(link)
    assert real.read_bytes() == b"x = 2\n"


def test_new_file(tmp_path):
    path = tmp_path / "new.py"
    write_atomic(str(path), "x = 1\n")
    assert path.read_bytes() == b"x = 1\n"
    if POSIX:
        umask = os.umask(0)
        os.umask(umask)
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o666 & ~umask


def test_missing_folder_is_an_os_error(tmp_path):
    with pytest.raises(OSError):
        write_atomic(str(tmp_path / "no" / "such" / "m.py"), "x = 1\n")


def test_mixed_file_keeps_its_lf_lines_where_crlf_dominates(tmp_path):
    path = tmp_path / "mixed.py"
    path.write_bytes(b"a = 1\r\nb = 2\r\nc = 3\nd = 4\r\n")  # mostly \r\n, one \n line
    text = read_source(str(path)).replace("c = 3\n", "c = 3\nc2 = 4\n")  # a line inserted after it
    write_atomic(str(path), text)
    assert path.read_bytes() == b"a = 1\r\nb = 2\r\nc = 3\nc2 = 4\nd = 4\r\n"


def test_refuses_text_cpython_does_not_compile(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n")
    bad = "total = 0\n\ndef f():\n    total = 1\n    global total\n"  # libcst parses it, CPython does not
    with pytest.raises(UnsafeWriteError, match="does not compile"):
        write_atomic(str(path), bad)
    assert path.read_bytes() == b"x = 1\n" and os.listdir(tmp_path) == ["m.py"]


def test_file_changed_since_it_was_read_is_left_alone(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 2\n")
    with pytest.raises(fs.ChangedOnDiskError, match="changed on disk since it was read"):
        write_atomic(str(path), "x = 3\n", expected=b"x = 1\n")
    assert path.read_bytes() == b"x = 2\n"
    path.unlink()
    with pytest.raises(fs.ChangedOnDiskError):
        write_atomic(str(path), "x = 3\n", expected=b"x = 1\n")
    assert not path.exists()  # a deleted file does not come back
    path.write_bytes(b"x = 1\n")
    write_atomic(str(path), "x = 3\n", expected=b"x = 1\n")
    assert path.read_bytes() == b"x = 3\n"


def test_edit_saved_while_the_new_file_is_written_is_kept(tmp_path, monkeypatch):
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n")
    real = fs._chown_like

    def user_saves(tmp, st):  # runs after the temporary file is written, before the rename
        path.write_bytes(b"x = 'saved'\n")
        real(tmp, st)

    monkeypatch.setattr(fs, "_chown_like", user_saves)
    with pytest.raises(fs.ChangedOnDiskError):
        write_atomic(str(path), "x = 2\n", expected=b"x = 1\n")
    assert path.read_bytes() == b"x = 'saved'\n" and os.listdir(tmp_path) == ["m.py"]


@pytest.mark.skipif(not (sys.platform.startswith("linux") or sys.platform == "darwin"),
                    reason="the atomic exchange that closes the window exists on Linux and macOS")
@pytest.mark.parametrize("how", ["rename", "in place"])
def test_edit_saved_at_the_moment_of_the_rename_is_not_lost(tmp_path, monkeypatch, how):
    # An editor's save landing between gblint's last comparison and its rename: the window the
    # exchange-then-compare closes. The save must be the file's content afterwards.
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n")
    saved = []

    def editor_saves():
        if saved:
            return
        saved.append(how)
        if how == "rename":
            side = tmp_path / ".m.py.swp"
            side.write_bytes(b"x = 'saved'\n")
            os.rename(side, path)
        else:
            path.write_bytes(b"x = 'saved'\n")

    real_replace, real_exchange = os.replace, fs._exchange
    monkeypatch.setattr(os, "replace", lambda a, b, **kw: (editor_saves(), real_replace(a, b, **kw))[1])
    monkeypatch.setattr(fs, "_exchange", lambda a, b: (editor_saves(), real_exchange(a, b))[1])
    with pytest.raises(fs.ChangedOnDiskError):
        write_atomic(str(path), "x = 2\n", expected=b"x = 1\n")
    assert saved and path.read_bytes() == b"x = 'saved'\n" and os.listdir(tmp_path) == ["m.py"]
    monkeypatch.undo()
    write_atomic(str(path), "x = 3\n", expected=b"x = 'saved'\n")  # no save in between: written, no leftovers
    assert path.read_bytes() == b"x = 3\n" and os.listdir(tmp_path) == ["m.py"]
