#!/usr/bin/env python3
"""mcio-bench --config: several mcio cases in one process, each with its own hints (the
oracle's configurations, measured side by side with the native engine; issue 20).

Runs ior and flash-io at 3 ranks through the native engine (twice: --native-again, the control
of the ratios to it) and three mcio cases: `default`
(only --hint's), `own` (each rank's own access) and `one` (aggregated, one aggregator, which
--hint's cb_nodes=2 must not override). mcio-bench verifies every byte of every call and exits
non-zero on any wrong one; this test then checks that each case ran with its own hints, as its
plan shows in the JSON (aggregators, rounds), that a bad --config fails on every rank with
a message naming it, and that the cases take turns in an order drawn afresh for each
repetition from --order-seed (a case's time depends on the case before it: a fixed rotation
would keep every case's predecessor).

Usage: bench_configs_test.py MPIEXEC [MPIEXEC_FLAGS...] -- MCIO_BENCH DIR
Fails (exit 1) naming the case at fault.
"""
import json
import os
import subprocess
import sys
import tempfile


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def bench(launch, tool, d, *args):
    return subprocess.run(launch + ["-n", "3", tool, "--dir", d] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=240)


def turns(launch, tool, d, seed):
    """[[label, ...] per repetition]: the order mcio-bench's progress lines show."""
    r = bench(launch, tool, d, "--engine", "native,mcio", "--pattern", "ior", "--size", "8k",
              "--transfer", "4k", "--reps", "12", "--native-again", "--config", "a",
              "--config", "b", "--order-seed", str(seed))
    if r.returncode != 0:
        fail("--order-seed %d: mcio-bench exited %d: %s" % (seed, r.returncode,
                                                            r.stderr.strip()[-300:]))
    reps = {}
    for line in r.stderr.splitlines():  # "[2/4] ior engine=mcio:a rep 3/12 write ..."
        w = line.split()
        if len(w) > 4 and w[1] == "ior" and w[2].startswith("engine=") and w[3] == "rep":
            reps.setdefault(int(w[4].split("/")[0]), []).append(w[2][len("engine="):])
    return [reps.get(k, []) for k in range(1, 13)]


def check_order(launch, tool, d):
    labels = ["mcio:a", "mcio:b", "native", "native:again"]
    first, again, other = (turns(launch, tool, d, s) for s in (7, 7, 8))
    for k, order in enumerate(first):
        if sorted(order) != labels:
            fail("repetition %d ran %s, expected each of %s once" % (k + 1, order, labels))
    if first != again:
        fail("--order-seed 7 twice gave two orders: %s and %s" % (first, again))
    if first == other:
        fail("--order-seed 7 and 8 gave the same order %s" % first)
    for label in labels:
        before = {o[o.index(label) - 1] for o in first if o.index(label) > 0}
        if len(before) < 2:
            fail("%s followed only %s in 12 repetitions: %s" % (label, before, first))


def main():
    sep = sys.argv.index("--")
    launch, (tool, base) = sys.argv[1:sep], sys.argv[sep + 1:]
    os.makedirs(base, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=base) as d:
        out = os.path.join(d, "configs.json")
        r = bench(launch, tool, d, "--engine", "native,mcio", "--pattern", "ior,flash-io",
                  "--size", "96k", "--transfer", "4k", "--reps", "2", "--hint", "cb_nodes=2",
                  "--native-again",
                  "--config", "default",
                  "--config", "own romio_cb_write=disable romio_cb_read=disable",
                  "--config", "one romio_cb_write=enable romio_cb_read=enable cb_nodes=1",
                  "--json", out)
        if r.returncode != 0:
            fail("mcio-bench exited %d: %s" % (r.returncode, r.stderr.strip()[-500:]))
        with open(out) as f:
            results = json.load(f)["results"]
        for pattern in ("ior", "flash-io"):
            got = {x["label"]: x for x in results if x["pattern"] == pattern}
            want = ["native", "native:again", "mcio:default", "mcio:own", "mcio:one"]
            if sorted(got) != sorted(want):
                fail("%s: cases %s, expected %s" % (pattern, sorted(got), sorted(want)))
            for label, x in got.items():
                if not x["verified"] or len(x["write_reps"]) != 2:
                    fail("%s %s: verified %s after %d of 2 repetitions"
                         % (pattern, label, x["verified"], len(x["write_reps"])))
            hints = {k: got[k]["hints"] for k in got}
            if any(hints[k] != {"cb_nodes": "2"} for k in ("native", "native:again", "mcio:default")):
                fail("%s: --hint's cb_nodes=2 alone expected for both natives and default, got %s"
                     % (pattern, hints))
            if hints["mcio:own"] != {"cb_nodes": "2", "romio_cb_write": "disable",
                                     "romio_cb_read": "disable"}:
                fail("%s: own's hints %s" % (pattern, hints["mcio:own"]))
            if hints["mcio:one"] != {"romio_cb_write": "enable", "romio_cb_read": "enable",
                                     "cb_nodes": "1"}:
                fail("%s: one's hints %s (its cb_nodes=1 replaces --hint's)"
                     % (pattern, hints["mcio:one"]))
            if got["mcio:default"].get("mcio_config") != "default" or "mcio_config" in got["native"]:
                fail("%s: mcio_config fields %s" % (pattern, {k: got[k].get("mcio_config")
                                                              for k in got}))
            # The plans: own access has no rounds; one aggregator has rounds.
            if got["mcio:own"]["rounds"] != 0:
                fail("%s: own ran %s rounds (own access has none)" % (pattern,
                                                                       got["mcio:own"]["rounds"]))
            if got["mcio:one"]["aggregators"] != 1 or not got["mcio:one"]["rounds"]:
                fail("%s: one ran with %s aggregators and %s rounds (1 and some expected)"
                     % (pattern, got["mcio:one"]["aggregators"], got["mcio:one"]["rounds"]))
        for bad, says in ((["--config", "own romio_cb_write"], "is not KEY=VALUE"),
                          (["--config", "a/b"], "is not 1-40 letters"),
                          (["--config", "x", "--config", "x cb_nodes=1"], "named twice")):
            r = bench(launch, tool, d, "--engine", "mcio", "--size", "96k", *bad)
            if r.returncode == 0 or says not in r.stderr:
                fail("%s: exit %d, stderr %r (expected a failure saying %r)"
                     % (" ".join(bad), r.returncode, r.stderr.strip()[-300:], says))
        check_order(launch, tool, d)
    print("ok: three mcio cases with their own hints beside native twice; bad --config refused;"
          " the cases' order drawn afresh each repetition")


if __name__ == "__main__":
    main()
