#!/usr/bin/env bash
# The simulation build plans and exchanges as the real build does: the same job (64 ranks on 8
# nodes of 8 ranks and 2 sockets, uneven node memory, a torus topology file) runs mcio-bench once
# under SimGrid's SMPI on a simulated torus (tools/mcio-platform.py) and once on a real MPI with
# virtual nodes given the same memory, sockets and topology file. Every collective call's
# statistics (MCIO_STATS) must agree: file domains' aggregators and their nodes, rounds, the
# bytes each aggregator moved, the memory budget and buffers of every node. Strategies romio
# and memory, placements spread and topology with the distributed socket rule; the second case
# with the summaries gathered node by node (mcio_node_gather=true), the first flat.
# Usage: sim_vs_real.sh SOURCE_DIR SMPI_BUILD_DIR [REAL_BUILD_DIR REAL_MPI(openmpi|mpich)]
# Without the last two: SOURCE_DIR/build/openmpi, else SOURCE_DIR/build/mpich (scripts/test.sh
# builds them before the simulation build). Open MPI is preferred: MPICH busy-polls, and 64
# ranks on a few cores crawl.
set -euo pipefail
src=${1:?source dir} sim=${2:?smpi build dir} real=${3:-} mpi=${4:-}
if [ -z "$real" ]; then
  for m in openmpi mpich; do
    if [ -x "$src/build/$m/mcio-bench" ]; then real=$src/build/$m mpi=$m; break; fi
  done
fi
if [ -z "$real" ]; then
  echo "SKIP: no real build to compare with (scripts/build.sh openmpi)"
  exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ranks=64 per_node=8 memory=64m,16m,0,24m
"$src/tools/mcio-platform.py" make --topology torus --nodes $((ranks / per_node)) \
  --ranks-per-node $per_node --sockets 2 --targets 4 --memory $memory --disk-bw 1g \
  --request-cost 0 --out "$work/platform" >/dev/null
bench_args=(--engine mcio --pattern ior,coll_perf --size 512k --transfer 16k --reps 1
            --strategies romio,memory --hint cb_buffer_size=256k --hint mcio_msgind=256k
            --hint mcio_memmin=64k)
cases=("mcio_placement=spread mcio_node_gather=false"
       "mcio_placement=topology mcio_socket_rule=distributed mcio_node_gather=true")
for i in "${!cases[@]}"; do
  hints=()
  for h in ${cases[$i]}; do hints+=(--hint "$h"); done
  MCIO_STATS="$work/sim-$i.json" MCIO_SIM_PLATFORM="$work/platform/platform.txt" \
    smpirun -np $ranks -platform "$sim/libmcio-platform.so" -hostfile "$work/platform/hostfile" \
    --cfg=smpi/coll-selector:ompi --cfg=smpi/send-is-detached-thresh:0 --cfg=maxmin/precision:1e-4 \
    --log=root.thres:warning --log=smpi_config.thres:warning \
    "$sim/mcio-bench" "${bench_args[@]}" "${hints[@]}" --hint mcio_io_backend=sim >"$work/sim-$i.txt"
  launch=(mpiexec.$mpi -n $ranks)
  [ "$mpi" = openmpi ] && launch+=(--oversubscribe)
  [ "$mpi" = openmpi ] && [ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)
  MCIO_STATS="$work/real-$i.json" MCIO_VIRTUAL_RANKS_PER_NODE=$per_node \
    MCIO_VIRTUAL_SOCKETS_PER_NODE=2 MCIO_VIRTUAL_NODE_MEMORY=$memory \
    MCIO_TOPOLOGY_FILE="$work/platform/topology.txt" \
    "${launch[@]}" "$real/mcio-bench" "${bench_args[@]}" "${hints[@]}" --hint mcio_io_backend=posix \
    --dir "$work" >"$work/real-$i.txt"
done
exec /usr/bin/python3 - "$work" "${#cases[@]}" <<'PY'
import json, sys
work, ncases = sys.argv[1], int(sys.argv[2])
keys = ("op", "strategy", "ranks", "nodes", "bytes", "aggregators", "rounds", "max_buffer_bytes",
        "aggregator_ranks", "aggregator_nodes", "aggregator_bytes", "node_budget_bytes",
        "node_peak_bytes", "fallbacks", "node_gather")
bad = calls = 0
for i in range(ncases):
    sim = [json.loads(l) for l in open("%s/sim-%d.json" % (work, i))]
    real = [json.loads(l) for l in open("%s/real-%d.json" % (work, i))]
    if len(sim) != len(real) or not sim:
        print("case %d: %d simulated calls, %d real" % (i, len(sim), len(real)))
        bad += 1
        continue
    for k, (s, r) in enumerate(zip(sim, real)):
        calls += 1
        for key in keys:
            if s.get(key) != r.get(key):
                print("case %d call %d (%s %s): %s differs: simulated %s, real %s"
                      % (i, k, s["op"], s["strategy"], key, s.get(key), r.get(key)))
                bad += 1
        if s.get("node_gather") != i:  # case 1 takes the node-level step, case 0 does not
            print("case %d call %d: node_gather %s" % (i, k, s.get("node_gather")))
            bad += 1
        if sum(s.get("aggregator_bytes", [])) != s["bytes"]:
            print("case %d call %d: the aggregators' bytes do not add up to the call's" % (i, k))
            bad += 1
strategies = sorted({json.loads(l)["strategy"] for l in open("%s/sim-0.json" % work)})
print("%d collective calls compared (strategies %s): %s"
      % (calls, ",".join(strategies), "same plans and bytes" if not bad else "%d differences" % bad))
sys.exit(1 if bad else 0)
PY
