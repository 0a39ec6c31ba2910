#!/usr/bin/python3
"""mcio-simscale: the metadata phase of the papers' patterns at scale, in simulation.

    tools/mcio-simscale.py run --ranks 1080 [--patterns ior,coll_perf,flash-io,hacc-soa]
                               [--strategies romio,memory] [--out out/sim-scale-meta.json]
    tools/mcio-simscale.py table out/sim-scale-meta.json    # the Markdown table of docs/simulation.md

Each case is one simulated mcio-bench run (tools/mcio-platform.py run, fat-tree, the settings of
docs/simulation.md) of one pattern with 1 MiB per rank (ior in 256 KiB transfers, or --transfer), every
strategy of --strategies one after the other, with MCIO_STATS set so that every collective call
records its metadata traffic (metadata_bytes: bytes sent summed over ranks, an allgathered
record counted once per receiving rank; metadata_messages: list messages; metadata_max_rank_bytes:
the most one rank received) beside its phase times. The case's wall time and the simulator's
peak resident memory (GNU time) are recorded too. Nodes of 12 ranks and 8 targets below 2,000
ranks, 16 and 16 above (as docs/simulation.md's sweeps), node memory N(16 MiB, 16 MiB), seed 42,
cb_buffer_size 16 MiB. A rerun with the same output skips the cases it has.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def case_key(ranks, pattern, label):
    return "%d|%s|%s" % (ranks, pattern, label)


def command(args, ranks, pattern, build, json_path):
    rpn, targets = (12, 8) if ranks < 2000 else (16, 16)
    cmd = ["/usr/bin/time", "-v", sys.executable, os.path.join(HERE, "mcio-platform.py"), "run",
           "--topology", args.topology, "--ranks", str(ranks), "--ranks-per-node", str(rpn),
           "--targets", str(targets), "--memory", "normal:16m:16m:42"]
    if args.disk_model != "s19":
        cmd += ["--disk-model", args.disk_model]
    cmd += ["--smpi-cfg=" + c for c in args.smpi_cfg or []]
    cmd += ["--",
           os.path.join(build, "mcio-bench"), "--engine", "mcio", "--pattern", pattern,
           "--size", "1m", "--transfer", args.transfer, "--reps", "1", "--strategies", args.strategies,
           "--json", json_path, "--hint", "mcio_io_backend=sim", "--hint", "cb_buffer_size=16m"]
    for h in args.hint or []:
        cmd += ["--hint", h]
    return cmd


def smpimain_pids(root):
    """The simulator processes under root (smpirun starts smpimain through a shell)."""
    pids, todo = [], [root]
    while todo:
        p = todo.pop()
        try:
            with open("/proc/%d/task/%d/children" % (p, p)) as f:
                kids = [int(k) for k in f.read().split()]
        except OSError:
            continue
        todo += kids
        pids += kids
    return pids


def watch_anonymous(proc):
    """Peak anonymous memory (KiB) of the simulator while proc runs, sampled every second.
    Also the most memory mappings it held (vm.max_map_count bounds them).
    The resident set size overstates the simulator's memory: SMPI's shared allocations map one
    block of memory at many addresses and each mapping counts; anonymous memory (heaps, stacks,
    the ranks' private copies of the program's globals) is what the simulation really holds."""
    peak, maps, last = 0, 0, 0.0
    while proc.poll() is None:
        # Reading smaps_rollup and maps walks every mapping under the simulator's mmap lock:
        # at 16,384 ranks (500,000 mappings) a sample a second took a fifth of a core from the
        # simulation and stalled it, and at 4,096 ranks (23,500 mappings) one sample took 0.12 s
        # of system time; sample once per 5,000 mappings' seconds (1 to 60 s).
        if time.time() - last < min(60, max(1, maps / 5000)):
            time.sleep(0.5)
            continue
        last = time.time()
        for pid in smpimain_pids(proc.pid):
            try:
                with open("/proc/%d/smaps_rollup" % pid) as f:
                    for line in f:
                        if line.startswith("Anonymous:"):
                            peak = max(peak, int(line.split()[1]))
                with open("/proc/%d/maps" % pid) as f:
                    maps = max(maps, sum(1 for _ in f))
            except OSError:
                pass
    return peak or None, maps or None


def run(args):
    build = args.build or os.path.join(ROOT, "build", "smpi")
    if not os.path.exists(os.path.join(build, "mcio-bench")):
        print("mcio-simscale: %s/mcio-bench is not built (scripts/build.sh smpi)" % build,
              file=sys.stderr)
        return 2
    doc = {"cases": []}
    if os.path.exists(args.out):
        with open(args.out) as f:
            doc = json.load(f)
    label = args.label
    done = {c["key"] for c in doc["cases"]}
    failures = 0
    for pattern in args.patterns.split(","):
        key = case_key(args.ranks, pattern, label)
        if key in done:
            continue
        with tempfile.TemporaryDirectory(prefix="mcio-simscale-") as tmp:
            stats, jpath = os.path.join(tmp, "stats.jsonl"), os.path.join(tmp, "bench.json")
            cmd = command(args, args.ranks, pattern, build, jpath)
            print("mcio-simscale: %s: %s" % (key, " ".join(cmd)), file=sys.stderr)
            t0 = time.time()
            proc = subprocess.Popen(cmd, env=dict(os.environ, MCIO_STATS=stats),
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            anon, maps = watch_anonymous(proc)
            out, err = proc.communicate()
            proc.stderr = err
            wall = time.time() - t0
            rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
            cpu = [float(m) for m in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)",
                                                proc.stderr)]
            calls = []
            if os.path.exists(stats):
                with open(stats) as f:
                    calls = [json.loads(line) for line in f if line.strip()]
                if args.stats_out:
                    shutil.copyfile(stats, args.stats_out)
            if proc.returncode != 0 or not calls:
                failures += 1
                print("mcio-simscale: %s failed (exit %d)\n%s" % (key, proc.returncode,
                      proc.stderr[-2000:]), file=sys.stderr)
                if not calls:
                    continue
                # The calls that completed before the run failed or was stopped are kept,
                # marked with the exit status (a rerun does not skip the case).
                key += "|exit %d" % proc.returncode
            keep = ("op", "strategy", "ranks", "nodes", "bytes", "aggregators", "rounds",
                    "t_metadata", "t_plan", "t_exchange", "t_io", "t_total", "metadata_bytes",
                    "metadata_messages", "metadata_max_rank_bytes", "metadata_list_bytes")
            doc["cases"].append({
                "key": key, "ranks": args.ranks, "pattern": pattern, "label": label,
                "smpi_cfg": args.smpi_cfg or [], "topology": args.topology,
                "disk_model": args.disk_model,
                "transfer": args.transfer, "exit": proc.returncode,
                "wall_seconds": round(wall, 1),
                "cpu_seconds": round(sum(cpu), 1) if cpu else None,
                "max_rss_kib": int(rss.group(1)) if rss else None,
                "max_anonymous_kib": anon,
                "max_mappings": maps,
                "command": "MCIO_STATS=stats.jsonl " + " ".join(cmd),
                "calls": [{k: c.get(k) for k in keep} for c in calls]})
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)
        print("mcio-simscale: %s done in %.0f s" % (key, wall), file=sys.stderr)
    return 1 if failures else 0


def list_bytes(case, call):
    """The list messages' bytes summed over ranks; binaries from before metadata_list_bytes
    counted only the two allgathers (96 bytes per rank to each other rank) besides the lists."""
    if call.get("metadata_list_bytes") is not None:
        return call["metadata_list_bytes"]
    return call["metadata_bytes"] - case["ranks"] * (case["ranks"] - 1) * 96


def version(case):
    """The label, with the network and ior transfer when they are not the defaults."""
    words = case.get("command", "").split()
    hints = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "--hint" and
             words[i + 1] not in ("mcio_io_backend=sim", "cb_buffer_size=16m")]
    extra = [x for x in (case.get("topology", "fattree") != "fattree" and case["topology"],
                         hints and " ".join(hints),
                         case.get("transfer", "256k") != "256k" and "transfer " + case["transfer"],
                         case.get("disk_model", "s19") != "s19" and "disk model " + case["disk_model"],
                         case.get("exit") and "exit %d, calls done" % case["exit"]) if x]
    return case["label"] + (" (%s)" % ", ".join(extra) if extra else "")


def table(args):
    with open(args.json) as f:
        doc = json.load(f)
    print("| version | ranks | pattern | strategy | aggs | metadata bytes, all ranks | of which lists |"
          " list messages | most bytes one rank received | t_metadata w (s) | t_metadata r (s) |"
          " t_exchange w (s) | t_io w (s) | t_total w (s) | wall (s) | CPU (s) | simulator memory (GiB) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c in sorted(doc["cases"], key=lambda c: (c["pattern"], c["ranks"], c["label"] != "before")):
        mem = c.get("max_anonymous_kib")
        calls = {(k["strategy"], k["op"]): k for k in c["calls"]}
        for strategy in dict.fromkeys(k["strategy"] for k in c["calls"]):
            w, r = calls.get((strategy, "write")), calls.get((strategy, "read"))
            if not w:
                continue
            print("| %s | %d | %s | %s | %d | %d | %d | %d | %d | %.4f | %s | %.4f | %.4f | %.4f |"
                  " %.0f | %s | %s |" % (
                      version(c), c["ranks"], c["pattern"], strategy, w["aggregators"],
                      w["metadata_bytes"], list_bytes(c, w), w["metadata_messages"],
                      w["metadata_max_rank_bytes"], w["t_metadata"],
                      "%.4f" % r["t_metadata"] if r else "-", w["t_exchange"], w["t_io"],
                      w["t_total"], c["wall_seconds"],
                      "%.0f" % c["cpu_seconds"] if c.get("cpu_seconds") else "-",
                      "%.1f" % (mem / 2**20) if mem else "-"))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--ranks", type=int, required=True)
    r.add_argument("--patterns", default="ior,coll_perf,flash-io,hacc-soa")
    r.add_argument("--strategies", default="romio,memory")
    r.add_argument("--label", default="after", help="names the version measured (before, after)")
    r.add_argument("--hint", action="append", help="KEY=VALUE, more mcio hints")
    r.add_argument("--out", default=os.path.join(ROOT, "out", "sim-scale-meta.json"))
    r.add_argument("--smpi-cfg", action="append", metavar="NAME:VALUE",
                   help="one more SMPI setting (smpi/allgather:rdb: the allgathers in log2(ranks)"
                        " steps, in place; Open MPI's rule above 50 KB, neighbour exchange, sends"
                        " ranks^2/2 messages, too many to simulate at 4,096 ranks and more)")
    r.add_argument("--topology", default="fattree", choices=("fattree", "flat"),
                   help="flat: one non-blocking switch (docs/simulation.md, \"16,384 ranks\")")
    r.add_argument("--transfer", default="256k",
                   help="ior's transfer size (1m: one extent per rank, each rank's byte range"
                        " one domain or two instead of the whole file)")
    r.add_argument("--disk-model", choices=("s19", "cpu"), default="s19",
                   help="the storage targets' model (tools/mcio-platform.py --disk-model)")
    r.add_argument("--build")
    r.add_argument("--stats-out", metavar="FILE",
                   help="also keep the run's MCIO_STATS lines whole (to compare"
                        " plans and simulated times between builds)")
    t = sub.add_parser("table")
    t.add_argument("json")
    args = ap.parse_args()
    return run(args) if args.cmd == "run" else table(args)


if __name__ == "__main__":
    sys.exit(main())
