/* `memspy annotate` on an MTOOL run: the source of the measurable objects with the most memory
 * overhead, each range marked, under a header with its estimated and measured time — MTOOL's
 * "which lines are the bottleneck", the text counterpart of the HTML histogram's excerpts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../util/util.h"
#include "report.h"
#include "text_fmt.h"

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Whether the mobject's file is `file`: the same path, a path suffix of it, or its basename. */
static int names_file(const char *mfile, const char *file)
{
    if (!mfile) return 0;
    size_t lm = strlen(mfile), lf = strlen(file);
    if (!strcmp(mfile, file)) return 1;
    if (lf < lm && !strcmp(mfile + lm - lf, file) && mfile[lm - lf - 1] == '/') return 1;
    return !strcmp(base_name(mfile), base_name(file));
}

/* Lines [lo, hi] of the mobject's source with its own lines marked '>'; a note if unreadable. */
static void put_excerpt(FILE *out, const ms_mobject *mo, int context)
{
    char *text = NULL;
    if (!mo->file || ms_read_file(mo->file, 0, &text, NULL) != MS_READ_OK) {
        fprintf(out, "    (source %s not readable)\n", mo->file ? ms_term(mo->file) : "unknown");
        return;
    }
    int lo = mo->line - context, hi = mo->end_line + context, n = 1;
    for (char *p = text; *p && n <= hi; n++) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = '\0';
        if (n >= lo) fprintf(out, "  %c %5d  %s\n", n >= mo->line && n <= mo->end_line ? '>' : ' ', n, ms_term(p));
        if (!nl) break;
        p = nl + 1;
    }
    free(text);
}

int ms_report_mtool_annotate(FILE *out, const ms_mtool_result *r, const char *file, int hot, int context, char *err,
                             size_t errlen)
{
    size_t shown = 0, limit = hot > 0 ? (size_t)hot : (size_t)-1;
    for (size_t i = 0; i < r->nmobjects && shown < limit; i++) {
        const ms_mobject *mo = &r->mobjects[i];
        if (file && !names_file(mo->file, file)) continue;
        if (!file && !mo->timable) continue; /* the whole run: the ones with an overhead */
        fprintf(out, "%s#%zu %s %s, %s:%d-%d: estimated %.4f s, measured %.4f s", shown ? "\n" : "", i + 1,
                mo->kind == MS_MOBJ_LOOP ? "loop in" : "procedure", ms_term(mo->function ? mo->function : "??"),
                ms_term(mo->file ? base_name(mo->file) : "??"), mo->line, mo->end_line, mo->estimated_s,
                mo->measured_s);
        if (mo->timable)
            fprintf(out, ", memory overhead %.0f%% (%s extra cycles per memory operation)\n", 100.0 * mo->overhead,
                    ms_fmt_extra_cycles(mo->extra_cycles_per_memop).s);
        else
            fprintf(out, ", untimable (%s)\n", mo->nwarnings ? mo->warnings[0] : "?");
        put_excerpt(out, mo, context);
        shown++;
    }
    if (!shown) {
        snprintf(err, errlen, "%s",
                 file ? "no measurable object of this MTOOL run is in that file"
                      : "no timable measurable object in this MTOOL run");
        return -1;
    }
    return ferror(out) ? -1 : 0;
}
