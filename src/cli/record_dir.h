/* The directory of `memspy run --record DIR`: meta.json (what was recorded), profile.raw (the
 * run's raw profile: modules, bins, contexts) and thread-N.zst (src/format/stream.h). */
#ifndef MEMSPY_CLI_RECORD_DIR_H
#define MEMSPY_CLI_RECORD_DIR_H
#include "../sim/config.h"

#define MS_RECORD_META "meta.json"
#define MS_RECORD_RAW "profile.raw"
#define MS_RECORD_FORMAT "memspy-recording"

/* Before the program starts: create dir if missing, refuse one that is not writable or holds
 * anything but an earlier recording of the same program (whose files are then removed),
 * write meta.json (with the configuration and the interleave the user chose, "interleaved",
 * "piped" or "timed", that resim uses by default; NULL: none, resim takes the default order)
 * and export MEMSPY_RECORD_DIR. Returns 0, or MS_EXIT_USAGE after "memspy CMD: ...". */
int ms_record_dir_prepare(const char *cmd, const char *dir, const char *prog_path, char **argv, int argc,
                          const ms_hier_config *cfg, const char *interleave);

/* After it ran: copy the raw profile into dir/profile.raw. Returns 0, or -1 after an error. */
int ms_record_dir_keep_raw(const char *cmd, const char *dir, const char *raw_path);

#endif
