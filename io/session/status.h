/* A failure as a value: the status it ends a program with and the message that says
 * why, made where the failure happens and passed up unchanged. The statuses are
 * dempact's exit statuses (docs/guarantees.md), so the program's last step is `return
 * e.status`; the Python package raises on any nonzero one. */
#ifndef DEMPACT_STATUS_H
#define DEMPACT_STATUS_H

#include <stddef.h>

#include "engine/fail.h"

enum {
    STATUS_OK = 0,
    STATUS_RUN_FAILED = 1, /* a run failed while running (a write, a full disk) */
    STATUS_BAD_INPUT = 2,  /* bad input or usage; nothing was written */
    STATUS_NO_MEMORY = 3,  /* an allocation failed */
    STATUS_WATCHDOG = 4,   /* the numerical watchdog stopped the run */
    STATUS_SIGNAL = 128,   /* + N: stopped by signal N */
};

typedef struct dem_error {
    int status;     /* STATUS_* (0: no failure) */
    char msg[4608]; /* what a person reads: one or more lines, no final newline */
} dem_error;

/* Sets e's status and message; returns the status. */
int dem_fail(dem_error *e, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The status of a library function's failure value (engine/fail.h): FAIL_NO_MEMORY is
 * STATUS_NO_MEMORY, any other failure `otherwise`. */
int status_of_fail(int rc, int otherwise);

#endif
