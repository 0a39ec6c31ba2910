#!/usr/bin/python3
"""mcio-sweep: run a parameter sweep of mcio-bench and draw the papers' figures.

    tools/mcio-sweep.py run SWEEP.json [--out out/sweep-NAME.json] [--mpi MPI | --build DIR]
    tools/mcio-sweep.py plot out/sweep-NAME.json [--png-prefix out/sweep-NAME]
    tools/mcio-sweep.py dd --dir /tmp --size 512m --out out/dd.json
    tools/mcio-sweep.py report --doc docs/sweep.md --figures docs/figures \
        [--dd out/dd.json] out/sweep-A.json out/sweep-B.json ...

dd measures the file system's sequential throughput with dd itself (1 MiB blocks: through the
page cache, with fsync, and with O_DIRECT). report writes the sweeps' tables, figures, machine,
MPI versions and commands into the generated block of a Markdown file (between the REPORT_BEGIN
and REPORT_END markers, appended if absent; the rest of the file is left as it is).

A sweep is a small JSON description; every list is an axis and the cases are their product:

    {
      "name": "buffers",
      "mpi": "openmpi",                  # as scripts/build.sh takes it: openmpi, mpich,
                                         # openmpi5, mpich5, impi, /path/to/mpicc (--mpi or
                                         # --build override it)
      "native_io": ["ompio", "romio"],   # the native engine: Open MPI's ompio or its ROMIO
                                         # component (romio321/romio341, found); the MPICH
                                         # family's is romio. Default: the MPI's default engine
      "ranks": [8],
      "workloads": ["ior", "coll_perf"], # mcio-bench --pattern names: contiguous, ior, coll_perf,
                                         # hacc-aos, hacc-soa, random, tapioca, mpi-io-test,
                                         # gcrm, flash-io
      "sizes": ["16m"],                  # message size per process (mcio-bench --size)
      "buffers": ["64m", "16m", "4m"],   # memory per aggregator: cb_buffer_size, both engines
                                         # (passed in bytes: ROMIO and OMPIO read "4m" as 4)
      "strategies": ["romio", "memory"], # mcio once per mcio_strategy, against one native run
      "reps": 5,
      "limit": true,                     # also the file system's bounds (mcio-bench --engine all:
                                         # limit and dd)
      "hints": {"striping_unit": "1m"},  # more hints, both engines (mcio_* to mcio only)
      "env": {"MCIO_VIRTUAL_RANKS_PER_NODE": "2"}
    }

Each case is one mcio-bench run in which native and mcio (once per strategy) take turns
repetition by repetition, so every ratio compares figures taken under the same load. Every repetition of every case goes
into one JSON file, written after each case: an interrupted sweep, run again with the same
output, skips the cases it already has. Figures (matplotlib, in scripts/setup.sh's .venv):
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

import mcio_mpi
import mcio_venv

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
    d.setdefault("name", os.path.splitext(os.path.basename(path))[0])
    d.setdefault("strategies", ["romio"])
    d.setdefault("reps", 5)
    d.setdefault("hints", {})
    d.setdefault("env", {})
    for k in AXES[1:] + ("strategies",):
        if not isinstance(d[k], list) or not d[k]:
            fail("%s: '%s' must be a non-empty list" % (path, k))
    return d


def cases_of(d):
    for values in itertools.product(*(d[a] for a in AXES)):
        yield dict(zip(KEYS, values))


def key_of(case):
    return "|".join(str(case[k]) for k in KEYS)


def command(d, case, mpi, json_path):
    cmd = mpi.launch(case["ranks"], case["native_io"])
    cmd += [os.path.join(mpi.build, "mcio-bench"), "--engine", "all" if d.get("limit") else "both",
            "--pattern", case["workload"], "--size", str(case["size"]),
            "--reps", str(d["reps"]), "--hint", "cb_buffer_size=%d" % size_bytes(case["buffer"]),
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
    try:
        mpi = mcio_mpi.find(args.mpi or d["mpi"], args.build)
        d.setdefault("native_io", mpi.natives()[:1])
        if not isinstance(d["native_io"], list) or not d["native_io"]:
            fail("%s: 'native_io' must be a non-empty list" % args.sweep)
        for io in d["native_io"]:
            mpi.engine_args(io)
    except mcio_mpi.MPIError as e:
        fail(str(e))
    doc = resume(out, d)
    done = {c["key"] for c in doc["cases"]}
    todo = [c for c in cases_of(d) if key_of(c) not in done]
    total = len(done) + len(todo)
    if done:
        print("mcio-sweep: %d of %d cases already in %s, %d to run" % (len(done), total, out,
              len(todo)), file=sys.stderr)
    env = mpi.env()
    env.update({k: str(v) for k, v in d["env"].items()})
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    start, failures = time.time(), 0
    for i, case in enumerate(todo):
        elapsed = time.time() - start
        eta = elapsed / i * (len(todo) - i) if i else 0
        print("mcio-sweep: case %d/%d %s  (elapsed %.0f s, about %.0f s left)"
              % (len(done) + i + 1, total, key_of(case), elapsed, eta), file=sys.stderr)
        t0 = time.time()
        cmd, proc, bench_doc = run_case(lambda jpath: command(d, case, mpi, jpath), env)
        doc["elapsed_s"] = doc.get("elapsed_s", 0) + time.time() - t0
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


BOUNDS = ("limit", "dd")  # the file system's bounds: in the tables, off the figures' scale


def series(doc, fixed, xkey, op):
    """{label: [(x, median, lo, hi, ratio)]} over the cases matching fixed, along xkey."""
    out = {}
    for c in doc["cases"]:
        if any(c[k] != v for k, v in fixed.items()):
            continue
        for label, r in engine_rows(c):
            if label in BOUNDS:
                continue
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
            line_figure(doc, "ranks", "processes", prefix + "-ranks.png"),
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


# ---- The file system's sequential throughput, by dd itself ----

DD_STEPS = (("write, page cache", ["of={path}", "if=/dev/zero", "count={mib}"]),
            ("write + fsync", ["of={path}", "if=/dev/zero", "count={mib}", "conv=fsync"]),
            ("read, page cache", ["if={path}", "of=/dev/null"]),
            ("read, O_DIRECT (the device)", ["if={path}", "of=/dev/null", "iflag=direct"]))


def dd(args):
    """dd bs=1M of --size bytes in --dir: each step --reps times, MiB/s as dd reports its time."""
    path = os.path.join(args.dir, "mcio-sweep-dd.%d" % os.getpid())
    nbytes = size_bytes(args.size)
    out = {"dir": args.dir, "bytes": nbytes, "reps": args.reps, "steps": []}
    df = subprocess.run(["df", "-T", args.dir], stdout=subprocess.PIPE, text=True)
    out["filesystem"] = df.stdout.split("\n")[1].split()[1] if df.returncode == 0 else "?"
    steps = [{"what": w, "command": "dd bs=1M " + " ".join(a).replace("{path}", "FILE").replace(
              "{mib}", str(nbytes >> 20)), "mib_s": []} for w, a in DD_STEPS]
    try:
        for _ in range(args.reps):
            for step, (_, a) in zip(steps, DD_STEPS):
                cmd = ["dd", "bs=1M"] + [x.format(path=path, mib=nbytes >> 20) for x in a]
                p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                secs = [float(x.split(" s")[0]) for x in p.stderr.split("copied, ")[1:]]
                if p.returncode != 0 or not secs or secs[-1] <= 0:
                    fail("%s: %s" % (" ".join(cmd), p.stderr.strip()))
                step["mib_s"].append(nbytes / (1 << 20) / secs[-1])
    finally:
        if os.path.exists(path):
            os.unlink(path)
    for step in steps:
        step["median"] = statistics.median(step["mib_s"])
        print("mcio-sweep: dd %-28s %10.1f MiB/s (median of %d)" % (step["what"], step["median"],
              args.reps), file=sys.stderr)
    out["steps"] = steps
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    save(args.out, out)
    return 0


# ---- The generated block of docs/sweep.md ----

REPORT_BEGIN = "<!-- mcio-sweep report: written by tools/mcio-sweep.py report; edit outside -->"
REPORT_END = "<!-- end of the mcio-sweep report -->"


def first_line(path, key):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(key):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


def machine_lines(docs):
    mem = first_line("/proc/meminfo", "MemTotal")
    mem = "%.0f GiB" % (int(mem.split()[0]) / (1 << 20)) if mem != "?" else "?"
    debian = open("/etc/debian_version").read().strip() if os.path.exists(
        "/etc/debian_version") else "?"
    lines = ["- host: %s, %s, %d cores, %s memory, Linux %s, Debian %s" % (
        (docs[0].get("machine") or {}).get("hostname", "?"), first_line("/proc/cpuinfo", "model name"),
        os.cpu_count(), mem, os.uname().release, debian)]
    libs = []
    for d in docs:
        m = d.get("machine") or {}
        lib = " ".join(m.get("mpi_library_version", "?").split("\n")[0].split(",")[0].split())
        if lib not in libs:
            libs.append(lib)
    lines.append("- MPI: " + "; ".join(libs) + " (native = ROMIO for the MPICH family, OMPIO "
                 "or its ROMIO component for Open MPI, as each table says)")
    return lines


def cell(r):
    return "%.0f / %.0f" % (statistics.median(r.get("write_reps") or [r["write_mib_s"]]),
                            statistics.median(r.get("read_reps") or [r["read_mib_s"]]))


def labels_of(doc):
    order = {"native": 0, "limit": 2, "dd": 3}
    labels = {r.get("label", r["engine"]) for c in doc["cases"] for r in c["results"]}
    return sorted(labels, key=lambda x: (order.get(x, 1), x))


def sweep_table(doc):
    """One row per case, one 'write / read' cell per engine; mcio's with its ratios to native."""
    labels = labels_of(doc)
    head = ["workload", "ranks", "size", "buffer", "native io"] + [
        l + (" (x native)" if l.startswith("mcio") else "") for l in labels]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in doc["cases"]:
        by = {r.get("label", r["engine"]): r for r in c["results"]}
        cells = [c["workload"], str(c["ranks"]), str(c["size"]), str(c["buffer"]), c["native_io"]]
        for l in labels:
            r = by.get(l)
            if r is None:
                cells.append("-")
            elif l.startswith("mcio") and r.get("ratio_write_vs_native"):
                cells.append("%s (%.2f / %.2f)" % (cell(r), r["ratio_write_vs_native"],
                                                   r["ratio_read_vs_native"]))
            else:
                cells.append(cell(r))
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def ratio_summary(doc):
    out = []
    for l in labels_of(doc):
        if not l.startswith("mcio"):
            continue
        for op in ("write", "read"):
            q = [r["ratio_%s_vs_native" % op] for c in doc["cases"] for r in c["results"]
                 if r.get("label", r["engine"]) == l and r.get("ratio_%s_vs_native" % op)]
            if q:
                out.append("%s %s: median %.2f x native (%.2f to %.2f, %d cases)" % (
                    l, op, statistics.median(q), min(q), max(q), len(q)))
    return out


