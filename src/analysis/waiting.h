/* The waiting-time analysis into the model (Carnival's WT Map and Characterization Map): the
 * timed replay's synchronisation points (raw->wait_points, waiting_collect.h) placed in the
 * code, their explanations named by function, line and loop, and every processor's time. */
#ifndef MEMSPY_ANALYSIS_WAITING_H
#define MEMSPY_ANALYSIS_WAITING_H
#include "../format/raw.h"
#include "../model/model.h"
#include "symbolize.h"

/* The name of the data bin that holds the synchronisation object of a point's site context
 * ctx (the runtime gives the site's context the object's bin), NULL when none. */
typedef const char *(*ms_wait_object_fn)(void *ud, uint32_t ctx);

/* Fill m->waiting from raw (nothing unless raw->timed); m->blocks and m->loops must be filled
 * (ms_analyze_blocks); object (NULL: none) names each point's object. Returns 0, or -1 when
 * out of memory. */
int ms_analyze_waiting(const ms_raw *raw, ms_symbolizer *sym, ms_model *m, ms_wait_object_fn object, void *ud);

/* The JSON / report name of a recorded sync kind that waits ("barrier", "lock", ...). */
const char *ms_wait_kind_name(uint32_t kind);

#endif
