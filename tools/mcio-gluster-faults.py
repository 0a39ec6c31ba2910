#!/usr/bin/env python3
"""The faults of tests/gluster through mcio and through the MPI libraries' own collective I/O.

Runs tests/gluster's gluster_io program for each fault (a brick killed during a collective
write, during a read, killed and restarted between two calls, a volume that fills) with
--api mcio and --api mpi (MPI_File_write_all / read_all: Open MPI's OMPIO, Open MPI's ROMIO
with --mca io romio321, MPICH's ROMIO), each under a deadline, and writes what each did:
one JSON object per run (out/gluster/faults.json) and a Markdown table on stdout
(docs/reliability.md). Needs scripts/gluster.sh up and both builds (scripts/build.sh).

Usage: tools/mcio-gluster-faults.py [--ranks N] [--deadline S] [--out PATH]
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GLUSTER = os.path.join(ROOT, "scripts", "gluster.sh")
ON = os.path.join(ROOT, "tests", "gluster", "on_gluster.sh")

# (name, build, api, extra mpiexec flags)
ENGINES = [
    ("mcio (Open MPI)", "openmpi", "mcio", []),
    ("OMPIO (Open MPI 4.1)", "openmpi", "mpi", []),
    ("ROMIO (Open MPI's romio321)", "openmpi", "mpi", ["--mca", "io", "romio321"]),
    ("mcio (MPICH)", "mpich", "mcio", []),
    ("ROMIO (MPICH 4)", "mpich", "mpi", []),
]
SCENARIOS = [
    ("write-kill", [], ["--calls", "6"]),
    ("read-kill", [], ["--calls", "4"]),
    ("restart", [], []),
    ("fill", ["--small"], ["--calls", "16"]),
]


def run(engine, scenario, ranks, deadline):
    name, build, api, flags = engine
    scen, where, args = scenario
    bdir = os.path.join(ROOT, "build", build)
    mpiexec = ["mpiexec." + build, "-n", str(ranks)]
    if build == "openmpi":
        mpiexec += ["--oversubscribe", "--allow-run-as-root"]
    cmd = [ON, "--heal", "--deadline", str(deadline)] + where + ["--"] + mpiexec + flags + [
        os.path.join(bdir, "tests", "gluster", "gluster_io"), scen, "--file", "@DIR@/f",
        "--api", api, "--blocks", "8", "--block", "262144",
        "--pid-cmd", GLUSTER + " brick-pid-of", "--restart", GLUSTER + " restart-bricks mcio"] + args
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = p.stdout
    rec = {"engine": name, "mpi": build, "api": api, "scenario": scen, "ranks": ranks,
           "exit": p.returncode, "hang": "deadline of" in out}
    m = re.search(r"^RESULT (.*)$", out, re.M)
    if m:
        for k, v in re.findall(r'(\w+)=("[^"]*"|\S+)', m.group(1)):
            v = v.strip('"')
            rec[k] = int(v) if re.fullmatch(r"-?\d+", v) else v
    rec["failures"] = len(re.findall(r"^FAIL ", out, re.M))
    if not m:
        rec["tail"] = out[-600:]
    return rec


def verdict(r):
    """One cell of the table: what the run did, in words."""
    if r["hang"]:
        return "**hang** (killed at the deadline)"
    if "failed_call" not in r:
        return "crashed (exit %d)" % r["exit"]
    parts = []
    if r["scenario"] == "restart":
        parts.append("both calls succeed" if r["failed_call"] < 0 else "call %d fails" % r["failed_call"])
    elif r["failed_call"] < 0:
        parts.append("**no call fails**")
    else:
        parts.append("call %d fails%s" % (r["failed_call"], "" if r["agree"] else ", **ranks disagree**"))
        named = [w for w, k in (("file", "names_file"), ("operation", "names_op")) if r[k]]
        parts.append("names " + " and ".join(named) if named else "names neither file nor operation")
    if not r["ok_calls_verified"]:
        parts.append("**success reported for bytes not in the file**")
    parts.append("next call works" if r["next_call_ok"] and r["new_file_ok"] else "**next call fails**")
    return "; ".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--deadline", type=int, default=120)
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "gluster", "faults.json"))
    a = ap.parse_args()
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    env_ok = subprocess.run([GLUSTER, "status"], stdout=subprocess.DEVNULL).returncode == 0
    if not env_ok:
        sys.exit("mcio-gluster-faults: the volume is not up (scripts/gluster.sh up)")
    recs = []
    for e in ENGINES:
        ranks = min(a.ranks, 3) if e[1] == "mpich" else a.ranks  # MPICH busy-polls
        for s in SCENARIOS:
            print("%-28s %-10s ..." % (e[0], s[0]), file=sys.stderr, flush=True)
            r = run(e, s, ranks, a.deadline)
            recs.append(r)
            print("    " + verdict(r) + ("  [%s]" % r.get("msg", "")[:120] if r.get("msg") else ""),
                  file=sys.stderr, flush=True)
    with open(a.out, "w") as f:
        for r in recs:
            f.write(json.dumps(r) + "\n")
    scen = [s[0] for s in SCENARIOS]
    print("| engine | " + " | ".join(scen) + " |")
    print("|---" * (len(scen) + 1) + "|")
    for e in ENGINES:
        row = [verdict(r) for s in scen for r in recs if r["engine"] == e[0] and r["scenario"] == s]
        print("| %s | %s |" % (e[0], " | ".join(row)))


if __name__ == "__main__":
    main()
