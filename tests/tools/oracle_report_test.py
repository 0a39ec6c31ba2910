#!/usr/bin/env python3
"""tools/mcio-oracle.py report on recorded runs (issue 20): a run of separate processes
(docs/figures/oracle-13c.json: ratios of medians) and one of configurations side by side in
one process (oracle-15.json, pairing "process": medians of the ratios taken in each process,
the natives measured twice, and a sign test over the processes of the cases below a native). Each must give the counts its pass of docs/performance.md
reports; a change to how either kind is read changes them.

Usage: oracle_report_test.py SOURCE_DIR
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

WANT = {
    "oracle-13c.json": ["46 of 60 cases reach 0.9 of the best own configuration; 46 of 60 at "
                        "least the better native.",
                        "Held out (the best own configuration chosen on half of the "
                        "repetitions, the ratio taken on the other half, both ways): 51 of 60"],
    "oracle-15.json": ["57 of 60 cases reach 0.9 of the best own configuration; 45 of 60 at "
                       "least the better native.",
                       "Ratios are medians of ratios taken within each process",
                       "The natives measured twice in the same processes (the better native's "
                       "second case over its first): median 1.01, 0.90-1.10; below 1.0 in 18 "
                       "of 60 cases",
                       "| tmp | contiguous | write | independent |",
                       "(a one-sided sign test; 8 of 9, 5 of 5): 2 of 60 cases: tmp contiguous "
                       "write 0.94 (9/9), tmp tapioca read 0.94 (8/9); the natives against "
                       "themselves, 1; chance alone flags about 1.4."],
    # twenty-second pass: three runs merged, each site's timed calls kept
    "oracle-26.json": ["60 of 60 cases reach 0.9 of the best own configuration; 51 of 60 at "
                       "least the better native.",
                       'each the median of {"mpich": 15, "tmp": 10, "gluster": 10} timed calls',
                       "(a one-sided sign test; 8 of 9, 5 of 5): 0 of 60 cases; the natives "
                       "against themselves, 3; chance alone flags about 1.2.",
                       "Per site: tmp 20/20, gluster 20/20, mpich 20/20."],
}
NOT = {"oracle-13c.json": ["measured twice in the same processes", "(itself ", "sign test"]}


def check_merge(src):
    """run --merge keeps the older run's other sites, their runs and their calls a case, and
    drops its runs of the sites measured again."""
    oracle = load_oracle(src)
    old = {"sites": {"tmp": {"calls": 10}, "mpich": {"calls": 15}},
           "calls": {"tmp": 10, "mpich": 15},
           "runs": [{"site": "tmp", "rep": 0}, {"site": "mpich", "rep": 0}]}
    doc = {"sites": {"tmp": {"calls": 5}}, "calls": {"tmp": 5}, "runs": []}
    oracle.merge(doc, old, ["tmp"])
    want = {"sites": {"mpich": {"calls": 15}, "tmp": {"calls": 5}},
            "calls": {"tmp": 5, "mpich": 15}, "runs": [{"site": "mpich", "rep": 0}]}
    if doc != want:
        print("FAIL: merge gave %r, not %r" % (doc, want))
        sys.exit(1)
    doc = {"sites": {}, "calls": {}, "runs": []}
    oracle.merge(doc, dict(old, calls=5), [])  # a run of one count for every site
    if doc["calls"] != {} or len(doc["runs"]) != 2:
        print("FAIL: merge of a run with one count of calls gave %r" % doc)
        sys.exit(1)


def load_oracle(src):
    spec = importlib.util.spec_from_file_location("oracle", os.path.join(src, "tools",
                                                                         "mcio-oracle.py"))
    oracle = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oracle)
    return oracle


def check_alone(src, tmp):
    """run --alone plans each configuration, the default and each native once a repetition,
    a process each, shuffled; report reads such a run as ratios of medians and gives the
    default's spread across its processes."""
    oracle = load_oracle(src)
    # An Open MPI site as run fills them in (site_conf, from the build's MPI): given here.
    site = dict(oracle.SITES["tmp"], natives=["ompio", "romio"], native="ompio")
    p0, p1 = oracle.plan_alone("tmp", site, 0), oracle.plan_alone("tmp", site, 1)
    names = sorted(x[2] for x in p0)
    want = sorted(["alone-default"] + ["alone-" + c for c in oracle.OWN] +
                  ["alone-native-" + n for n in site["natives"]])
    if names != want or sorted(x[2] for x in p1) != want or [x[2] for x in p0] == [x[2] for x in p1]:
        print("FAIL: plan_alone gave %r and %r" % ([x[2] for x in p0], [x[2] for x in p1]))
        sys.exit(1)
    if any(len(x[3]) != (0 if x[4] else 1) for x in p0) or p0 != oracle.plan_alone("tmp", site, 0):
        print("FAIL: plan_alone's processes are not one configuration or one native each, or "
              "not reproducible: %r" % p0)
        sys.exit(1)
    # The default at 90, 100, 110 (spread 20%); every own configuration at 100 (so the default
    # is at 1.00 of the best); OMPIO at 80, 80, 84 (spread 5%) and ROMIO lower.
    runs = []
    for rep, d in enumerate((90.0, 100.0, 110.0)):
        cfgs = dict({"default": d, "native-ompio": 80.0 + 2 * rep * (rep > 1),
                     "native-romio321": 50.0}, **{c: 100.0 for c in oracle.OWN})
        for c, v in cfgs.items():
            runs.append({"site": "tmp", "rep": rep, "config": c, "pattern": "ior",
                         "write_mib_s": v, "read_mib_s": v, "bytes": 1 << 20,
                         "process": "alone-" + c})
    doc = {"sites": {"tmp": site}, "patterns": ["ior"], "pairing": "alone", "calls": {"tmp": 1},
           "runs": runs}
    path = os.path.join(tmp, "alone.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    r = subprocess.run([sys.executable, os.path.join(src, "tools", "mcio-oracle.py"), "report",
                        path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=120)
    for line in ["2 of 2 cases reach 0.9 of the best own configuration; 2 of 2 at least the "
                 "better native.",
                 "The default's spread across its processes (largest less smallest, over the "
                 "median): under 15% in 0 of 2 cases; tmp ior write 20%, tmp ior read 20%.",
                 "The better native's spread alike (the host's noise): under 15% in 2 of 2 cases.",
                 "ran in processes of their own, as users run them: ratios are of medians"]:
        if line not in r.stdout:
            print("FAIL: report of a run --alone lacks %r:\n%s" % (line, r.stdout[-1500:]))
            sys.exit(1)


