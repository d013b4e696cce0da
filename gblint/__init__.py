"""gblint: predict torch.compile graph breaks, and what they cost, from source code.

The static analysis never imports torch or the code it checks. Public API:
:func:`gblint.project.engine.check_paths`, :func:`gblint.project.engine.check_sources`,
:class:`gblint.settings.config.Settings`, :class:`gblint.core.diagnostics.Diagnostic`.
"""
__version__ = "0.1.0"
