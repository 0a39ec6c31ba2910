#!/usr/bin/env python3
"""The oracle of issue 20: does mcio with no hints reach its best hand-picked configuration?

For every mcio-bench workload, on each site (Open MPI at 8 ranks on /tmp and on the GlusterFS
testbed, MPICH at 2 ranks on /tmp), writes and reads, it runs mcio's default (no hints: the
cost model chooses per call), mcio's hand-picked configurations under the pre-model default
strategy `fit` (aggregated, independent, pipeline depth 2 and 4, the memory strategy, 1/2/4
aggregators per node) and the MPI library's own collective I/O (ROMIO; Open MPI's OMPIO too).
Each repetition runs the default and every own configuration side by side in one mcio-bench
process (mcio-bench --config), beside the native collective I/O the MPI library uses unless
told (OMPIO on Open MPI, ROMIO on MPICH); each other native (Open MPI's ROMIO) runs in a
process of its own beside the default over it (default-on-romio: mcio over that MPI-IO).
Within a process the cases take turns call by call, so what the host does to the process (a
busy neighbour, the MPI library's first slow collectives, where the kernel put its memory) it
does to all of them; each native runs twice in its process (mcio-bench --native-again), a
control of the ratios to it; each ratio (the default over a configuration, over a native) is taken
within each process, and its median over the repetitions is the figure. The processes start
one further on each repetition (rotated); within one, the cases take turns in an order drawn
afresh for each call, from a seed of the process's own (mcio-bench --order-seed): a case's
time depends on the case before it, and until 2026-11-29 mcio-bench rotated its cases, which
kept every case's predecessor, the natives' among them, the same in every process.
Until 2026-11-28 each configuration ran in a process of its own, interleaved and rotated, and
the ratios were those of medians over the repetitions: a control (the default measured twice)
then fell below 0.9 of the best own configuration in 11 of 60 cases (docs/performance.md,
fourteenth pass). `report` reads both kinds of runs (the JSON's "pairing").
A control, default-again, runs the default once more as a configuration of its own: the
same configuration measured twice, which tells how far noise alone puts a configuration from
the best of the others. The default is timed without MCIO_STATS (whose gathers and file appends cost a few collectives
per call); a separate untimed run of it with MCIO_STATS gives the model's choices and predicted
times.
Each case of a process times --calls calls (the site's: 10, 15 at the MPICH site) and keeps
their median: a single call of 2 MiB per rank lasts a few milliseconds, and on a 2-core host
one call's time is mostly the scheduler's.
mcio-bench verifies every byte of every write and read. Each run warms every case up first
(mcio-bench --warmup: one untimed write and read, the file then emptied), so that a timed call
is not the process's first of its kind: with one timed call per process, the first aggregated
call paid for its collective buffer's fresh memory, and a configuration whose earlier patterns
went independent paid it on a later pattern than one that aggregated from the start (--cold:
without the warm-up, as before).

With --alone (issue 48), each configuration, the default and each native run in processes of
their own instead, in an order shuffled for each repetition, as users run one configuration a
job: ratios are then of medians, and the report gives the default's spread across its
processes beside the better native's.

Sites hosts4x2 and hosts2x4 (issue 44) run across scripts/hosts.sh's hosts (up 4 --servers 2;
the link rate is the testbed's, --link), launched from host 1, files on the server hosts'
GlusterFS volume.

  tools/mcio-oracle.py run [--reps 7] [--sites tmp,gluster,mpich] [--alone] [--out out/oracle.json]
                          [--mpi MPI]
  tools/mcio-oracle.py report out/oracle.json [--png docs/figures/oracle.png]

`run` prints one progress line per mcio-bench run and writes JSON; `report` prints the
markdown table of docs/performance.md (ratios default/best own and default/better native, the
model's predicted against measured time) and draws the figure. The best own configuration is
the largest of about ten noisy medians, which favours it: the report gives each median's
interquartile range and the configurations whose median falls within the best one's (as good,
as far as the repetitions tell); the bar stays 0.9 of the best median. Where a case's median
is below the better native, a sign test over its processes says whether the repetitions tell
it below (the report also runs it on the native against itself, and gives how many cases
chance alone would flag). The host may be shared: the
figures are noisy, and files under /tmp live in the page cache.
"""
import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import mcio_mpi  # noqa: E402
PATTERNS = ["contiguous", "ior", "coll_perf", "hacc-aos", "hacc-soa", "random", "tapioca",
            "mpi-io-test", "gcrm", "flash-io"]
