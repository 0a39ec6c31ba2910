#!/usr/bin/env python3
"""The faults of tests/gluster through mcio and through the MPI libraries' own collective I/O.

Runs tests/gluster's gluster_io program for each fault (a brick killed during a collective
write, during a read, killed and restarted between two calls, a volume that fills) with
--api mcio and --api mpi (MPI_File_write_all / read_all with each native engine of each MPI:
Open MPI's OMPIO and its ROMIO component, the MPICH family's ROMIO), each under a deadline, and
writes what each did: one JSON object per run (out/gluster/faults.json) and a Markdown table on
stdout (docs/reliability.md). Needs scripts/gluster.sh up; the MPIs are named as
scripts/build.sh takes them (built if needed) and launched as their builds found
(tools/mcio_mpi.py).

Usage: tools/mcio-gluster-faults.py [--ranks N] [--deadline S] [--out PATH] [--mpis openmpi,mpich]
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
sys.path.insert(0, os.path.join(ROOT, "tools"))
import mcio_mpi  # noqa: E402


def engines_of(mpi):
    """(name, MPI, api, native engine) of one MPI: mcio over it, then each native engine."""
    what = "%s %s" % (mpi.impl, mpi.version)
    out = [("mcio (%s)" % what, mpi, "mcio", None)]
    for io in mpi.natives():
        label = "OMPIO" if io == "ompio" else "ROMIO" + (
            " %s" % mpi.romio_io if mpi.family == "openmpi" else "")
        out.append(("%s (%s)" % (label, what), mpi, "mpi", io))
    return out


SCENARIOS = [
    ("write-kill", [], ["--calls", "6"]),
    ("read-kill", [], ["--calls", "4"]),
    ("restart", [], []),
    ("fill", ["--small"], ["--calls", "16"]),
]


def run(engine, scenario, ranks, deadline):
    name, mpi, api, io = engine
    scen, where, args = scenario
    cmd = [ON, "--heal", "--deadline", str(deadline)] + where + ["--"] + mpi.launch(ranks, io) + [
        os.path.join(mpi.build, "tests", "gluster", "gluster_io"), scen, "--file", "@DIR@/f",
        "--api", api, "--blocks", "8", "--block", "262144",
        "--pid-cmd", GLUSTER + " brick-pid-of", "--restart", GLUSTER + " restart-bricks mcio"] + args
    p = subprocess.run(cmd, env=mpi.env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    out = p.stdout
    rec = {"engine": name, "mpi": str(mpi), "api": api, "scenario": scen, "ranks": ranks,
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
    ap.add_argument("--mpis", default="openmpi,mpich",
                    help="the MPIs, as scripts/build.sh takes them (default openmpi,mpich)")
    a = ap.parse_args()
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    env_ok = subprocess.run([GLUSTER, "status"], stdout=subprocess.DEVNULL).returncode == 0
    if not env_ok:
        sys.exit("mcio-gluster-faults: the volume is not up (scripts/gluster.sh up)")
    try:
        engines = [e for m in a.mpis.split(",") for e in engines_of(mcio_mpi.find(m))]
    except mcio_mpi.MPIError as e:
        sys.exit("mcio-gluster-faults: %s" % e)
    recs = []
    for e in engines:
        ranks = min(a.ranks, 3) if e[1].family == "mpich" else a.ranks  # MPICH busy-polls
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
    for e in engines:
        row = [verdict(r) for s in scen for r in recs if r["engine"] == e[0] and r["scenario"] == s]
        print("| %s | %s |" % (e[0], " | ".join(row)))


if __name__ == "__main__":
    main()
