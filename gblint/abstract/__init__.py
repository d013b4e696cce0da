"""The value model and the interpreter: abstract values, environments, objects with behaviour,
calls, class effects and the library overlays (``nn_overlay``).

Layer 1 of gblint (``tests/test_architecture.py``: core < abstract < syntax < rules < settings < dynamo < fixing < project < frontends).
"""
