#!/usr/bin/env python3
"""mcio-calibrate end to end (issues 20, 48): a fresh cache made of three probes, read back,
and a fourth probe that the cache merges with them as mcio_cost_merge says: each figure the
median of the kept probes (the "hist_" lines), an operation's file-system figures (call and
byte, alone and among conc; a write's sync) together from its median probe (by what they price
one call of 1 MiB alone plus one among conc ranks at).

Then, in another fresh cache: a table probed at 2 ranks is probed again by a job of 3 ranks
on the node (its concurrent figures are of fewer ranks), and read by the next 2- and 3-rank
jobs; a table that says it was probed under a load of 1,000 per core is read as it is (the
load no longer sends a job to probe: issue 48).

Usage: calibrate_test.py MPIEXEC [MPIEXEC_FLAGS...] -- MCIO_CALIBRATE DIR
Runs 2 and 3 ranks with XDG_CACHE_HOME set to a new temporary directory, so the user's own cache is
never read or written. Fails (exit 1) naming the figure at fault.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

FS = ["write_call_1", "write_call_n", "read_call_1", "read_call_n",
      "write_byte_1", "write_byte_n", "read_byte_1", "read_byte_n", "msg", "msg_byte"]
# A write's closing sync, alone and among conc: 0 where writes end with none (a local file
# system), so non-negative rather than positive.
SYNC = ["write_sync_1", "write_sync_n"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def calibrate(launch, tool, d, cache, *flags, ranks=3):
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    r = subprocess.run(launch + ["-n", str(ranks), tool, "--dir", d, "--json"] + list(flags),
                       env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=240)
    if r.returncode != 0:
        fail("mcio-calibrate %s exited %d: %s" % (" ".join(flags), r.returncode, r.stderr.strip()))
    try:
        return json.loads(r.stdout)
    except ValueError:
        fail("mcio-calibrate %s printed no JSON: %r" % (" ".join(flags), r.stdout[:200]))


def reprobe_rules(launch, tool, d):
    """A cache probed with fewer ranks on a node than the job's is probed again on first use
    (--cached: the mcio_calibrate auto of every open), and so is one probed under a load more
    than twice today's; otherwise the cache is read."""
    with tempfile.TemporaryDirectory() as cache:
        runs = [(2, "probe", 2), (3, "probe", 3), (2, "cache", 3), (3, "cache", 3)]
        for ranks, source, conc in runs:
            got = calibrate(launch, tool, d, cache, "--cached", ranks=ranks)
            if got["source"] != source or got["conc"] != conc:
                fail("--cached at %d ranks after %s: source %s, conc %s (%s, %d expected)" % (
                    ranks, [r[0] for r in runs[:runs.index((ranks, source, conc))]],
                    got["source"], got["conc"], source, conc))
        # As if probed under a load of 1,000 per core: read all the same.
        table = [f for f in os.listdir(os.path.join(cache, "mcio")) if not f.startswith("host-")]
        path = os.path.join(cache, "mcio", table[0])
        with open(path) as f:
            lines = [("load 1000" if ln.startswith("load ") else ln) for ln in f.read().split("\n")]
        with open(path, "w") as f:
            f.write("\n".join(lines))
        for source in ("cache", "cache"):
            got = calibrate(launch, tool, d, cache, "--cached")
            if got["source"] != source:
                fail("--cached after a table probed under load 1000: source %s, not %s" % (
                    got["source"], source))
        if got["load"] != 1000:
            fail("the cache read keeps load %s, not the 1000 written" % got["load"])


def history(t, k):
    """The kept probes' values of figure k (its hist_ line)."""
    v = t.get("hist_" + k)
    vals = [float(x) for x in str(v).split()] if v is not None else []
    if len(vals) != 4:
        fail("the cache keeps %d probes of %s, not 4: %r" % (len(vals), k, v))
    return vals


