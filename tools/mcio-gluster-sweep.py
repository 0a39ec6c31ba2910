#!/usr/bin/env python3
"""mcio on the GlusterFS volume: every workload of mcio-bench, the MPI library's own collective
I/O and each of mcio's options, and dd's throughput on the mount as the physical limit.

    tools/mcio-gluster-sweep.py run  [--ranks 8] [--size 4m] [--reps 3] [--out out/gluster/sweep.json]
                                     [--mpi MPI | --build DIR]
    tools/mcio-gluster-sweep.py plot out/gluster/sweep.json [--png docs/figures/gluster-sweep.png]
    tools/mcio-gluster-sweep.py table out/gluster/sweep.json     (Markdown, for docs/performance.md)

run needs scripts/gluster.sh up; it runs the MPI named as scripts/build.sh takes it (--mpi,
default Debian's Open MPI; built if needed) or a build (--build), launched as its build found
(tools/mcio_mpi.py); a native engine that MPI lacks (OMPIO on the MPICH family) is left out.
Each repetition runs every variant once, in a rotated order (rep r starts at variant r), one
mcio-bench process per variant (--reps 1, every byte verified), so that a ratio to native OMPIO
compares runs taken minutes apart at most under the same load of a shared host; the tables give
medians over repetitions of those per-repetition ratios and of the bandwidths. Variants (hints
through mcio-bench --hint):

    native OMPIO, native ROMIO (Open MPI's ROMIO component: romio321 in 4.x, romio341 in 5.x)
    mcio aggregated (the defaults: one aggregator per node, 16 MiB buffer, shard-aligned domains)
    mcio independent (romio_cb_write=disable, romio_cb_read=disable: each rank its own pieces)
    mcio pipeline depth 2 and 4 (two-sided), rma (one-sided, depth 2)
    mcio cb_nodes 2 and 4 (aggregators per node: the job is one node)
    mcio without the end-of-write sync (mcio_write_sync=false: its cost)
    dd (mcio-bench --engine dd: rank 0 alone, 1 MiB writes and reads, the mount's sequential
    throughput) and limit (each rank's bytes in one contiguous pwrite/pread)

The JSON keeps every run: variant, workload, repetition, write and read MiB/s.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import mcio_mpi  # noqa: E402

WORKLOADS = ["contiguous", "ior", "mpi-io-test", "coll_perf", "flash-io", "hacc-aos", "hacc-soa",
             "gcrm", "random", "tapioca"]
# name, mcio-bench --engine, native engine (tools/mcio_mpi.py; None: the library's default), hints
VARIANTS = [
    ("native OMPIO", "native", "ompio", []),
    ("native ROMIO", "native", "romio", []),
    ("mcio aggregated", "mcio", None, []),
    ("mcio independent", "mcio", None, ["romio_cb_write=disable", "romio_cb_read=disable"]),
    ("mcio depth 2", "mcio", None, ["mcio_pipeline_depth=2"]),
    ("mcio depth 4", "mcio", None, ["mcio_pipeline_depth=4"]),
    ("mcio rma", "mcio", None, ["mcio_transport=rma", "mcio_pipeline_depth=2"]),
    ("mcio cb_nodes 2", "mcio", None, ["cb_nodes=2"]),
    ("mcio cb_nodes 4", "mcio", None, ["cb_nodes=4"]),
    ("mcio no sync", "mcio", None, ["mcio_write_sync=false"]),
    ("limit", "limit", None, []),
    ("dd", "dd", None, []),
]
BASE = "native OMPIO"


def bench_once(args, mpi, variant, workload, outdir):
    name, engine, io, hints = variant
    jpath = os.path.join(outdir, "one.json")
    cmd = mpi.launch(args.ranks, io)
    cmd += [os.path.join(mpi.build, "mcio-bench"), "--engine", engine,
                    "--pattern", workload, "--size", args.size, "--reps", "1", "--dir", outdir,
                    "--json", jpath]
    for h in hints:
        cmd += ["--hint", h]
    t = time.time()
    p = subprocess.run(cmd, env=mpi.env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=args.timeout)
    rec = {"variant": name, "workload": workload, "command": " ".join(cmd), "exit": p.returncode,
           "seconds": round(time.time() - t, 2)}
    if p.returncode != 0:
        rec["error"] = p.stdout[-800:]
        return rec
    with open(jpath) as f:
        res = [r for r in json.load(f)["results"] if r["engine"] == engine]
    r = res[0]
    rec.update(write=r["write_mib_s"], read=r["read_mib_s"], verified=r["verified"],
               bytes=r["bytes"], aggregators=r.get("aggregators"))
    return rec


def run(args):
    mnt = os.environ.get("MCIO_GLUSTER_MOUNT", "/mnt/mcio-gluster")
    if subprocess.run([os.path.join(ROOT, "scripts", "gluster.sh"), "status"],
                      stdout=subprocess.DEVNULL).returncode != 0:
        sys.exit("mcio-gluster-sweep: the volume is not up (scripts/gluster.sh up)")
    mpi = mcio_mpi.from_args(args, "mcio-gluster-sweep")
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    doc = {"ranks": args.ranks, "size": args.size, "reps": args.reps, "mount": mnt,
           "mpi": str(mpi),
           "volume": subprocess.run(["gluster", "--mode=script", "volume", "info", "mcio"],
                                    stdout=subprocess.PIPE, text=True).stdout,
           "runs": []}
    if os.path.exists(args.out):  # resume
        with open(args.out) as f:
            doc = json.load(f)
    done = {(r["variant"], r["workload"], r["rep"]) for r in doc["runs"]}
    variants = [v for v in VARIANTS if not args.only or v[0] in args.only.split(",")]
    lacks = [v for v in variants if v[2] and mcio_mpi.engine_name(v[2]) not in mpi.natives()]
    if lacks:
        print("mcio-gluster-sweep: %s has no %s: left out" % (
            mpi, ", ".join(v[0] for v in lacks)), file=sys.stderr)
        variants = [v for v in variants if v not in lacks]
    total = args.reps * len(WORKLOADS) * len(variants)
    n = 0
    for rep in range(args.reps):
        for w in WORKLOADS:
            order = variants[rep % len(variants):] + variants[:rep % len(variants)]
            for v in order:
                n += 1
                if (v[0], w, rep) in done:
                    continue
                with tempfile.TemporaryDirectory(dir=mnt, prefix="sweep.") as d:
                    try:
                        rec = bench_once(args, mpi, v, w, d)
                    except subprocess.TimeoutExpired:
                        rec = {"variant": v[0], "workload": w, "exit": -1, "error": "timeout"}
                rec["rep"] = rep
                doc["runs"].append(rec)
                print("[%d/%d] rep %d %-10s %-18s %s" % (
                    n, total, rep + 1, w, v[0],
                    "write %.1f read %.1f MiB/s" % (rec["write"], rec["read"]) if "write" in rec
                    else "FAILED: " + rec.get("error", "")[-200:]), flush=True)
                with open(args.out + ".tmp", "w") as f:
                    json.dump(doc, f, indent=1)
                os.replace(args.out + ".tmp", args.out)


def medians(doc):
    """{(variant, workload): (write, read, write/native, read/native)} medians over reps."""
    by = {}
    for r in doc["runs"]:
        if "write" in r:
            by[(r["variant"], r["workload"], r["rep"])] = r
    out = {}
    names = sorted({r["variant"] for r in doc["runs"]}, key=[v[0] for v in VARIANTS].index)
    for v in names:
        for w in WORKLOADS:
            reps = [by[k] for k in by if k[0] == v and k[1] == w]
            if not reps:
                continue
            rw, rr = [], []
            for r in reps:
                b = by.get((BASE, w, r["rep"]))
                if b:
                    rw.append(r["write"] / b["write"])
                    rr.append(r["read"] / b["read"])
            out[(v, w)] = (statistics.median(r["write"] for r in reps),
                           statistics.median(r["read"] for r in reps),
                           statistics.median(rw) if rw else None,
                           statistics.median(rr) if rr else None)
    return names, out


def table(args):
    with open(args.json) as f:
        doc = json.load(f)
    names, m = medians(doc)
    reps = len({r["rep"] for r in doc["runs"]})
    for op, i, j in (("write", 0, 2), ("read", 1, 3)):
        print("\n%s, MiB/s (median over %d repetition%s; in parentheses: the median of the ratios "
              "to native OMPIO in the same repetition; last column: their geometric mean over the "
              "workloads)\n" % (op.capitalize(), reps, "s" if reps > 1 else ""))
        print("| variant | " + " | ".join(WORKLOADS) + " | geo. mean |")
        print("|---" * (len(WORKLOADS) + 2) + "|")
        for v in names:
            cells, ratios = [], []
            for w in WORKLOADS:
                x = m.get((v, w))
                if x and x[j]:
                    ratios.append(x[j])
                cells.append("-" if not x else "%.1f" % x[i] + ("" if v == BASE or x[j] is None
                                                                 else " (%.2f)" % x[j]))
            gm = statistics.geometric_mean(ratios) if ratios and v != BASE else None
            print("| %s | %s | %s |" % (v, " | ".join(cells), "%.2f" % gm if gm else "1"))


def plot(args):
    import mcio_venv
    mcio_venv.use_venv()  # matplotlib is in the project's .venv (scripts/setup.sh)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(args.json) as f:
        doc = json.load(f)
    names, m = medians(doc)
    fig, axes = plt.subplots(2, 1, figsize=(14, 9), sharex=True)
    width = 0.8 / len(names)
    for ax, i, op in ((axes[0], 0, "write"), (axes[1], 1, "read")):
        for k, v in enumerate(names):
            xs = [n + k * width for n in range(len(WORKLOADS))]
            ys = [m[(v, w)][i] if (v, w) in m else 0 for w in WORKLOADS]
            ax.bar(xs, ys, width, label=v, color=plt.cm.tab20(k / max(1, len(names) - 1)))
        ax.set_yscale("log")
        ax.set_ylabel("%s MiB/s (log)" % op)
        ax.grid(axis="y", alpha=0.3)
    axes[1].set_xticks([n + 0.4 - width / 2 for n in range(len(WORKLOADS))])
    axes[1].set_xticklabels(WORKLOADS, rotation=20)
    axes[0].legend(ncol=4, fontsize=8)
    axes[0].set_title("GlusterFS, 4 bricks on one host, 4 MiB shards, FUSE: %d ranks of Open MPI, "
                      "%s per rank; medians of %d interleaved repetitions (shared host)"
                      % (doc["ranks"], doc["size"], doc["reps"]), fontsize=10)
    fig.tight_layout()
    os.makedirs(os.path.dirname(args.png) or ".", exist_ok=True)
    fig.savefig(args.png, dpi=110)
    print(args.png)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--ranks", type=int, default=8)
    r.add_argument("--size", default="4m")
    r.add_argument("--reps", type=int, default=3)
    r.add_argument("--timeout", type=int, default=600)
    r.add_argument("--only", default="", help="comma-separated variant names")
    r.add_argument("--out", default=os.path.join(ROOT, "out", "gluster", "sweep.json"))
    mcio_mpi.add_arguments(r)
    p = sub.add_parser("plot")
    p.add_argument("json")
    p.add_argument("--png", default=os.path.join(ROOT, "docs", "figures", "gluster-sweep.png"))
    t = sub.add_parser("table")
    t.add_argument("json")
    a = ap.parse_args()
    {"run": run, "plot": plot, "table": table}[a.cmd](a)


if __name__ == "__main__":
    main()