BOTH = lambda k, v: ["romio_cb_write=" + v, "romio_cb_read=" + v]  # noqa: E731
FIT = ["mcio_strategy=fit"]
# name -> hints (the mcio engine), or None for the native engines.
OWN = {
    "fit": FIT,  # the default before the cost model: is the model better than what it replaced?
    "aggregated": FIT + BOTH("cb", "enable"),
    "independent": FIT + BOTH("cb", "disable"),
    "depth2": FIT + BOTH("cb", "enable") + ["mcio_pipeline_depth=2"],
    "depth4": FIT + BOTH("cb", "enable") + ["mcio_pipeline_depth=4"],
    "memory": ["mcio_strategy=memory"],
    "aggs1": FIT + BOTH("cb", "enable") + ["cb_nodes=1"],
    "aggs2": FIT + BOTH("cb", "enable") + ["cb_nodes=2"],
    "aggs4": FIT + BOTH("cb", "enable") + ["cb_nodes=4"],
}
# The bar on the default's spread across processes (issue 48): one job's default is another's.
SPREAD_BAR = 0.15
# mpi: the site's MPI as scripts/build.sh takes it (run --mpi: another), launched as its build
# found (tools/mcio_mpi.py). Filled in by run (site_conf): natives, the MPI library's collective
# I/O engines to compare with; native, the one it uses unless told (Open MPI's --mca io), which
# runs in the process of mcio's configurations; mpi_found, which MPI that was.
SITES = {
    "tmp": {"mpi": "openmpi", "ranks": 8, "base": "/tmp", "size": "2m", "calls": 10},
    # The same footing for every engine on GlusterFS: each file created before it is opened
    # (ROMIO's and OMPIO's opens let ranks open it while the creating descriptor is still open,
    # which hands them the kernel's page cache on this direct-io-mode=enable mount), and the
    # natives' writes ending with MPI_File_sync, as mcio's do there (mcio_write_sync auto).
    "gluster": {"mpi": "openmpi", "ranks": 8, "base": "/mnt/mcio-gluster", "size": "512k",
                "args": ["--precreate"],
                "native_args": ["--native-sync"],
                # mcio-bench checks every byte through the FUSE client, the extents near each
                # other in one read (a round of calls: 1.7 s for FLASH-IO alone when each row
                # was a read of its own, and one timed call per run then): a run of five
                # timed calls of every case takes about 5 s. Ten, not five: at five, an identical
                # plan measured twice (the control) fell below 0.9 of the best of the others in
                # 2-3 of the 10 patterns x 2 operations (docs/performance.md, twenty-second pass).
                "calls": 10},
    # 2 ranks, 0.3 s a run: 15 timed calls cost little and steady the site whose figures moved
    # most (docs/performance.md, thirteenth pass).
    "mpich": {"mpi": "mpich", "ranks": 2, "base": "/tmp", "size": "2m", "calls": 15},
    # Issue 44: several hosts (scripts/hosts.sh up 4 --servers 2): ranks on hosts 1..K, PPN a
    # host, launched from host 1 over the rate-limited links, the files on the GlusterFS volume
    # of the server hosts (each compute host's own FUSE mount), so both the exchange between
    # nodes and the file traffic cross the links. The link rate is the testbed's (hosts.sh up
    # --link; recorded as the site's "link"). Not the shared directory (hosts.sh shared): one
    # page cache every host sees, so a rank's own pieces never cross a link there while an
    # aggregator's do, which no cluster file system offers. Cold (no --warmup): the warm-up
    # empties the file by rank 0's truncate, after which ranks on other hosts read back their
    # own fresh writes short (the poison where the bytes should be) in the next call, on
    # GlusterFS's clients of separate hosts (mcio's independent writes too; 0 of 16 cases
    # failed without it). The own configurations that differ across hosts (own), no control
    # run, 3 calls a case: a case's call takes about 4 s on a loaded host.
    "hosts4x2": {"mpi": "openmpi", "hosts": 4, "ppn": 2, "ranks": 8,
                 "base": "/mnt/mcio-hosts-gluster", "size": "512k", "args": ["--precreate"],
                 "native_args": ["--native-sync"], "calls": 3, "cold": True, "again": False,
                 "own": ["aggregated", "independent", "depth2", "memory", "aggs1", "aggs2"]},
    "hosts2x4": {"mpi": "openmpi", "hosts": 2, "ppn": 4, "ranks": 8,
                 "base": "/mnt/mcio-hosts-gluster", "size": "512k", "args": ["--precreate"],
                 "native_args": ["--native-sync"], "calls": 3, "cold": True, "again": False,
                 "own": ["aggregated", "independent", "depth2", "memory", "aggs1", "aggs2"]},
}
HOSTS_SH = os.path.join(ROOT, "scripts", "hosts.sh")
MPIS = {}  # the MPI of each build.sh name run (site_mpi)


def site_mpi(site):
    if site["mpi"] not in MPIS:
        try:
            MPIS[site["mpi"]] = mcio_mpi.find(site["mpi"])
        except mcio_mpi.MPIError as e:
            sys.exit("mcio-oracle: %s" % e)
    return MPIS[site["mpi"]]


def site_conf(s, mpi=None):
    """Site s as run: its MPI (mpi, or the site's own) and that MPI's native engines, the
    library's default one first."""
    site = dict(SITES[s], mpi=mpi or SITES[s]["mpi"])
    m = site_mpi(site)
    if "hosts" in site:
        site["link"] = hosts_link(site)
    return dict(site, natives=m.natives(), native=m.natives()[0], mpi_found=str(m))


