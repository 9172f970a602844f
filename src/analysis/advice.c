/* Advice (findings.h): the fix that MemSpy's and ccSIM's case studies apply to each kind of
 * finding, chosen from its evidence, and for a change of data layout the `memspy whatif`
 * command that predicts its effect from a recording (docs/whatif.md):
 *   false sharing        pad (an array's elements) or align (separate allocations) what
 *                        different processors write to a coherence unit each;
 *   true sharing         under a lock: privatise (a private copy per processor, combined once);
 *                        else give each processor the part it writes;
 *   self-interference    conflict among rows: pad the leading dimension; capacity: block or
 *                        interchange the loops;
 *   cross-interference   conflict: offset one of the two by half a cache way; capacity: fuse
 *                        or block the loops so that both fit;
 *   first reference      touch fewer bytes (smaller or packed data) or prefetch;
 * and before those, where the cell uses under half of the bytes its misses bring into L1
 * (spatial utilisation, docs/simulator.md) and the evidence says why:
 *   parallel arrays      the same code reads another bin as often, as wastefully: merge the
 *                        two into one array of structs;
 *   array of structs     an element type that is no scalar: split the structure (the fields
 *                        this code uses apart from the rest). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analyze.h"
#include "fields.h"
#include "findings.h"

__attribute__((format(printf, 3, 4))) static void put(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/* The recording the whatif command names: REC (the user's `memspy run --record REC`; a run
 * and its resim give the same advice), or for a whatif prediction its directory and changes
 * (a further change adds to them; a later one on the same bin replaces the earlier). */
static void recording(const ms_model *m, char *buf, size_t len)
{
    const char *o = m->origin, *dir = o && strncmp(o, "whatif of ", 10) == 0 ? o + 10 : NULL;
    size_t n = dir ? strcspn(dir, ":") : 0;
    if (!dir || !n || strcspn(dir, "' ") < n || dir[n] != ':' || dir[n + 1] != ' ')
        put(buf, len, "REC");
    else
        put(buf, len, "%.*s %s", (int)n, dir, dir + n + 2);
}

/* Replacement misses of the cell at level that are conflicts, 0..1. */
static double conflict_share(const ms_cell *cell, int level)
{
    const ms_level_counters *l = &cell->c.level[level];
    uint64_t cap = l->cause[MS_CAUSE_CAPACITY], conf = l->cause[MS_CAUSE_CONFLICT];
    return cap + conf ? (double)conf / (double)(cap + conf) : 0.0;
}

static void false_sharing(const ms_model *m, const ms_finding *f, const char *rec, ms_finding *out)
{
    const ms_data_bin *d = &m->data[f->data];
    unsigned unit = ms_config_coherence_unit(&m->config);
    uint64_t elem = ms_name_element_size(d->name);
    if (d->kind == MS_BIN_HEAP && d->objects > 1) {
        put(out->advice, sizeof out->advice,
            "align each allocation of %s to a %u-byte coherence unit of its own (aligned_alloc(%u, ...)), so that "
            "allocations written by different processors never share one",
            d->name, unit, unit);
        put(out->whatif, sizeof out->whatif, "memspy whatif %s --align '%s=%u'", rec, d->name, unit);
    } else if (elem && elem < unit) {
        put(out->advice, sizeof out->advice,
            "pad each element of %s to %u bytes (one coherence unit each, e.g. a struct with the value and "
            "padding, aligned to %u), or give each processor a private copy combined at the end",
            d->name, unit, unit);
        put(out->whatif, sizeof out->whatif, "memspy whatif %s --pad '%s=%u'", rec, d->name, unit);
    } else {
        put(out->advice, sizeof out->advice,
            "pad or align the parts of %s that different processors write so that each fills whole %u-byte "
            "coherence units (ELEMBYTES: the bytes one processor writes)",
            d->name, unit);
        put(out->whatif, sizeof out->whatif, "memspy whatif %s --row '%s=ELEMBYTES' --pad '%s=%u'", rec, d->name,
            d->name, unit);
    }
}

static void true_sharing(const ms_model *m, const ms_cell *cell, ms_finding *out)
{
    const ms_inval_counters *v = &cell->c.inval;
    const char *data = m->data[cell->data].name;
    if (v->with_lock && 2 * v->with_lock >= v->true_in + v->false_in)
        put(out->advice, sizeof out->advice,
            "privatise %s: let each processor update a private copy and combine the copies once after the "
            "loop (a reduction), instead of updating the shared words under the lock",
            data);
    else
        put(out->advice, sizeof out->advice,
            "communicate less: give each processor the part of %s it writes (the owner computes), or batch "
            "the updates so that each line moves between processors less often",
            data);
}

