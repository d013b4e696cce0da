"""Safe file writes for ``gblint fix``: all or nothing, same mode, same line endings, same
encoding, never a file that does not compile, never over an edit made since it was read.

Contract of :func:`write_atomic`:

* ``text`` is what :func:`gblint.core.source.read_source` returned, edited: line endings may be the
  file's own, ``\\n``, or a mix (an inserted line usually ends in ``\\n``). A bare ``\\n`` on a
  line the file already has is written as that line's ending; on an inserted line, as the
  ending of the line it is inserted next to (``\\r\\n`` in a Windows file). Endings the text
  spells out are kept, so a file that mixes styles keeps its untouched lines as they were
  (:func:`gblint.core.source.restore_line_endings`).
* With ``expected`` (the bytes the text was made from), the file is replaced only if it still
  holds exactly those bytes: an edit saved, or a deletion made, while gblint worked is never
  overwritten (:class:`ChangedOnDiskError`). The last comparison is made after an atomic
  exchange of the two files where the system has one (Linux, macOS), and the exchange undone on
  a mismatch, so even a save landing at the moment of the rename survives; elsewhere it is made
  just before the rename.
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
import errno
import io
import os
import stat
import sys
import tempfile
import tokenize
from typing import List, Optional, Sequence, Tuple

from .source import SourceError, compile_error, decode_source, parse_source, restore_line_endings


class UnsafeWriteError(Exception):
    """Raised instead of writing text that does not parse or compile, cannot be encoded as the
    file declares, or would not read back as the same text. The file is left untouched."""


class ChangedOnDiskError(UnsafeWriteError):
    """Raised instead of replacing a file whose bytes are no longer those the new text was made
    from (edited or deleted meanwhile). The file is left as it is."""

    def __init__(self, path: str):
        super().__init__("changed on disk since it was read")
        self.path = path


def write_atomic(path: str, text: str, expected: Optional[bytes] = None) -> None:
    """Replace the contents of ``path`` (str) with ``text`` (str) atomically (see the module
    docstring for line endings, encoding, mode, links and ``expected``).

    ``expected``: None, or the bytes ``path`` must still hold (its content when ``text`` was made
    from it). Raises ChangedOnDiskError (nothing written) when the file no longer holds
    ``expected`` or is gone; UnsafeWriteError (nothing written) when ``text`` does not parse with
    libcst or compile with CPython, cannot be encoded, or does not decode back to itself; OSError
    when the file or its folder cannot be read or written (the temporary file is removed).
    """
    target = os.path.realpath(path)
    old, st = _current(target)
    if expected is not None and old != expected:
        raise ChangedOnDiskError(path)
    text = _line_endings(text, old, path)
    data = encode_text(text, old, path)
    text = text[1:] if text.startswith("\ufeff") else text  # a BOM is an encoding detail, not text
    try:
        parse_source(text, path)
        if decode_source(data, path) != text:
            raise UnsafeWriteError(f"refusing to write {path}: the bytes would not read back as the same text")
    except SourceError as exc:
        raise UnsafeWriteError(f"refusing to write {path}: the result does not parse "
                               f"({exc.diagnostic.message}, line {exc.diagnostic.line})") from None
    why = compile_error(text, path)
    if why is not None:
        raise UnsafeWriteError(f"refusing to write {path}: Python does not compile the result ({why})")
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
        _swap_in(tmp, target, expected, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(directory)


def _swap_in(tmp: str, target: str, expected: Optional[bytes], path: str) -> None:
    """Move the written ``tmp`` to ``target``; with ``expected``, only over exactly those bytes.

    Comparing and then renaming leaves a window in which an editor's save (usually itself a
    rename) would be replaced and lost. Where the system can exchange two names atomically
    (Linux ``renameat2(RENAME_EXCHANGE)``, macOS ``renamex_np(RENAME_SWAP)``) the comparison is
    made after the exchange, on the file that was displaced: if it is not ``expected`` the two
    are exchanged back, so the save is at ``target`` again and nothing of it is lost. Elsewhere
    the comparison runs just before ``os.replace``. Raises ChangedOnDiskError (``tmp`` then holds
    gblint's text, never the user's)."""
    if expected is None:
        os.replace(tmp, target)
        return
    if _current(target)[0] != expected:  # edited while we wrote
        raise ChangedOnDiskError(path)
    try:
        swapped = _exchange(tmp, target)
    except FileNotFoundError:  # deleted since the comparison: it stays deleted
        raise ChangedOnDiskError(path) from None
    if not swapped:
        os.replace(tmp, target)
        return
    if _current(tmp)[0] == expected:
        os.unlink(tmp)
        return
    try:
        _exchange(tmp, target)
    except OSError as exc:
        raise OSError(f"{path} was saved while gblint replaced it; the saved version is in {tmp}") from exc
    raise ChangedOnDiskError(path)


def _exchange(a: str, b: str) -> bool:
    """Exchange the files named ``a`` and ``b`` atomically; False where the system or the file
    system cannot (nothing done). Raises OSError (FileNotFoundError when either is missing)."""
    import ctypes
    import sys
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if sys.platform.startswith("linux"):
            call, args = libc.renameat2, (-100, os.fsencode(a), -100, os.fsencode(b), 2)  # AT_FDCWD, RENAME_EXCHANGE
        elif sys.platform == "darwin":
            call, args = libc.renamex_np, (os.fsencode(a), os.fsencode(b), 2)  # RENAME_SWAP
        else:
            return False
    except (AttributeError, OSError):
        return False
    if call(*args) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
        return False
    raise OSError(err, os.strerror(err), b)


def _current(target: str) -> Tuple[Optional[bytes], Optional[os.stat_result]]:
    """The bytes and status of ``target``, or (None, None) when it does not exist."""
    try:
        with open(target, "rb") as fh:
            return fh.read(), os.fstat(fh.fileno())
    except FileNotFoundError:
        return None, None


def _line_endings(text: str, old: Optional[bytes], path: str) -> str:
    """``text`` with the line endings :func:`write_atomic` documents, given the file's bytes ``old``."""
    if not old:
        return text
    try:
        before = decode_source(old, path)
    except SourceError:  # the old file does not decode: no line to keep, the dominant style
        return _with_newlines(text, _dominant_newline(old))
    return restore_line_endings(before, text, _dominant_newline(old))


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


