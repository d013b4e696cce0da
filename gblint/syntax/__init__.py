"""One file's summary from its libcst tree: scopes, bindings, flows, blocks, loops, compiled
regions; the traversal rules plug into.

Layer 2 of gblint (``tests/test_architecture.py``: core < abstract < syntax < rules < settings < dynamo < fixing < project < frontends).
"""
