#!/usr/bin/env bash
# The memory-strategy sweep of docs/performance.md: ior and coll_perf on 4 virtual nodes, the
# mean memory per node (per aggregator of the romio strategy, which puts one on each node) from
# 64 MiB down to 2 MiB with a standard deviation equal to the mean, mcio's romio and memory
# strategies and Open MPI's own collective I/O (native, given the same cb_buffer_size) in the
# same run, so that every ratio comes from one run.
# Usage: scripts/bench-memory.sh RANKS SIZE REPS OUTDIR [MEANS...]   e.g. 8 4m 5 /tmp/sweep 64m 16m 4m 2m
# ENGINE=mcio leaves native out (Open MPI's collective I/O is slow on an oversubscribed host).
# BUILD: the MPI, a build directory or a name as scripts/build.sh takes it (default openmpi,
# Debian's Open MPI; built if needed).
set -euo pipefail
ranks=${1:?ranks} size=${2:?size per rank} reps=${3:?reps} out=${4:?output directory}
shift 4
means=("$@")
[ ${#means[@]} -eq 0 ] && means=(64m 16m 4m 2m)
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/mpi-env.sh"
build=$(mpi_build "${BUILD:-openmpi}")
bench="$build/mcio-bench"
mpi_launch "$build"
mkdir -p "$out"
for m in "${means[@]}"; do
  # romio: one aggregator per node with a buffer of the mean; memory: nodes drawn from
  # N(mean, mean), Msgind a quarter of a node's data so that a node may host several domains.
  "$MCIO_MPIEXEC" "${MCIO_MPIEXEC_FLAGS[@]}" -n "$ranks" "$bench" --engine "${ENGINE:-both}" --strategies romio,memory \
    --pattern ior,coll_perf --size "$size" --reps "$reps" --ranks-per-node $((ranks / 4)) \
    --node-memory "normal:$m:$m:42" --hint cb_buffer_size="$m" --hint mcio_msgind=4m \
    --json "$out/mem-$ranks-$m.json" > "$out/mem-$ranks-$m.txt"
done
