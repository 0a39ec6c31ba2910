#!/usr/bin/env python3
"""tools/mcio-oracle.py report on recorded runs (issue 20): a run of separate processes
(docs/figures/oracle-13c.json: ratios of medians) and one of configurations side by side in
one process (oracle-15.json, pairing "process": medians of the ratios taken in each process,
the natives measured twice, and a sign test over the processes of the cases below a native). Each must give the counts its pass of docs/performance.md
reports; a change to how either kind is read changes them.

Usage: oracle_report_test.py SOURCE_DIR
"""
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
}
NOT = {"oracle-13c.json": ["measured twice in the same processes", "(itself ", "sign test"]}


def main():
    src = sys.argv[1]
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
    print("ok: both kinds of oracle runs report as docs/performance.md says")


if __name__ == "__main__":
    main()