def report(args):
    docs = []
    for path in args.sweeps:
        with open(path) as f:
            docs.append(json.load(f))
    os.makedirs(args.figures, exist_ok=True)
    here = os.path.dirname(os.path.abspath(args.doc))
    total = sum(d.get("elapsed_s", 0) for d in docs)
    g = [REPORT_BEGIN, "", "## The evaluation sweep (issue 7; generated by `scripts/bench-sweep.sh`)",
         "", "Produced by one command, `scripts/bench-sweep.sh`, on %s UTC%s. Its cases ran for "
         "%.0f s in all%s." % (time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
                               "" if args.elapsed is None else
                               " (the whole command, builds and dd included: %.0f s)" % args.elapsed,
                               total, ""), ""]
    g += machine_lines(docs)
    g += ["", "Read these figures as relative ones. The host has 2 cores shared with other "
          "engineers' builds and tests, so absolute rates move between runs; every ratio compares "
          "engines that took turns repetition by repetition in one mcio-bench run, and every "
          "figure is a median (the figures show the min-max spread, the JSON every repetition). "
          "Files are under `/tmp`, which is on disk but reached through the page cache: the "
          "MiB/s below are memory-to-page-cache rates, not the device's (the dd table gives "
          "both). With more ranks than cores MPICH busy-polls, so MPICH runs at 2 ranks only "
          "and Open MPI (`--oversubscribe`) at more. Cells are `write / read` MiB/s; mcio's "
          "carry its ratio to native in parentheses; `limit` is each rank's bytes as one "
          "`pwrite`/`pread`, `dd` rank 0 alone moving all bytes in 1 MiB calls.", ""]
    if args.dd:
        with open(args.dd) as f:
            d = json.load(f)
        g += ["### The file system's sequential throughput (dd, %d MiB in %s, %s; median of %d)"
              % (d["bytes"] >> 20, d["dir"], d["filesystem"], d["reps"]), "",
              "| dd bs=1M | MiB/s | command |", "|---|---|---|"]
        g += ["| %s | %.0f | `%s` |" % (s["what"], s["median"], s["command"]) for s in d["steps"]]
        g += [""]
    for doc in docs:
        d = doc["description"]
        g += ["### Sweep `%s` (%s, %s repetitions)" % (d["name"], d["mpi"], d["reps"]), ""]
        g += ["- " + x for x in ratio_summary(doc)] + [""]
        g += sweep_table(doc) + [""]
        for fig in plot_doc(doc, os.path.join(args.figures, "sweep-" + d["name"])):
            g.append("![%s](%s)" % (os.path.basename(fig), os.path.relpath(fig, here)))
        g += ["", "Description (`tools/sweeps/%s.json`): `%s`" % (
            d["name"], json.dumps(d, sort_keys=True)), ""]
        if doc["cases"]:
            import re
            g += ["First case's command: `%s`" % re.sub(r"--json \S+", "--json CASE.json",
                                                        doc["cases"][0]["command"]), ""]
    g.append(REPORT_END)
    text = open(args.doc).read() if os.path.exists(args.doc) else ""
    block = "\n".join(g) + "\n"
    if REPORT_BEGIN in text and REPORT_END in text:
        a = text.index(REPORT_BEGIN)
        b = text.index(REPORT_END) + len(REPORT_END)
        text = text[:a] + block.rstrip("\n") + text[b:]
    else:
        text = text.rstrip("\n") + "\n\n" + block
    with open(args.doc, "w") as f:
        f.write(text)
    print("mcio-sweep: wrote the report into %s, figures in %s" % (args.doc, args.figures),
          file=sys.stderr)
    return 0


