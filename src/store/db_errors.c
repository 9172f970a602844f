/* Why the run database refused something, in words a user can act on: SQLite's "database is
 * locked" does not say how long memspy waited or how to wait longer, and its "database or
 * disk is full" is also what an exhausted AUTOINCREMENT key reports. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "store_internal.h"

int ms_db_explain(const ms_db *db, int rc, const char *what, char *err, size_t errlen)
{
    int primary = rc & 0xff, sys = db->h ? sqlite3_system_errno(db->h) : 0;
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
        snprintf(err, errlen,
                 "%s %s: the database is locked by another process (waited %d.%d s; wait longer "
                 "with --db-timeout SECONDS or MEMSPY_DB_TIMEOUT)",
                 what, db->path, db->busy_ms / 1000, db->busy_ms % 1000 / 100);
    else if (primary == SQLITE_READONLY)
        snprintf(err, errlen, "%s %s: the database is read-only", what, db->path);
    else if (primary == SQLITE_FULL || sys == ENOSPC || sys == EDQUOT)
        snprintf(err, errlen, "%s %s: the disk is full (%s)", what, db->path, strerror(sys ? sys : ENOSPC));
    else if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB)
        snprintf(err, errlen, "%s %s: the database is damaged (%s)", what, db->path, sqlite3_errstr(rc));
    else if (primary == SQLITE_IOERR && sys)
        snprintf(err, errlen, "%s %s: %s (%s)", what, db->path, sqlite3_errstr(rc), strerror(sys));
    else
        snprintf(err, errlen, "%s %s: %s", what, db->path, db->h ? sqlite3_errmsg(db->h) : sqlite3_errstr(rc));
    return -1;
}
