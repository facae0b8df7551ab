/* A failure as a value (status.h). */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>

int dem_fail(dem_error *e, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return e->status = status;
}

int status_of_fail(int rc, int otherwise)
{
    return rc == FAIL_NO_MEMORY ? STATUS_NO_MEMORY : otherwise;
}
