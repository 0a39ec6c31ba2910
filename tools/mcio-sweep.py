#!/usr/bin/python3
"""mcio-sweep: run a parameter sweep of mcio-bench and draw the papers' figures.

    tools/mcio-sweep.py run SWEEP.json [--out out/sweep-NAME.json] [--build build]
    tools/mcio-sweep.py plot out/sweep-NAME.json [--png-prefix out/sweep-NAME]

A sweep is a small JSON description; every list is an axis and the cases are their product:

    {
      "name": "buffers",
      "mpi": "openmpi",                  # or "mpich" (then native_io is ROMIO)
      "native_io": ["ompio", "romio321"],# Open MPI's io component for the native engine
      "ranks": [8],
      "workloads": ["ior", "coll_perf"], # mcio-bench --pattern names
      "sizes": ["16m"],                  # message size per process (mcio-bench --size)
      "buffers": ["64m", "16m", "4m"],   # memory per aggregator: cb_buffer_size, both engines
      "strategies": ["romio", "memory"], # mcio once per mcio_strategy, against one native run
      "reps": 5,
      "limit": true,                     # also the file system's bound (mcio-bench --engine limit)
      "hints": {"striping_unit": "1m"},  # more hints, both engines (mcio_* to mcio only)
      "env": {"MCIO_VIRTUAL_RANKS_PER_NODE": "2"}
    }

Each case is one mcio-bench run in which native and mcio (once per strategy) take turns
repetition by repetition, so every ratio compares figures taken under the same load. Every repetition of every case goes
into one JSON file, written after each case: an interrupted sweep, run again with the same
output, skips the cases it already has. Figures (matplotlib, Debian's python3-matplotlib):
bandwidth against memory per aggregator with the improvement over native on a second axis,
bandwidth against message size, and mcio's time split into data exchange and file access;
medians with the spread (min to max) of the repetitions.
"""
import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

AXES = ("native_io", "ranks", "workloads", "sizes", "buffers")
KEYS = ("native_io", "ranks", "workload", "size", "buffer")


def fail(msg):
    print("mcio-sweep: " + msg, file=sys.stderr)
    sys.exit(2)


def load_description(path):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        fail("%s: %s" % (path, e))
    for k in ("mpi", "ranks", "workloads", "sizes", "buffers"):
        if k not in d:
            fail("%s: the description needs '%s'" % (path, k))
    if d["mpi"] not in ("openmpi", "mpich"):
        fail("%s: mpi is '%s', not openmpi or mpich" % (path, d["mpi"]))
    d.setdefault("name", os.path.splitext(os.path.basename(path))[0])
    d.setdefault("native_io", ["ompio"] if d["mpi"] == "openmpi" else ["romio"])
    d.setdefault("strategies", ["romio"])
    d.setdefault("reps", 5)
    d.setdefault("hints", {})
    d.setdefault("env", {})
    for k in AXES + ("strategies",):
        if not isinstance(d[k], list) or not d[k]:
            fail("%s: '%s' must be a non-empty list" % (path, k))
    return d


def cases_of(d):
    for values in itertools.product(*(d[a] for a in AXES)):
        yield dict(zip(KEYS, values))


def key_of(case):
    return "|".join(str(case[k]) for k in KEYS)


def command(d, case, bench, json_path):
    if d["mpi"] == "openmpi":
        cmd = ["mpiexec.openmpi", "--oversubscribe", "-n", str(case["ranks"]),
               "--mca", "io", case["native_io"]]
    else:
        cmd = ["mpiexec.mpich", "-n", str(case["ranks"])]
    cmd += [bench, "--engine", "all" if d.get("limit") else "both", "--pattern", case["workload"], "--size", str(case["size"]),
            "--reps", str(d["reps"]), "--hint", "cb_buffer_size=%s" % case["buffer"],
            "--strategies", ",".join(d["strategies"]), "--json", json_path]
    for k, v in sorted(d["hints"].items()):
        cmd += ["--hint", "%s=%s" % (k, v)]
    if d.get("dir"):
        cmd += ["--dir", d["dir"]]
    return cmd


def save(path, doc):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(tmp, path)


