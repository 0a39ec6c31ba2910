#!/usr/bin/python3
"""mcio-platform: the simulated machines of docs/simulation.md, and runs of mcio on them.

    tools/mcio-platform.py make --topology torus --nodes 90 --out DIR [options]
    tools/mcio-platform.py run  --topology torus --ranks 1080 --ranks-per-node 12 [options] \\
        -- build/smpi/mcio-bench --pattern ior ...
    tools/mcio-platform.py calibrate [--dir /tmp] [--out tools/sim/calibration.json]

`make` writes into DIR:
  platform.txt   the description build/smpi/libmcio-platform.so reads (MCIO_SIM_PLATFORM):
                 a fat-tree, torus or dragonfly cluster of SimGrid's own models whose leaves are
                 the compute nodes (host properties mcio_memory, mcio_sockets) and the storage
                 targets (one disk each, spread evenly over the leaves, as I/O nodes are)
  topology.txt   mcio's network model of the same machine (docs/topology.md), named by the
                 platform's mcio_topology_file so the placement policies see the simulated
                 machine: a torus grid with every node's and target's coordinates; fat-tree and
                 dragonfly as switch trees (Slurm topology.conf), the targets' switches as bridges
  hostfile       each node repeated --ranks-per-node times: ranks fill nodes in order
Memory per node: a list (64m,16m,0 repeated over the nodes) or normal:MEAN:SD[:SEED], drawn as
in the memory-conscious paper (section 4.1: each node's memory from a normal distribution
whose mean is the aggregator buffer of the normal collective I/O), clipped at 0.

`run` makes a platform in a temporary directory and runs the program under smpirun with the
settings docs/simulation.md explains (tuned collectives, detached sends, shared malloc above
1 MiB, the host's speed), passing the rest of the command line to the program.

`calibrate` measures this machine's file system (pwrite of 256 MiB in requests of 4 KiB to
16 MiB, fsync included, in --dir) and fits time = requests * cost + bytes / bandwidth: the
per-request cost and bandwidth of one simulated storage target. `make` and `run` read the fit
from --calibration (default tools/sim/calibration.json) when it exists.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CALIBRATION = os.path.join(ROOT, "tools", "sim", "calibration.json")
DEFAULT_PAGING = os.path.join(ROOT, "tools", "sim", "paging.json")
MIB = 1 << 20


def fail(msg):
    print("mcio-platform: " + msg, file=sys.stderr)
    sys.exit(2)


def size_bytes(s):
    s = str(s).strip().lower()
    mul = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(s[-1:], 1)
    try:
        v = float(s[:-1] if mul > 1 else s)
    except ValueError:
        fail("'%s' is not a size (e.g. 4096, 64k, 16m)" % s)
    return int(v * mul)


def node_memory(spec, nnodes):
    """Bytes per node, as mcio's MCIO_VIRTUAL_NODE_MEMORY spells it."""
    if spec.startswith("normal:"):
        parts = spec.split(":")[1:]
        if len(parts) not in (2, 3):
            fail("--memory normal:MEAN:SD[:SEED]")
        mean, sd = size_bytes(parts[0]), size_bytes(parts[1])
        rng = random.Random(int(parts[2]) if len(parts) == 3 else 1)
        return [max(0, int(rng.gauss(mean, sd))) for _ in range(nnodes)]
    values = [size_bytes(v) for v in spec.split(",")]
    return [values[i % len(values)] for i in range(nnodes)]


# ---- Shapes: leaves >= nodes + targets, and each leaf's coordinates in mcio's model ----

def torus_shape(leaves):
    """Three dimensions as even as the leaves allow; the last coordinate varies slowest."""
    a = max(1, round(leaves ** (1 / 3)))
    b = max(1, math.ceil(math.sqrt(leaves / a)))
    c = math.ceil(leaves / (a * b))
    return [a, b, c]


def fattree_shape(leaves, per_switch=16, uplinks=8):
    """Two levels: per_switch nodes under each leaf switch, uplinks core switches (2:1)."""
    switches = math.ceil(leaves / per_switch)
    return per_switch, switches, min(uplinks, per_switch)