def check_medians(t):
    """Each figure the lower middle of its 4 probes; an operation's file-system figures those
    of its median probe (by one 1 MiB call alone plus one among conc)."""
    low_mid = lambda v: sorted(v)[1]  # noqa: E731
    for k in ("msg", "msg_byte", "copy_cold"):  # coll, copy_byte: measured at every open
        if abs(t[k] - low_mid(history(t, k))) > 1e-6 * t[k]:
            fail("the cache holds %s = %g, not the median of %s" % (k, t[k], history(t, k)))
    for op in ("write", "read"):
        keys = [op + "_" + f for f in ("call_1", "call_n", "byte_1", "byte_n")]
        keys += SYNC if op == "write" else []
        h = {k: history(t, k) for k in keys}
        ref = [h[keys[0]][i] + h[keys[1]][i] + 2**20 * (h[keys[2]][i] + h[keys[3]][i]) +
               sum(h[k][i] for k in keys[4:]) for i in range(4)]
        mid = sorted(ref)[1]
        # the probes priced at the median (to the text's 7 digits, which may reorder close ones)
        near = [i for i in range(4) if abs(ref[i] - mid) <= 1e-5 * mid]
        same = lambda i: all(abs(t[k] - h[k][i]) <= 1e-6 * max(t[k], 1e-30) for k in keys)  # noqa: E731
        if not any(same(i) for i in near):
            fail("the cache holds %s, not its median probe's of %s" % (
                [t[k] for k in keys], {k: h[k] for k in keys}))


def host_figures(launch, tool, d, cache):
    """The host's copy and piece figures (mcio_calibrate_host.c): the four processes above
    measured them until three were kept, the fourth took their medians; a kept file's medians
    are what the next process prices a copy at."""
    hosts = [f for f in os.listdir(os.path.join(cache, "mcio")) if f.startswith("host-")]
    if len(hosts) != 1:
        fail("cache directory holds host files %s, not one" % hosts)
    path = os.path.join(cache, "mcio", hosts[0])
    with open(path) as f:
        lines = [ln.split() for ln in f if ln.strip()]
    if len(lines) != 3 or any(len(ln) != 2 or float(ln[0]) <= 0 for ln in lines):
        fail("the host file holds %r, not three measurements" % lines)
    with open(path, "w") as f:
        f.write("3.0e-10 4.0e-07\n9.0e-10 5.0e-07\n2.0e-10 1.0e-07\n")
    t = calibrate(launch, tool, d, cache, "--cached")
    if abs(t["copy_byte"] - 3.0e-10) > 1e-6 * 3.0e-10:
        fail("copy_byte %g, not the kept measurements' median 3e-10" % t["copy_byte"])
    with open(path) as f:
        if len([ln for ln in f if ln.strip()]) != 3:
            fail("a process with enough measurements kept measured again")


def main():
    sep = sys.argv.index("--")
    launch, (tool, d) = sys.argv[1:sep], sys.argv[sep + 1:sep + 3]
    with tempfile.TemporaryDirectory() as cache:
        first = calibrate(launch, tool, d, cache)
        if first["source"] != "probe" or first["conc"] != 3 or first["probes"] != 3:
            fail("first run: source %s, conc %s, probes %s (probe, 3, 3 expected)" % (
                first["source"], first["conc"], first["probes"]))
        for k in FS + ["coll", "copy_byte", "copy_cold"]:
            if not (isinstance(first[k], (int, float)) and math.isfinite(first[k]) and first[k] > 0):
                fail("first probe: %s = %r, not a positive time" % (k, first[k]))
        for k in SYNC:
            if not (isinstance(first[k], (int, float)) and math.isfinite(first[k]) and first[k] >= 0):
                fail("first probe: %s = %r, not a time" % (k, first[k]))
        files = [f for f in os.listdir(os.path.join(cache, "mcio")) if not f.startswith("host-")]
        if len(files) != 1 or not files[0].startswith(first["fs_type"] + "-"):
            fail("cache directory holds %s, not one file named for %s" % (files, first["fs_type"]))
        cached = calibrate(launch, tool, d, cache, "--cached")
        if cached["source"] != "cache":
            fail("--cached: source %s, not cache" % cached["source"])
        for k in FS + SYNC:  # the job's own figures (coll, copy) are measured again at every open
            if abs(cached[k] - first[k]) > 1e-6 * first[k]:
                fail("--cached: %s = %g, the probe stored %g" % (k, cached[k], first[k]))
        calibrate(launch, tool, d, cache)  # a fourth probe, merged into the cache
        merged = calibrate(launch, tool, d, cache, "--cached")
        if merged["probes"] != 4:
            fail("after a fourth probe the cache counts %s probes, not 4" % merged["probes"])
        check_medians(merged)
        host_figures(launch, tool, d, cache)
    reprobe_rules(launch, tool, d)
    print("calibrate: probe, cache and merge agree on %d figures (%s)" % (len(FS + SYNC), first["fs_type"]))


if __name__ == "__main__":
    main()
