/* MTOOL's result: freeing it (the type is described in mtool.h). */
#include "mtool.h"
#include <stdlib.h>
#include <string.h>

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
