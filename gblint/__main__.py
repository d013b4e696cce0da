"""``python -m gblint``."""
from .frontends.cli import entry

entry()