def main():
    mcio_venv.use_venv()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run the cases of a sweep description, then plot")
    r.add_argument("sweep")
    r.add_argument("--out", help="the sweep's JSON (default out/sweep-NAME.json)")
    r.add_argument("--mpi", help="the MPI, as scripts/build.sh takes it (default: the "
                   "description's; built if needed)")
    r.add_argument("--build", help="a build directory to use as it is (instead of the MPI)")
    r.add_argument("--no-plot", action="store_true")
    p = sub.add_parser("plot", help="draw the figures of a sweep's JSON")
    p.add_argument("json")
    p.add_argument("--png-prefix")
    q = sub.add_parser("dd", help="the file system's sequential throughput, by dd")
    q.add_argument("--dir", default="/tmp")
    q.add_argument("--size", default="512m")
    q.add_argument("--reps", type=int, default=3)
    q.add_argument("--out", default=os.path.join("out", "dd.json"))
    w = sub.add_parser("report", help="tables, figures, machine and commands into a Markdown file")
    w.add_argument("--doc", required=True)
    w.add_argument("--figures", required=True)
    w.add_argument("--dd", help="the JSON of the dd subcommand")
    w.add_argument("--elapsed", type=float, help="seconds the whole sweep command took")
    w.add_argument("sweeps", nargs="+")
    args = ap.parse_args()
    return {"run": run, "plot": plot, "dd": dd, "report": report}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
