/* `memspy whatif`'s prediction as a function (whatif_core.c), for the command and for the
 * advice's check of its candidate pads (advice_check.h): a recording replayed as recorded and
 * with the named bins' addresses remapped (replay/remap.h), plus, unless turned off, the heap
 * bins glibc's malloc would place elsewhere (replay/allocmove.h). Rules: docs/whatif.md.
 * Errors are printed as "memspy CMD: ...". */
#ifndef MEMSPY_CLI_WHATIF_CORE_H
#define MEMSPY_CLI_WHATIF_CORE_H
#include <jansson.h>
#include <stdint.h>
#include "../model/model.h"
#include "../replay/replay.h"
#include "../sim/config.h"

enum { MS_WHATIF_PAD = 1, MS_WHATIF_ALIGN, MS_WHATIF_OFFSET, MS_WHATIF_ROW };

/* One DATA=BYTES change (kind: MS_WHATIF_*; data: a bin's name, full name or glob). */
typedef struct {
    int kind;
    char *data;
    int64_t bytes;
} ms_whatif_change;

typedef struct {
    const char *cmd; /* for messages */
    const char *dir; /* the recording */
    ms_hier_config cfg;
    ms_interleave mode;
    const ms_whatif_change *changes;
    size_t nchanges;
    int no_allocator; /* move only the named bins */
    int no_before;    /* only the prediction: where bins lie is learnt without simulating */
    const char *text; /* the changes as given (the prediction's origin names them) */
} ms_whatif_request;

/* The remapped bins as the report names them (entry i is the remap's bin i): the first nuser
 * named by the changes, then those the allocator moves; moved: the allocator's move of each;
 * layouts: one line each on where it was and where it goes. */
typedef struct {
    char **names, **layouts;
    int64_t *moved;
    size_t n, nuser;
    char *allocator; /* one line on what the allocator moves, NULL: nothing */
} ms_whatif_bins;

/* Free what b holds. */
void ms_whatif_bins_free(ms_whatif_bins *b);

/* Predict: before (the recording re-simulated; not with no_before, before may then be NULL)
 * and after (the prediction) analyzed, bins described; meta is the recording's meta.json. Returns 0 (*incomplete: some streams were
 * incomplete, both models marked) or an exit status after printing the error (nothing to
 * free). */
int ms_whatif_predict(const ms_whatif_request *q, json_t *meta, ms_model *before, ms_model *after, ms_whatif_bins *bins,
                      int *incomplete);

#endif