def hosts_link(site):
    """A hosts site's testbed: its links' rate; exits where it is not up with enough hosts."""
    try:
        with open("/run/mcio-hosts/n") as f:
            up = int(f.read())
        with open("/run/mcio-hosts/rate") as f:
            rate = f.read().strip()
    except (OSError, ValueError):
        up, rate = 0, ""
    if up < site["hosts"] or not os.path.isdir("/run/mcio-hosts") or subprocess.run(
            [HOSTS_SH, "exec", "h1", "--", "test", "-d", site["base"]]).returncode != 0:
        sys.exit("mcio-oracle: the site needs %d hosts with GlusterFS servers up "
                 "(scripts/hosts.sh up 4 --servers 2)" % site["hosts"])
    return rate


def on_host(site, cmd):
    """cmd as run: on host 1 for a hosts site, else here."""
    return [HOSTS_SH, "exec", "h1", "--"] + cmd if "hosts" in site else cmd


def launch(site, mpi, io):
    """The launch of the site's ranks under native engine io (None: the library's default)."""
    if "hosts" not in site:
        return mpi.launch(site["ranks"], io)
    env = dict(os.environ, MCIO_HOSTS_MPIEXEC=mpi.mpiexec)
    words = subprocess.run([HOSTS_SH, "launcher", mpi.family, str(site["ppn"]),
                            str(site["hosts"])], env=env, check=True, stdout=subprocess.PIPE,
                           text=True).stdout.split()
    return on_host(site, words + ["-n", str(site["ranks"])] + mpi.engine_args(io))


def site_dir(site):
    """A fresh directory for the site's files (on host 1's mount for a hosts site)."""
    if "hosts" not in site:
        return tempfile.mkdtemp(prefix="mcio-oracle.", dir=site["base"])
    return subprocess.run(on_host(site, ["mktemp", "-d", site["base"] + "/mcio-oracle.XXXXXX"]),
                          check=True, stdout=subprocess.PIPE, text=True).stdout.strip()


def out_dir(site, dirpath):
    """Where mcio-bench's JSON and statistics go: read here, so for a hosts site the directory
    every host and this machine see (hosts.sh shared), not the hosts' own mount."""
    if "hosts" not in site:
        return dirpath
    shared = subprocess.run([HOSTS_SH, "shared"], check=True, stdout=subprocess.PIPE,
                            text=True).stdout.strip()
    return tempfile.mkdtemp(prefix="mcio-oracle-out.", dir=shared)


def bench_once(site, dirpath, config, configs, native_io, patterns, cold=False, calls=1, seed=1):
    """One mcio-bench process of every pattern, `calls` timed writes and reads of each case
    (their median), in an order drawn from seed (mcio-bench's --order-seed; a case's time
    depends on the cases run before it, and one seed's orders would recur in every process, so
    each process draws its own): mcio once per entry of configs ({name: hints}), side by side,
    and, when
    native_io is given, the native engine beside them (under that MPI-IO: Open MPI's --mca io
    unless it is the library's default). Returns {(config name, pattern): row}, the native's
    named native-<native_io>; each row has the rates, and the default-stats run's the cost
    model's choice and predicted times (MCIO_STATS)."""
    mpi = site_mpi(site)
    bench = os.path.join(mpi.build, "mcio-bench")
    odir = out_dir(site, dirpath)
    fd, out = tempfile.mkstemp(suffix=".json", dir=odir)
    os.close(fd)
    stats = out + ".stats"
    io = None if native_io in (None, site["native"]) else native_io
    alone = native_io and not configs  # a native in a process of its own (run --alone)
    engines = "native" if alone else "native,mcio" if native_io else "mcio"
    cmd = launch(site, mpi, io) + [
        bench, "--engine", engines, "--pattern", ",".join(patterns),
        "--size", site["size"], "--reps", str(calls), "--dir", dirpath, "--json", out,
        "--order-seed", str(seed)] + (
        [] if cold else ["--warmup"]) + site.get("args", []) + (
        site.get("native_args", []) + ([] if alone else ["--native-again"]) if native_io else [])
    for name, hints in configs.items():
        cmd += ["--config", " ".join([name] + hints)]
    env = mpi.env()
    env.pop("MCIO_HINTS", None)
    if config == "default-stats":
        env["MCIO_STATS"] = stats  # its own run: the statistics cost collectives of their own
    try:
        for attempt in range(3):  # a brick killed by another's fault test: measure again
            if os.path.exists(stats):
                os.unlink(stats)
            r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=900)
            if r.returncode == 0:
                break
            # what failed, and in which case (mcio-bench's progress line names its label)
            said = [x for x in r.stdout.splitlines() if x.startswith("mcio-bench:")]
            cases = [x for x in r.stdout.splitlines() if "VERIFICATION FAILED" in x]
            print("    (failed, attempt %d: %s%s)" % (
                attempt + 1, (said or r.stdout.strip().splitlines() or ["no output"])[-1],
                "; " + "; ".join(cases[:3]) if cases else ""), flush=True)
        else:
            return None
        with open(out) as f:
            doc = json.load(f)
        rows = {}
        for x in doc["results"]:
            name = x.get("mcio_config") or (
                "native-again-" if x["label"] == "native:again" else "native-") + native_io
            if not x.get("verified"):
                print("    NOT VERIFIED: %s %s" % (name, x["pattern"]), flush=True)
                continue
            rows[(name, x["pattern"])] = {"write_mib_s": x["write_mib_s"],
                                          "read_mib_s": x["read_mib_s"], "bytes": x["bytes"]}
        if config == "default-stats" and os.path.exists(stats):
            with open(stats) as f:
                for line in f:
                    s = json.loads(line)
                    pat = s["path"].rsplit(".", 2)[-2]  # mcio-bench.<pid>.<i>.<pattern>.mcio
                    row = rows.get((config, pat))
                    if row is not None:
                        row["choice_" + s["op"]] = s["choice"]
                        row["predicted_" + s["op"]] = s["predicted"]
                        row["runner_up_" + s["op"]] = s["runner_up"]
        return rows
    except (OSError, ValueError) as e:  # the mount went away under a fault test
        print("    (%s)" % e, flush=True)
        return None
    finally:
        for p in (out, stats):
            try:
                os.unlink(p)
            except OSError:
                pass
        if odir != dirpath:
            subprocess.run(["rm", "-rf", odir])


