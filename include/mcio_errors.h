/* mcio status codes. Kept apart from mcio.h so that the pure planner can use them without MPI. */
#ifndef MCIO_ERRORS_H
#define MCIO_ERRORS_H

/* Status codes: X(name, value, message). */
#define MCIO_ERRORS(X)                                                                     \
    X(MCIO_SUCCESS, 0, "success")                                                          \
    X(MCIO_ERR_ARG, 1, "invalid argument")                                                 \
    X(MCIO_ERR_HINT, 2, "invalid hint")                                                    \
    X(MCIO_ERR_AMODE, 3, "operation not permitted by the file's access mode")              \
    X(MCIO_ERR_NOMEM, 4, "out of memory")                                                  \
    X(MCIO_ERR_FILE, 5, "cannot open or close the file")                                   \
    X(MCIO_ERR_IO, 6, "I/O error")                                                         \
    X(MCIO_ERR_NOSPACE, 7, "no space left on device")                                      \
    X(MCIO_ERR_FBIG, 8, "file too large")                                                  \
    X(MCIO_ERR_MPI, 9, "MPI error")                                                        \
    X(MCIO_ERR_INTERNAL, 10, "internal error")                                             \
    X(MCIO_ERR_DECLINED, 11, "a rank declined the call (mcio_file_fail_next)")              \
    X(MCIO_ERR_AGAIN, 12, "a rank asked for the call again (mcio_file_fail_next)")

enum mcio_status {
#define MCIO_X_ENUM(name, value, msg) name = value,
    MCIO_ERRORS(MCIO_X_ENUM)
#undef MCIO_X_ENUM
};

#endif
