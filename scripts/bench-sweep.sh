#!/usr/bin/env bash
# The default evaluation sweep (issue 7): the papers' axes scaled down to one 2-core machine,
# in under 15 minutes. Sweeps in tools/sweeps/ (workloads; memory per aggregator; message size;
# rank count, all Open MPI at up to 8 ranks; MPICH at 2 ranks, where it does not busy-poll),
# each engine (native, mcio with the romio and memory strategies, the limit, dd) verified byte
# for byte; then dd's own sequential throughput; then the generated block of
# docs/sweep.md (tables, figures in docs/figures/, machine, MPI versions, commands).
# The JSON of every repetition goes to out/sweep/. An interrupted run, started again, resumes
# (finished cases are kept); remove out/sweep for a new sweep.
# Usage: scripts/bench-sweep.sh     settings: MCIO_SWEEP_DIR (where files go, /tmp)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
start=$(date +%s)
"$root/scripts/setup.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$root/scripts/build.sh" openmpi >/dev/null
"$root/scripts/build.sh" mpich >/dev/null
out="$root/out/sweep"
dir=${MCIO_SWEEP_DIR:-/tmp}
mkdir -p "$out"
sweeps=(workloads memory size ranks mpich) results=()
for s in "${sweeps[@]}"; do
  desc="$out/$s.description.json"
  # The descriptions name no directory; the run's is added here, so the JSON says where it ran.
  /usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["dir"] = sys.argv[2]
json.dump(d, open(sys.argv[3], "w"))' "$root/tools/sweeps/$s.json" "$dir" "$desc"
  echo "bench-sweep: sweep $s" >&2
  "$root/tools/mcio-sweep.py" run "$desc" --out "$out/$s.json" --no-plot
  results+=("$out/$s.json")
done
"$root/tools/mcio-sweep.py" dd --dir "$dir" --size 512m --reps 3 --out "$out/dd.json"
"$root/tools/mcio-sweep.py" report --doc "$root/docs/sweep.md" --figures "$root/docs/figures" \
  --dd "$out/dd.json" --elapsed $(( $(date +%s) - start )) "${results[@]}" 2>&1 | sed 's/^/bench-sweep: /' >&2
echo "bench-sweep: done in $(( $(date +%s) - start )) s; docs/sweep.md's generated block and docs/figures/sweep-*.png" >&2
