#!/usr/bin/python3
"""mcio-plot: PNG figures from mcio-bench JSON files, for people (the JSON is for machines).

    tools/mcio-plot.py out/demo.png out/demo-ompio.json out/demo-romio321.json

One panel per JSON file (a native MPI-IO implementation), grouped bars per pattern: write and
read bandwidth (median over repetitions) of native and mcio, with mcio's ratio to native
written above its bars. Runs under the virtual environment of scripts/setup.sh (mcio_venv.py).
"""
import json
import sys

import mcio_venv

mcio_venv.use_venv()
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    with open(path) as f:
        doc = json.load(f)
    machine = doc.get("machine", {})
    lib = " ".join(machine.get("mpi_library_version", "").split("\n")[0].split(",")[0].split())
    return path, machine.get("native_io", "native"), lib, doc["results"]


def panel(ax, name, native_io, lib, results):
    patterns = []
    for r in results:
        if r["pattern"] not in patterns:
            patterns.append(r["pattern"])
    width = 0.2
    series = [("native", "write"), ("mcio", "write"), ("native", "read"), ("mcio", "read")]
    colors = {"native": "#9e9e9e", "mcio": "#1f77b4"}
    for i, (engine, op) in enumerate(series):
        xs, ys = [], []
        for j, p in enumerate(patterns):
            rows = [r for r in results if r["pattern"] == p and r["engine"] == engine]
            if not rows:
                continue
            xs.append(j + (i - 1.5) * width)
            ys.append(rows[0][op + "_mib_s"])
            ratio = rows[0].get("ratio_%s_vs_native" % op)
            if engine == "mcio" and ratio is not None:
                ax.annotate("%.2fx" % ratio, (xs[-1], ys[-1]), ha="center", va="bottom", fontsize=7)
        ax.bar(xs, ys, width, color=colors[engine], hatch="" if op == "write" else "//",
               edgecolor="white", label="%s %s" % (engine, op))
    ax.set_xticks(range(len(patterns)))
    ax.set_xticklabels(patterns)
    ax.set_ylabel("MiB/s (median)")
    ranks = results[0]["ranks"] if results else 0
    ax.set_title("%d ranks, %s, native = %s" % (ranks, lib, native_io), fontsize=9)
    ax.legend(fontsize=7)


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 2 if len(argv) < 3 else 0
    out, inputs = argv[1], [load(p) for p in argv[2:]]
    fig, axes = plt.subplots(1, len(inputs), figsize=(5.5 * len(inputs), 4), squeeze=False)
    for ax, (name, io, lib, results) in zip(axes[0], inputs):
        panel(ax, name, io, lib, results)
    fig.suptitle("mcio against the MPI library's collective I/O (every byte verified)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print("mcio-plot: wrote %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