def encode_text(text: str, old: Optional[bytes], path: str) -> bytes:
    """``text`` (str) as the bytes a file should hold: in the encoding its PEP 263 cookie
    declares, else UTF-8, with a BOM when ``old`` (the file's previous bytes, or None) or the
    text has one. Raises UnsafeWriteError when the encoding cannot represent the text; ``path``
    names the file in that message."""
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


def in_stdlib(path: str) -> bool:
    """Whether ``path`` lies in the standard library's folder (not in its site-packages)."""
    import sysconfig
    stdlib = os.path.abspath(sysconfig.get_paths()["stdlib"])
    path = os.path.abspath(path)
    return path.startswith(stdlib + os.sep) and "site-packages" not in path[len(stdlib):]


#: what :func:`installed` answered in this process, by name (gblint.project.results checks the answers again)
INSTALLED_ASKED: dict = {}


def installed(top: str) -> bool:
    """Whether the top-level module ``top`` can be imported here: of the standard library, built in, or found on
    ``sys.path`` (``importlib.util.find_spec`` of a top-level name runs no code of it)."""
    found = INSTALLED_ASKED.get(top)
    if found is None:
        found = INSTALLED_ASKED[top] = find_installed(top)
    return found


def find_installed(top: str) -> bool:
    """:func:`installed`, asked now."""
    import importlib.util
    if top in sys.builtin_module_names or top in getattr(sys, "stdlib_module_names", ()):
        return True
    try:
        return importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        return True  # cannot tell: taken as there


def module_beside(path: str, top: str) -> bool:
    """Whether ``top`` is a module or package in the folder of ``path``, in a package folder above it, or in the
    working folder (the project's own modules, as gblint resolves them)."""
    folders = [os.getcwd()]
    if path and os.path.isfile(path):
        folder = os.path.dirname(os.path.abspath(path))
        folders.append(folder)
        while os.path.isfile(os.path.join(folder, "__init__.py")):
            folder = os.path.dirname(folder)
            folders.append(folder)
    return any(os.path.isfile(os.path.join(f, top + ".py")) or os.path.isdir(os.path.join(f, top)) for f in folders)


def module_findable(path: str, top: str) -> bool:
    """Whether an ``import top`` in the file ``path`` can find its module: installed (:func:`find_installed`,
    asked now, so that a module installed or created since counts) or :func:`module_beside`."""
    return find_installed(top) or module_beside(path, top)


def package_dir(name: str) -> Optional[str]:
    """Directory of an installed top-level package, found without importing it."""
    import importlib.util
    top, _, rest = name.partition(".")
    try:
        spec = importlib.util.find_spec(top)  # find_spec("a.b") would import (run) package a
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    root = list(spec.submodule_search_locations)[0]
    if rest:
        root = os.path.join(root, *rest.split("."))
        if not os.path.isfile(os.path.join(root, "__init__.py")):
            return None
    return root


def module_text_matches(base: str, word: str, pattern) -> bool:
    """Whether the module at ``base`` (a path without ``.py``: the file ``base.py``, or every
    ``.py`` file under the folder ``base``) has text that contains ``word`` and matches
    ``pattern`` (a compiled regular expression); False when there is no such module. Unreadable
    files are passed over."""
    if os.path.isfile(base + ".py"):
        files = [base + ".py"]
    elif os.path.isdir(base):
        files = (os.path.join(d, f) for d, _, names in os.walk(base) for f in names if f.endswith(".py"))
    else:
        return False
    for path in files:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError:
            continue
        if word in text and pattern.search(text):
            return True
    return False


def import_roots(paths: Sequence[str], settings) -> List[str]:
    """Where ``import x`` in the checked files finds modules that were not named, as mypy and
    pyright find them: for each file, the nearest folder above it that is not a package (no
    ``__init__.py``), then the configuration root. Modules found there are read (never
    imported) when a compiled region reaches them, so ``gblint check main.py`` finds the break
    in ``model.py`` beside it."""
    roots: List[str] = []
    for path in paths:
        if path in ("-", "<stdin>") or not os.path.exists(path):
            continue
        directory = os.path.dirname(os.path.abspath(path))
        while os.path.isfile(os.path.join(directory, "__init__.py")):
            parent = os.path.dirname(directory)
            if parent == directory:
                break
            directory = parent
        if directory not in roots:
            roots.append(directory)
    if settings.root and settings.root != "." and os.path.abspath(settings.root) not in roots:
        roots.append(os.path.abspath(settings.root))
    return roots