def merge(doc, old, sites):
    """Into a new run's doc, the sites of an older run's (old) that it does not measure
    (sites): their settings, their runs and their timed calls a case."""
    keep = [s for s in old["sites"] if s not in sites]
    doc["sites"] = dict({s: old["sites"][s] for s in keep}, **doc["sites"])
    doc["runs"] = [r for r in old["runs"] if r["site"] in keep]
    old_calls = old.get("calls", {})
    if isinstance(old_calls, dict):  # an int in runs before 2026-11-26: one count for all
        doc["calls"].update({s: old_calls[s] for s in keep if s in old_calls})


def plan_side(site, rep, s):
    """A repetition's processes side by side: one of the default, the control and every own
    configuration, beside the native the library uses unless told; one more per other native,
    beside the default over it (default-on-romio: mcio over that MPI-IO). default-again:
    the default once more, a control that is neither own nor native: how far the same
    configuration measured twice lands from the best own (the noise floor). Rotated: no
    process always first (within one, mcio-bench draws the cases' order, --order-seed)."""
    side = [("default", [])] + ([("default-again", [])] if site.get("again", True) else []) + [
        (c, h) for c, h in OWN.items() if c in site.get("own", OWN)]
    procs = [("side", side, site["native"])] + [
        ("beside-" + n, [("default-on-" + n, [])], n) for n in site["natives"]
        if n != site["native"]]
    k = rep % len(procs)
    return [(s, rep, name, dict(configs), native) for name, configs, native in
            procs[k:] + procs[:k]]


def plan_alone(s, site, rep):
    """A repetition's processes as users run them (run --alone): each configuration, the
    default and every native in a process of its own, in an order shuffled afresh for each
    repetition (the same for a site and repetition: reproducible). Ratios are then those of
    medians over the repetitions, and the default's spread across its processes tells whether
    one job's default is another's."""
    procs = [("alone-" + c, {c: h}, None) for c, h in [("default", [])] + [
        (c, h) for c, h in OWN.items() if c in site.get("own", OWN)]]
    procs += [("alone-native-" + n, {}, n) for n in site["natives"]]
    random.Random(zlib.crc32(("%s %d" % (s, rep)).encode())).shuffle(procs)
    return [(s, rep, name, configs, native) for name, configs, native in procs]


def run(args):
    sites = args.sites.split(",")
    patterns = args.patterns.split(",")
    doc = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "reps": args.reps,
           "calls": {s: args.calls or SITES[s]["calls"] for s in sites}, "warmup": not args.cold,
           "order": "shuffled" if args.alone else "rotated",
           "pairing": "alone" if args.alone else "process", "patterns": patterns,
           "sites": {s: site_conf(s, args.mpi) for s in sites}, "runs": []}
    if args.merge:
        with open(args.merge) as f:
            merge(doc, json.load(f), sites)
    plan = []
    for s in sites:
        site = doc["sites"][s]
        for rep in range(args.reps):
            plan += plan_alone(s, site, rep) if args.alone else plan_side(site, rep, s)
            plan.append((s, rep, "default-stats", {"default-stats": []}, None))
    t0 = time.time()
    dirs = {}
    try:
        for i, (s, rep, name, configs, native) in enumerate(plan):
            site = doc["sites"][s]
            if s not in dirs:
                dirs[s] = site_dir(site)
            t = time.time()
            rows = None
            for attempt in range(3):
                rows = bench_once(site, dirs[s], name, configs, native, patterns,
                                  args.cold or site.get("cold", False),
                                  args.calls or site["calls"],
                                  zlib.crc32(("%s %d %s %d" % (s, rep, name, attempt)).encode()))
                if rows:
                    break
                time.sleep(5)
            print("[%d/%d] %s rep %d %-14s %5.1f s (elapsed %.0f s)%s" % (
                i + 1, len(plan), s, rep + 1, name, time.time() - t, time.time() - t0,
                "" if rows else " FAILED"), flush=True)
            for (config, pat), row in (rows or {}).items():
                doc["runs"].append(dict(row, site=s, rep=rep, config=config, pattern=pat,
                                        process=name))
            with open(args.out, "w") as f:
                json.dump(doc, f, indent=1)
    finally:
        for s, d in dirs.items():
            subprocess.run(on_host(doc["sites"][s], ["rm", "-rf", d]))
    print("wrote %s" % args.out)


