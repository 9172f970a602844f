/* Code built without memspy's instrumentation; see coverage.h. */
#include "coverage.h"
#include <stdlib.h>
#include <string.h>
#include "../util/strbuf.h"

static int in_module(const ms_raw_module *m, uint64_t pc) { return pc >= m->lo && pc < m->hi; }

char *ms_uninstrumented_note(const ms_raw *raw)
{
    if (!raw->nblocks || !raw->nmodules) return NULL; /* no plugin: no blocks anywhere to tell by */
    ms_strbuf list = MS_STRBUF_INIT;
    size_t listed = 0;
    for (size_t mi = 0; mi < raw->nmodules; mi++) {
        const ms_raw_module *m = &raw->modules[mi];
        int blocks = 0, contexts = 0;
        for (size_t i = 0; i < raw->nblocks && !blocks; i++) blocks = in_module(m, raw->blocks[i].pc);
        for (size_t i = 0; i < raw->ncontexts && !blocks && !contexts; i++)
            contexts = in_module(m, raw->contexts[i].pc);
        if (blocks || !contexts || !m->path) continue;
        const char *base = strrchr(m->path, '/');
        ms_strbuf_addf(&list, "%s%s", listed++ ? ", " : "", base ? base + 1 : m->path);
    }
    char *note = NULL;
    if (listed && !list.oom)
        note = ms_strprintf("code built without memspy-cc (%s) is seen only through the memory and string "
                            "functions it calls (memcpy, memset, ...): its own loads and stores are not "
                            "simulated; a program that spends its time there is profiled only in part (build "
                            "the library with memspy-cc to see it whole)",
                            list.s);
    ms_strbuf_free(&list);
    return note;
}
