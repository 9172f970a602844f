/* Output files that are complete or absent: written under a temporary name in the same
 * directory and renamed over the destination only once everything was written and flushed,
 * so that a failure (full disk, a crash, a refused run) never leaves a truncated file or
 * destroys the previous one. */
#define _GNU_SOURCE
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "DIR/.NAME.XXXXXX" for path "DIR/NAME" (or ".NAME.XXXXXX" in the current directory). */
static char *temp_template(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    char *tmp = NULL;
    if (asprintf(&tmp, "%.*s.%s.XXXXXX", dirlen, path, base) < 0) return NULL;
    return tmp;
}

int ms_out_open(ms_out_file *o, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    struct stat st;
    if (!*path || path[strlen(path) - 1] == '/') return ms_errorf(err, errlen, "'%s' is not a file name", path);
    /* A device, a pipe or a terminal is written in place: it cannot be renamed over. */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) return ms_errorf(err, errlen, "%s is a directory", path);
        if (!(o->f = fopen(path, "w"))) return ms_errorf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        return 0;
    }
    /* A symbolic link stays one: the file it points to is what gets replaced. */
    struct stat lst;
    char *target = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) ? realpath(path, NULL) : NULL;
    o->path = target ? target : strdup(path);
    if (!o->path || !(o->tmp = temp_template(o->path))) {
        ms_out_abort(o);
        return ms_errorf(err, errlen, "out of memory");
    }
    int fd = mkostemp(o->tmp, O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        ms_out_abort(o);
        return ms_errorf(err, errlen, "cannot write '%s': %s", path, strerror(e));
    }
    /* mkstemp creates 0600; give the file the mode fopen would have (0666 less the umask),
     * or the mode of the file it replaces. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, stat(o->path, &st) == 0 ? st.st_mode & 07777 : 0666 & ~mask);
    if (!(o->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        ms_out_abort(o);
        return ms_errorf(err, errlen, "cannot write '%s': %s", path, strerror(e));
    }
    return 0;
}

int ms_out_commit(ms_out_file *o, char *err, size_t errlen)
{
    int rc = 0, e = 0;
    if (!o->f) return ms_errorf(err, errlen, "no file open");
    if (fflush(o->f) != 0 || ferror(o->f) || (o->tmp && fsync(fileno(o->f)) != 0)) {
        rc = -1;
        e = errno ? errno : EIO;
    }
    if (fclose(o->f) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    o->f = NULL;
    if (rc == 0 && o->tmp && o->exclusive) {
        /* link fails if the destination exists: no file is ever replaced. */
        if (link(o->tmp, o->path) != 0) {
            rc = errno == EEXIST ? MS_OUT_EXISTS : -1;
            e = errno;
        }
    } else if (rc == 0 && o->tmp && rename(o->tmp, o->path) != 0) {
        rc = -1;
        e = errno;
    }
    if (rc < 0) {
        ms_errorf(err, errlen, "cannot write '%s': %s", o->path ? o->path : "the output", strerror(e));
        ms_out_abort(o);
        return rc;
    }
    if (o->tmp && o->exclusive) unlink(o->tmp);
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
    return 0;
}

void ms_out_abort(ms_out_file *o)
{
    if (o->f) fclose(o->f);
    if (o->tmp) unlink(o->tmp);
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
}
