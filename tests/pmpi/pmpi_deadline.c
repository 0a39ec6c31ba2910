/* The deadline of pmpi_deadline.h, for the test programs that cannot include a C header: linked
 * into the Fortran programs, loaded by the Python ones (libmcio_test_deadline.so). */
#include "pmpi_deadline.h"