def resume(out, d):
    """The sweep's document so far: what out holds for the same description, else empty."""
    if not os.path.exists(out):
        return {"description": d, "cases": []}
    with open(out) as f:
        old = json.load(f)
    if old.get("description") != d:
        fail("%s holds another sweep; remove it or choose --out" % out)
    return old


def run_case(make_command, env=None):
    """Runs make_command(json_path); returns the command, the process and the JSON (or None)."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
        jpath = tmp.name
    cmd = make_command(jpath)
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        with open(jpath) as f:
            result = json.load(f)
    except (OSError, ValueError):
        result = None
    os.unlink(jpath)
    return cmd, proc, result


def run(args):
    d = load_description(args.sweep)
    out = args.out or os.path.join("out", "sweep-%s.json" % d["name"])
    bench = os.path.join(args.build or os.path.join("build", d["mpi"]), "mcio-bench")
    if not os.access(bench, os.X_OK):
        fail("%s is not built (scripts/build.sh %s)" % (bench, d["mpi"]))
    doc = resume(out, d)
    done = {c["key"] for c in doc["cases"]}
    todo = [c for c in cases_of(d) if key_of(c) not in done]
    total = len(done) + len(todo)
    if done:
        print("mcio-sweep: %d of %d cases already in %s, %d to run" % (len(done), total, out,
              len(todo)), file=sys.stderr)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.update({k: str(v) for k, v in d["env"].items()})
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    start, failures = time.time(), 0
    for i, case in enumerate(todo):
        elapsed = time.time() - start
        eta = elapsed / i * (len(todo) - i) if i else 0
        print("mcio-sweep: case %d/%d %s  (elapsed %.0f s, about %.0f s left)"
              % (len(done) + i + 1, total, key_of(case), elapsed, eta), file=sys.stderr)
        cmd, proc, bench_doc = run_case(lambda jpath: command(d, case, bench, jpath), env)
        ok = proc.returncode == 0 and bench_doc is not None
        if not ok:
            failures += 1
            print("mcio-sweep: case failed (exit %d): %s\n%s" % (proc.returncode, " ".join(cmd),
                  proc.stderr[-2000:]), file=sys.stderr)
            continue  # not recorded: a rerun tries it again
        doc.setdefault("machine", bench_doc.get("machine"))
        doc["cases"].append(dict(case, key=key_of(case), command=" ".join(cmd),
                                 results=bench_doc["results"]))
        save(out, doc)
    print("mcio-sweep: %d cases in %s (%.0f s)%s" % (len(doc["cases"]), out, time.time() - start,
          ", %d failed" % failures if failures else ""), file=sys.stderr)
    if not args.no_plot:
        plot_doc(doc, os.path.splitext(out)[0])
    return 1 if failures else 0


# ---- Figures ----

def size_bytes(s):
    s = str(s).lower().rstrip("i")
    mul = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(s[-1:], 1)
    return int(s[:-1] if mul > 1 else s) * mul


def engine_rows(case):
    """(label, result) of the case's results: native, and mcio named by its strategy."""
    for r in case["results"]:
        yield r.get("label", r["engine"]).replace(":", " "), r


def spread(r, op):
    reps = r.get(op + "_reps") or [r[op + "_mib_s"]]
    med = statistics.median(reps)
    return med, med - min(reps), max(reps) - med


def series(doc, fixed, xkey, op):
    """{label: [(x, median, lo, hi, ratio)]} over the cases matching fixed, along xkey."""
    out = {}
    for c in doc["cases"]:
        if any(c[k] != v for k, v in fixed.items()):
            continue
        for label, r in engine_rows(c):
            med, lo, hi = spread(r, op)
            out.setdefault(label, []).append(
                (size_bytes(c[xkey]), med, lo, hi, r.get("ratio_%s_vs_native" % op)))
    for v in out.values():
        v.sort()
    return out


