"""``python -m gblint``."""
from .cli import entry

entry()
