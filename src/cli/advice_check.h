/* The self-interference advice made runnable and checked, for a run of a recording (`memspy
 * run --record`, `memspy resim`): a heap matrix's row length measured from the recorded
 * references (analysis/strides.h), then a few row lengths (ms_pad_candidates) predicted by
 * `memspy whatif`'s re-simulation (whatif_core.h) and the best kept in the model, whose
 * advice then names it (docs/whatif.md, "The advice"). */
#ifndef MEMSPY_CLI_ADVICE_CHECK_H
#define MEMSPY_CLI_ADVICE_CHECK_H
#include <jansson.h>
#include "../model/model.h"
#include "../replay/replay.h"
#include "../sim/config.h"
#include "whatif_core.h"

/* Check m's row-padding advice against the recording in dir (meta: its meta.json; cfg and
 * mode: the hierarchy and interleave m was simulated under) and set m's findings again.
 * Problems only cost the check (a note on stderr); returns 0, or -1 when out of memory. */
int ms_advice_check(const char *cmd, const char *dir, json_t *meta, const ms_hier_config *cfg, ms_interleave mode,
                    ms_model *m);

/* For a prediction of `memspy whatif` on the recording in dir (changes: its n changes): the
 * row lengths its self-interference advice pads, from the changes' --row of the bin or the
 * recorded references, so that the follow-up advice is a runnable command (no ROWBYTES); the
 * pads are not re-simulated, and where the changes pad the bin already, another candidate
 * is advised. Sets m's findings again; returns 0, or -1 when out of memory. */
int ms_advice_rows(const char *cmd, const char *dir, ms_interleave mode, const ms_whatif_change *changes, size_t n,
                   ms_model *m);

#endif
