#!/usr/bin/env bash
# The simulation's memory model (docs/simulation.md, "Memory model"): 24 ranks on 2 nodes of 12,
# one node with the 4 MiB a romio buffer needs and one with 1 MiB, ior 2 MiB per rank, the
# romio and memory strategies with cb_buffer_size=4m. Without a model both run; with paging,
# romio's aggregator on the short node pages its buffer and its write bandwidth must fall below
# 0.8 of its bandwidth without (the memory strategy keeps its buffers within both nodes and must
# stay within 1 %); with oom, romio's call must fail on every rank with "cannot allocate a
# collective buffer" and the memory strategy's must succeed.
# Usage: memory_model.sh SOURCE_DIR SMPI_BUILD_DIR
set -euo pipefail
src=${1:?source dir} sim=${2:?smpi build dir}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() { # model json -> exit status of the simulated run
  "$src/tools/mcio-platform.py" run --topology fattree --ranks 24 --ranks-per-node 12 --targets 2 \
    --memory 4m,1m --memory-model "$1" --paging-bw 1g -- "$sim/mcio-bench" --engine mcio \
    --pattern ior --size 2m --transfer 512k --reps 1 --strategies romio,memory --json "$2" \
    --hint mcio_io_backend=sim --hint cb_buffer_size=4m --hint mcio_msgind=4m \
    --hint mcio_memmin=512k >"$work/out.txt" 2>&1
}
run off "$work/off.json" || { cat "$work/out.txt"; echo "FAIL: the run without a model failed"; exit 1; }
run paging "$work/paging.json" || { cat "$work/out.txt"; echo "FAIL: the paging run failed"; exit 1; }
if run oom "$work/oom.json"; then
  echo "FAIL: oom: romio's buffer beyond the 1 MiB node did not fail the run"; exit 1
fi
grep -q "mcio write: out of memory: .*cannot allocate a collective buffer" "$work/out.txt" ||
  { cat "$work/out.txt"; echo "FAIL: oom: no 'cannot allocate a collective buffer' error"; exit 1; }
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
def bw(name):
    d = json.load(open("%s/%s.json" % (w, name)))
    return {r["label"].split(":")[1]: r for r in d["results"]}
off, pg, oom = bw("off"), bw("paging"), bw("oom")
fails = []
r = pg["romio"]["write_mib_s"] / off["romio"]["write_mib_s"]
m = pg["memory"]["write_mib_s"] / off["memory"]["write_mib_s"]
print("romio paging/off %.3f, memory paging/off %.3f" % (r, m))
if r >= 0.8:
    fails.append("romio did not slow down with paging (%.3f of its bandwidth without)" % r)
if abs(m - 1) > 0.01:
    fails.append("the memory strategy's bandwidth changed with paging (%.3f)" % m)
if oom["memory"].get("verified") is not True or oom["romio"].get("verified") is not False:
    fails.append("oom: the memory strategy's run should complete and romio's fail")
for f in fails:
    print("FAIL: " + f)
sys.exit(1 if fails else 0)
PY