def quartiles(v):
    """The first and third quartiles of v (v itself when it has fewer than 2 values)."""
    if len(v) < 2:
        return (v[0], v[0]) if v else (None, None)
    q = statistics.quantiles(v, n=4, method="inclusive")
    return q[0], q[2]


def samples(doc):
    """{(site, pattern, config, op): [MiB/s of each repetition]}."""
    acc = {}
    for r in doc["runs"]:
        for op in ("write", "read"):
            acc.setdefault((r["site"], r["pattern"], r["config"], op), []).append(r[op + "_mib_s"])
    return acc


def medians(doc):
    """{(site, pattern, config, op): median MiB/s}, and the default's predictions."""
    acc, pred, choice = {}, {}, {}
    for r in doc["runs"]:
        for op in ("write", "read"):
            k = (r["site"], r["pattern"], r["config"], op)
            acc.setdefault(k, []).append(r[op + "_mib_s"])
            if r["config"] == "default-stats" and ("predicted_" + op) in r:
                pred.setdefault(k[:2] + (op,), []).append(r["predicted_" + op])
                choice.setdefault(k[:2] + (op,), []).append(r["choice_" + op])
    return {k: statistics.median(v) for k, v in acc.items()}, pred, choice


def by_rep(doc, s, pat, op):
    """{config: {rep: MiB/s}} of one case."""
    by = {}
    for r in doc["runs"]:
        if r["site"] == s and r["pattern"] == pat:
            by.setdefault(r["config"], {})[r["rep"]] = r[op + "_mib_s"]
    return by


def pairs(by, a, b, half=None):
    """[(a's figure, b's figure)] of each repetition both have (of one parity when half is 0
    or 1)."""
    xa, xb = by.get(a, {}), by.get(b, {})
    return [(xa[k], xb[k]) for k in xa if k in xb and (half is None or k % 2 == half)]


def ratio(doc, by, a, b, half=None):
    """a's figure over b's over the repetitions (of one parity when half is 0 or 1). Where the
    configurations ran in one process (doc pairing "process"), the median of the ratios taken
    in each process: what the host did to that process it did to both. Before that (each
    configuration a process of its own), the ratio of the medians. None without figures."""
    ab = pairs(by, a, b, half)
    if not ab:
        return None
    if doc.get("pairing") == "process":
        return statistics.median(x / y for x, y in ab)
    return statistics.median(x for x, _ in ab) / statistics.median(y for _, y in ab)


def below(doc, by, a, b):
    """(the processes in which a's figure fell below b's, the processes, the one-sided sign
    test's p): whether the repetitions tell a below b, whatever the median says. Under
    the null hypothesis (a as likely above as below), k or more of n processes below has
    probability p; p < 0.05 takes 8 of 9 or 5 of 5. Only where the two ran in one process
    (pairing "process"); None otherwise or without figures."""
    ab = pairs(by, a, b)
    if doc.get("pairing") != "process" or not ab:
        return None
    k, n = sum(x < y for x, y in ab), len(ab)
    return k, n, sign_tail(k, n)


def sign_tail(k, n):
    """The one-sided sign test's p: k or more of n processes below, each as likely above."""
    return sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n


def flag_rate(n):
    """How often the sign test at 5% flags a case of n processes that is not below."""
    return max((p for p in (sign_tail(k, n) for k in range(n + 1)) if p < 0.05), default=0.0)


def worst_own(doc, by, config, half=None):
    """(config's lowest ratio to an own configuration, that configuration): config against the
    best of mcio's own configurations; (None, None) without figures."""
    own = [(ratio(doc, by, config, c, half), c) for c in OWN if c in by]
    own = [x for x in own if x[0] is not None]
    return min(own) if own else (None, None)


def held_out(doc, by, config):
    """config against the best own configuration, the best chosen on the other half of the
    repetitions (odd against even, then even against odd; the mean of the two). The best of
    ~10 noisy figures is biased upward (the winner's curse): a configuration run twice does not
    reach it. Chosen on one half and measured on the other, it is not. None when a half lacks
    a configuration."""
    ratios = []
    for pick, measure in ((0, 1), (1, 0)):
        best = worst_own(doc, by, "default", pick)[1]
        x = ratio(doc, by, config, best, measure) if best else None
        if x is None:
            return None
        ratios.append(x)
    return sum(ratios) / len(ratios)


def spread_of(v):
    """Largest less smallest over the median of v; None without two figures."""
    if not v or len(v) < 2 or statistics.median(v) <= 0:
        return None
    return (max(v) - min(v)) / statistics.median(v)


