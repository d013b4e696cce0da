"""gblint: predict torch.compile graph breaks, and what they cost, from source code.

The static analysis never imports torch or the code it checks. Public API:
:func:`gblint.engine.check_paths`, :func:`gblint.engine.check_sources`,
:class:`gblint.config.Settings`, :class:`gblint.diagnostics.Diagnostic`.
"""
__version__ = "0.1.0"
