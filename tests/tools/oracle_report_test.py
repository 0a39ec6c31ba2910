#!/usr/bin/env python3
"""tools/mcio-oracle.py report on recorded runs (issue 20): a run of separate processes
(docs/figures/oracle-13c.json: ratios of medians) and one of configurations side by side in
one process (oracle-15.json, pairing "process": medians of the ratios taken in each process,
the natives measured twice, and a sign test over the processes of the cases below a native). Each must give the counts its pass of docs/performance.md
reports; a change to how either kind is read changes them.

Usage: oracle_report_test.py SOURCE_DIR
"""
import importlib.util
import os
import subprocess
import sys

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
    spec = importlib.util.spec_from_file_location("oracle", os.path.join(src, "tools",
                                                                         "mcio-oracle.py"))
    oracle = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oracle)
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


def main():
    src = sys.argv[1]
    check_merge(src)
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
    print("ok: both kinds of oracle runs report as docs/performance.md says; runs merge")


if __name__ == "__main__":
    main()
