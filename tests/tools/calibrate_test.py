#!/usr/bin/env python3
"""mcio-calibrate end to end (issue 20): a probe into a fresh cache, read back, and a second
probe that the cache merges with it as mcio_cost_keep_best says: an operation's
file-system figures (call and byte, alone and among conc; a write's sync) together from the
probe that found that operation cheaper (one call of 1 MiB alone plus one among conc ranks),
the message figures each the lower of the two.

Then, in another fresh cache: a table probed at 2 ranks is probed again by a job of 3 ranks
on the node (its concurrent figures are of fewer ranks), and read by the next 2- and 3-rank
jobs; a table that says it was probed under a load of 1,000 per core is probed again, once.

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
        # As if probed under a load of 1,000 per core: no host here is half as loaded.
        path = os.path.join(cache, "mcio", os.listdir(os.path.join(cache, "mcio"))[0])
        with open(path) as f:
            lines = [("load 1000" if ln.startswith("load ") else ln) for ln in f.read().split("\n")]
        with open(path, "w") as f:
            f.write("\n".join(lines))
        for source in ("probe", "cache"):
            got = calibrate(launch, tool, d, cache, "--cached")
            if got["source"] != source:
                fail("--cached after a table probed under load 1000: source %s, not %s" % (
                    got["source"], source))
        if not 0 <= got["load"] < 1000:
            fail("the table probed again keeps load %s, not the load of its probe" % got["load"])


def main():
    sep = sys.argv.index("--")
    launch, (tool, d) = sys.argv[1:sep], sys.argv[sep + 1:sep + 3]
    with tempfile.TemporaryDirectory() as cache:
        first = calibrate(launch, tool, d, cache)
        if first["source"] != "probe" or first["conc"] != 3 or first["probes"] != 1:
            fail("first run: source %s, conc %s, probes %s (probe, 3, 1 expected)" % (
                first["source"], first["conc"], first["probes"]))
        for k in FS + ["coll", "copy_byte", "copy_cold"]:
            if not (isinstance(first[k], (int, float)) and math.isfinite(first[k]) and first[k] > 0):
                fail("first probe: %s = %r, not a positive time" % (k, first[k]))
        for k in SYNC:
            if not (isinstance(first[k], (int, float)) and math.isfinite(first[k]) and first[k] >= 0):
                fail("first probe: %s = %r, not a time" % (k, first[k]))
        files = os.listdir(os.path.join(cache, "mcio"))
        if len(files) != 1 or not files[0].startswith(first["fs_type"] + "-"):
            fail("cache directory holds %s, not one file named for %s" % (files, first["fs_type"]))
        cached = calibrate(launch, tool, d, cache, "--cached")
        if cached["source"] != "cache":
            fail("--cached: source %s, not cache" % cached["source"])
        for k in FS + SYNC:  # the job's own figures (coll, copy) are measured again at every open
            if abs(cached[k] - first[k]) > 1e-6 * first[k]:
                fail("--cached: %s = %g, the probe stored %g" % (k, cached[k], first[k]))
        second = calibrate(launch, tool, d, cache)  # a probe, merged into the cache
        merged = calibrate(launch, tool, d, cache, "--cached")
        if merged["probes"] != 2:
            fail("after a second probe the cache counts %s probes, not 2" % merged["probes"])
        for op in ("write", "read"):
            keys = [op + "_" + f for f in ("call_1", "call_n", "byte_1", "byte_n")]
            sync = SYNC if op == "write" else []
            ref = lambda t: (t[keys[0]] + t[keys[1]] + 2**20 * (t[keys[2]] + t[keys[3]]) +  # noqa: E731
                             sum(t[k] for k in sync))
            best = first if ref(first) < ref(second) else second
            for k in keys + sync:
                if abs(merged[k] - best[k]) > 1e-6 * best[k]:
                    fail("the cache kept %s = %g, not the cheaper probe's %g (probes: %g, %g)" % (
                        k, merged[k], best[k], first[k], second[k]))
        for k in ("msg", "msg_byte"):
            want = min(first[k], second[k])
            if abs(merged[k] - want) > 1e-6 * want:
                fail("the cache kept %s = %g, not the lower of %g and %g" % (
                    k, merged[k], first[k], second[k]))
    reprobe_rules(launch, tool, d)
    print("calibrate: probe, cache and merge agree on %d figures (%s)" % (len(FS + SYNC), first["fs_type"]))


if __name__ == "__main__":
    main()