size_t ms_pad_candidates(uint64_t row, uint64_t width, unsigned line, uint64_t way, uint64_t *out, size_t max)
{
    uint64_t piece = line ? line : 64, c[3];
    size_t n = 0, k = 0;
    while (piece < width) piece *= 2;
    if (2 * piece <= way) {
        uint64_t p = (row / piece + 1) * piece; /* more than the row, a multiple of the piece */
        if ((p / piece) % 2 == 0) p += piece;   /* an odd number of pieces */
        c[n++] = p;
        c[n++] = p + 2 * piece;
    }
    c[n++] = row + line;
    for (size_t i = 0; i < n && k < max; i++) {
        int dup = 0;
        for (size_t j = 0; j < k; j++) dup |= out[j] == c[i];
        if (!dup) out[k++] = c[i];
    }
    return k;
}

size_t ms_finding_pad_candidates(const ms_model *m, const ms_finding *f, uint64_t *out, size_t max)
{
    if (f->data >= m->ndata || !m->data[f->data].row_bytes) return 0;
    for (size_t i = 0; i < m->ncells; i++) {
        const ms_cell *cell = &m->cells[i];
        if (cell->code != f->code || cell->data != f->data) continue;
        int level = ms_finding_level(m, &cell->c);
        const ms_level_config *lc = &m->config.level[level < m->config.nlevels ? level : 0];
        const ms_data_bin *d = &m->data[f->data];
        return ms_pad_candidates(d->row_bytes, d->row_width, lc->line, lc->ways ? lc->size / lc->ways : lc->size, out,
                                 max);
    }
    return 0;
}

/* Self-interference of a matrix whose row length is known: pad its rows to the length the
 * advice's re-simulation found best, else to the first candidate. */
static void pad_rows(const ms_model *m, const ms_data_bin *d, const ms_level_config *lc, uint64_t way, const char *rec,
                     ms_finding *out)
{
    uint64_t pad = d->row_pad, elem = ms_name_element_size(d->name), c[3];
    size_t n = ms_pad_candidates(d->row_bytes, d->row_width, lc->line, way, c, 3);
    if (!pad) pad = c[0];
    char why[200], in_elems[64] = "";
    if (elem && d->row_bytes % elem == 0 && pad % elem == 0)
        put(in_elems, sizeof in_elems, " (a leading dimension of %llu elements instead of %llu)",
            (unsigned long long)(pad / elem), (unsigned long long)(d->row_bytes / elem));
    uint64_t stall = ms_counters_stall(&m->totals);
    if (d->row_pad && d->row_pads_tried && stall) {
        uint64_t ps = d->row_pad_stall;
        double change = 100.0 * (double)(ps <= stall ? stall - ps : ps - stall) / (double)stall;
        put(why, sizeof why,
            "re-simulating the recording with %u row lengths, this one predicts %.0f%% %s memory stall",
            d->row_pads_tried, change, ps <= stall ? "less" : "more");
    } else if (n >= 2 && (pad == c[0] || pad == c[1])) { /* one of the pads that spread the rows */
        char others[64] = "";
        for (size_t i = 0, k = 0; i < n; i++)
            if (c[i] != pad)
                put(others + strlen(others), sizeof others - strlen(others), "%s%llu", k++ ? ", " : "",
                    (unsigned long long)c[i]);
        put(why, sizeof why,
            "an odd number of the %llu-byte pieces of a row used at a time, so that the rows' pieces fall on "
            "different sets; also worth trying: %s bytes",
            (unsigned long long)(n > 1 ? (c[1] - c[0]) / 2 : lc->line), others);
    } else {
        put(why, sizeof why, "one line more than a row, so that the rows start on different sets");
    }
    put(out->advice, sizeof out->advice,
        "the rows of %s (%llu bytes each) that are reused together map onto the same sets: pad each row to %llu "
        "bytes%s, or copy the block being reused into a contiguous buffer (%s)",
        d->name, (unsigned long long)d->row_bytes, (unsigned long long)pad, in_elems, why);
    put(out->whatif, sizeof out->whatif, "memspy whatif %s --row '%s=%llu' --pad '%s=%llu'", rec, d->name,
        (unsigned long long)d->row_bytes, d->name, (unsigned long long)pad);
}

/* Whether the advice's re-simulation found that padding d's rows gains nothing. */
static int pads_gain_nothing(const ms_model *m, const ms_data_bin *d)
{
    return d->row_pads_tried && d->row_pad_stall >= ms_counters_stall(&m->totals);
}

