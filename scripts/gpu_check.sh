#!/usr/bin/env bash
# GPU check for gblint's runtime confirmation (needs a CUDA machine, torch with CUDA, triton).
#
# Runs three example programs (tests/cases/examples) through Inductor on the GPU (`gblint confirm --backend inductor
# --device cuda`), prints the code generator of every graph, and exits 1 unless every run
# succeeded, reproduced the measured graph count and generated Triton kernels.
#
#   PYTHON=.venv/bin/python scripts/gpu_check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
EXAMPLES=tests/cases/examples
OUT=${OUT:-$(mktemp -d)}
CASES=(001_dynamo_alias_break_before_loop.py 018_grad_mode_blocks_break.py 057_tensor_if_branch.py)

"$PY" - <<'PYEOF'
import sys
import torch
if not torch.cuda.is_available():
    sys.exit("gpu_check: no CUDA device (torch.cuda.is_available() is False)")
print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, device {torch.cuda.get_device_name(0)}")
PYEOF

paths=()
for c in "${CASES[@]}"; do paths+=("$EXAMPLES/$c"); done
"$PY" -m gblint confirm --backend inductor --device cuda --timeout 600 --format json "${paths[@]}" \
    > "$OUT/gpu_check.json"

"$PY" - "$OUT/gpu_check.json" "$EXAMPLES/truth.json" <<'PYEOF'
import json
import os
import sys

doc = json.load(open(sys.argv[1]))
truth = json.load(open(sys.argv[2]))["cases"]
ok = True
for run in doc["runs"]:
    name = os.path.basename(run["file"])
    want = truth[name]["graph_count"]
    print(f"{name}: status {run['status']}, device {run['device']}, {run['graph_count']} graph(s) "
          f"(truth {want}), {run['seconds']:.1f} s")
    for i, g in enumerate(run["graphs"]):
        print(f"  graph {i}: {g['ops']} op(s), codegen {g['codegen']}, kernels {g.get('kernels')}, "
              f"devices {g.get('devices')}")
    triton = [g for g in run["graphs"] if g["codegen"] == "triton"]
    if run["status"] != "ok" or run["device"] != "cuda" or run["graph_count"] != want or not triton:
        ok = False
        print(f"  FAIL: {run.get('message') or 'no Triton kernels / wrong graph count'}")
print(f"precision {doc['precision']:.3f} recall {doc['recall']:.3f}")
sys.exit(0 if ok else 1)
PYEOF
