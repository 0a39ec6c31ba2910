"""The deadline of the drop-in layer's Python programs, as the C programs have it (pmpi_deadline.h):
faulthandler prints the Python stack of every thread on SIGUSR1, then the C module, loaded with
ctypes, arms the deadline; when it passes, it prints the rank and the C stack, raises SIGUSR1
and exits with 124. Both print from signal handlers, so a rank stuck in an MPI call holding the
interpreter's lock still says where it is. MCIO_TEST_DEADLINE_LIB names the module (ctest sets
it); without it (a run by hand), no deadline."""
import ctypes
import faulthandler
import os
import signal


def arm():
    lib = os.environ.get("MCIO_TEST_DEADLINE_LIB")
    if not lib:
        return
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    ctypes.CDLL(lib)
