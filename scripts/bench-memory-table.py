#!/usr/bin/env python3
"""Markdown table of a bench-memory.sh sweep: scripts/bench-memory-table.py DIR...

One row per (ranks, pattern, mean memory): median write and read bandwidth of native, mcio's
romio and memory strategies (medians over the repetitions of one run), the memory/romio and
memory/native ratios of those medians (same run), aggregators and rounds of each strategy,
the memory strategy's fallbacks, and whether every node stayed within its budget."""
import glob, json, os, re, sys

def mib(s):
    m = re.match(r"(\d+)([kmg]?)$", s)
    return int(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(2)]

rows = []
for d in sys.argv[1:]:
    for path in glob.glob(os.path.join(d, "mem-*.json")):
        _, ranks, mean = os.path.basename(path)[:-5].split("-")
        res = json.load(open(path))["results"]
        for pat in sorted({r["pattern"] for r in res}):
            by = {r["label"]: r for r in res if r["pattern"] == pat}
            rows.append((int(ranks), pat, mib(mean), mean, by))
rows.sort(key=lambda x: (x[0], x[1], -x[2]))
print("| ranks | pattern | mean memory | write native / romio / memory (MiB/s) | write memory/romio | write memory/native "
      "| read native / romio / memory (MiB/s) | read memory/romio | read memory/native "
      "| aggs romio/memory | rounds romio/memory | fallbacks | nodes within budget |")
print("|" + "---|" * 13)
for ranks, pat, _, mean, by in rows:
    n, ro, me = by.get("native"), by["mcio:romio"], by["mcio:memory"]
    def bw(r, k):
        return "%.0f" % r[k] if r else "-"
    def q(a, b, k):
        return "%.2f" % (a[k] / b[k]) if a and b and b[k] > 0 else "-"
    within = all(p <= b for p, b in zip(me["node_peak_bytes"], me["node_budget_bytes"]))
    print(f"| {ranks} | {pat} | {mean} | {bw(n,'write_mib_s')} / {bw(ro,'write_mib_s')} / {bw(me,'write_mib_s')} "
          f"| {q(me,ro,'write_mib_s')} | {q(me,n,'write_mib_s')} "
          f"| {bw(n,'read_mib_s')} / {bw(ro,'read_mib_s')} / {bw(me,'read_mib_s')} "
          f"| {q(me,ro,'read_mib_s')} | {q(me,n,'read_mib_s')} "
          f"| {ro['aggregators']}/{me['aggregators']} | {ro['rounds']}/{me['rounds']} | {me['fallbacks']} "
          f"| {'yes' if within else 'no'} |")
