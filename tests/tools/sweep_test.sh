#!/usr/bin/env bash
# A tiny sweep end to end (tools/mcio-sweep.py): every case run and verified, the JSON holding
# every repetition, the figures written and non-empty, the report block written into a Markdown
# file, and a second run resuming (no case redone).
# Usage: sweep_test.sh <source root> <build dir> <mpich|openmpi>
set -euo pipefail
root=$1 build=$2 mpi=$3
# The tools run under the figures' Python environment, which scripts/setup.sh makes (matplotlib
# from PyPI): without it there is nothing to test here.
if [ ! -x "$root/.venv/bin/python3" ]; then
  echo "SKIP: $root/.venv is missing (scripts/setup.sh creates it: matplotlib from PyPI)"
  exit 77
fi
work=$(mktemp -d "$build/testdata/sweep.XXXXXX")
trap 'rm -rf "$work"' EXIT
cat > "$work/tiny.json" <<JSON
{"name": "tiny", "mpi": "$mpi", "ranks": [2], "workloads": ["ior", "hacc-aos"],
 "sizes": ["64k", "128k"], "buffers": ["16k", "64k"], "strategies": ["romio", "memory"],
 "limit": true, "reps": 2, "dir": "$work"}
JSON
/usr/bin/python3 "$root/tools/mcio-sweep.py" run "$work/tiny.json" --out "$work/s.json" \
  --build "$build" 2> "$work/log" || { cat "$work/log"; exit 1; }
/usr/bin/python3 - "$work/s.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
cases = doc["cases"]
assert len(cases) == 8, "expected 8 cases, got %d" % len(cases)
for c in cases:
    labels = sorted(r.get("label", r["engine"]) for r in c["results"])
    assert labels == ["dd", "limit", "mcio:memory", "mcio:romio", "native"], (c["key"], labels)
    for r in c["results"]:
        assert r["verified"] is True, (c["key"], r["engine"], "not verified")
        assert len(r["write_reps"]) == 2 and len(r["read_reps"]) == 2, (c["key"], r["engine"])
        assert r["write_mib_s"] > 0 and r["read_mib_s"] > 0, (c["key"], r["engine"])
        if r["engine"] not in ("limit", "dd"):
            assert r["fraction_of_limit_write"] > 0, (c["key"], r["engine"], "no fraction of limit")
print("sweep JSON: %d cases, all verified" % len(cases))
PY
for fig in memory size breakdown; do
  [ -s "$work/s-$fig.png" ] || { echo "figure s-$fig.png missing or empty"; cat "$work/log"; exit 1; }
  head -c 8 "$work/s-$fig.png" | od -An -c | grep -q 'P   N   G' || { echo "s-$fig.png is not a PNG"; exit 1; }
done
echo "figures: memory, size, breakdown"
# The report: a generated block in a Markdown file, the hand-written text around it kept, and a
# second report replacing the block rather than adding one.
printf '# Doc\n\nHand-written.\n' > "$work/doc.md"
/usr/bin/python3 "$root/tools/mcio-sweep.py" dd --dir "$work" --size 4m --reps 1 --out "$work/dd.json" 2>> "$work/log"
for i in 1 2; do
  /usr/bin/python3 "$root/tools/mcio-sweep.py" report --doc "$work/doc.md" --figures "$work/fig" \
    --dd "$work/dd.json" "$work/s.json" 2>> "$work/log"
done
grep -q "^Hand-written.$" "$work/doc.md" || { echo "the report lost the hand-written text"; exit 1; }
[ "$(grep -c '^<!-- mcio-sweep report' "$work/doc.md")" -eq 1 ] || { echo "not one report block"; exit 1; }
grep -q "^| read, O_DIRECT (the device) | [0-9]" "$work/doc.md" || { echo "no dd table"; exit 1; }
[ "$(grep -c '^| ior | 2 | ' "$work/doc.md")" -eq 4 ] || { echo "the sweep's table lacks ior rows"; exit 1; }
for fig in memory size breakdown; do
  grep -q "](fig/sweep-tiny-$fig.png)" "$work/doc.md" && [ -s "$work/fig/sweep-tiny-$fig.png" ] ||
    { echo "report figure $fig missing"; exit 1; }
done
echo "report: one generated block, dd table, sweep table, figures"
/usr/bin/python3 "$root/tools/mcio-sweep.py" run "$work/tiny.json" --out "$work/s.json" \
  --build "$build" --no-plot 2> "$work/log2"
grep -q "8 of 8 cases already" "$work/log2" || { echo "the rerun did not resume:"; cat "$work/log2"; exit 1; }
echo "rerun resumed without redoing a case"
