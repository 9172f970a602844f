/* MTOOL's result: freeing it (the type is described in mtool.h). */
#include "mtool.h"
#include <stdlib.h>
#include <string.h>

const char *ms_mobject_warning(const char *text)
{
    static const char *const known[] = { MS_MOBJ_WARN_TOO_SHORT, MS_MOBJ_WARN_NO_ESTIMATE, MS_MOBJ_WARN_RECURSIVE,
                                         MS_MOBJ_WARN_HEURISTIC, MS_MOBJ_WARN_SHARED,      MS_MOBJ_WARN_LINES };
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (!strcmp(known[i], text)) return known[i];
    return NULL;
}

void ms_mtool_result_free(ms_mtool_result *r)
{
    for (size_t i = 0; i < r->nmobjects; i++) {
        free(r->mobjects[i].function);
        free(r->mobjects[i].file);
    }
    free(r->mobjects);
    free(r->cpu_model);
    memset(r, 0, sizeof *r);
}

int ms_mtool_chain_misfit(const ms_mtool_chain *c, double *off)
{
    *off = c->core_cycles > 0 && c->model_cycles > 0 ? c->model_cycles / c->core_cycles - 1 : 0;
    return *off > MS_MTOOL_CHAIN_TOLERANCE || *off < -MS_MTOOL_CHAIN_TOLERANCE;
}
