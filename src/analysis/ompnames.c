/* OpenMP region names (ompnames.h). gcc gives outlined functions no source line of their own
 * (DW_AT_decl_line is absent), so the construct is read from the pragma above the region's
 * first line; the words naming the construct are kept, the clauses dropped. */
#define _GNU_SOURCE /* asprintf, strcasestr */
#include "ompnames.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How far above the region's first line the pragma may be (a loop header, comments). */
#define PRAGMA_LOOKBACK 12

bool ms_omp_outlined(const char *func) { return strstr(func, "._omp_fn.") || strstr(func, "omp_outlined"); }

/* The construct words after "omp" in line (directive-name words only: clauses end it), e.g.
 * "parallel for" from "#pragma omp parallel for schedule(static)". 0 if line is no pragma. */
static int construct(const char *line, char *out, size_t outlen)
{
    static const char *const words[] = { "parallel", "for",       "do",       "simd",  "sections",   "single",
                                         "master",   "task",      "taskloop", "teams", "distribute", "target",
                                         "loop",     "workshare", "critical", NULL };
    const char *p = strcasestr(line, "#pragma omp");
    if (p)
        p += strlen("#pragma omp");
    else if ((p = strcasestr(line, "!$omp")))
        p += strlen("!$omp");
    else
        return 0;
    out[0] = '\0';
    size_t used = 0;
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        size_t n = 0;
        while (isalpha((unsigned char)p[n]) || p[n] == '_') n++;
        bool known = false;
        for (int i = 0; n && words[i]; i++)
            if (strlen(words[i]) == n && strncasecmp(p, words[i], n) == 0) known = true;
        if (!known || used + n + 2 > outlen) break;
        if (used) out[used++] = ' ';
        for (size_t i = 0; i < n; i++) out[used++] = (char)tolower((unsigned char)p[i]);
        out[used] = '\0';
        p += n;
    }
    if (!used) snprintf(out, outlen, "region");
    return 1;
}

char *ms_omp_region_name(ms_source_cache *src, const char *func, const char *file, int first_line)
{
    char parent[256];
    const char *dot = strstr(func, "._omp_fn.");
    if (dot && (size_t)(dot - func) < sizeof parent) {
        memcpy(parent, func, (size_t)(dot - func));
        parent[dot - func] = '\0';
    } else {
        snprintf(parent, sizeof parent, "%s", "omp");
    }
    const char *base = file ? strrchr(file, '/') : NULL;
    base = base ? base + 1 : file ? file : "??";
    /* The construct gcc outlines is a parallel (or task, teams, target) region: a worksharing
     * pragma nearer the first line (`omp for` inside `omp parallel { ... }`) is inside it. */
    char what[128] = "region", cand[128];
    int line = first_line;
    bool any = false;
    for (int l = first_line; file && l > 0 && l > first_line - PRAGMA_LOOKBACK; l--) {
        char *text = ms_source_line(src, file, l);
        if (!text) break;
        int found = construct(text, cand, sizeof cand);
        free(text);
        if (!found) continue;
        if (!any || strstr(cand, "parallel") || strstr(cand, "task") || strstr(cand, "teams") ||
            strstr(cand, "target")) {
            snprintf(what, sizeof what, "%s", cand);
            line = l;
            any = true;
        }
        if (strstr(cand, "parallel") || strstr(cand, "task") || strstr(cand, "teams") || strstr(cand, "target")) break;
    }
    char *out = NULL;
    if (strcmp(parent, "omp") == 0) return asprintf(&out, "omp %s %s:%d", what, base, line) < 0 ? NULL : out;
    return asprintf(&out, "%s: omp %s %s:%d", parent, what, base, line) < 0 ? NULL : out;
}
