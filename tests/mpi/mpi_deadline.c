/*
 * The test harness's deadline (mcio_test.h): a hang is reported, not waited out. Rank 0 opens
 * a file (collective) while the other ranks never come: after MCIO_TEST_DEADLINE seconds every
 * rank prints where it is and exits 124. Run by mpi_deadline.sh, which checks that rank 0 is
 * reported in mcio_file_open and every other rank in its own code.
 */
#include "mcio_test.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_deadline");
    char path[512];
    mt_path(path, sizeof path, "deadline");
    mt.ctx = "one rank opens, the others never do";
    if (mt.rank == 0) {
        mcio_file fh;
        CHECK_OK(mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    } else {
        for (;;)
            pause(); /* "forgot" the collective */
    }
    return mt_finish(); /* not reached: the open cannot complete */
}