def table(doc):
    m, pred, choice = medians(doc)
    reps = samples(doc)
    rows = []
    for s in doc["sites"]:
        for pat in doc["patterns"]:
            for op in ("write", "read"):
                d = m.get((s, pat, "default", op))
                own = [(m[(s, pat, c, op)], c) for c in OWN if (s, pat, c, op) in m]
                nat = [(m[(s, pat, c, op)], c[7:]) for c in ("native-romio321", "native-ompio",
                                                             "native-romio") if (s, pat, c, op) in m]
                if d is None or not own:
                    continue
                by = by_rep(doc, s, pat, op)
                ratio_own, bestc = worst_own(doc, by, "default")
                best = m[(s, pat, bestc, op)]
                nbest, nc = max(nat) if nat else (None, "-")
                # the default over the better native, in that native's process (mcio over it)
                mine = "default-on-" + nc if "default-on-" + nc in by else "default"
                ratio_native = ratio(doc, by, mine, "native-" + nc) if nat else None
                # The spread: the best own configuration is the largest of ~10 noisy medians;
                # those whose median lies within its interquartile range are as good, as far as
                # these repetitions can tell.
                bq1, bq3 = quartiles(reps[(s, pat, bestc, op)])
                dq1, dq3 = quartiles(reps[(s, pat, "default", op)])
                tied = sorted(c for v, c in own if c != bestc and v >= bq1)
                p = pred.get((s, pat, op), [])
                pm = statistics.median(p) if p else None
                nbytes = [r["bytes"] for r in doc["runs"] if r["site"] == s and r["pattern"] == pat]
                tm = nbytes[0] / (d * 2 ** 20) if nbytes and d else None  # the default's median
                ch = choice.get((s, pat, op), [])
                again = "default-again" in by
                rows.append({"site": s, "pattern": pat, "op": op, "default": d,
                             "default_spread": spread_of(reps[(s, pat, "default", op)]),
                             "native_spread": spread_of(reps.get((s, pat, "native-" + nc, op))),
                             "ratio_fit": ratio(doc, by, "default", "fit"),
                             "again_own": worst_own(doc, by, "default-again")[0] if again else None,
                             "held_out": held_out(doc, by, "default"),
                             "again_held_out": held_out(doc, by, "default-again")
                             if again else None,
                             "choice": max(set(ch), key=ch.count) if ch else "",
                             "choices": len(set(ch)), "best_own": best, "best_own_config": bestc,
                             "ratio_own": ratio_own, "native": nbest, "native_io": nc,
                             "best_q1": bq1, "best_q3": bq3, "default_q1": dq1, "default_q3": dq3,
                             "tied": tied, "ratio_own_q3": d / bq3 if bq3 else None,
                             "reps": len(reps[(s, pat, "default", op)]),
                             "ratio_native": ratio_native,
                             "native_below": below(doc, by, mine, "native-" + nc)
                             if nat else None,
                             "native_again_below": below(doc, by, "native-again-" + nc,
                                                         "native-" + nc) if nat else None,
                             "native_again": ratio(doc, by, "native-again-" + nc, "native-" + nc)
                             if nat else None,
                             "predicted_s": pm, "measured_s": tm,
                             "error": (pm / tm if pm and tm else None)})
    return rows


def natives_table(doc):
    """One row per site and workload: mcio's default against every native of the site, writes
    and reads, as MiB/s medians over the repetitions and the default's ratio to each native
    (as the report's default/native: mcio's default run in that native's process where it
    was, "default-on-IO", and the ratio taken within each process where they ran side by
    side)."""
    med = medians(doc)[0]
    print("| site | workload | op | mcio default MiB/s | " + " | ".join(
        "native MiB/s (mcio / native)" for _ in range(2)) + " |")
    print("|---|---|---|---|---|---|")
    for site, conf in doc["sites"].items():
        for pat in doc["patterns"]:
            for op in ("write", "read"):
                if (site, pat, "default", op) not in med:
                    continue
                by = by_rep(doc, site, pat, op)
                cells = []
                for io in conf["natives"]:
                    k = (site, pat, "native-" + io, op)
                    mine = "default-on-" + io if "default-on-" + io in by else "default"
                    r = ratio(doc, by, mine, "native-" + io)
                    cells.append("%s %.0f (%.2f)" % (io, med[k], r) if k in med and r else "-")
                cells += ["-"] * (2 - len(cells))
                print("| %s | %s | %s | %.0f | %s |" % (site, pat, op, med[(site, pat, "default",
                                                                             op)], " | ".join(cells)))


def report_spread(rows, doc):
    """The default's spread across its processes (repetitions), beside the better native's."""
    spread = [r for r in rows if r["default_spread"] is not None]
    if spread:
        wide = sorted((r for r in spread if r["default_spread"] >= SPREAD_BAR),
                      key=lambda r: -r["default_spread"])
        print("The default's spread across its %s (largest less smallest, over the median): "
              "under %.0f%% in %d of %d cases%s." % (
                  "processes" if doc.get("pairing") == "alone" else "repetitions",
                  100 * SPREAD_BAR, len(spread) - len(wide), len(spread),
                  "; " + ", ".join("%s %s %s %.0f%%" % (r["site"], r["pattern"], r["op"],
                                                       100 * r["default_spread"])
                                   for r in wide[:8]) if wide else ""))
        ns = [r["native_spread"] for r in rows if r["native_spread"] is not None]
        if ns:
            print("The better native's spread alike (the host's noise): under %.0f%% in %d of %d "
                  "cases." % (100 * SPREAD_BAR, sum(x < SPREAD_BAR for x in ns), len(ns)))


