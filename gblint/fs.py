"""Safe file writes for ``gblint fix``: all or nothing, same mode, same line endings, same
encoding, and never a file that does not parse.

Contract of :func:`write_atomic`:

* ``text`` is what :func:`gblint.source.read_source` returned, edited: line endings may be the
  file's own, ``\\n``, or a mix (an inserted line usually ends in ``\\n``). Each bare ``\\n``
  is written in the file's dominant style (``\\r\\n`` for a Windows file); endings the text
  already spells out are kept, so a file that mixes styles keeps its untouched lines as they were.
* The encoding is the one the new text declares (PEP 263 cookie), else the file's: a UTF-8
  BOM is kept, the default is UTF-8. Text the encoding cannot represent is refused.
* The file is replaced atomically (temporary file in the same folder, ``fsync``, ``os.replace``):
  a reader sees the old or the new content, never a mix; a crash leaves the old file. The new
  file keeps the old one's permission bits (and owner, where the process may set it). A
  symbolic link is followed: the target is replaced and the link kept. Hard links to the old
  file keep the old content (the new file is a new inode).
* ``path`` need not exist: a new file gets ``\\n`` line endings, UTF-8 and the default mode.
"""
from __future__ import annotations

import codecs
import io
import os
import stat
import tempfile
import tokenize
from typing import Optional

from .source import SourceError, decode_source, parse_source


class UnsafeWriteError(Exception):
    """Raised instead of writing text that does not parse, cannot be encoded as the file
    declares, or would not read back as the same text. The file is left untouched."""


def write_atomic(path: str, text: str) -> None:
    """Replace the contents of ``path`` with ``text`` atomically (see the module docstring for
    line endings, encoding, mode and links).

    Raises UnsafeWriteError (nothing written) when ``text`` does not parse with libcst, cannot
    be encoded, or does not decode back to itself; OSError when the file or its folder cannot
    be read or written (the temporary file is removed).
    """
    target = os.path.realpath(path)
    try:
        with open(target, "rb") as fh:
            old: Optional[bytes] = fh.read()
        st: Optional[os.stat_result] = os.stat(target)
    except FileNotFoundError:
        old, st = None, None
    text = _with_newlines(text, _dominant_newline(old) if old else "\n")
    data = _encode(text, old, path)
    text = text[1:] if text.startswith("\ufeff") else text  # a BOM is an encoding detail, not text
    try:
        parse_source(text, path)
        if decode_source(data, path) != text:
            raise UnsafeWriteError(f"refusing to write {path}: the bytes would not read back as the same text")
    except SourceError as exc:
        raise UnsafeWriteError(f"refusing to write {path}: the result does not parse "
                               f"({exc.diagnostic.message}, line {exc.diagnostic.line})") from None
    directory = os.path.dirname(target) or "."
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(target) + ".", suffix=".gblint-tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if st is not None:
            os.chmod(tmp, stat.S_IMODE(st.st_mode))
            _chown_like(tmp, st)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(directory)


def _dominant_newline(data: bytes) -> str:
    crlf = data.count(b"\r\n")
    lf = data.count(b"\n") - crlf
    cr = data.count(b"\r") - crlf
    if crlf > lf and crlf >= cr:
        return "\r\n"
    if cr > lf and cr > crlf:
        return "\r"
    return "\n"


def _with_newlines(text: str, newline: str) -> str:
    """Every bare ``\\n`` (not part of ``\\r\\n``) becomes ``newline``."""
    if newline == "\n" or "\n" not in text:
        return text
    parts = text.split("\n")
    out = [parts[0]]
    for part in parts[1:]:
        out.append(("\n" if out[-1].endswith("\r") else newline) + part)
    return "".join(out)


def _encode(text: str, old: Optional[bytes], path: str) -> bytes:
    bom = bool(old) and old.startswith(codecs.BOM_UTF8) or text.startswith("\ufeff")
    text = text[1:] if text.startswith("\ufeff") else text
    probe = (codecs.BOM_UTF8 if bom else b"") + text.encode("utf-8", "surrogatepass")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(probe).readline)  # the cookie of the new text
        return text.encode(encoding)
    except (SyntaxError, LookupError, UnicodeError) as exc:
        raise UnsafeWriteError(f"refusing to write {path}: cannot encode the result ({exc})") from None


def _chown_like(path: str, st: os.stat_result) -> None:
    if hasattr(os, "chown") and (st.st_uid != os.getuid() or st.st_gid != os.getgid()):
        try:
            os.chown(path, st.st_uid, st.st_gid)
        except OSError:  # only root may give a file away; the mode is what matters most
            pass


def _fsync_dir(directory: str) -> None:
    """Make the rename itself durable where the platform allows opening a folder."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
