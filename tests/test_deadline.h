/*
 * The deadline shared by the multi-rank test harnesses (tests/mpi/mcio_test.h,
 * tests/pmpi/pmpi_test.h): MCIO_TEST_DEADLINE seconds (or the harness's default; 0 or less:
 * none), after which SIGALRM calls the harness's handler, which says where the rank is.
 */
#ifndef MCIO_TEST_DEADLINE_H
#define MCIO_TEST_DEADLINE_H

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline void test_deadline_arm(int default_secs, void (*on_deadline)(int))
{
    const char *v = getenv("MCIO_TEST_DEADLINE");
    int secs = v && *v ? atoi(v) : default_secs;
    if (secs <= 0)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_deadline;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    alarm((unsigned)secs);
}

#endif
