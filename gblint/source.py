"""Reading and parsing source files; failures become diagnostics, never tracebacks."""
from __future__ import annotations

import io
import tokenize
from typing import Optional, Tuple

import libcst as cst

from .diagnostics import Diagnostic


class SourceError(Exception):
    """A file that cannot be read, decoded or parsed; ``diagnostic`` says why."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def _diag(path: str, code: str, name: str, message: str, line: int = 1, column: int = 1) -> Diagnostic:
    return Diagnostic(path=path, line=line, column=column, end_line=line, end_column=column, code=code, name=name,
                      effect="info", message=message, hint="")


def read_source(path: str) -> str:
    """Read ``path`` and decode it as Python source (PEP 263 coding cookie, BOM).

    Raises SourceError (GBL002) when the file cannot be read or decoded.
    """
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise SourceError(_diag(path, "GBL002", "unreadable-file", f"cannot read file: {exc.strerror or exc}"))
    return decode_source(data, path)


def decode_source(data: bytes, path: str) -> str:
    """Decode bytes like the interpreter does. Raises SourceError (GBL002)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        raise SourceError(_diag(path, "GBL002", "unreadable-file", f"cannot decode file: {exc}"))
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\x00" in text:
        raise SourceError(_diag(path, "GBL002", "unreadable-file", "file contains NUL bytes; not Python source"))
    return text


def parse_source(text: str, path: str, python_version: Optional[Tuple[int, int]] = None) -> cst.Module:
    """Parse with libcst. Raises SourceError (GBL001) with the error's position."""
    try:
        if python_version is not None:
            config = cst.PartialParserConfig(python_version=f"{python_version[0]}.{python_version[1]}")
            return cst.parse_module(text, config)
        return cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        msg = str(exc).splitlines()[0] if str(exc) else "invalid syntax"
        raise SourceError(_diag(path, "GBL001", "syntax-error", f"syntax error: {exc.message or msg}",
                                exc.raw_line or 1, (exc.raw_column or 0) + 1))
    except RecursionError:
        raise SourceError(_diag(path, "GBL001", "syntax-error", "file is nested too deeply to parse"))
    except (ValueError, Exception) as exc:  # libcst raises plain exceptions on some malformed input
        raise SourceError(_diag(path, "GBL001", "syntax-error", f"cannot parse file: {type(exc).__name__}: {exc}"))