def main():
    src = sys.argv[1]
    check_merge(src)
    with tempfile.TemporaryDirectory() as tmp:
        check_alone(src, tmp)
    for name, want in WANT.items():
        r = subprocess.run([sys.executable, os.path.join(src, "tools", "mcio-oracle.py"), "report",
                            os.path.join(src, "docs", "figures", name)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
        if r.returncode != 0:
            print("FAIL: report %s exited %d: %s" % (name, r.returncode, r.stdout[-500:]))
            sys.exit(1)
        for line in want:
            if line not in r.stdout:
                print("FAIL: report %s lacks %r" % (name, line))
                sys.exit(1)
        for line in NOT.get(name, []):
            if line in r.stdout:
                print("FAIL: report %s has %r (a run without natives measured twice)" % (name, line))
                sys.exit(1)
    # the results page's per-native table (docs/performance.md): mcio's default in each
    # native's process against it, every native of the site
    r = subprocess.run([sys.executable, os.path.join(src, "tools", "mcio-oracle.py"), "report",
                        "--natives", os.path.join(src, "docs", "figures", "oracle-26.json")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    for line in ["| tmp | coll_perf | write | 1877 | romio321 730 (2.61) | ompio 231 (8.26) |",
                 "| mpich | ior | read | 25973 | romio 4740 (5.03) | - |"]:
        if r.returncode != 0 or line not in r.stdout:
            print("FAIL: report --natives oracle-26.json lacks %r: %s" % (line, r.stdout[-500:]))
            sys.exit(1)
    print("ok: both kinds of oracle runs report as docs/performance.md says; runs merge; "
          "a run --alone plans and reports each configuration alone; report --natives")


if __name__ == "__main__":
    main()
