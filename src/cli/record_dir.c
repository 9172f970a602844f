/* Preparing and completing a --record directory (see record_dir.h, docs/formats.md). */
#define _GNU_SOURCE
#include "record_dir.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../format/stream.h"
#include "cli.h"

static int is_recording_file(const char *name)
{
    size_t n = strlen(name);
    return strcmp(name, MS_RECORD_META) == 0 || strcmp(name, MS_RECORD_RAW) == 0 ||
           (strncmp(name, "thread-", 7) == 0 && n > 11 && strcmp(name + n - 4, ".zst") == 0);
}

/* The program an existing meta.json names (caller frees), NULL if unreadable. */
static char *recorded_program(const char *dir)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/%s", dir, MS_RECORD_META);
    json_t *meta = json_load_file(path, 0, NULL);
    const char *format = json_string_value(json_object_get(meta, "format"));
    const char *program = json_string_value(json_object_get(meta, "program"));
    char *copy = format && program && strcmp(format, MS_RECORD_FORMAT) == 0 ? strdup(program) : NULL;
    json_decref(meta);
    return copy;
}

/* dir may be reused: empty, or an earlier recording of prog_path (its files are removed). */
static int check_reusable(const char *cmd, const char *dir, const char *prog_path)
{
    DIR *d = opendir(dir);
    if (!d) return ms_cli_error(cmd, "--record %s: %s", dir, strerror(errno));
    int rc = 0, any = 0, foreign = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        any = 1;
        foreign |= !is_recording_file(e->d_name);
    }
    char *program = any ? recorded_program(dir) : NULL;
    if (any && (foreign || !program))
        rc = ms_cli_error(cmd, "--record %s: the directory is not empty and holds no memspy recording", dir);
    else if (program && strcmp(program, prog_path) != 0)
        rc = ms_cli_error(cmd, "--record %s: the directory holds a recording of another program (%s)", dir, program);
    if (rc == 0 && any) {
        rewinddir(d);
        for (struct dirent *e; (e = readdir(d));)
            if (is_recording_file(e->d_name) && unlinkat(dirfd(d), e->d_name, 0) < 0 && rc == 0)
                rc =
                    ms_cli_error(cmd, "--record %s: cannot remove the earlier %s: %s", dir, e->d_name, strerror(errno));
    }
    free(program);
    closedir(d);
    return rc;
}

static json_t *meta_json(const char *prog_path, char **argv, int argc, const ms_hier_config *cfg,
                         const char *interleave)
{
    char cwd[PATH_MAX], spec[512];
    ms_config_format(cfg, spec, sizeof spec);
    json_t *args = json_array();
    for (int i = 0; i < argc; i++) json_array_append_new(args, json_string(argv[i]));
    json_t *meta = json_pack("{s:s, s:i, s:s, s:o, s:s?, s:s, s:s}", "format", MS_RECORD_FORMAT, "version",
                             (int)MS_STREAM_VERSION, "program", prog_path, "args", args, "cwd", getcwd(cwd, sizeof cwd),
                             "config", spec, "memspy_version", MEMSPY_VERSION);
    /* the order the user chose; none: resim takes the default for the recording's threads */
    if (meta && interleave && json_object_set_new(meta, "interleave", json_string(interleave)) < 0) {
        json_decref(meta);
        return NULL;
    }
    return meta;
}

int ms_record_dir_prepare(const char *cmd, const char *dir, const char *prog_path, char **argv, int argc,
                          const ms_hier_config *cfg, const char *interleave)
{
    if (mkdir(dir, 0777) < 0 && errno != EEXIST)
        return ms_cli_error(cmd, "--record %s: cannot create the directory: %s", dir, strerror(errno));
    char abs[PATH_MAX], meta_path[PATH_MAX + 16];
    struct stat st;
    if (!realpath(dir, abs) || stat(abs, &st) < 0 || !S_ISDIR(st.st_mode))
        return ms_cli_error(cmd, "--record %s: not a directory", dir);
    if (access(abs, W_OK | X_OK) < 0)
        return ms_cli_error(cmd, "--record %s: the directory is not writable: %s", dir, strerror(errno));
    char program[PATH_MAX];
    if (!realpath(prog_path, program)) return ms_cli_error(cmd, "%s: %s", prog_path, strerror(errno));
    int rc = check_reusable(cmd, abs, program);
    if (rc) return rc;
    snprintf(meta_path, sizeof meta_path, "%s/%s", abs, MS_RECORD_META);
    json_t *meta = meta_json(program, argv, argc, cfg, interleave);
    if (!meta || json_dump_file(meta, meta_path, JSON_INDENT(2)) < 0)
        rc = ms_cli_error(cmd, "--record %s: cannot write %s", dir, meta_path);
    json_decref(meta);
    if (rc == 0 && setenv("MEMSPY_RECORD_DIR", abs, 1) < 0)
        rc = ms_cli_error(cmd, "cannot set the environment: %s", strerror(errno));
    return rc;
}

int ms_record_dir_keep_raw(const char *cmd, const char *dir, const char *raw_path)
{
    char path[PATH_MAX + 16], buf[65536];
    snprintf(path, sizeof path, "%s/%s", dir, MS_RECORD_RAW);
    FILE *in = fopen(raw_path, "rb"), *out = in ? fopen(path, "wb") : NULL;
    int ok = in && out, e = in ? 0 : errno;
    for (size_t n; ok && (n = fread(buf, 1, sizeof buf, in)) > 0;) ok = fwrite(buf, 1, n, out) == n;
    ok = ok && !ferror(in);
    if (!ok && !e) e = errno;
    if (out && fclose(out) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (in) fclose(in);
    if (!ok) {
        unlink(path); /* `memspy resim` then says the recording lacks its profile */
        ms_cli_error(cmd,
                     "--record %s: cannot copy the raw profile to %s: %s; the recording cannot be "
                     "re-simulated (the run itself is kept)",
                     dir, path, strerror(e ? e : EIO));
    }
    return ok ? 0 : -1;
}
