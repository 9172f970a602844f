/* Placeholder: the replay scheduler is being written (see replay.h). */
#include "replay.h"
#include <stdio.h>

int ms_replay_open(ms_replay **out, const char *dir, uint32_t max_ctx, char *err, size_t errlen)
{
    (void)dir;
    (void)max_ctx;
    *out = NULL;
    snprintf(err, errlen, "replay not built yet");
    return -1;
}

size_t ms_replay_nthreads(const ms_replay *r) { (void)r; return 0; }

int ms_replay_run(ms_replay *r, ms_interleave mode, unsigned nprocs, const ms_replay_sink *sink,
                  ms_replay_result *res, char *err, size_t errlen)
{
    (void)r, (void)mode, (void)nprocs, (void)sink, (void)res;
    snprintf(err, errlen, "replay not built yet");
    return -1;
}

void ms_replay_result_free(ms_replay_result *res) { (void)res; }
void ms_replay_close(ms_replay *r) { (void)r; }
