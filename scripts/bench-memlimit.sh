#!/usr/bin/env bash
# The memory-cgroup sweep of docs/performance.md (issue 17): the issue's program (mcio-bench, ior
# pattern, 4 ranks, 32 MiB per rank, cb_buffer_size 128 MiB, Open MPI) inside a fresh memory
# cgroup of each size (scripts/memlimit.sh), from generous to tight, through native ROMIO
# (engine romio: --mca io romio321 in Open MPI 4.x, romio341 in 5.x), OMPIO, mcio's default
# (auto), mcio's memory strategy and mcio with
# independent I/O (romio_cb_write/read disable). One JSON object per run in OUTDIR/runs.jsonl:
# completion, OOM kills, the cgroup's peak and held peak, bandwidth, bytes verified, and for
# mcio the largest predicted peak of its calls (MCIO_STATS); then tools/mcio-memlimit-plot.py
# draws OUTDIR/memlimit.png and prints the table.
# Usage: scripts/bench-memlimit.sh OUTDIR [LIMITS...]   e.g. /tmp/ml 8g 700m 600m 560m 520m 480m
# Root only (cgroups); the engines take turns at each limit. ENGINES and SIZE, CB, RANKS from
# the environment override the defaults; BUILD the Open MPI: a build directory or a name as
# scripts/build.sh takes it (default openmpi, Debian's; built if needed).
set -uo pipefail
out=${1:?usage: scripts/bench-memlimit.sh OUTDIR [LIMITS...]}
shift
limits=("$@")
[ ${#limits[@]} -eq 0 ] && limits=(8g 700m 640m 600m 560m 520m 480m 440m 400m 360m)
engines=(${ENGINES:-romio ompio auto memory independent})
size=${SIZE:-32m} cb=${CB:-128m} ranks=${RANKS:-4}
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/mpi-env.sh"
build=$(mpi_build "${BUILD:-openmpi}") || exit 2
bench="$build/mcio-bench"
mpi_launch "$build"
mkdir -p "$out"
: > "$out/runs.jsonl"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
n=$(( ${#limits[@]} * ${#engines[@]} )) i=0
for lim in "${limits[@]}"; do
  for e in "${engines[@]}"; do
    i=$((i + 1))
    mca=() eng=mcio hints=(--hint "cb_buffer_size=$cb")
    case "$e" in
      romio) mca=(--mca io "$MCIO_MPI_ROMIO_IO") eng=native ;;
      ompio) mca=(--mca io "$e") eng=native ;;
      auto) ;;
      memory) hints+=(--hint mcio_strategy=memory) ;;
      independent) hints+=(--hint romio_cb_write=disable --hint romio_cb_read=disable) ;;
      *) echo "bench-memlimit: unknown engine $e" >&2; exit 2 ;;
    esac
    rm -f "$dir"/*.json "$dir"/mcio-bench.*
    MCIO_STATS="$dir/stats.json" "$root/scripts/memlimit.sh" "$lim" --json "$dir/limit.json" -- \
      "$MCIO_MPIEXEC" "${MCIO_MPIEXEC_FLAGS[@]}" "${mca[@]}" -n "$ranks" "$bench" \
      --pattern ior --size "$size" --reps 1 --engine "$eng" "${hints[@]}" --dir "$dir" \
      --json "$dir/bench.json" > "$dir/out.txt" 2>&1
    rc=$?
    [ "$rc" = 77 ] && { cat "$dir/out.txt" >&2; exit 77; }
    python3 - "$dir" "$e" "$lim" "$rc" >> "$out/runs.jsonl" <<'EOF'
import json, os, sys
d, engine, limit, rc = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
run = {"engine": engine, "limit": limit, "exit": rc}
run.update(json.load(open(os.path.join(d, "limit.json"))))
try:
    b = json.load(open(os.path.join(d, "bench.json")))
    r = b["results"][0] if isinstance(b, dict) and "results" in b else b[0]
    run["write_mib_s"] = r.get("write_mib_s")
    run["read_mib_s"] = r.get("read_mib_s")
    run["verified"] = r.get("verified")
except Exception:
    run["verified"] = False
pred, conscious, sources = [], [], set()
if os.path.exists(os.path.join(d, "stats.json")):
    for line in open(os.path.join(d, "stats.json")):
        s = json.loads(line)
        pred += [p for p in s.get("node_predicted_peak_bytes", []) if p >= 0]
        conscious.append(s.get("memory_conscious", 0))
        sources.update(s.get("node_memory_source", []))
run["predicted_peak_bytes"] = max(pred) if pred else None
run["memory_conscious_calls"] = sum(conscious)
run["calls"] = len(conscious)
run["memory_source"] = sorted(sources)
run["completed"] = rc == 0 and run["oom_kill"] == 0 and bool(run["verified"])
print(json.dumps(run))
EOF
    tail -1 "$out/runs.jsonl" | python3 -c '
import json, sys; r = json.loads(sys.stdin.read())
print("[%d/%d] limit %-5s %-12s %s  peak %.0f MiB held %.0f MiB%s" % (int(sys.argv[1]), int(sys.argv[2]), r["limit"], r["engine"],
      "completed" if r["completed"] else "FAILED (exit %d, oom_kill %d)" % (r["exit"], r["oom_kill"]),
      r["peak_bytes"] / 1048576, r["held_peak_bytes"] / 1048576,
      "" if r["predicted_peak_bytes"] is None else ", predicted %.0f MiB" % (r["predicted_peak_bytes"] / 1048576)))' "$i" "$n" >&2
  done
done
"$root/tools/mcio-memlimit-plot.py" "$out/runs.jsonl" "$out/memlimit.png"