/* Whether the recording's changes (rec: "DIR CHANGES" for a prediction) offset data already. */
static int offset_already(const char *rec, const char *data)
{
    char needle[300];
    put(needle, sizeof needle, "--offset '%s=", data);
    return strstr(rec, needle) != NULL;
}

/* bytes as about N KiB / MiB / GiB (the advice's sizes: approximate, unlike the configuration's). */
static void approx_size(char *buf, size_t n, uint64_t bytes)
{
    static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB" };
    double v = (double)bytes;
    int u = 0;
    while (u < 3 && v >= 1024.0) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, n, u && v < 10.0 ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

/* The bytes of data bin `data` the run touched: its first-reference misses in L1, a line each
 * (one processor's run; 0 for a multiprocessor's, whose processors each miss on a line first). */
static uint64_t touched_bytes(const ms_model *m, uint32_t data)
{
    if (m->nprocs > 1 || m->config.nlevels == 0) return 0;
    uint64_t cold = 0;
    for (size_t i = 0; i < m->ncells; i++)
        if (m->cells[i].data == data) cold += m->cells[i].c.level[0].cause[MS_CAUSE_COLD];
    return cold * m->config.level[0].line;
}

static void interference(const ms_model *m, const ms_cell *cell, int level, const char *rec, ms_finding *out)
{
    const ms_finding *f = out;
    const ms_data_bin *d = &m->data[f->data];
    const char *data = d->name;
    const ms_level_config *lc = &m->config.level[level < m->config.nlevels ? level : 0];
    uint64_t way = lc->ways ? lc->size / lc->ways : lc->size;
    double conflicts = conflict_share(cell, level);
    if (f->kind == MS_FINDING_CROSS_INTERFERENCE && conflicts >= 0.5) {
        const char *other = m->data[f->evictor].name;
        put(out->advice, sizeof out->advice,
            "%s and %s map onto the same cache sets: offset one of them by half a cache way (%llu bytes), e.g. "
            "by padding the allocation before it or allocating it with that offset",
            data, other, (unsigned long long)(way / 2));
        /* a prediction that offsets one of them already: the other (the same change again
         * would replace itself) */
        const char *moved = !offset_already(rec, data) ? data : !offset_already(rec, other) ? other : NULL;
        if (moved)
            put(out->whatif, sizeof out->whatif, "memspy whatif %s --offset '%s=%llu'", rec, moved,
                (unsigned long long)(way / 2));
    } else if (f->kind == MS_FINDING_SELF_INTERFERENCE && conflicts >= 0.1 && d->row_bytes &&
               !pads_gain_nothing(m, d)) {
        pad_rows(m, d, lc, way, rec, out);
    } else if (f->kind == MS_FINDING_SELF_INTERFERENCE && conflicts >= 0.5 && (d->row_none || d->row_bytes)) {
        put(out->advice, sizeof out->advice,
            "%s evicts itself mostly through conflicts (%.0f%% of its replacements) but %s: walk it in an order that "
            "keeps what is reused within %llu bytes (a cache way), or copy the part being reused into a "
            "contiguous buffer",
            data, 100.0 * conflicts,
            d->row_bytes ? "padding its rows was re-simulated and gains nothing" : "has no rows to pad",
            (unsigned long long)way);
    } else if (f->kind == MS_FINDING_SELF_INTERFERENCE && conflicts >= 0.5) {
        put(out->advice, sizeof out->advice,
            "the rows of %s that are reused together map onto the same sets: pad its leading dimension (its row "
            "length) by a line or more, or copy the block being reused into a contiguous buffer (ROWBYTES: the "
            "bytes of one row, if it has rows: a run with --record finds them and the best pad)",
            data);
        put(out->whatif, sizeof out->whatif, "memspy whatif %s --row '%s=ROWBYTES' --pad '%s=ROWBYTES+%u'", rec, data,
            data, lc->line);
    } else {
        /* a heap bin with conflicts whose rows nobody looked for: a recording would find them */
        char hint[160] = "";
        if (f->kind == MS_FINDING_SELF_INTERFERENCE && conflicts >= 0.1 && !d->row_bytes && !d->row_none &&
            d->kind == MS_BIN_HEAP)
            put(hint, sizeof hint,
                " (%.0f%% of its replacements are conflicts: if it is a matrix, a run with --record finds its rows "
                "and whether padding them helps)",
                100.0 * conflicts);
        char sizes[128] = "";
        uint64_t bytes = d->kind == MS_BIN_HEAP ? d->peak_bytes : d->bytes;
        if (bytes > lc->size) {
            char held[24], cache[24], used[64] = "";
            approx_size(held, sizeof held, bytes);
            approx_size(cache, sizeof cache, lc->size);
            /* a block far larger than what the run touched (xz's match finder, sized for its
             * dictionary, on a smaller input): the part used is what has to fit */
            uint64_t touched = touched_bytes(m, f->data);
            if (touched && touched < bytes / 2) {
                char part[24];
                approx_size(part, sizeof part, touched);
                put(used, sizeof used, ", of which the run touched %s", part);
            }
            /* a block per thread or per job, several live at once (pigz's deflate state per
             * compressing thread, pbzip2's sort arrays per block): how big one is, which is
             * what one processor's cache has to hold */
            char blocks[64] = "";
            uint64_t each = d->kind == MS_BIN_HEAP && d->objects > 1 ? d->bytes / d->objects : 0;
            if (each && 2 * bytes >= 3 * each) {
                char one[24];
                approx_size(one, sizeof one, each);
                put(blocks, sizeof blocks, ": %llu blocks of %s live at once",
                    (unsigned long long)((bytes + each / 2) / each), one);
            }
            put(sizes, sizeof sizes, " (it is %s%s%s; L%d holds %s)", held, blocks, used, level + 1, cache);
        }
        /* the loops' order helps only where they walk it; a hash table or a pointer structure
         * is used in an order the data decides (gzip's prev chains, xz's match finder) */
        put(out->advice, sizeof out->advice,
            "%s does not stay in the cache until it is used again: block or interchange the loops that walk it "
            "so that what is reused fits the cache, and walk memory with unit stride; if the data decide the "
            "order it is used in (hashing, pointers, indices), make it smaller%s or keep what is used together "
            "side by side%s",
            data, sizes, hint);
    }
}

/* Spatial utilisation below which a cell's lines are called poorly used. */
#define POOR_UTILISATION 0.5

static int poorly_used(const ms_counters *c)
{
    return c->l1_fetched_bytes && ms_counters_utilisation(c) < POOR_UTILISATION;
}

/* Another data bin that cell's code reads as often (within 10%) and as wastefully: a parallel
 * array read at the same index. NULL if none. */
static const ms_cell *parallel_bin(const ms_model *m, const ms_cell *cell)
{
    uint64_t refs = ms_counters_refs(&cell->c);
    const ms_cell *best = NULL;
    for (size_t i = 0; i < m->ncells; i++) {
        const ms_cell *o = &m->cells[i];
        uint64_t r = ms_counters_refs(&o->c);
        if (o->code != cell->code || o->data == cell->data || !poorly_used(&o->c) ||
            10 * (r > refs ? r - refs : refs - r) > refs)
            continue;
        if (!best || r > ms_counters_refs(&best->c)) best = o;
    }
    return best;
}

/* Advice from spatial utilisation (merge parallel arrays, split a structure); 1 if given. */
static int spatial(const ms_model *m, const ms_cell *cell, ms_finding *out)
{
    if (!poorly_used(&cell->c)) return 0;
    const char *data = m->data[cell->data].name, *code = m->code[cell->code].name;
    unsigned line = m->config.level[0].line;
    double u = ms_counters_utilisation(&cell->c);
    const ms_cell *other = parallel_bin(m, cell);
    if (other) {
        put(out->advice, sizeof out->advice,
            "merge %s and %s into one array of structs (struct { a; b; } ab[N], ab[i].a beside ab[i].b): %s reads "
            "both at the same pace and uses only %.1f%% and %.1f%% of the bytes of the L1 lines it fetches for "
            "them; side by side, one line fetched serves both",
            data, m->data[other->data].name, code, 100.0 * u, 100.0 * ms_counters_utilisation(&other->c));
        return 1;
    }
    if (ms_name_element_size(data)) return 0; /* an array of scalars: a stride, not a layout */
    const ms_code_bin *cb = &m->code[cell->code];
    char where[300] = "";
    if (cb->file) { /* the file's name and the code's first line */
        const char *slash = strrchr(cb->file, '/');
        snprintf(where, sizeof where, " (%s:%d)", slash ? slash + 1 : cb->file, cb->line);
    }
    if (strcmp(cell->fields, MS_FIELDS_ALL) == 0)
        put(out->advice, sizeof out->advice,
            "%s%s uses every field of the elements of %s but only %.1f%% of each L1 line it fetches (about %.0f of "
            "%u bytes): it skips elements; walk them in order, or pack the elements it visits together",
            code, where, data, 100.0 * u, u * line, line);
    else if (cell->fields[0])
        put(out->advice, sizeof out->advice,
            "split the structure of %s: %s%s uses only %s (%.1f%% of each L1 line it fetches, about %.0f of %u "
            "bytes); move %s into %s of %s own (a structure of arrays, or hot fields apart from cold ones) so "
            "that every line fetched is full of what it uses",
            data, code, where, cell->fields, 100.0 * u, u * line, line, cell->fields,
            strchr(cell->fields, ' ') ? "arrays" : "an array", strchr(cell->fields, ' ') ? "their" : "its");
    else
        put(out->advice, sizeof out->advice,
            "split the structure of %s: %s%s uses only %.1f%% of the bytes of the L1 lines it fetches (about %.0f "
            "of every %u); move the fields it uses into an array of their own (a structure of arrays, or hot "
            "fields apart from cold ones) so that every line fetched is full of them (if it uses every field but "
            "skips elements, walk them in order instead)",
            data, code, where, 100.0 * u, u * line, line);
    return 1;
}

/* The command that measures spatial utilisation for this run: `memspy resim --utilisation DIR`
 * for a re-simulated recording, else the same program under `memspy run --utilisation`. */
static void utilisation_command(const ms_model *m, char *buf, size_t len)
{
    const char *o = m->origin;
    if (o && strncmp(o, "resim of ", 9) == 0) {
        put(buf, len, "memspy resim --utilisation %s", o + 9);
        return;
    }
    size_t n = 0;
    put(buf, len, "memspy run --utilisation%s%s --", m->config.preset[0] ? " --preset " : "", m->config.preset);
    n = strlen(buf);
    for (int i = 0; i < m->argc && n + 4 < len; i++) {
        const char *a = m->argv[i];
        int plain =
            a[0] && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") == strlen(a);
        put(buf + n, len - n, plain ? " %s" : " '%s'", a);
        n += strlen(buf + n);
    }
}

/* Without utilisation (the default): a cell on a structure-typed bin ("TYPE*.var", TYPE no
 * scalar) whose L1 misses are mostly capacity misses may be fetching fields it does not use;
 * say how to find out. */
static void utilisation_hint(const ms_model *m, const ms_cell *cell, ms_finding *f)
{
    const char *data = m->data[cell->data].name;
    const ms_level_counters *l1 = &cell->c.level[0];
    uint64_t misses = l1->read_misses + l1->write_misses;
    if (m->config.utilisation || !strstr(data, "*.") || ms_name_element_size(data) || !misses ||
        2 * l1->cause[MS_CAUSE_CAPACITY] <= misses)
        return;
    char cmd[300];
    utilisation_command(m, cmd, sizeof cmd);
    size_t n = strlen(f->advice);
    put(f->advice + n, sizeof f->advice - n,
        "%sits elements are structures: if %s uses only some of their fields, splitting the structure may do "
        "more (`%s` measures the bytes of each line it uses and advises)",
        n ? "; " : "", m->code[cell->code].name, cmd);
    if (!f->whatif[0]) put(f->whatif, sizeof f->whatif, "%s", cmd);
}

void ms_finding_advise(const ms_model *m, const ms_cell *cell, int level, ms_finding *f)
{
    char rec[256];
    recording(m, rec, sizeof rec);
    f->advice[0] = f->whatif[0] = '\0';
    if (f->data >= m->ndata) return;
    if ((f->kind == MS_FINDING_COLD || f->kind == MS_FINDING_REPLACEMENT || f->kind == MS_FINDING_SELF_INTERFERENCE ||
         f->kind == MS_FINDING_CROSS_INTERFERENCE) &&
        cell && spatial(m, cell, f))
        return;
    switch (f->kind) {
    case MS_FINDING_FALSE_SHARING: false_sharing(m, f, rec, f); break;
    case MS_FINDING_TRUE_SHARING: true_sharing(m, cell, f); break;
    case MS_FINDING_SELF_INTERFERENCE:
    case MS_FINDING_CROSS_INTERFERENCE:
    case MS_FINDING_REPLACEMENT: interference(m, cell, level, rec, f); break;
    case MS_FINDING_COLD:
        put(f->advice, sizeof f->advice,
            "each line of %s is missed the first time it is touched: touch fewer bytes (smaller types, the "
            "fields used together packed together) or prefetch it ahead of use",
            m->data[f->data].name);
        break;
    default: break;
    }
    if (cell && f->kind != MS_FINDING_FALSE_SHARING && f->kind != MS_FINDING_TRUE_SHARING) utilisation_hint(m, cell, f);
}
