#!/usr/bin/python3
"""An mpi4py program using MPI.File's collective calls with a file view: each rank's blocks of
int32 interleaved with the others' (a vector filetype), written with Write_all and Write_at_all
and the nonblocking Iwrite_at_all, read back with Read_all and Read_at_all and checked; the read
data is dumped for run_pmpi.sh, which compares files and reads natively and under the layer and
counts MCIO_STATS lines (one per collective call). Debian builds mpi4py with Open MPI.
Usage: py_mpi4py.py <file> <dump prefix> <calls file>"""
import sys

import pmpi_deadline

pmpi_deadline.arm()  # before MPI starts: a hang in MPI_Init is reported too
import numpy as np  # noqa: E402
from mpi4py import MPI  # noqa: E402

comm = MPI.COMM_WORLD
rank, nprocs = comm.Get_rank(), comm.Get_size()
path, dump, calls_path = sys.argv[1:4]
NB, BLK = 64, 100  # blocks per copy of the filetype, int32 per block
n = NB * BLK
failures = 0
calls = 0

w = (np.arange(n, dtype=np.int32) + rank * 1_000_000)
vec = MPI.INT32_T.Create_vector(NB, BLK, BLK * nprocs)
ftype = vec.Create_resized(0, 4 * NB * BLK * nprocs)
ftype.Commit()
vec.Free()
if rank == 0:
    try:
        MPI.File.Delete(path)
    except MPI.Exception:
        pass
comm.Barrier()
fh = MPI.File.Open(comm, path, MPI.MODE_CREATE | MPI.MODE_RDWR)
fh.Set_view(4 * BLK * rank + 16, MPI.INT32_T, ftype, "native")
# Half by the individual pointer, half at an explicit offset (in etypes), then a second copy
# of the view nonblocking.
fh.Write_all(w[: n // 2])
fh.Write_at_all(n // 2, w[n // 2:])
req = fh.Iwrite_at_all(n, w)
req.Wait()
calls += 3
fh.Sync()
fh.Seek(0)
r = np.full(n, -1, dtype=np.int32)
fh.Read_all(r)
calls += 1
failures += int(np.count_nonzero(r != w))
r2 = np.full(n, -1, dtype=np.int32)
fh.Read_at_all(n, r2)
calls += 1
failures += int(np.count_nonzero(r2 != w))
with open("%s.%d" % (dump, rank), "wb") as d:
    d.write(r.tobytes())
    d.write(r2.tobytes())
fh.Close()
ftype.Free()
total = comm.allreduce(failures, op=MPI.SUM)
if rank == 0:
    with open(calls_path, "w") as c:
        c.write("%d\n" % calls)
    print("py_mpi4py: %d ranks, %d collective calls, %d wrong values" % (nprocs, calls, total))
sys.exit(1 if total else 0)