def report(args):
    with open(args.json) as f:
        doc = json.load(f)
    if args.natives:
        natives_table(doc)
        return
    rows = table(doc)
    print("| site | workload | op | default's choice | default MiB/s [q1-q3] | best own (config) "
          "[q1-q3] | as good (median within the best's q1-q3) | default/best own | default/fit | "
          "better native | default/native (the native's second case over its first) | predicted ms | measured ms | predicted/measured |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        flag = lambda x, bar: ("**%.2f**" % x) if x is not None and x < bar else (  # noqa: E731
            "%.2f" % x if x is not None else "-")
        print("| %s | %s | %s | %s%s | %.0f [%.0f-%.0f] | %.0f (%s) [%.0f-%.0f] | %s | %s | %s | %s "
              "| %s | %s | %s | %s |" % (
            r["site"], r["pattern"], r["op"], r["choice"], " (varied)" if r["choices"] > 1 else "",
            r["default"], r["default_q1"], r["default_q3"], r["best_own"], r["best_own_config"],
            r["best_q1"], r["best_q3"], ", ".join(r["tied"]) or "-", flag(r["ratio_own"], 0.9),
            "%.2f" % r["ratio_fit"] if r["ratio_fit"] else "-",
            "%.0f (%s)" % (r["native"], r["native_io"]) if r["native"] else "-",
            flag(r["ratio_native"], 1.0) + (" (itself %.2f)" % r["native_again"]
                                            if r["native_again"] is not None else "")
            + (" %d/%d below" % r["native_below"][:2] if r["native_below"] and
               r["ratio_native"] < 1.0 else ""),
            "%.2f" % (1e3 * r["predicted_s"]) if r["predicted_s"] else "-",
            "%.2f" % (1e3 * r["measured_s"]) if r["measured_s"] else "-",
            "%.2f" % r["error"] if r["error"] else "-"))
    own_ok = sum(r["ratio_own"] >= 0.9 for r in rows)
    in_spread = sum(r["ratio_own"] < 0.9 and r["default"] >= r["best_q1"] for r in rows)
    nat_ok = sum(r["ratio_native"] is not None and r["ratio_native"] >= 1.0 for r in rows)
    fits = [r["ratio_fit"] for r in rows if r["ratio_fit"]]
    print("\n%d of %d cases reach 0.9 of the best own configuration; %d of %d at least the "
          "better native." % (own_ok, len(rows), nat_ok, sum(r["native"] is not None for r in rows)))
    print("Medians of %s repetitions, each the median of %s timed calls in one process. Of the "
          "cases below 0.9, %d have the default's median within the best own configuration's "
          "interquartile range (below the bar, but not distinguishable from it by these "
          "repetitions)." % ("/".join(sorted({str(r["reps"]) for r in rows})),
                             json.dumps(doc.get("calls", 1)), in_spread))
    report_spread(rows, doc)
    if doc.get("pairing") == "alone":
        print("Each configuration, the default and each native ran in processes of their own, "
              "as users run them: ratios are of medians over the processes.")
    if doc.get("pairing") == "process":
        print("Ratios are medians of ratios taken within each process: the default and every "
              "own configuration side by side, beside the library's default native; an other "
              "native beside mcio's default over it (default/native for ROMIO on Open MPI "
              "is mcio over ROMIO against it).")
    again = [r for r in rows if r["again_own"] is not None]
    if again:
        print("The control (the default measured again, as another configuration of the same "
              "runs): %d of %d cases at 0.9 of the best own configuration; default-again/best "
              "own %s." % (sum(r["again_own"] >= 0.9 for r in again), len(again), ", ".join(
                  "%s %s %s %.2f" % (r["site"], r["pattern"], r["op"], r["again_own"])
                  for r in again if r["again_own"] < 0.9) or "never below 0.9"))
    na = [r["native_again"] for r in rows if r["native_again"] is not None]
    if na:
        print("The natives measured twice in the same processes (the better native's second "
              "case over its first): median %.2f, %.2f-%.2f; below 1.0 in %d of %d cases, below "
              "0.97 in %d." % (statistics.median(na), min(na), max(na), sum(x < 1 for x in na),
                               len(na), sum(x < 0.97 for x in na)))
    sig = [r for r in rows if r["native_below"]]
    if sig:
        def told(key):
            return [r for r in sig if r[key] and r[key][2] < 0.05]

        print("Below the better native in so many processes that chance alone would do it less "
              "than once in 20 (a one-sided sign test; 8 of 9, 5 of 5): %d of %d cases%s%s; chance "
              "alone flags about %.1f." % (
                  len(told("native_below")), len(sig), "".join(
                      "%s%s %s %s %.2f (%d/%d)" % (", " if i else ": ", r["site"], r["pattern"],
                                                    r["op"], r["ratio_native"],
                                                    *r["native_below"][:2])
                      for i, r in enumerate(told("native_below"))),
                  "; the natives against themselves, %d" % len(told("native_again_below"))
                  if any(r["native_again_below"] for r in sig) else "",
                  sum(flag_rate(r["native_below"][1]) for r in sig)))
    ho = [r for r in rows if r["held_out"] is not None]
    if ho:
        print("Held out (the best own configuration chosen on half of the repetitions, the "
              "ratio taken on the other half, both ways): %d of %d cases at 0.9 (median %.2f)"
              % (sum(r["held_out"] >= 0.9 for r in ho), len(ho),
                 statistics.median(r["held_out"] for r in ho)), end="")
        hc = [r for r in ho if r["again_held_out"] is not None]
        if hc:
            print("; the control %d of %d (median %.2f)" % (
                sum(r["again_held_out"] >= 0.9 for r in hc), len(hc),
                statistics.median(r["again_held_out"] for r in hc)), end="")
        print(". Per site: %s." % ", ".join(
            "%s %d/%d" % (site, sum(r["held_out"] >= 0.9 for r in ho if r["site"] == site),
                          sum(r["site"] == site for r in ho))
            for site in sorted({r["site"] for r in ho}, key=list(SITES).index)))
    if fits:
        print("Against the default it replaced (fit): median %.2f, %d of %d at least 0.9."
              % (statistics.median(fits), sum(x >= 0.9 for x in fits), len(fits)))
    if args.png:
        plot(rows, args.png, doc["sites"], doc.get("pairing") == "process")


