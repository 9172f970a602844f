/* How long a command waits for a run database that another process has locked: the
 * --db-timeout option, else $MEMSPY_DB_TIMEOUT, else the store's default (10 s). */
#include <stdlib.h>

#include "../store/store.h"
#include "cli.h"

#define MAX_WAIT_SECONDS 86400ul

int ms_cli_db_wait(const char *cmd, const char *opt)
{
    const char *env = getenv(MS_DB_TIMEOUT_ENV), *s = opt ? opt : env && *env ? env : NULL;
    if (!s) return 0;
    unsigned long v = 0;
    /* 0 (do not wait) is allowed: parse "1" + s's digits as a positive number. */
    if (!(s[0] == '0' && s[1] == '\0') && ms_cli_parse_positive(s, MAX_WAIT_SECONDS, &v) < 0)
        return ms_cli_usage_error(cmd, "%s: '%s' is not a number of seconds in 0..%lu",
                                  opt ? "--db-timeout" : "$" MS_DB_TIMEOUT_ENV, s, MAX_WAIT_SECONDS);
    ms_db_set_wait((int)(v * 1000));
    return 0;
}
