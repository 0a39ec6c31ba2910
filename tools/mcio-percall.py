#!/usr/bin/env python3
"""Per-call cost of mcio's default against its own independent path and native ROMIO (issue 20).

Interleaved runs of mcio-bench (--mpi: Debian's Open MPI unless told; 8 ranks, 2 MiB per rank,
files in a temporary directory under --dir), each run --calls calls of every pattern; prints,
per pattern, operation and configuration, the median bandwidth of all calls and the median of
each run's t_metadata (the slowest rank's collectives before a byte moves) and t_io (its file
access), as MCIO_STATS records it; mcio-bench reports each run's median).

  tools/mcio-percall.py [--reps 7] [--patterns ior,hacc-soa] [--base DIR] [--own NAME=HINTS]
                        [--mpi MPI | --build DIR] [--ranks 8]

--base DIR: a copy of an earlier build's mcio-bench and libmcio.so (cp BUILD/mcio-bench
BUILD/libmcio.so* DIR), run as "base-default" beside the current build: before and
after in the same interleaved run. --own NAME=HINT,HINT: one more configuration of the
current build (e.g. aggs2=mcio_strategy=fit,romio_cb_write=enable,romio_cb_read=enable,cb_nodes=2). Files under /tmp live in the page cache; the host may be
shared, so compare the configurations of one run, not runs.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

import mcio_mpi

DISABLE = ["romio_cb_write=disable", "romio_cb_read=disable"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=7, help="interleaved rounds (default 7)")
    ap.add_argument("--calls", type=int, default=5, help="calls per pattern per run (default 5)")
    ap.add_argument("--patterns", default="ior,hacc-soa")
    ap.add_argument("--dir", default="/tmp")
    ap.add_argument("--base", help="an earlier build's mcio-bench and libmcio.so")
    ap.add_argument("--own", action="append", default=[], metavar="NAME=HINT[,HINT...]",
                    help="one more configuration of the current build, e.g. "
                    "depth2=mcio_strategy=fit,romio_cb_write=enable,mcio_pipeline_depth=2 "
                    "(repeatable)")
    ap.add_argument("--ranks", type=int, default=8)
    mcio_mpi.add_arguments(ap)
    a = ap.parse_args()
    mpi = mcio_mpi.from_args(a, "mcio-percall")
    build = mpi.build
    # name -> (directory of mcio-bench, hints; None: native ROMIO)
    configs = {"default": (build, []), "fit-independent": (build, ["mcio_strategy=fit"] + DISABLE),
               "romio": (build, None)}
    for own in a.own:
        name, _, hints = own.partition("=")
        configs[name] = (build, hints.split(",") if hints else [])
    if a.base:
        configs["base-default"] = (os.path.abspath(a.base), [])
        configs["base-fit-independent"] = (os.path.abspath(a.base), ["mcio_strategy=fit"] + DISABLE)
    acc = {}
    d = tempfile.mkdtemp(prefix="mcio-percall.", dir=a.dir)
    try:
        for rep in range(a.reps):
            for name, (where, hints) in configs.items():
                out = os.path.join(d, "run.json")
                cmd = mpi.launch(a.ranks, "romio" if hints is None else None)
                cmd += [os.path.join(where, "mcio-bench"), "--engine",
                        "native" if hints is None else "mcio", "--pattern", a.patterns,
                        "--size", "2m", "--reps", str(a.calls), "--dir", d, "--json", out]
                for h in hints or []:
                    cmd += ["--hint", h]
                env = mpi.env()
                env.pop("MCIO_STATS", None)
                env.pop("MCIO_HINTS", None)
                if where != build:
                    env["LD_LIBRARY_PATH"] = where  # before the binary's RUNPATH
                subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
                with open(out) as f:
                    for x in json.load(f)["results"]:
                        for op in ("write", "read"):
                            acc.setdefault((x["pattern"], op, name, "MiB/s"), []).extend(
                                x[op + "_reps"])
                            for t in ("t_metadata", "t_io") if x.get("mcio_times") else ():
                                acc.setdefault((x["pattern"], op, name, t + " ms"), []).append(
                                    1e3 * x["mcio_times"][op][t])
            print("round %d of %d done" % (rep + 1, a.reps), flush=True)
    finally:
        subprocess.run(["rm", "-rf", d])
    print("| pattern | op | configuration | MiB/s median [q1-q3] | t_metadata ms median [q1-q3] "
          "| t_io ms median [q1-q3] |")
    print("|---|---|---|---|---|---|")
    for pat in a.patterns.split(","):
        for op in ("write", "read"):
            for name in configs:
                bw = acc.get((pat, op, name, "MiB/s"), [])
                tm = acc.get((pat, op, name, "t_metadata ms"), [])
                ti = acc.get((pat, op, name, "t_io ms"), [])
                cell = lambda v, f: ("%s [%s-%s]" % tuple(f % x for x in (  # noqa: E731
                    statistics.median(v), *statistics.quantiles(v, n=4, method="inclusive")[::2]))
                    if len(v) > 1 else "-")
                print("| %s | %s | %s | %s | %s | %s |" % (pat, op, name, cell(bw, "%.0f"),
                                                           cell(tm, "%.2f"), cell(ti, "%.2f")))


if __name__ == "__main__":
    main()
