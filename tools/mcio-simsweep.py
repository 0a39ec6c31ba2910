#!/usr/bin/python3
"""mcio-simsweep: a sweep of mcio in simulation (SimGrid's SMPI), in mcio-sweep's JSON and figures.

    tools/mcio-simsweep.py run SWEEP.json [--out out/sim-NAME.json] [--build build/smpi]
    tools/mcio-simsweep.py table out/sim-NAME.json      # the Markdown tables of docs/simulation.md

The description is mcio-sweep's (tools/mcio-sweep.py) with "mpi": "smpi" and the simulated
machine's axes; the cases are the product of every list:

    {
      "name": "memory",
      "mpi": "smpi",
      "topologies": ["fattree"],          # torus, fattree, dragonfly (tools/mcio-platform.py)
      "placements": ["spread"],           # mcio_placement of the romio strategy
      "ranks": [120, 1080],
      "ranks_per_node": 12,
      "workloads": ["ior"],               # mcio-bench --pattern
      "sizes": ["4m"],                    # bytes per rank
      "transfer": "1m",                   # ior transfer size
      "buffers": ["32m", "8m", "2m"],     # memory per aggregator: cb_buffer_size, and the mean
                                          # of the nodes' memory, N(mean, mean * memory_sd)
      "memory_sd": 1.0,
      "strategies": ["romio", "memory"],
      "targets": 8,                       # storage targets
      "reps": 1,
      "hints": {"mcio_socket_rule": "distributed"},
      "platform": ["--link-bw", "5g"]     # more tools/mcio-platform.py options
    }

Each case is one simulated mcio-bench run (all strategies, one after the other, on one
platform); its results go into the sweep's JSON as mcio-sweep writes them, with the case's
machine and placement in "native_io" ("fattree/spread"), so mcio-sweep's figures group by them.
A rerun with the same output skips the cases it already has.
"""
import argparse
import importlib.util
import itertools
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
AXES = ("topologies", "placements", "ranks", "workloads", "sizes", "buffers")
KEYS = ("topology", "placement", "ranks", "workload", "size", "buffer")


