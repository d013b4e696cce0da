"""The records and tables every layer uses: the summary's model, operator and name tables, Dynamo's
semantics and graph-break registry, diagnostics, fix requests, source files and safe writes.

Layer 0 of gblint (``tests/test_architecture.py``: core < abstract < syntax < rules < settings < dynamo < fixing < project < frontends).
"""
