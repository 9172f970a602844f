/* Reading a recording (`memspy run --record DIR`) back, as `memspy resim` and `memspy whatif`
 * do: its description (meta.json), the hierarchy and interleave to replay it under, and the
 * run metadata of the re-simulated result. Errors are printed as "memspy CMD: ...". */
#ifndef MEMSPY_CLI_RECORDING_H
#define MEMSPY_CLI_RECORDING_H
#include <jansson.h>
#include "../model/model.h"
#include "../replay/replay.h"
#include "cli.h"

/* DIR/meta.json, checked (format, version). NULL after an error. */
json_t *ms_recording_meta(const char *cmd, const char *dir);

/* The interleave: --interleave if given, else the one the recording was made with. */
void ms_recording_interleave(const ms_cache_opts *c, json_t *meta, ms_interleave *mode);

/* The hierarchy: the cache options if any were given, else the recorded one (with any
 * multiprocessor options on top). Returns 0, or MS_EXIT_USAGE after an error. */
int ms_recording_config(const char *cmd, const ms_cache_opts *c, json_t *meta, ms_hier_config *cfg);

/* What the re-simulated run's metadata is made of. */
typedef struct {
    json_t *meta;
    const char *problems; /* NULL if every stream was complete */
    double seconds;
    const char *origin; /* "resim of DIR", "whatif of DIR: --pad ..." */
} ms_recording_metadata;

/* ms_drive_metadata_fn: the recorded program, arguments and directory, the time, the origin;
 * marked incomplete when the streams were (ud: an ms_recording_metadata). */
int ms_recording_fill_metadata(ms_model *m, void *ud);

#endif
