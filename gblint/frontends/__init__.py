"""What users run: the CLI, ``gblint fix``, the flake8 plugin, the LSP server, output formats
(text, JSON, SARIF, HTML), baselines and the rule pages.

Layer 8 of gblint (``tests/test_architecture.py``: core < abstract < syntax < rules < settings < dynamo < fixing < project < frontends).
"""
