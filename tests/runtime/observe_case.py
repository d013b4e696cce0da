"""Run one case file's ``main()`` under torch.compile and print what happened, as JSON.

Used by tests/test_fix_runtime.py to compare a case before and after ``gblint fix``. Every
``torch.compile`` call is routed through a counting backend (eager) and every compiled
callable's return values are recorded, with ``torch.manual_seed(0)`` and ``random.seed(0)`` before
``main()``, so two runs of equivalent programs see the same inputs (and the same Python random draws).

Usage: python observe_case.py FILE...   (one JSON line per file)
"""
import importlib.util
import json
import random
import sys

import torch
import torch._dynamo


def observe(path, index):
    """Observe one file (imported as a fresh module); returns a JSON-ready dict."""
    graphs = []
    outputs = []
    real_compile = torch.compile

    def backend(gm, example_inputs):
        graphs.append(len([n for n in gm.graph.nodes if n.op in ("call_function", "call_method", "call_module")]))
        return gm.forward

    def recording(fn=None, **kwargs):
        kwargs["backend"] = backend
        if fn is None:
            return lambda f: recording(f, **kwargs)
        compiled = real_compile(fn, **kwargs)

        def call(*args, **kw):
            out = compiled(*args, **kw)
            outputs.append(out)
            return out

        for attr in ("__name__", "__qualname__", "__doc__"):
            if hasattr(fn, attr):
                try:
                    setattr(call, attr, getattr(fn, attr))
                except (AttributeError, TypeError):
                    pass
        return call

    torch.compile = recording
    torch._dynamo.reset()
    torch._dynamo.utils.clear_compilation_metrics()
    spec = importlib.util.spec_from_file_location(f"case_under_test_{index}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.manual_seed(0)
    random.seed(0)
    error = None
    try:
        module.main()
    except Exception as exc:  # fullgraph cases raise on purpose
        error = type(exc).__name__
    skipped = sorted({m.co_name for m in torch._dynamo.utils.get_compilation_metrics()
                      if not m.has_guarded_code and m.fail_type and "Unsupported" in str(m.fail_type)
                      and m.co_filename == path})
    flat = []
    for out in outputs:
        items = out if isinstance(out, (tuple, list)) else [out]
        flat.extend(t.detach().tolist() for t in items if isinstance(t, torch.Tensor))
    torch.compile = real_compile
    return {"path": path, "graphs": len(graphs), "ops": graphs, "skipped": skipped, "outputs": flat, "error": error}


if __name__ == "__main__":
    for i, p in enumerate(sys.argv[1:]):
        print(json.dumps(observe(p, i)), flush=True)
