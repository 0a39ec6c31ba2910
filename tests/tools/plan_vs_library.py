#!/usr/bin/env python3
"""mcio-plan and the library decide alike (issue 45): the oracle's cases (its ten workloads,
writes and reads) run through mcio-bench under MCIO_STATS, and mcio-plan --strategy auto plans
the same job (ranks on one node, the file system of the test's directory, the node's memory as
this process has it); the choice, its aggregators and rounds must be equal. Under three pinned
cost tables (MCIO_CALIBRATION, mcio-plan --costs; overlap pinned, so that neither side reads the
node's cores or cache), which make the model pick independent access, aggregation and a
pipeline.

Usage: plan_vs_library.py MPIEXEC NP MCIO_BENCH MCIO_PLAN DIR [MPIEXEC_FLAG ...]
"""
import json
import os
import subprocess
import sys

PATTERNS = ["contiguous", "ior", "coll_perf", "hacc-aos", "hacc-soa", "random", "tapioca",
            "mpi-io-test", "gcrm", "flash-io"]
# call, per byte alone, per byte at once, message, per message byte (tests/mpi/mpi_auto.c's)
TABLES = {"independent": (2e-6, 5e-10, 5e-10, 2e-5, 5e-10),
          "aggregated": (1e-3, 1e-9, 8e-9, 2e-5, 1e-10),
          "pipelined": (1e-4, 1e-9, 8e-9, 2e-5, 1e-9)}
SIZE = "256k"


def write_costs(path, t):
    call, b1, bn, msg, mb = t
    with open(path, "w") as f:
        f.write("date 1\nconc 8\n" + "".join("%s_call_%s %g\n" % (op, k, call)
                                            for op in ("write", "read") for k in ("1", "n")) +
                "write_byte_1 %g\nwrite_byte_n %g\nread_byte_1 %g\nread_byte_n %g\n" % (b1, bn, b1, bn)
                + "msg %g\nwrite_sync_1 0\nwrite_sync_n 0\nmsg_byte %g\ncoll 1e-5\n" % (msg, mb)
                + "copy_byte 1e-10\ncopy_cold 1e-10\noverlap 1\n")


def library(mpiexec, np, flags, bench, work, costs):
    """{(pattern, op): (choice, aggregators, rounds)} of the library's calls."""
    stats = os.path.join(work, "stats.jsonl")
    if os.path.exists(stats):
        os.remove(stats)
    env = dict(os.environ, MCIO_CALIBRATION=costs, MCIO_STATS=stats)
    r = subprocess.run([mpiexec, "-n", np] + flags + [bench, "--engine", "mcio", "--pattern",
                        ",".join(PATTERNS), "--size", SIZE, "--reps", "1", "--dir", work],
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=240)
    if r.returncode != 0:
        sys.exit("FAIL: mcio-bench exited %d: %s" % (r.returncode, r.stdout[-800:]))
    got = {}
    for line in open(stats):
        d = json.loads(line)
        pat = d["path"].rsplit(".", 2)[-2]  # mcio-bench.PID.K.PATTERN.mcio
        got.setdefault((pat, d["op"]), (d["choice"], d["aggregators"], d["rounds"]))
    return got


def tool(plan, np, work, costs, pat, op):
    r = subprocess.run([plan, "--strategy", "auto", "--op", op, "--pattern", pat, "--ranks", np,
                        "--ranks-per-node", np, "--size", SIZE, "--node-memory", "detect",
                        "--fs-path", work, "--costs", costs, "--json"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    if r.returncode != 0:
        sys.exit("FAIL: mcio-plan %s %s exited %d: %s" % (pat, op, r.returncode, r.stdout[-500:]))
    d = json.loads(r.stdout)
    own = d["choice"]["best"] == "independent"
    return d["choice"]["best"], d["domains"], 0 if own else d["max_rounds"]


def main():
    mpiexec, np, bench, plan, work = sys.argv[1:6]
    flags = sys.argv[6:]
    os.makedirs(work, exist_ok=True)
    seen, compared = set(), 0
    for name, t in TABLES.items():
        costs = os.path.join(work, "costs-" + name)
        write_costs(costs, t)
        lib = library(mpiexec, np, flags, bench, work, costs)
        for pat in PATTERNS:
            for op in ("write", "read"):
                if (pat, op) not in lib:
                    sys.exit("FAIL: no MCIO_STATS line for %s %s (%s)" % (pat, op, name))
                want, mine = lib[(pat, op)], tool(plan, np, work, costs, pat, op)
                if want != mine:
                    sys.exit("FAIL: %s %s under the %s table: the library chose %r, mcio-plan %r "
                             "(choice, aggregators, rounds)" % (pat, op, name, want, mine))
                seen.add(want[0].split(" ")[0] + (" depth>1" if "depth 1" not in want[0]
                                                   and want[0] != "independent" else ""))
                compared += 1
    print("ok: %d cases, mcio-plan and the library chose alike (%s)" % (compared,
                                                                       ", ".join(sorted(seen))))


if __name__ == "__main__":
    main()
