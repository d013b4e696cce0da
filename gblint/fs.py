"""Safe file writes for ``gblint fix``."""
from __future__ import annotations

import os
import tempfile

import libcst as cst


class UnsafeWriteError(Exception):
    """Raised instead of writing text that does not parse."""


def write_atomic(path: str, text: str) -> None:
    """Replace ``path`` with ``text`` atomically (temporary file in the same folder, then
    ``os.replace``), keeping the file's permission bits and its line endings (``text`` uses
    ``\\n``; a file that used ``\\r\\n`` keeps ``\\r\\n``). Raises UnsafeWriteError when ``text``
    does not parse, OSError when the file cannot be written."""
    try:
        cst.parse_module(text)
    except Exception as exc:
        raise UnsafeWriteError(f"refusing to write {path}: the result does not parse ({exc})") from None
    with open(path, "rb") as fh:
        old = fh.read()
    newline = "\r\n" if b"\r\n" in old else "\n"
    data = text.replace("\r\n", "\n")
    if newline != "\n":
        data = data.replace("\n", newline)
    mode = os.stat(path).st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), prefix=".gblint-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