def sweep_module():
    spec = importlib.util.spec_from_file_location("mcio_sweep", os.path.join(HERE, "mcio-sweep.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def fail(msg):
    print("mcio-simsweep: " + msg, file=sys.stderr)
    sys.exit(2)


def load(path):
    with open(path) as f:
        d = json.load(f)
    if d.get("mpi") != "smpi":
        fail("%s: mpi must be smpi (real sweeps: tools/mcio-sweep.py)" % path)
    d.setdefault("name", os.path.splitext(os.path.basename(path))[0])
    for k, v in (("topologies", ["fattree"]), ("placements", ["spread"]), ("strategies", ["romio"]),
                 ("ranks_per_node", 12), ("transfer", "1m"), ("memory_sd", 1.0), ("targets", 8),
                 ("reps", 1), ("hints", {}), ("platform", [])):
        d.setdefault(k, v)
    for k in AXES + ("strategies",):
        if not isinstance(d.get(k), list) or not d[k]:
            fail("%s: '%s' must be a non-empty list" % (path, k))
    return d


def key_of(case):
    return "|".join(str(case[k]) for k in KEYS)


def command(d, case, build, json_path):
    mod = sweep_module()
    mean = mod.size_bytes(case["buffer"])
    sd = int(mean * float(d["memory_sd"]))
    cmd = [sys.executable, os.path.join(HERE, "mcio-platform.py"), "run",
           "--topology", case["topology"], "--ranks", str(case["ranks"]),
           "--ranks-per-node", str(d["ranks_per_node"]), "--targets", str(d["targets"]),
           "--memory", "normal:%d:%d:%d" % (mean, sd, d.get("seed", 42))] + list(d["platform"])
    cmd += ["--", os.path.join(build, "mcio-bench"), "--engine", "mcio",
            "--pattern", case["workload"], "--size", str(case["size"]),
            "--transfer", str(d["transfer"]), "--reps", str(d["reps"]),
            "--strategies", ",".join(d["strategies"]), "--json", json_path,
            "--hint", "mcio_io_backend=sim", "--hint", "cb_buffer_size=%s" % case["buffer"],
            "--hint", "mcio_placement=%s" % case["placement"]]
    for k, v in sorted(d["hints"].items()):
        cmd += ["--hint", "%s=%s" % (k, v)]
    return cmd


def run(args):
    d = load(args.sweep)
    mod = sweep_module()
    out = args.out or os.path.join("out", "sim-%s.json" % d["name"])
    build = args.build or "build/smpi"
    if not os.path.exists(os.path.join(build, "mcio-bench")):
        fail("%s/mcio-bench is not built (scripts/build.sh smpi)" % build)
    doc = mod.resume(out, d)
    done = {c["sim_key"] for c in doc["cases"]}
    todo = [dict(zip(KEYS, v)) for v in itertools.product(*(d[a] for a in AXES))]
    todo = [c for c in todo if key_of(c) not in done]
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    start, failures = time.time(), 0
    for i, case in enumerate(todo):
        print("mcio-simsweep: case %d/%d %s (elapsed %.0f s)" % (i + 1, len(todo), key_of(case),
              time.time() - start), file=sys.stderr)
        t0 = time.time()
        cmd, proc, bench = mod.run_case(lambda jpath: command(d, case, build, jpath))
        if proc.returncode != 0 or bench is None:
            failures += 1
            print("mcio-simsweep: case failed (exit %d): %s\n%s" % (proc.returncode, " ".join(cmd),
                  proc.stderr[-1500:]), file=sys.stderr)
            continue
        doc.setdefault("machine", bench.get("machine"))
        # mcio-sweep's case keys; native_io names the simulated machine and the placement.
        doc["cases"].append(dict(native_io="%s/%s" % (case["topology"], case["placement"]),
                                 ranks=case["ranks"], workload=case["workload"],
                                 size=case["size"], buffer=case["buffer"], sim_key=key_of(case),
                                 key="%s/%s|" % (case["topology"], case["placement"]) + key_of(case),
                                 topology=case["topology"], placement=case["placement"],
                                 wall_seconds=round(time.time() - t0, 1),
                                 command=" ".join(cmd), results=bench["results"]))
        mod.save(out, doc)
    print("mcio-simsweep: %d cases in %s (%.0f s)%s" % (len(doc["cases"]), out,
          time.time() - start, ", %d failed" % failures if failures else ""), file=sys.stderr)
    if not args.no_plot and doc["cases"]:
        mod.plot_doc(doc, os.path.splitext(out)[0])
    return 1 if failures else 0


def table(args):
    """One row per case and strategy: bandwidths, ratio to romio, aggregators, rounds, split."""
    with open(args.json) as f:
        doc = json.load(f)
    print("| machine/placement | ranks | pattern | size/rank | memory/agg | strategy | write MiB/s |"
          " read MiB/s | write vs romio | read vs romio | aggs | rounds | t_exchange w (s) | t_io w (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c in doc["cases"]:
        base = {r.get("mcio_strategy", r["label"]): r for r in
                ({**r, "mcio_strategy": r["label"].split(":")[-1]} for r in c["results"])}
        romio = base.get("romio")
        for r in c["results"]:
            s = r["label"].split(":")[-1]
            t = (r.get("mcio_times") or {}).get("write", {})
            ratio = lambda op: ("%.2f" % (r[op + "_mib_s"] / romio[op + "_mib_s"])
                                if romio and s != "romio" and romio[op + "_mib_s"] else "-")
            print("| %s | %d | %s | %s | %s | %s | %.0f | %.0f | %s | %s | %s | %s | %.3f | %.3f |"
                  % (c["native_io"], c["ranks"], c["workload"], c["size"], c["buffer"], s,
                     r["write_mib_s"], r["read_mib_s"], ratio("write"), ratio("read"),
                     r["aggregators"], r["rounds"], t.get("t_exchange", 0), t.get("t_io", 0)))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("sweep")
    r.add_argument("--out")
    r.add_argument("--build")
    r.add_argument("--no-plot", action="store_true")
    t = sub.add_parser("table")
    t.add_argument("json")
    args = ap.parse_args()
    return run(args) if args.cmd == "run" else table(args)


if __name__ == "__main__":
    sys.exit(main())
