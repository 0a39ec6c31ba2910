#!/usr/bin/python3
"""A parallel h5py program (Debian's python3-h5py-mpi, built with Open MPI): every rank writes
its rows of a 2-D dataset and its column block of another collectively (dset.collective), then
reads a neighbour's rows back collectively and checks every value; the reads are dumped for
run_pmpi.sh, which compares the files (h5diff) and reads natively and under the layer and checks
that MCIO_STATS shows the engine served the two collective writes. (The two collective reads
reach no collective MPI-IO call here: HDF5 1.10.8 reads these selections with independent
calls, which the layer leaves to the MPI library; MCIO_PMPI_VERBOSE=1 reports no collective
call left over either.)
Usage: py_h5py.py <file> <dump prefix> <calls file>"""
import sys

import pmpi_deadline

pmpi_deadline.arm()  # before MPI starts: a hang in MPI_Init is reported too
import numpy as np  # noqa: E402
from mpi4py import MPI  # noqa: E402
import h5py

comm = MPI.COMM_WORLD
rank, nprocs = comm.Get_rank(), comm.Get_size()
path, dump, calls_path = sys.argv[1:4]
failures = 0
if not h5py.get_config().mpi:
    print("py_h5py: h5py is not the MPI build", file=sys.stderr)
    sys.exit(1)
ROWS, COLS = 40, 300


def rows_of(r):
    return (np.arange(ROWS * COLS, dtype=np.float64).reshape(ROWS, COLS) + r * 1e6)


with h5py.File(path, "w", driver="mpio", comm=comm) as f:
    a = f.create_dataset("rows", (ROWS * nprocs, COLS), dtype="f8")
    b = f.create_dataset("cols", (ROWS, COLS * nprocs), dtype="i4")
    with a.collective:
        a[rank * ROWS:(rank + 1) * ROWS, :] = rows_of(rank)
    with b.collective:
        b[:, rank * COLS:(rank + 1) * COLS] = (np.arange(ROWS * COLS, dtype=np.int32)
                                               .reshape(ROWS, COLS) * (rank + 1))
with h5py.File(path, "r", driver="mpio", comm=comm) as f:
    other = (rank + 1) % nprocs
    a, b = f["rows"], f["cols"]
    with a.collective:
        ra = a[other * ROWS:(other + 1) * ROWS, :]
    with b.collective:
        rb = b[:, other * COLS:(other + 1) * COLS]
failures += int(np.count_nonzero(ra != rows_of(other)))
failures += int(np.count_nonzero(rb != np.arange(ROWS * COLS, dtype=np.int32)
                                 .reshape(ROWS, COLS) * (other + 1)))
with open("%s.%d" % (dump, rank), "wb") as d:
    d.write(ra.tobytes())
    d.write(rb.tobytes())
total = comm.allreduce(failures, op=MPI.SUM)
if rank == 0:
    with open(calls_path, "w") as c:
        c.write("2\n")
    print("py_h5py: %d ranks, %d wrong values" % (nprocs, total))
sys.exit(1 if total else 0)