def dragonfly_shape(leaves, nodes=4, routers=8, chassis=4):
    """Aries-like: nodes per router, routers per chassis, chassis per group; groups to fit."""
    groups = max(2, math.ceil(leaves / (nodes * routers * chassis)))
    return groups, chassis, routers, nodes


def layout(topology, nnodes, ntargets):
    """(SimGrid shape string, leaf count, leaf -> path of switches or coordinates)."""
    need = nnodes + ntargets
    if topology == "torus":
        dims = torus_shape(need)
        total = dims[0] * dims[1] * dims[2]

        def coords(leaf):  # SimGrid's torus: the first dimension varies fastest
            return (leaf % dims[0], leaf // dims[0] % dims[1], leaf // (dims[0] * dims[1]))
        return ",".join(map(str, dims)), total, coords, dims
    if topology == "flat":
        # One switch of every leaf: SimGrid's fat-tree of one level, each leaf a private link
        # to a switch that limits nothing (no core links shared by thousands of flows).
        return "1;%d;1;1" % need, need, lambda leaf: ("l0",), None
    if topology == "fattree":
        k, switches, up = fattree_shape(need)
        total = k * switches
        return "2;%d,%d;1,%d;1,1" % (k, switches, up), total, lambda leaf: ("l%d" % (leaf // k),), None
    if topology == "dragonfly":
        g, c, r, n = dragonfly_shape(need)
        total = g * c * r * n

        def path(leaf):  # SimGrid's dragonfly: (group, chassis, router, node), node fastest
            gi, rest = divmod(leaf, c * r * n)
            ci, rest = divmod(rest, r * n)
            ri = rest // n
            return ("g%d" % gi, "c%d_%d" % (gi, ci), "r%d_%d_%d" % (gi, ci, ri))
        return "%d,1;%d,1;%d,1;%d" % (g, c, r, n), total, path, None
    fail("--topology must be torus, fattree, flat or dragonfly")


def storage_leaves(total, ntargets):
    """Targets spread evenly over the leaves, each in the middle of its share."""
    step = total / ntargets
    return [int(i * step + step / 2) for i in range(ntargets)]


def topology_file(topology, dims, where, node_leaves, target_leaves, link_bw, latency):
    lines = ["# mcio's model of the simulated %s (tools/mcio-platform.py)" % topology]
    if topology == "torus":
        lines.append("grid " + " ".join("%d:torus" % d for d in dims))
        lines += ["node %d %d %d" % where(leaf) for leaf in node_leaves]
        lines += ["io %d %d %d" % where(leaf) for leaf in target_leaves]
    else:
        # A switch tree. Job node k is the k-th node the file names, so the lowest switches
        # come in the order of their first compute node; a switch holding only targets comes
        # last, with a stand-in node numbered after every job node.
        lowest, members, children = [], {}, {}
        for k, leaf in enumerate(node_leaves):
            members.setdefault(where(leaf)[-1], []).append("n%d" % k)
        for leaf in list(node_leaves) + list(target_leaves):
            path = where(leaf)
            if path[-1] not in lowest:
                lowest.append(path[-1])
            for parent, child in zip(path, path[1:]):
                if child not in children.setdefault(parent, []):
                    children[parent].append(child)
        for sw in lowest:
            lines.append("SwitchName=%s Nodes=%s" % (sw, ",".join(members.get(sw, ["io-" + sw]))))
        for parent, ch in children.items():
            lines.append("SwitchName=%s Switches=%s" % (parent, ",".join(ch)))
        tops = []
        for leaf in list(node_leaves) + list(target_leaves):
            if where(leaf)[0] not in tops:
                tops.append(where(leaf)[0])
        if len(tops) > 1:
            lines.append("SwitchName=root Switches=%s" % ",".join(tops))
        bridges = []
        for leaf in target_leaves:
            if where(leaf)[-1] not in bridges:
                bridges.append(where(leaf)[-1])
        lines.append("#mcio io=%s latency=%g bandwidth=%g" % (",".join(bridges), latency, link_bw))
    if topology == "torus":
        lines += ["latency %g" % latency, "bandwidth %g" % link_bw]
    return "\n".join(lines) + "\n"


def load_calibration(path):
    if path and os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return None


def make(args, out):
    cal = load_calibration(args.calibration)
    disk_bw = size_bytes(args.disk_bw) if args.disk_bw else (cal["bandwidth"] if cal else 1 << 30)
    cost = args.request_cost if args.request_cost is not None else (cal["request_cost"] if cal else 0.0)
    nnodes = args.nodes
    shape, total, where, dims = layout(args.topology, nnodes, args.targets)
    targets = storage_leaves(total, args.targets)
    taken = set(targets)
    # The job's nodes spread evenly over the other leaves, in leaf order (a dragonfly larger
    # than the job then still spans its groups, as a scattered allocation does).
    free = [leaf for leaf in range(total) if leaf not in taken]
    node_leaves = [free[i * len(free) // nnodes] for i in range(nnodes)]
    foot = size_bytes(args.footprint)
    mem = [max(0, m - foot) for m in node_memory(args.memory, nnodes)]
    paging_bw = None
    if args.memory_model == "paging":
        pcal = load_calibration(DEFAULT_PAGING)
        if args.paging_bw:
            paging_bw = size_bytes(args.paging_bw)
        elif pcal:
            paging_bw = pcal["paging_bandwidth"]
        else:
            fail("--memory-model paging: --paging-bw, or tools/mcio-platform.py calibrate-paging")
    link_bw = size_bytes(args.link_bw)
    os.makedirs(out, exist_ok=True)
    topo_path = os.path.join(out, "topology.txt")
    with open(topo_path, "w") as f:
        f.write(topology_file(args.topology, dims, where, node_leaves, targets, link_bw,
                              args.latency))
    with open(os.path.join(out, "platform.txt"), "w") as f:
        f.write("# mcio simulated platform: %s\n" % " ".join(sys.argv))
        f.write("topology %s %s\n" % ("fattree" if args.topology in ("fattree", "flat") else args.topology,
                                      shape))
        f.write("duplex %s\n" % args.duplex)
        f.write("link %g %g\nloopback %g %g\nhost_speed %g\nsockets %d\n"
                % (link_bw, args.latency, 50e9, 1e-8, args.host_speed, args.sockets))
        f.write("disk %g %g %g\nstripe %d\ntopology_file %s\n"
                % (disk_bw, disk_bw, cost, size_bytes(args.stripe), os.path.abspath(topo_path)))
        if args.disk_model != "s19":
            f.write("disk_model %s\n" % args.disk_model)
        if args.memory_model == "paging":
            f.write("memory_model paging %g\n" % paging_bw)
        elif args.memory_model == "oom":
            f.write("memory_model oom\n")
        for leaf, m in zip(node_leaves, mem):
            f.write("node %d %d\n" % (leaf, m))
        for leaf in targets:
            f.write("storage %d\n" % leaf)
    with open(os.path.join(out, "hostfile"), "w") as f:
        for k in range(nnodes):
            f.write(("node-%d\n" % k) * args.ranks_per_node)
    return {"leaves": total, "shape": shape, "disk_bandwidth": disk_bw, "request_cost": cost,
            "disk_model": args.disk_model,
            "memory_model": args.memory_model, "paging_bandwidth": paging_bw}


# The settings every simulated run needs (docs/simulation.md says why, one by one).
SMPI_CONFIG = [
    "--cfg=smpi/coll-selector:ompi", "--cfg=smpi/allreduce:rdb", "--cfg=smpi/bcast:binomial_tree",
    "--cfg=smpi/send-is-detached-thresh:0", "--cfg=smpi/shared-malloc-blocksize:67108864",
    "--cfg=maxmin/precision:1e-4", "--cfg=smpi/display-timing:yes", "--cfg=smpi/simulate-computation:no",
    "--cfg=smpi/host-speed:%gf",
]


# Memory mappings the simulator holds per simulated rank: measured 11.3 at 1,080 ranks (12,182
# mappings of smpimain during a run: each rank's stack and its copy of the program's globals,
# besides the shared allocations' blocks). 16 did not last at 16,384 ranks: SMPI failed to map
# a shared block ("Could not map folded virtual memory") at simulated rank 9,681 of the open,
# with vm.max_map_count at 16 x 16,384 + 20,000 (each rank's shared wire buffers of the
# gathers, mcio_machine_sim.h, and mcio-bench's data buffers add mappings); 32 leaves room
# (mappings cost the kernel a little memory each, nothing else).
MAPS_PER_RANK = 32


def ensure_map_count(ranks):
    """Raise vm.max_map_count when the run needs more mappings than it allows (the kernel's
    default 65,530 lasts to about 4,000 ranks; SMPI then fails with "Could not map folded
    virtual memory" or a bad allocation). Needs root; otherwise says what to run."""
    need = MAPS_PER_RANK * ranks + 20000
    path = "/proc/sys/vm/max_map_count"
    try:
        with open(path) as f:
            have = int(f.read())
    except (OSError, ValueError):
        return
    if have >= need:
        return
    try:
        with open(path, "w") as f:
            f.write(str(need))
        print("mcio-platform: vm.max_map_count raised from %d to %d for %d ranks"
              % (have, need, ranks), file=sys.stderr)
    except OSError:
        fail("%d ranks need vm.max_map_count >= %d (it is %d): run "
             "'sysctl -w vm.max_map_count=%d' as root" % (ranks, need, have, need))


def run(args, program):
    if not program:
        fail("run: the program to run follows '--'")
    ranks = args.ranks
    ensure_map_count(ranks)
    args.nodes = args.nodes or math.ceil(ranks / args.ranks_per_node)
    plat = os.path.join(os.path.dirname(os.path.abspath(program[0])), "libmcio-platform.so")
    if not os.path.exists(plat):
        fail("%s is not built (scripts/build.sh smpi)" % plat)
    with tempfile.TemporaryDirectory(prefix="mcio-platform-") as tmp:
        make(args, tmp)
        program = list(program)
        # SMPI loads the program once per simulated rank from its own copy (dlopen
        # privatization: every rank's globals are its own), written to /tmp: 1.2 MB each for
        # mcio-bench with its debug information, 20 GB at 16,384 ranks; stripped, 0.23 MB.
        stripped = os.path.join(tmp, os.path.basename(program[0]))
        if subprocess.run(["strip", "-o", stripped, program[0]],
                          stderr=subprocess.DEVNULL).returncode == 0:
            program[0] = stripped
        cmd = ["smpirun", "-np", str(ranks), "-platform", plat,
               "-hostfile", os.path.join(tmp, "hostfile")]
        cmd += [c % args.host_speed if "%" in c else c for c in SMPI_CONFIG]
        cmd += ["--cfg=" + c for c in args.smpi_cfg]
        cmd += ["--log=root.thres:warning", "--log=smpi_config.thres:warning"] + program
        env = dict(os.environ, MCIO_SIM_PLATFORM=os.path.join(tmp, "platform.txt"))
        if args.verbose:
            print("mcio-platform: MCIO_SIM_PLATFORM=%s %s" % (env["MCIO_SIM_PLATFORM"],
                  " ".join(cmd)), file=sys.stderr)
        return subprocess.run(cmd, env=env).returncode


def calibrate(args):
    """Fit time = n * cost + bytes / bw to pwrite+fsync of 256 MiB in requests of each size."""
    total = 256 * MIB
    sizes = [4 << 10, 64 << 10, 1 << 20, 16 << 20]
    path = os.path.join(args.dir, "mcio-calibrate.%d" % os.getpid())
    buf = os.urandom(max(sizes))
    rows = []
    try:
        for s in sizes:
            best = None
            for _ in range(args.reps):
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                t0 = time.perf_counter()
                for off in range(0, total, s):
                    os.pwrite(fd, buf[:s], off)
                os.fsync(fd)
                t = time.perf_counter() - t0
                os.close(fd)
                best = t if best is None else min(best, t)
            rows.append((total // s, total, best))
            print("mcio-platform: %8d requests of %8d bytes: %.3f s" % (total // s, s, best),
                  file=sys.stderr)
    finally:
        if os.path.exists(path):
            os.unlink(path)
    # Least squares on t = n * cost + total / bw, with total fixed: t is linear in n.
    n = [r[0] for r in rows]
    t = [r[2] for r in rows]
    mn, mt = sum(n) / len(n), sum(t) / len(t)
    cost = sum((a - mn) * (b - mt) for a, b in zip(n, t)) / sum((a - mn) ** 2 for a in n)
    base = mt - cost * mn
    bw = total / base if base > 0 else total / min(t)
    fit = {"request_cost": max(cost, 0.0), "bandwidth": bw, "dir": args.dir,
           "measured": [{"requests": a, "bytes": b, "seconds": c} for a, b, c in rows],
           "method": "pwrite of 256 MiB in requests of 4 KiB..16 MiB, then fsync; best of %d; "
                     "least squares t = requests * request_cost + bytes / bandwidth" % args.reps}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(fit, f, indent=1)
    print("mcio-platform: request cost %.3g s, bandwidth %.3g MiB/s -> %s"
          % (fit["request_cost"], bw / MIB, args.out), file=sys.stderr)
    return 0


def calibrate_paging(args):
    """What a buffer beyond the memory left to it costs here: tools/sim/mcio-pagecost.c writes a
    buffer pass after pass inside a memory cgroup smaller than it (scripts/memlimit.sh), so
    every pass pages; the median over sizes and repetitions of the bytes touched per second in
    the later passes is the simulated nodes' paging bandwidth. The buffer is a file mapping
    (this host has no swap device; a file's dirty pages are written out and read back through
    the same reclaim path and disk); the same buffer as anonymous memory, as a collective
    buffer is, is run once to see what this host does without swap (the OOM killer)."""
    limit = size_bytes(args.limit)
    with tempfile.TemporaryDirectory(prefix="mcio-pagecost-", dir=args.dir) as tmp:
        exe = os.path.join(tmp, "mcio-pagecost")
        subprocess.run(["cc", "-O2", "-o", exe, os.path.join(ROOT, "tools", "sim", "mcio-pagecost.c")],
                       check=True)
        memlimit = os.path.join(ROOT, "scripts", "memlimit.sh")
        rows = []
        for rep in range(args.reps):
            for factor in (1.25, 2, 3):
                size = int(limit * factor)
                r = subprocess.run([memlimit, str(limit), "--", exe, str(size), "4", tmp],
                                   capture_output=True, text=True)
                if r.returncode == 77:
                    fail("calibrate-paging: no memory cgroup here (%s)" % r.stderr.strip())
                if r.returncode != 0:
                    fail("calibrate-paging: %s" % r.stderr.strip())
                row = json.loads(r.stdout)
                row["limit"] = limit
                rows.append(row)
                print("mcio-platform: %d MiB in %d MiB: %.0f MiB/s" % (
                      size >> 20, limit >> 20, row["bandwidth"] / MIB), file=sys.stderr)
        r = subprocess.run([memlimit, str(limit), "--", exe, str(2 * limit), "4", tmp, "anon"],
                           capture_output=True, text=True)
        anon = {"bytes": 2 * limit, "limit": limit, "exit": r.returncode,
                "report": r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""}
    bws = sorted(row["bandwidth"] for row in rows)
    fit = {"paging_bandwidth": bws[len(bws) // 2], "measured": rows, "anonymous": anon,
           "method": "tools/sim/mcio-pagecost.c in a %d MiB memory cgroup (scripts/memlimit.sh): "
                     "a file-backed buffer of 1.25, 2 and 3 times the limit written 4 times in "
                     "1 MiB pieces, %d repetitions; median of bytes / second over passes 2-4"
                     % (limit >> 20, args.reps)}
    with open(args.out, "w") as f:
        json.dump(fit, f, indent=1)
    print("mcio-platform: paging bandwidth %.0f MiB/s; anonymous buffer beyond the limit: exit %d "
          "-> %s" % (fit["paging_bandwidth"] / MIB, anon["exit"], args.out), file=sys.stderr)
    return 0


def machine_options(p):
    p.add_argument("--topology", choices=("torus", "fattree", "flat", "dragonfly"), default="fattree",
                   help="flat: every node a private link to one non-blocking switch (a fat-tree"
                        " of one level), the cheapest to simulate at 16,384 ranks")
    p.add_argument("--nodes", type=int, help="compute nodes (run: ranks / ranks-per-node)")
    p.add_argument("--ranks-per-node", type=int, default=12)
    p.add_argument("--sockets", type=int, default=2)
    p.add_argument("--targets", type=int, default=8, help="storage targets (OSTs)")
    p.add_argument("--memory", default="normal:32m:16m:1",
                   help="memory per node: a list, or normal:MEAN:SD[:SEED]")
    p.add_argument("--stripe", default="1m")
    p.add_argument("--duplex", choices=("half", "full"), default="half",
                   help="full: every link carries --link-bw each way at once (InfiniBand, "
                        "Ethernet); half: both ways share it")
    p.add_argument("--link-bw", default="5g", help="bytes/s of every cluster link (5g: DDR IB-like)")
    p.add_argument("--latency", type=float, default=1.5e-6)
    p.add_argument("--host-speed", type=float, default=1e10,
                   help="flops of the simulated hosts and of this host (smpi/host-speed)")
    p.add_argument("--disk-bw", help="bytes/s of a target's disk (default: calibration)")
    p.add_argument("--request-cost", type=float, help="seconds per disk request (default: calibration)")
    p.add_argument("--disk-model", choices=("s19", "cpu"), default="s19",
                   help="cpu: serve the targets' requests with SimGrid's processor model (lazy "
                        "updates) instead of its disk model (every request updated at every event "
                        "of the simulation; docs/simulation.md, \"16,384 ranks\")")
    p.add_argument("--calibration", default=DEFAULT_CALIBRATION)
    p.add_argument("--footprint", default="0",
                   help="the application's memory per node: --memory is then the node's physical "
                        "memory, and what is left for collective buffers is the difference")
    p.add_argument("--memory-model", choices=("off", "paging", "oom"), default="off",
                   help="what collective buffers beyond a node's memory cost: paging at "
                        "--paging-bw through the node's swap, or the run ends (oom); off: nothing")
    p.add_argument("--paging-bw", help="bytes/s a node pages its buffers at (default: "
                                       "tools/sim/paging.json, from calibrate-paging)")


def main():
    argv = sys.argv[1:]
    program = []
    if "--" in argv:
        at = argv.index("--")
        argv, program = argv[:at], argv[at + 1:]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make", help="write a platform description, topology file and hostfile")
    machine_options(m)
    m.add_argument("--out", required=True)
    r = sub.add_parser("run", help="make a platform and run a program on it under smpirun")
    machine_options(r)
    r.add_argument("--ranks", type=int, required=True)
    r.add_argument("--verbose", action="store_true")
    r.add_argument("--smpi-cfg", action="append", default=[], metavar="NAME:VALUE",
                   help="one more SMPI setting, after the usual ones (e.g. smpi/allgather:bruck)")
    c = sub.add_parser("calibrate", help="measure this machine's file system")
    c.add_argument("--dir", default="/tmp")
    c.add_argument("--reps", type=int, default=3)
    c.add_argument("--out", default=DEFAULT_CALIBRATION)
    cp = sub.add_parser("calibrate-paging", help="measure what paging costs on this machine")
    cp.add_argument("--limit", default="256m", help="the memory cgroup's limit")
    cp.add_argument("--reps", type=int, default=3)
    cp.add_argument("--dir", default="/var/tmp", help="where the buffer's backing file lives")
    cp.add_argument("--out", default=DEFAULT_PAGING)
    args = ap.parse_args(argv)
    if args.cmd == "make":
        if not args.nodes:
            fail("make: --nodes")
        print(json.dumps(make(args, args.out)))
        return 0
    if args.cmd == "run":
        return run(args, program)
    if args.cmd == "calibrate-paging":
        return calibrate_paging(args)
    return calibrate(args)


if __name__ == "__main__":
    sys.exit(main())
