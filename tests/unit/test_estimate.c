/* MTOOL then MemSpy (issue 13 item 3): a run's ideal-memory cycles beside its simulated stall:
 * the matrix view's "Estimated Execution Time" line (ideal + stall, stall's share) and the
 * JSON "estimate" object read back exactly; no line and no object without an estimate. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "model_fixture.h"
#include "modelio/modelio.h"
#include "report/report.h"

static char *matrix_text(const ms_model *m)
{
    char *text = NULL;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    ms_matrix_opts opts = { 8, 6 };
    CHECK_EQ(ms_report_matrix(f, m, &opts), 0);
    fclose(f);
    return text;
}

int main(void)
{
    ms_model m;
    fixture_build(&m); /* 1000 stall cycles */
    char *t = matrix_text(&m);
    CHECK(strstr(t, "Estimated Execution Time") == NULL);
    free(t);
    m.ideal_cycles = 3000;
    m.ideal_cpu = strdup("znver3");
    t = matrix_text(&m);
    CHECK_CONTAINS(t,
                   "Total Memory Stall Time: 1000 cycles\n"
                   "Estimated Execution Time: 4000 cycles (ideal memory 3000 on znver3 + stall); memory stall 25.0%\n");
    free(t);
    char *json = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&json, &len);
    CHECK_EQ(ms_json_write(f, &m), 0);
    fclose(f);
    ms_model back;
    char err[256];
    CHECK_EQ(ms_json_read_buffer("test", json, len, &back, err, sizeof err), 0);
    CHECK(back.ideal_cycles == 3000);
    CHECK_STR(back.ideal_cpu, "znver3");
    ms_model_free(&back);
    free(json);
    ms_model_free(&m);
    return check_result();
}
