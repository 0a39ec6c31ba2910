#!/usr/bin/env bash
# The simulation results of docs/simulation.md, regenerated: builds the simulation build
# (SimGrid's SMPI), runs the sweeps of tools/sim/sweep-*.json (memory-conscious against romio at
# 120 and 1,080 ranks, with the paper's Nah of 4 and with 1; aggregator placements on torus,
# dragonfly and fat-tree at 1,080 ranks, on the ior and TAPIOCA patterns; pipeline depths 1, 2
# and 4 at 1,080 ranks, on half- and full-duplex links; 4,096 ranks, Nah 4 and 1), and prints
# the Markdown tables. JSON and figures in out/sim-*. About two hours on a 2-core host, most of
# it the two 4,096-rank sweeps.
# Usage: scripts/simulate.sh [SWEEP...]   (tools/sim/sweep-SWEEP.json; default: all of them)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
build=$("$root/scripts/build.sh" smpi)
sweeps=("$@")
[ ${#sweeps[@]} -eq 0 ] && sweeps=(memory memory-nah1 placement tapioca pipeline-d1 pipeline-d2 pipeline-d4
  pipeline-full-d1 pipeline-full-d2 pipeline-full-d4 scale scale-nah1)
cd "$root"
for s in "${sweeps[@]}"; do
  /usr/bin/python3 tools/mcio-simsweep.py run "tools/sim/sweep-$s.json" --out "out/sim-$s.json" \
    --build "$build" || echo "simulate: some cases of $s failed (rerun to retry them)" >&2
done
for s in "${sweeps[@]}"; do
  [ -f "out/sim-$s.json" ] || continue
  echo "## $s"
  /usr/bin/python3 tools/mcio-simsweep.py table "out/sim-$s.json"
done