def plot(rows, png, sites, paired=False):
    import mcio_venv
    mcio_venv.use_venv()  # matplotlib is in the project's .venv (scripts/setup.sh)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FormatStrFormatter
    sites = sorted({r["site"] for r in rows}, key=list(SITES).index)
    fig, axes = plt.subplots(len(sites), 2, figsize=(13, 3.2 * len(sites)), squeeze=False)
    for i, s in enumerate(sites):
        for j, op in enumerate(("write", "read")):
            ax = axes[i][j]
            rs = [r for r in rows if r["site"] == s and r["op"] == op]
            x = range(len(rs))
            ax.bar([k - 0.2 for k in x], [r["ratio_own"] for r in rs], 0.4,
                   label="default / best own config")
            ax.bar([k + 0.2 for k in x], [r["ratio_native"] or 0 for r in rs], 0.4,
                   label="default / better native")
            again = [(k + 0.2, r["native_again"]) for k, r in zip(x, rs)
                     if r["native_again"] is not None]
            if again:  # the native against itself: how far noise alone moves the orange bars
                ax.scatter(*zip(*again), marker="_", s=160, color="black", zorder=3,
                           label="better native's second case / its first")
            ax.axhline(0.9, color="tab:blue", ls="--", lw=0.8)
            ax.axhline(1.0, color="tab:orange", ls="--", lw=0.8)
            ax.set_xticks(list(x))
            ax.set_xticklabels([r["pattern"] for r in rs], rotation=30, fontsize=8)
            ax.set_yscale("log")
            for set_format in (ax.yaxis.set_major_formatter, ax.yaxis.set_minor_formatter):
                set_format(FormatStrFormatter("%.3g"))  # 0.9, 1.15, 2: not 9x10^-1
            ax.set_title("%s (%s, %d ranks), %s" % (s, sites[s]["mpi"], sites[s]["ranks"], op),
                         fontsize=9)
            if i == 0 and j == 0:
                ax.legend(fontsize=8)
    fig.suptitle("mcio with no hints against its best own configuration and native MPI-IO "
                 "(%s; 2-core host)" % ("medians of ratios taken within each process" if paired
                                        else "ratios of medians; noisy"), fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print("wrote %s" % png)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="measure (minutes)")
    r.add_argument("--reps", type=int, default=7)
    r.add_argument("--calls", type=int, default=0,
                   help="timed calls of each case per process (mcio-bench --reps): their median "
                        "is the repetition's figure (default: the site's, %s; 1 is a single "
                        "call, as before 2026-11-26)" % ", ".join(
                            "%d at %s" % (v["calls"], k) for k, v in SITES.items()))
    r.add_argument("--sites", default="tmp,gluster,mpich")
    r.add_argument("--patterns", default=",".join(PATTERNS))
    r.add_argument("--out", default=os.path.join(ROOT, "out", "oracle.json"))
    r.add_argument("--cold", action="store_true",
                   help="no untimed warm-up call per case (each timed call may be the first)")
    r.add_argument("--merge", help="a previous run's JSON whose other sites' runs are kept")
    r.add_argument("--mpi", help="the MPI of every site run, as scripts/build.sh takes it "
                   "(default: each site's own, %s; built if needed)" % ", ".join(
                       "%s at %s" % (v["mpi"], k) for k, v in SITES.items()))
    r.add_argument("--alone", action="store_true",
                   help="each configuration, the default and each native in a process of its "
                        "own, shuffled (as users run one configuration a job); the report "
                        "gives the default's spread across its processes")
    p = sub.add_parser("report", help="table and figure from a run's JSON")
    p.add_argument("json")
    p.add_argument("--png")
    p.add_argument("--natives", action="store_true",
                   help="only mcio's default against every native, per site and workload")
    args = ap.parse_args()
    if args.cmd == "run":
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        run(args)
    else:
        report(args)


if __name__ == "__main__":
    main()
