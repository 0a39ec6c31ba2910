#!/usr/bin/env bash
# The simulation results of docs/simulation.md, regenerated: builds the simulation build
# (SimGrid's SMPI), runs the sweeps of tools/sim/sweep-*.json (memory-conscious against romio at
# 120 and 1,080 ranks, with the paper's Nah of 4 and with 1; aggregator placements on torus,
# dragonfly and fat-tree at 1,080 ranks, on the ior and TAPIOCA patterns; pipeline depths 1, 2
# and 4 at 1,080 ranks, on half- and full-duplex links; 4,096 ranks, Nah 4 and 1; the memory
# sweeps again with the memory model, --memory-model paging), and prints the Markdown tables.
# JSON and figures in out/sim-*. About two hours on an idle 2-core host, most of it the two
# 4,096-rank sweeps.
# "metadata" (not in the default list: hours): the metadata figures of the papers' patterns,
# tools/mcio-simscale.py at 1,080 ranks (all patterns), 4,096 and 16,384 (ior; 16,384 on the
# flat network, one transfer per rank), after the
# compact descriptions and before them (the engine of tools/sim/metadata-before.patch, built
# in a temporary worktree), into out/sim-scale-meta.json.
# Usage: scripts/simulate.sh [SWEEP...|metadata]   (tools/sim/sweep-SWEEP.json; default: all sweeps)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
build=$("$root/scripts/build.sh" smpi)
sweeps=("$@")
[ ${#sweeps[@]} -eq 0 ] && sweeps=(memory memory-nah1 placement tapioca pipeline-d1 pipeline-d2 pipeline-d4
  pipeline-full-d1 pipeline-full-d2 pipeline-full-d4 scale scale-nah1 memory-paging memory-nah1-paging)
cd "$root"
metadata() {
  # 4,096 ranks and more: collectives of few messages (docs/simulation.md, "The settings")
  local tmp b out=out/sim-scale-meta.json
  local big=(--smpi-cfg smpi/allgather:GB --smpi-cfg smpi/allgatherv:GB --smpi-cfg smpi/allreduce:redbcast
             --smpi-cfg smpi/barrier:ompi_tree)
  tmp=$(mktemp -d)
  git -C "$root" worktree add --detach "$tmp/src" HEAD >/dev/null
  git -C "$tmp/src" apply "$root/tools/sim/metadata-before.patch"
  cmake -S "$tmp/src" -B "$tmp/build" -G Ninja -DMCIO_MPI=smpi -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  ninja -C "$tmp/build" mcio-bench mcio-platform >/dev/null
  for label in after before; do
    b=$build
    [ $label = before ] && b=$tmp/build
    nice -n 19 /usr/bin/python3 tools/mcio-simscale.py run --ranks 1080 --label $label --build "$b" --out $out
    nice -n 19 /usr/bin/python3 tools/mcio-simscale.py run --ranks 4096 --patterns ior \
      --label $label --build "$b" "${big[@]}" --out $out
    # 16,384 ranks: the flat network (the fat-tree's flows keep SimGrid's solver busy for hours),
    # ior in one 1 MiB transfer per rank, and romio's collective buffering on (its automatic rule
    # would plan one domain per rank, held by every rank: 35 GiB) (docs/simulation.md, "16,384 ranks")
    nice -n 19 /usr/bin/python3 tools/mcio-simscale.py run --ranks 16384 --patterns ior \
      --label $label --build "$b" "${big[@]}" --topology flat --transfer 1m \
      --hint romio_cb_write=enable --hint romio_cb_read=enable --out $out
  done
  /usr/bin/python3 tools/mcio-simscale.py table $out
  git -C "$root" worktree remove --force "$tmp/src"
  rm -rf "$tmp"
}
for s in "${sweeps[@]}"; do
  if [ "$s" = metadata ]; then
    metadata || echo "simulate: some metadata cases failed (rerun to retry them)" >&2
    continue
  fi
  /usr/bin/python3 tools/mcio-simsweep.py run "tools/sim/sweep-$s.json" --out "out/sim-$s.json" \
    --build "$build" || echo "simulate: some cases of $s failed (rerun to retry them)" >&2
done
for s in "${sweeps[@]}"; do
  [ "$s" != metadata ] && [ -f "out/sim-$s.json" ] || continue
  echo "## $s"
  /usr/bin/python3 tools/mcio-simsweep.py table "out/sim-$s.json"
done