def fmt(b):
    for unit, n in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= n and b % n == 0:
            return "%d %s" % (b // n, unit)
    return str(b)


def line_figure(doc, xkey, xlabel, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    d = doc["description"]
    others = [k for k in KEYS if k != xkey]
    groups = sorted({tuple(c[k] for k in others) for c in doc["cases"]}, key=str)
    if not groups or len({c[xkey] for c in doc["cases"]}) < 2:
        return None
    fig, axes = plt.subplots(len(groups), 2, figsize=(11, 3.6 * len(groups)), squeeze=False)
    for row, g in enumerate(groups):
        fixed = dict(zip(others, g))
        for col, op in enumerate(("write", "read")):
            ax = axes[row][col]
            ax2 = ax.twinx()
            for label, pts in sorted(series(doc, fixed, xkey, op).items()):
                xs = [p[0] for p in pts]
                ax.errorbar(xs, [p[1] for p in pts], yerr=[[p[2] for p in pts], [p[3] for p in pts]],
                            marker="o", capsize=3, label=label,
                            color="#7f7f7f" if label == "native" else None)
                if label != "native":
                    ax2.plot(xs, [p[4] or 0 for p in pts], linestyle=":", marker="x",
                             label=label + " / native")
            ax.set_xscale("log", base=2)
            ax.set_xticks(sorted({size_bytes(c[xkey]) for c in doc["cases"]}))
            ax.set_xticklabels([fmt(x) for x in ax.get_xticks()], rotation=30, fontsize=7)
            ax.set_xlabel(xlabel)
            ax.set_ylabel("%s MiB/s (median, min-max)" % op)
            ax2.set_ylabel("mcio / native (dotted)")
            ax2.axhline(1.0, color="#cccccc", linewidth=0.8)
            ax.set_title(", ".join("%s %s" % (k, v) for k, v in fixed.items()), fontsize=8)
            ax.legend(fontsize=7, loc="upper left")
    fig.suptitle("%s: %s (%s)" % (d["name"], xlabel, d["mpi"]), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def breakdown_figure(doc, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    bars = []
    for c in doc["cases"]:
        for label, r in engine_rows(c):
            t = r.get("mcio_times")
            if label != "native" and t:
                name = "%s %s\n%s %s" % (c["workload"], c["size"], label, c["buffer"])
                bars.append((name, t["write"]["t_exchange"], t["write"]["t_io"],
                             t["read"]["t_exchange"], t["read"]["t_io"]))
    if not bars:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(max(8, 1.1 * len(bars)), 4.5))
    for ax, op, i in ((axes[0], "write", 1), (axes[1], "read", 3)):
        xs = range(len(bars))
        ax.bar(xs, [b[i] for b in bars], label="data exchange")
        ax.bar(xs, [b[i + 1] for b in bars], bottom=[b[i] for b in bars], label="file access")
        ax.set_xticks(list(xs))
        ax.set_xticklabels([b[0] for b in bars], rotation=60, fontsize=6, ha="right")
        ax.set_ylabel("%s: seconds (median; slowest rank of each)" % op)
        ax.legend(fontsize=7)
    fig.suptitle("%s: where mcio's time goes" % doc["description"]["name"], fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_doc(doc, prefix):
    made = [line_figure(doc, "buffer", "memory per aggregator (cb_buffer_size)",
                        prefix + "-memory.png"),
            line_figure(doc, "size", "message size per process", prefix + "-size.png"),
            breakdown_figure(doc, prefix + "-breakdown.png")]
    for p in made:
        if p:
            print("mcio-sweep: wrote %s" % p, file=sys.stderr)
    return [p for p in made if p]


def plot(args):
    with open(args.json) as f:
        doc = json.load(f)
    made = plot_doc(doc, args.png_prefix or os.path.splitext(args.json)[0])
    return 0 if made else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run the cases of a sweep description, then plot")
    r.add_argument("sweep")
    r.add_argument("--out", help="the sweep's JSON (default out/sweep-NAME.json)")
    r.add_argument("--build", help="build directory holding mcio-bench (default build/MPI)")
    r.add_argument("--no-plot", action="store_true")
    p = sub.add_parser("plot", help="draw the figures of a sweep's JSON")
    p.add_argument("json")
    p.add_argument("--png-prefix")
    args = ap.parse_args()
    return run(args) if args.cmd == "run" else plot(args)


if __name__ == "__main__":
    sys.exit(main())
