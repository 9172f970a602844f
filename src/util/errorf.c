/* The error formatter shared by the simulator, the formats and the reports. */
#include "util.h"

#include <stdarg.h>
#include <stdio.h>

int ms_errorf(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}
