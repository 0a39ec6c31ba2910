"""The one place that tells the Python tools how to launch an MPI, as the shell scripts do: an
MPI named as scripts/build.sh takes it (mpich, openmpi, mpich5, openmpi5, impi, /path/to/mpicc)
or a build directory (scripts/mpi-env.sh's mpi_build, in Python); what CMake found for that
build (<build>/mcio-mpi.sh: the family, the launcher beside the compiler, its flags for
oversubscription and root, Open MPI's ROMIO component) read through scripts/mpi-env.sh's
mpi_launch and mpi_print, not assumed.

    mpi = mcio_mpi.find("openmpi5")           # builds it if needed (scripts/build.sh)
    mpi = mcio_mpi.find("build/openmpi")      # a build as it is
    cmd = mpi.launch(8, "romio") + [os.path.join(mpi.build, "mcio-bench"), ...]
    subprocess.run(cmd, env=mpi.env())

A native engine is named the same on every MPI: "ompio" (Open MPI's own), "romio" (Open MPI's
ROMIO component, whatever its release calls it: romio321 in 4.x, romio341 in 5.x; the only
engine of the MPICH family, which needs no flag), or None (the library's default). An older
record's "romio321" means "romio".
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV_SH = os.path.join(ROOT, "scripts", "mpi-env.sh")


class MPIError(Exception):
    pass


def engine_name(io):
    """The engine's name as the tools record it: romio for any ROMIO component's name."""
    return "romio" if io and re.fullmatch(r"romio\d*", io) else io


class MPI:
    """One build's MPI: family (mpich or openmpi), impl (mpich, intelmpi, openmpi), version,
    mpicc, mpiexec, flags (every launch's), romio_io (Open MPI's ROMIO component, or "")."""

    def __init__(self, spec):
        """spec: a build directory, or an MPI named as scripts/build.sh takes it (built)."""
        p = subprocess.run(["bash", "-c", '. "$0" && b=$(mpi_build "$1") && mpi_launch "$b" && '
                            'printf "build=%s\\0" "$b" && mpi_print', ENV_SH, spec],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0:
            raise MPIError(p.stderr.decode(errors="replace").strip() or
                           "%s: no MPI found (scripts/mpi-env.sh)" % spec)
        found, self.flags, self.env_add = {}, [], {}
        for rec in p.stdout.decode().split("\0")[:-1]:
            key, _, value = rec.partition("=")
            if key == "flag":
                self.flags.append(value)
            elif key.startswith("env:"):
                self.env_add[key[4:]] = value
            else:
                found[key] = value
        self.family, self.impl = found["MCIO_MPI"], found["MCIO_MPI_IMPL"]
        self.version, self.mpicc = found["MCIO_MPI_VERSION"], found["MCIO_MPICC"]
        self.mpiexec, self.romio_io = found["MCIO_MPIEXEC"], found["MCIO_MPI_ROMIO_IO"]
        self.build = found["build"]

    def __str__(self):
        return "%s %s (%s)" % (self.impl, self.version, self.build)

    def env(self, base=None):
        """The environment to launch in: base (default: this process's) and what the
        launcher needs (Open MPI as root, Intel MPI's I_MPI_ROOT)."""
        return dict(os.environ if base is None else base, **self.env_add)

    def engine_args(self, io):
        """The launcher's arguments that choose native engine io (see the module's note)."""
        io = engine_name(io)
        if not io:
            return []
        if self.family == "openmpi":
            if io == "romio":
                if not self.romio_io:
                    raise MPIError("%s has no ROMIO io component (ompi_info lists none)" % self)
                return ["--mca", "io", self.romio_io]
            if io == "ompio":
                return ["--mca", "io", "ompio"]
        elif io == "romio":
            return []
        raise MPIError("%s has no native engine '%s' (%s)" % (
            self, io, "romio, ompio" if self.family == "openmpi" else "romio only"))

    def natives(self):
        """The native engines this MPI has."""
        if self.family != "openmpi":
            return ["romio"]
        return ["ompio"] + (["romio"] if self.romio_io else [])

    def launch(self, ranks, io=None):
        """mpiexec with every launch's flags, ranks, and the flags choosing native engine io."""
        return [self.mpiexec] + self.flags + ["-n", str(ranks)] + self.engine_args(io)


def find(spec=None, build=None, default="openmpi"):
    """A build's MPI: build if given, else spec's (default: Debian's Open MPI): a build
    directory, or an MPI named as scripts/build.sh takes it."""
    return MPI(build or spec or default)


def add_arguments(parser, default="openmpi"):
    """--mpi and --build, the same in every tool."""
    parser.add_argument("--mpi", default=default,
                        help="the MPI, as scripts/build.sh takes it: mpich, openmpi, mpich5, "
                             "openmpi5, impi or /path/to/mpicc (default %s; built if needed), "
                             "or a build directory" % default)
    parser.add_argument("--build", help="a build directory to use as it is (instead of --mpi)")


def from_args(args, tool):
    """The MPI of a tool's --mpi / --build; exits with the reason when there is none."""
    try:
        return find(args.mpi, args.build)
    except MPIError as e:
        sys.exit("%s: %s" % (tool, e))
