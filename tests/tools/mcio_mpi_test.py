#!/usr/bin/env python3
"""tools/mcio_mpi.py, the Python tools' one way to launch a build's MPI: what it reads from a
build (through scripts/mpi-env.sh) is what CMake found for it, given here by the test's
arguments; the native engines' launcher flags; the refusals, each naming what is at fault.

Usage: mcio_mpi_test.py SOURCE_DIR BUILD_DIR FAMILY MPIEXEC ROMIO_IO [MPIEXEC_FLAGS...]
(ROMIO_IO: Open MPI's ROMIO component, "-" for none)
"""
import os
import sys

src, build, family, mpiexec, romio = sys.argv[1:6]
flags = sys.argv[6:]
romio = "" if romio == "-" else romio
sys.path.insert(0, os.path.join(src, "tools"))
import mcio_mpi  # noqa: E402

fails = []


def check(what, got, want):
    if got != want:
        fails.append("%s: got %r, want %r" % (what, got, want))


m = mcio_mpi.find(build)
check("build", m.build, os.path.abspath(build))
check("family", m.family, family)
check("mpiexec", m.mpiexec, mpiexec)
check("flags", m.flags, flags)
check("romio_io", m.romio_io, romio)
check("launch", m.launch(3), [mpiexec] + flags + ["-n", "3"])
env = m.env({"PATH": "/bin"})
check("env keeps its base", env.get("PATH"), "/bin")
if family == "openmpi":
    check("natives", m.natives(), ["ompio", "romio"] if romio else ["ompio"])
    check("ompio", m.engine_args("ompio"), ["--mca", "io", "ompio"])
    check("root", env.get("OMPI_ALLOW_RUN_AS_ROOT"), "1")
    if romio:
        # an older record's component name means ROMIO, whatever this Open MPI calls it
        for name in ("romio", "romio321", "romio341"):
            check(name, m.launch(2, name)[-3:], ["--mca", "io", romio])
    bad = "pvfs"
else:
    check("natives", m.natives(), ["romio"])
    check("romio", m.engine_args("romio"), [])
    bad = "ompio"
try:
    m.engine_args(bad)
    fails.append("native engine %s accepted" % bad)
except mcio_mpi.MPIError as e:
    check("the refusal names the engine", "'%s'" % bad in str(e), True)
for spec, says in ((os.path.dirname(os.path.abspath(__file__)), "not a build directory"),
                   ("no-such-mpi", "unknown MPI 'no-such-mpi'")):
    try:
        mcio_mpi.find(spec)
        fails.append("%s accepted" % spec)
    except mcio_mpi.MPIError as e:
        check("%s refused" % spec, says in str(e), True)
for f in fails:
    print("FAIL: " + f)
if not fails:
    print("ok: %s launched as its build found: %s" % (m, " ".join(m.launch(2))))
sys.exit(1 if fails else 0)
