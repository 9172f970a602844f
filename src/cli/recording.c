/* Reading a recording back (recording.h): meta.json, the hierarchy and the interleave. */
#define _GNU_SOURCE
#include "recording.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../format/stream.h"
#include "record_dir.h"

void ms_recording_interleave(const ms_cache_opts *c, json_t *meta, ms_interleave *mode)
{
    const char *recorded = json_string_value(json_object_get(meta, "interleave"));
    if (!c->interleave && recorded) ms_interleave_parse(recorded, mode);
}

json_t *ms_recording_meta(const char *cmd, const char *dir)
{
    char path[PATH_MAX + 16];
    json_error_t jerr;
    snprintf(path, sizeof path, "%s/%s", dir, MS_RECORD_META);
    json_t *meta = json_load_file(path, 0, &jerr);
    if (!meta) {
        ms_cli_error(cmd, "%s is not a recording: cannot read %s: %s", dir, path, jerr.text);
        return NULL;
    }
    const char *format = json_string_value(json_object_get(meta, "format"));
    json_int_t version = json_integer_value(json_object_get(meta, "version"));
    if (!format || strcmp(format, MS_RECORD_FORMAT) != 0 || !json_is_string(json_object_get(meta, "program")) ||
        !json_is_array(json_object_get(meta, "args"))) {
        ms_cli_error(cmd, "%s: not a memspy recording description", path);
    } else if (version < 1 || version > MS_STREAM_VERSION) {
        ms_cli_error(cmd, "%s: recording format version %lld, this memspy reads versions 1 to %u", path,
                     (long long)version, MS_STREAM_VERSION);
    } else {
        return meta;
    }
    json_decref(meta);
    return NULL;
}

int ms_recording_config(const char *cmd, const ms_cache_opts *c, json_t *meta, ms_hier_config *cfg)
{
    char err[512];
    const char *recorded = json_string_value(json_object_get(meta, "config"));
    if (!ms_cache_opts_hier_given(c) && recorded) {
        if (ms_config_parse_full(recorded, cfg, err, sizeof err) == 0 &&
            ms_cache_opts_apply_mp(c, cfg, err, sizeof err) == 0)
            return 0;
        return ms_cli_error(cmd, "the recorded configuration is not usable: %s", err);
    }
    if (ms_cache_opts_resolve(c, cfg, err, sizeof err) < 0) return ms_cli_error(cmd, "%s", err);
    return 0;
}

int ms_recording_fill_metadata(ms_model *m, void *ud)
{
    const ms_recording_metadata *rm = ud;
    json_t *args = json_object_get(rm->meta, "args");
    const char *cwd = json_string_value(json_object_get(rm->meta, "cwd"));
    const char *arg0 = json_string_value(json_array_get(args, 0));
    m->program = strdup(arg0 ? arg0 : json_string_value(json_object_get(rm->meta, "program")));
    m->argc = (int)json_array_size(args);
    m->argv = calloc(m->argc ? (size_t)m->argc : 1, sizeof *m->argv);
    if (!m->program || !m->argv) return -1;
    for (int i = 0; i < m->argc; i++) {
        const char *a = json_string_value(json_array_get(args, (size_t)i));
        if (!(m->argv[i] = strdup(a ? a : ""))) return -1;
    }
    m->cwd = cwd ? strdup(cwd) : NULL;
    m->time = (int64_t)time(NULL);
    m->wall_seconds = rm->seconds;
    if (!(m->memspy_version = strdup(MEMSPY_VERSION))) return -1;
    if (!(m->origin = strdup(rm->origin))) return -1;
    if (rm->problems) {
        char *reason = NULL;
        if (asprintf(&reason, "%s%srecorded stream incomplete: %s", m->incomplete_reason ? m->incomplete_reason : "",
                     m->incomplete_reason ? "; " : "", rm->problems) < 0)
            return -1;
        free(m->incomplete_reason);
        m->incomplete_reason = reason;
        m->incomplete = true;
    }
    return 0;
}
