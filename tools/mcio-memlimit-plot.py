#!/usr/bin/env python3
"""The memory-cgroup sweep (scripts/bench-memlimit.sh, issue 17) as a figure and a table.

Usage: tools/mcio-memlimit-plot.py RUNS.jsonl OUT.png
Left: the cgroup's held peak (usage less clean page cache) of each run against the limit, a
filled marker when the run completed and verified every byte, a cross when it was OOM-killed or
failed; mcio's predicted peak (what the cgroup held when a call planned plus the memory model)
dashed. Right: write and read bandwidth of the runs that completed. Prints the table in Markdown
on stdout (docs/performance.md).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcio_venv import use_venv  # noqa: E402

use_venv()

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MIB = 1048576.0
LABELS = {"romio": "native ROMIO", "romio321": "native ROMIO", "ompio": "OMPIO", "auto": "mcio default (auto)",
          "memory": "mcio memory", "independent": "mcio independent"}


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: tools/mcio-memlimit-plot.py RUNS.jsonl OUT.png")
    runs = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    engines = []
    for r in runs:
        if r["engine"] not in engines:
            engines.append(r["engine"])
    limits = sorted({r["limit_bytes"] for r in runs}, reverse=True)

    # The limits as categories, generous to tight, left to right: a generous limit (8 GiB) on a
    # numeric axis would squash the tight ones where everything happens.
    pos = {lim: i for i, lim in enumerate(limits)}
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.5))
    for k, e in enumerate(engines):
        mine = sorted((r for r in runs if r["engine"] == e), key=lambda r: -r["limit_bytes"])
        x = [pos[r["limit_bytes"]] for r in mine]
        y = [r["held_peak_bytes"] / MIB for r in mine]
        color = "C%d" % k
        ax.plot(x, y, "-", color=color, alpha=0.4)
        ok = [r["completed"] for r in mine]
        ax.scatter([a for a, o in zip(x, ok) if o], [b for b, o in zip(y, ok) if o], color=color,
                   marker="o", label=LABELS.get(e, e))
        ax.scatter([a for a, o in zip(x, ok) if not o], [b for b, o in zip(y, ok) if not o],
                   color=color, marker="x", s=60)
        pred = [(pos[r["limit_bytes"]], r["predicted_peak_bytes"] / MIB) for r in mine
                if r.get("predicted_peak_bytes")]
        if pred and e == "auto":
            ax.plot(*zip(*pred), "--", color=color, label="mcio default: predicted peak")
        done = [r for r in mine if r["completed"]]
        bx.plot([pos[r["limit_bytes"]] for r in done], [r["write_mib_s"] for r in done], "o-",
                color=color, label=LABELS.get(e, e) + " write")
        bx.plot([pos[r["limit_bytes"]] for r in done], [r["read_mib_s"] for r in done], "s:",
                color=color, alpha=0.6)
    top = max(r["held_peak_bytes"] for r in runs) / MIB * 1.1
    ax.plot(range(len(limits)), [min(lim / MIB, top) for lim in limits], color="grey", lw=0.8,
            label="the limit (clipped)")
    ax.set_ylim(0, top)
    for a in (ax, bx):
        a.set_xticks(range(len(limits)))
        a.set_xticklabels(["%.0f" % (lim / MIB) for lim in limits])
    ax.set_xlabel("memory cgroup limit (MiB)")
    ax.set_ylabel("held peak: usage less clean page cache (MiB)")
    ax.set_title("o completed and verified, x OOM-killed or failed")
    bx.set_xlabel("memory cgroup limit (MiB)")
    bx.set_ylabel("MiB/s (o write, s read)")
    bx.set_title("bandwidth of the runs that completed")
    ax.legend(fontsize=7)
    bx.legend(fontsize=7)
    fig.suptitle("ior, 4 ranks x 32 MiB, cb_buffer_size 128 MiB, Open MPI, one memory cgroup "
                 "(one run each; shared 2-core host; file in the page cache)", fontsize=9)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)

    print("| limit | " + " | ".join(LABELS.get(e, e) for e in engines) + " |")
    print("|---|" + "---|" * len(engines))
    for lim in limits:
        cells = []
        for e in engines:
            r = next((r for r in runs if r["engine"] == e and r["limit_bytes"] == lim), None)
            if r is None:
                cells.append("-")
            elif r["completed"]:
                cell = "ok, held %.0f, w %.0f r %.0f" % (r["held_peak_bytes"] / MIB,
                                                         r["write_mib_s"], r["read_mib_s"])
                if r.get("predicted_peak_bytes"):
                    cell += ", pred %.0f" % (r["predicted_peak_bytes"] / MIB)
                if r.get("memory_conscious_calls"):
                    cell += ", mc %d/%d" % (r["memory_conscious_calls"], r["calls"])
                cells.append(cell)
            else:
                cells.append("**%s** (exit %d)" % ("OOM" if r["oom_kill"] else "failed",
                                                   r["exit"]))
        print("| %.0f MiB | %s |" % (lim / MIB, " | ".join(cells)))


if __name__ == "__main__":
    main()
