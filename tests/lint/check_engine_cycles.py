#!/usr/bin/env python3
"""No cycle between the engine's files (issue 45): file A calls file B when A's object file
needs a function B's defines (nm), and no chain of such calls may lead from a file back to
itself. Layers call down (gathering, mcio_gather.c, is called by the planning, the execution
and the file's life, and calls none of them), so each file can be read with what it calls.

Usage: check_engine_cycles.py <directory of the engine's object files (*.c.o)>
"""
import glob
import os
import subprocess
import sys


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined = {line.split()[-1] for line in out.splitlines() if " T " in line}
    needed = {line.split()[-1] for line in out.splitlines() if " U " in line}
    return defined, needed


def main():
    objs = sorted(glob.glob(os.path.join(sys.argv[1], "*.c.o")))
    if len(objs) < 5:
        print("FAIL: no engine object files in %s" % sys.argv[1])
        return 1
    table = {os.path.basename(o)[:-4]: symbols(o) for o in objs}
    calls = {a: sorted(b for b in table if b != a and table[a][1] & table[b][0]) for a in table}
    state, path, cycles = {}, [], []

    def visit(a):
        state[a] = "open"
        path.append(a)
        for b in calls[a]:
            if state.get(b) == "open":
                cycles.append(path[path.index(b):] + [b])
            elif b not in state:
                visit(b)
        path.pop()
        state[a] = "done"

    for a in sorted(calls):
        if a not in state:
            visit(a)
    for c in cycles:
        print("FAIL: the engine's files call each other in a cycle: %s" % " -> ".join(c))
    if not cycles:
        print("ok: no cycle among the engine's %d files" % len(table))
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
