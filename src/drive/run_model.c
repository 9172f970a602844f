/* From a raw profile (read from the program's file, or filled by a replay) to the model. */
#include "drive.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/analyze.h"
#include "../analysis/blockcost.h"
#include "mtool_drive.h"

static ms_analyze_opts analyze_opts = { 0, 0.1 };

void ms_drive_set_code_bins(int granularity, double loop_share)
{
    analyze_opts.code_granularity = granularity;
    analyze_opts.loop_share = loop_share;
}

int ms_drive_analyze(const ms_raw *raw, ms_drive_metadata_fn fill, void *ud, ms_model *m, char *err, size_t errlen)
{
    char why[1024];
    ms_model_init(m);
    if (ms_analyze(raw, &analyze_opts, m, why, sizeof why) < 0) {
        snprintf(err, errlen, "analysis failed: %s", why);
    } else if (fill && fill(m, ud) < 0) {
        snprintf(err, errlen, "out of memory");
    } else {
        /* MTOOL then MemSpy: the ideal-memory cycles beside the simulated stall, when the
         * program has plugin blocks and llvm-mca is there (else no estimate is shown). */
        double ideal = 0;
        const char *cpu = ms_blockcost_host_cpu();
        if (raw->nblocks && ms_ideal_cycles(raw, cpu, &ideal, why, sizeof why) == 0 && ideal > 0) {
            m->ideal_cpu = strdup(cpu);
            m->ideal_cycles = m->ideal_cpu ? ideal : 0;
        }
        return 0;
    }
    ms_model_free(m);
    return -1;
}
